package detect

import (
	"fmt"
	"strings"
)

// Kind is the kind of a lightweight [Signal].
type Kind uint8

// The signal kinds. The zero Kind is invalid.
const (
	// Frustration: a frustration pattern matched a human message.
	Frustration Kind = iota + 1
	// Success: a success pattern matched a human message.
	Success
	// UserCorrection: a human message corrects the agent ("no, that's wrong",
	// "I meant …", "actually … not").
	UserCorrection
	// Interrupt: the human interrupted the agent mid-turn (an event of kind
	// analyze.KindInterrupt).
	Interrupt
	// BuildFailure: a tool output shows a failed build.
	BuildFailure
	// TestFailure: a tool output shows failing tests.
	TestFailure
	// LintError: a tool output shows lint errors.
	LintError
	// ToolFailure: the source flagged the tool call as failed (analyze.ToolStatusError)
	// and no textual rule named a build or test failure.
	ToolFailure
	// BuildSuccess: a tool output shows a successful build.
	BuildSuccess
	// TestSuccess: a tool output shows passing tests.
	TestSuccess
	// LintSuccess: a lint or type check passed (its command succeeded, or its output
	// says so: "0 issues.", "Success: no issues found").
	LintSuccess
	// ToolSuccess: a command that is neither a build, a test, a lint nor an exploration
	// ("git push", "python script.py", an MCP tool) succeeded by the source's status; it
	// ends that command's failure streak. The per-session detector keeps it only when
	// the same command failed before (see LightweightDetector.Detect).
	ToolSuccess
	// ToolRejected: the human declined the tool call at Claude Code's permission prompt
	// ("The user doesn't want to proceed with this tool use"). It is no failure of the
	// agent's approach.
	ToolRejected

	// The human-text friction signals loopwatch adds to the seed's (see
	// [FrictionConfig]); new kinds are added after these so stored values keep their
	// meaning.

	// RepeatRequest: a human message repeats an earlier request of the session.
	RepeatRequest
	// InterruptRedirect: the human message right after an interrupt redirects the
	// agent (it is neither approval nor the interrupted request sent again).
	InterruptRedirect
	// NegationReply: a reply led by a negation ("no, use X", "nope", "não", "不是").
	NegationReply
	// StillProblem: something still, or again, goes wrong ("still not working", "same
	// error again", "还是不行").
	StillProblem
	// Doubt: doubt about the agent's work ("did you even…", "are you sure", "??").
	Doubt
	// CorrectionPhrase: a lexicon correction in any language ("that's wrong", "I
	// meant", "eso está mal", "我是说").
	CorrectionPhrase
	// Exasperation: an exasperated interjection or emoji ("wtf", "ugh", "😤").
	Exasperation
	// GiveUp: the human gives up on the agent doing the task ("forget it", "I'll do
	// it myself", "算了", "laisse tomber").
	GiveUp

	// ToolInconclusive: a command ran (a build, a test, a lint, another command) but
	// its outcome cannot be read — its exit status hidden behind a pipe, ";" or "||"
	// ("go test ./... 2>&1 | tail -20") or not recorded, and its output naming no
	// verdict. It ends the command's failure streak: a streak counts failures in a
	// row, and this run may have passed. The per-session detector keeps it only when
	// the command failed before (see LightweightDetector.Detect).
	ToolInconclusive
)

// NumKinds is one more than the largest [Kind]: the length of an array indexed by Kind.
const NumKinds = int(ToolInconclusive) + 1

