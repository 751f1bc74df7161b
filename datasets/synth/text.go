package synth

import (
	"fmt"
	"math/rand/v2"
)

// checks is quasar's filter chain in order; claims is last and never chosen to fail
// repeatedly (its failures need coordination, not code fixes).
var checks = []string{"build", "vet", "lint", "test", "claims"}

var severities = []string{"critical", "major", "major", "minor"}

var titles = []string{
	"Wire struggle detection into the worker group",
	"Add a filter fix loop before the outer cycle bounce",
	"Render the phase DAG in the cockpit view",
	"Persist nebula state after every phase transition",
	"Stream reviewer findings into the status bar",
	"Retry agent invocations on transient API errors",
	"Add claims checking to the filter chain",
	"Split the architect prompt into plan and decompose modes",
}

// phases holds the nebula phase id of each title's task, as quasar records it in a
// trace's task_start: what the task is about, never how its run went.
var phases = []string{
	"struggle-detection",
	"filter-fix-loop",
	"cockpit-dag",
	"nebula-state",
	"status-findings",
	"agent-retry",
	"claims-check",
	"architect-modes",
}

// findingPool holds review findings of realistic length (≥ 10 words).
var findingPool = []string{
	"the handler in internal/loop/loop.go does not close the response body on the error path",
	"FilterHistory is appended before the filter chain runs so the last entry is always empty",
	"the new test only covers the happy path and never exercises the budget exceeded branch",
	"budget check compares against the per call cap instead of the remaining phase budget",
	"the goroutine started in Start leaks when the context is cancelled before the first tick",
	"error from json.Unmarshal is ignored so a corrupt state file silently resets progress",
	"the status bar truncates multi byte characters in the middle and breaks the terminal layout",
	"the decomposition prompt is built with fmt.Sprintf and an unescaped user supplied title",
	"the cycle counter is incremented twice when the reviewer output contains two APPROVED lines",
	"the mutex protecting the phase map is copied by value in the String method of the tracker",
	"exported function ParseFindings lacks a doc comment and its behaviour on empty input is undocumented",
	"the retry loop sleeps with time.Sleep and ignores context cancellation during the backoff delay",
	"test helper writes into the repository working tree instead of using t.TempDir for its files",
	"the claims check compares relative and absolute paths so every modified file looks unclaimed",
	"a nil findings slice is marshalled as null which the TUI decoder treats as a parse error",
	"the worker pool size is read from the config after the workers have already been started",
	"the new flag is registered but never wired into the loop so setting it has no effect",
	"the commit message summary is not trimmed and keeps a trailing newline from the coder output",
	"the phase state transition from in_progress to done skips writing the report to the state file",
	"division by the number of cycles panics when a phase is resumed with zero completed cycles",
	"the lint fix loop runs go fmt on the whole module instead of the files the coder changed",
	"reviewer findings are deduplicated by title only so different issues with one prefix collapse",
	"the cache key ignores the model name so responses from different models are mixed up",
	"the TOML writer sorts phases by name which reorders the dependency graph in the saved file",
}

var synonyms = map[string]string{
	"the": "this", "does": "did", "is": "remains", "never": "still never", "so": "therefore",
	"new": "added", "instead": "rather", "when": "whenever", "and": "plus", "a": "one",
	"of": "in", "on": "for", "from": "out of", "by": "via",
}

// filterOutput returns Go tool output of a failing check, as quasar's filter records it.
func filterOutput(check, task string, rng *rand.Rand) string {
	line := 20 + rng.IntN(300)
	switch check {
	case "build":
		return fmt.Sprintf("# github.com/papapumpkin/quasar/internal/loop\ninternal/loop/loop.go:%d:9: undefined: runFilterFixLoop\ninternal/loop/loop.go:%d:2: declared and not used: fixed\n", line, line+4)
	case "vet":
		return fmt.Sprintf("# github.com/papapumpkin/quasar/internal/filter\ninternal/filter/chain.go:%d:3: fmt.Sprintf format %%d has arg name of wrong type string\n", line)
	case "lint":
		return fmt.Sprintf("internal/loop/state.go:%d:6: exported type CycleState should have comment or be unexported (revive)\ninternal/loop/struggle.go:%d:2: ineffectual assignment to score (ineffassign)\n", line, line+31)
	case "test":
		return fmt.Sprintf("--- FAIL: TestEvaluateStruggle (0.00s)\n    --- FAIL: TestEvaluateStruggle/filter_repeat (0.00s)\n        struggle_test.go:%d: FilterRepeat = 1, want 2\nFAIL\nFAIL\tgithub.com/papapumpkin/quasar/internal/loop\t0.014s\nFAIL\n", line)
	}
	return fmt.Sprintf("Modified files not claimed by task %s:\n  internal/tui/view.go\n", task)
}
