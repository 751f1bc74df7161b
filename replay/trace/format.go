// Package trace reads quasar run traces: the lossless JSONL format, in quasar's
// telemetry envelope, that records every cycle of a coder–reviewer run. It is what
// quasar should emit online and what loopwatch's synthetic generator writes.
//
// # Format
//
// One JSON object per line:
//
//	{"ts": "2026-03-01T10:00:00Z", "kind": "cycle_done", "epoch": "e1", "task": "quasar-abc", "data": {...}}
//
// ts is RFC 3339 (any offset; stored as UTC), task is the quasar bead id, epoch tells
// apart re-runs of the same task (one telemetry session per run), kind selects the
// payload in data. A run is the set of events sharing (task, epoch) within one file;
// its key is "task@epoch", or "task" when epoch is empty. The kinds and their payloads
// are the exported types of this package:
//
//	task_start          [TaskStart]        optional; title, phase, limits
//	agent_done          [AgentDone]        one agent invocation and its cost
//	filter_result       [FilterResult]     one filter check's result
//	filter_fix_attempt  [FilterFixAttempt] one inner fix attempt (seed inner-fix-loop)
//	filter_fix_result   [FilterFixResult]  the inner fix loop's verdict for a failure
//	cycle_done          [CycleDone]        the CycleState snapshot at the end of a cycle
//	task_state          [TaskState]        the run's outcome; the last event of a run
//
// cycle_done is the only required kind: a run is rebuilt from its cycle_done events,
// which must number the cycles 1, 2, 3, … with a non-decreasing cumulative cost. The
// other kinds enrich the run (agent costs, filter checks) and are kept in order.
//
// # Bad input
//
// Nothing in a trace stops the replay. A line that is not JSON, has no ts, kind or
// task, has an unknown kind, a payload that is no JSON object, invalid UTF-8 or is
// longer than [MaxLine] is reported as an [input.Problem] with its file and line and
// skipped. A field of the wrong JSON type loses that field, not the event: it is
// reported (every such field named) and the event read without it; a cycle_done whose
// cycle number is unreadable takes the number after the run's cycles before it. So is
// an integer field outside the range of a 32-bit integer (the output tables' columns,
// where it would wrap), a lint_fix_calls that takes its run's total out of that range,
// and a negative max_cycles or max_budget_usd (0 is "not set"). A ts that parses to
// Go's zero time, 0001-01-01T00:00:00Z, is a far-off time like any other. A line
// holding several events (a lost newline, or an event cut off mid-write with the next
// written straight after it) is reported and its complete events are read. An event
// whose ts is a clock fault against the run's other events (more than [MaxBackstep]
// behind them, or a year away; package clockfault tells the fault from its neighbours)
// is reported and placed at its trusted neighbour's time. A run without cycle_done
// events is reported and skipped; gaps, repeats and cost decreases in the cycle
// sequence are reported and the run is kept as far as it is consistent.
package trace

import (
	"fmt"
	"strings"
	"time"

	"github.com/loopwatch/loopwatch/analyze"
)

// The event kinds of a run trace.
const (
	KindTaskStart        = "task_start"
	KindAgentDone        = "agent_done"
	KindFilterResult     = "filter_result"
	KindFilterFixAttempt = "filter_fix_attempt"
	KindFilterFixResult  = "filter_fix_result"
	KindCycleDone        = "cycle_done"
	KindTaskState        = "task_state"
)

// Envelope is quasar's telemetry envelope around every event.
type Envelope struct {
	TS    time.Time `json:"ts"`
	Kind  string    `json:"kind"`
	Epoch string    `json:"epoch,omitempty"`
	Task  string    `json:"task"`
	Data  any       `json:"data"`
}

// TaskStart opens a run. All fields are optional.
type TaskStart struct {
	Title        string  `json:"title,omitempty"`
	Phase        string  `json:"phase,omitempty"`
	MaxCycles    int     `json:"max_cycles,omitempty"`
	MaxBudgetUSD float64 `json:"max_budget_usd,omitempty"`
}