// String returns the snake_case name of k ("frustration", "build_failure", ...), or
// "kind(N)" for an invalid value.
func (k Kind) String() string {
	switch k {
	case Frustration:
		return "frustration"
	case Success:
		return "success"
	case UserCorrection:
		return "user_correction"
	case Interrupt:
		return "interrupt"
	case BuildFailure:
		return "build_failure"
	case TestFailure:
		return "test_failure"
	case LintError:
		return "lint_error"
	case ToolFailure:
		return "tool_failure"
	case BuildSuccess:
		return "build_success"
	case TestSuccess:
		return "test_success"
	case LintSuccess:
		return "lint_success"
	case ToolSuccess:
		return "tool_success"
	case ToolRejected:
		return "tool_rejected"
	case RepeatRequest:
		return "repeat_request"
	case InterruptRedirect:
		return "interrupt_redirect"
	case NegationReply:
		return "negation_reply"
	case StillProblem:
		return "still_problem"
	case Doubt:
		return "doubt"
	case CorrectionPhrase:
		return "correction_phrase"
	case Exasperation:
		return "exasperation"
	case GiveUp:
		return "give_up"
	case ToolInconclusive:
		return "tool_inconclusive"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// ParseKind is the inverse of [Kind.String].
func ParseKind(s string) (Kind, error) {
	for k := Frustration; int(k) < NumKinds; k++ {
		if k.String() == s {
			return k, nil
		}
	}
	return 0, fmt.Errorf("detect: unknown signal kind %q", s)
}

// MarshalText encodes k by name, so signals and tool rules read well in JSON.
func (k Kind) MarshalText() ([]byte, error) {
	if k == 0 || int(k) >= NumKinds {
		return nil, fmt.Errorf("detect: invalid signal kind %d", uint8(k))
	}
	return []byte(k.String()), nil
}

// UnmarshalText decodes a kind name.
func (k *Kind) UnmarshalText(b []byte) error {
	v, err := ParseKind(string(b))
	if err != nil {
		return err
	}
	*k = v
	return nil
}

// IsToolFailure reports whether k is a failure read from tool output (build, test,
// lint or an explicitly flagged tool error).
func (k Kind) IsToolFailure() bool {
	return k == BuildFailure || k == TestFailure || k == LintError || k == ToolFailure
}

// IsToolSuccess reports whether k is a success read from tool output (build, test,
// lint, or another command's).
func (k Kind) IsToolSuccess() bool {
	return k == BuildSuccess || k == TestSuccess || k == LintSuccess || k == ToolSuccess
}

// IsHumanFriction reports whether k is read from the human's text or turn-taking as
// friction: the seed's frustration, correction and interrupt, and loopwatch's
// friction signals.
func (k Kind) IsHumanFriction() bool {
	switch k {
	case Frustration, UserCorrection, Interrupt, RepeatRequest, InterruptRedirect, NegationReply, StillProblem,
		Doubt, CorrectionPhrase, Exasperation, GiveUp:
		return true
	}
	return false
}

// Signal is one thing the lightweight detector noticed in one event.
type Signal struct {
	Kind Kind `json:"kind"`
	// Failed and Passed are a TestFailure's counts of failing and passing tests, read
	// from the counts that close the run's output ([ReadTestSummary]; passing: the
	// tests run and not failed where the runner counts no passes; at most 65535), 0
	// where it has none: how far the suite is from passing, so that a run with fewer
	// tests failing, or more passing, is progress and not the same failure again. A
	// TestSuccess carries Passed, the tests its run passed, so that one test's pass is
	// not read as its suite's.
	Failed uint16 `json:"failed,omitempty"`
	Passed uint16 `json:"passed,omitempty"`
	// Source names what produced the signal: the pattern's regular expression for
	// Frustration, Success and UserCorrection; the tool rule's name for tool signals;
	// "is_error" for a ToolFailure read from the explicit status; "interrupt" for an
	// Interrupt.
	Source string `json:"source,omitempty"`
	// Target names what a tool signal is about, so that a success ends the failure
	// streak of the same kind of command only: a toolchain and its step ("go test",
	// "cargo build", "npm lint", "make test"), another command's program and first
	// argument ("git push"), or a tool's name ("mcp__x__create"). Empty for human
	// signals and for the seed's literal tool rules, which know no command.
	Target string `json:"target,omitempty"`
}

// Has reports whether signals contains a signal of kind k.
func Has(signals []Signal, k Kind) bool {
	for _, s := range signals {
		if s.Kind == k {
			return true
		}
	}
	return false
}

// Count returns how many of signals are of kind k.
func Count(signals []Signal, k Kind) int {
	n := 0
	for _, s := range signals {
		if s.Kind == k {
			n++
		}
	}
	return n
}

// SameSuite reports whether a passing test run of target a speaks for the failing
// tests of target b: both are test commands' targets ("go test", "npm test", "make
// test": a toolchain and its step, see [Signal].Target), and of one toolchain — node's
// runners and npm's scripts are one — or one of them is a task runner's (make, just,
// task, mise, rake, ninja, and a monorepo's nx, turbo and lerna), which may run any
// toolchain's suite. A project's own script ("bin/test": "script test") is a suite
// of its own, whatever runs beside it: a scratch file named for a task must not end
// another suite's streak, nor a runner's pass end its. A passing "go test" says
// nothing of "npm test" failing in the same repository.
func SameSuite(a, b string) bool {
	ta, oka := strings.CutSuffix(a, " test")
	tb, okb := strings.CutSuffix(b, " test")
	if !oka || !okb || strings.Contains(ta, " ") || strings.Contains(tb, " ") {
		return false
	}
	if ta == projectScripts || tb == projectScripts {
		return ta == tb // a project's own script is a suite of its own (see the doc)
	}
	return family(ta) == family(tb) || taskRunner(ta) || taskRunner(tb)
}

// projectScripts is the toolchain of a project's own scripts' steps ("script test":
// "bin/test", "scripts/lint.sh").
const projectScripts = "script"

// family is the toolchain whose tools a command rule's toolchain runs, as its
// output's rules name it: npm's scripts and a monorepo's runners (nx, turbo, lerna)
// run node's, Maven and Gradle run Java's.
func family(tc string) string {
	switch tc {
	case "npm", "nx", "turbo", "lerna":
		return "node"
	case "maven", "gradle":
		return "java"
	}
	return tc
}

// taskRunner reports whether toolchain tc runs tasks of any toolchain: make, just,
// task, mise, rake, ninja, nx, turbo, lerna.
func taskRunner(tc string) bool {
	switch tc {
	case "make", "just", "task", "mise", "rake", "ninja", "nx", "turbo", "lerna":
		return true
	}
	return false
}