// AgentDone records one agent invocation.
type AgentDone struct {
	Cycle      int     `json:"cycle"`
	Role       string  `json:"role"` // coder | reviewer | lint_fix | filter_fix | ...
	CostUSD    float64 `json:"cost_usd"`
	DurationMS int64   `json:"duration_ms,omitempty"`
	Tokens     int64   `json:"tokens,omitempty"`
}

// FilterResult records one check of the filter chain.
type FilterResult struct {
	Cycle     int    `json:"cycle"`
	Check     string `json:"check"` // build | vet | lint | test | claims
	Passed    bool   `json:"passed"`
	Output    string `json:"output,omitempty"`
	ElapsedMS int64  `json:"elapsed_ms,omitempty"`
}

// FilterFixAttempt records one attempt of the inner filter fix loop.
type FilterFixAttempt struct {
	Cycle   int     `json:"cycle"`
	Check   string  `json:"check"`
	Attempt int     `json:"attempt"` // 1-based
	CostUSD float64 `json:"cost_usd"`
	Passed  bool    `json:"passed"` // the re-run of the check passed after this attempt
}

// FilterFixResult records how the inner filter fix loop ended for one failure.
type FilterFixResult struct {
	Cycle    int     `json:"cycle"`
	Check    string  `json:"check"`
	Fixed    bool    `json:"fixed"`
	Attempts int     `json:"attempts"`
	CostUSD  float64 `json:"cost_usd"`
}

// Finding is a review finding as a trace records it. The cycle is the cycle_done's.
type Finding struct {
	ID          string `json:"id,omitempty"` // recomputed with analyze.FindingID when empty
	Severity    string `json:"severity"`     // critical | major | minor; empty means major
	Description string `json:"description"`
	Status      string `json:"status,omitempty"` // found | fixed | still_present | regressed
}

// CycleDone is the CycleState snapshot at the end of a cycle.
type CycleDone struct {
	Cycle             int       `json:"cycle"` // 1-based
	MaxCycles         int       `json:"max_cycles"`
	TotalCostUSD      float64   `json:"total_cost_usd"` // cumulative
	MaxBudgetUSD      float64   `json:"max_budget_usd"`
	FilterCheckName   string    `json:"filter_check_name"` // "" when the chain passed
	FilterOutput      string    `json:"filter_output,omitempty"`
	Findings          []Finding `json:"findings"` // raised in this cycle
	LintFixCalls      int       `json:"lint_fix_calls"`
	Approved          bool      `json:"approved"`
	FilterFixAttempts int       `json:"filter_fix_attempts,omitempty"`
	FilterFixCostUSD  float64   `json:"filter_fix_cost_usd,omitempty"`
}

// TaskState records a run's outcome.
type TaskState struct {
	Outcome      string  `json:"outcome"` // approved | max_cycles | budget_exceeded | decomposed | error
	Cycles       int     `json:"cycles,omitempty"`
	TotalCostUSD float64 `json:"total_cost_usd,omitempty"`
	Reason       string  `json:"reason,omitempty"`
}

// reviewFinding converts a trace finding raised in cycle; bad says what of it is not
// quasar's (a severity or status it never writes, read as major or found), "" if
// nothing.
func (f Finding) reviewFinding(cycle int) (_ analyze.ReviewFinding, bad string) {
	sev := analyze.Severity(f.Severity)
	switch sev {
	case analyze.SeverityCritical, analyze.SeverityMajor, analyze.SeverityMinor:
	case "":
		sev = analyze.SeverityMajor
	default:
		bad = fmt.Sprintf("severity %q is not critical, major or minor; read as major", f.Severity)
		sev = analyze.SeverityMajor
	}
	id := f.ID
	if id == "" {
		id = analyze.FindingID(sev, f.Description)
	}
	status := analyze.FindingStatus(f.Status)
	switch status {
	case analyze.StatusFound, analyze.StatusFixed, analyze.StatusStillPresent, analyze.StatusRegressed:
	case "":
		status = analyze.StatusFound
	default:
		bad = strings.TrimPrefix(bad+"; "+fmt.Sprintf("status %q is not found, fixed, still_present or regressed; read as found", f.Status), "; ")
		status = analyze.StatusFound
	}
	return analyze.ReviewFinding{ID: id, Severity: sev, Description: f.Description, Cycle: cycle, Status: status}, bad
}
