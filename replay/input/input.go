// Package input defines what every replay source produces and the replay engine
// consumes: quasar [Run]s rebuilt cycle by cycle, and the [Problem]s found while
// reading the files they came from.
//
// It holds plain data only: no parsing, no detection, no file access.
package input

import (
	"fmt"
	"time"

	"github.com/loopwatch/loopwatch/analyze"
	"github.com/loopwatch/loopwatch/internal/printable"
)

// Outcome is how a quasar run ended.
type Outcome string

// The run outcomes. Traces record the first five in their task_state event; a run
// without a recorded end is incomplete.
const (
	OutcomeApproved       Outcome = "approved"
	OutcomeMaxCycles      Outcome = "max_cycles"
	OutcomeBudgetExceeded Outcome = "budget_exceeded"
	OutcomeDecomposed     Outcome = "decomposed"
	OutcomeError          Outcome = "error"
	OutcomeIncomplete     Outcome = "incomplete"
)

// Valid reports whether o is one of the outcomes above.
func (o Outcome) Valid() bool {
	switch o {
	case OutcomeApproved, OutcomeMaxCycles, OutcomeBudgetExceeded, OutcomeDecomposed, OutcomeError, OutcomeIncomplete:
		return true
	}
	return false
}

// CostSource says where a run's cost figures come from.
type CostSource string

// Cost sources.
const (
	CostMeasured  CostSource = "measured"  // recorded per cycle by the loop itself
	CostEstimated CostSource = "estimated" // derived from an aggregate (see the source)
	CostUnknown   CostSource = "unknown"   // nothing recorded; cost columns are zero
)

// Run is one execution of quasar's coder–reviewer loop on one task, as rebuilt from
// the input.
type Run struct {
	// Key identifies the run uniquely and stably across replays of the same input.
	Key    string
	Source string // name of the source format ("trace", "beads", ...)
	File   string // slash-separated path of the file, relative to the input root
	Line   int    // line of the run's first record in File

	TaskID string // quasar bead id
	Title  string
	Phase  string
	Epoch  string // the telemetry epoch that distinguishes re-runs of one task

	MaxCycles    int
	MaxBudgetUSD float64

	Outcome Outcome
	Reason  string // free text that came with the outcome, if any
	Start   time.Time
	End     time.Time

	Cycles []Cycle      // in cycle order, numbered 1..len(Cycles)
	Calls  []AgentCall  // agent invocations, in order, when the source records them
	Checks []CheckEvent // filter checks and fix attempts, in order, when recorded

	// FilterKnown reports whether the filter chain's result was recorded for every
	// cycle. When false, Cycle.FilterCheckName is unknown, not "passed".
	FilterKnown bool
	// CostSource says whether the Cycle.TotalCostUSD figures are measured or estimated.
	CostSource CostSource
	// LintFixKnown reports whether Cycle.LintFixCalls was recorded (a trace) or
	// reconstructed (a cycle-commit list was read). When false the counts are zero
	// because nothing told them, not because no lint fix ran.
	LintFixKnown bool

	// What quasar's history records around a run (the beads and nebula sources); zero
	// where the source does not know.
	TaskCreatedAt time.Time // when the task (bead) was created; tells apart a reused id
	TaskStatus    string    // the bead's status when it was exported: open | in_progress | closed
	CloseReason   string    // the bead's close reason; shared by every run of the bead
	Attempt       int       // 1-based index of this run among its task's runs, in time order
	Attempts      int       // number of runs of the task in the input
	Nebula        string    // name of the nebula the task is a phase of
	PhaseStatus   string    // the phase's status in nebula.state.toml
	// MaxCyclesSource and MaxBudgetSource say where MaxCycles and MaxBudgetUSD come
	// from: see the Limit* constants; "" when the source records the limits itself.
	MaxCyclesSource string
	MaxBudgetSource string
	// Report is the reviewer's closing report of an approved run, when one is recorded.
	Report *Report
	// CyclesDropped reports that the source's cycle numbers skip one, and the cycles
	// from the gap on were dropped (a problem says where): Cycles holds fewer cycles
	// than the run went through, so its length is no count of them.
	CyclesDropped bool
}

// Where a rebuilt run's limits come from, in quasar's resolution order (the first that
// sets a value wins), and the record that overrides them all.
const (
	LimitPhase   = "phase"   // the phase file's front matter
	LimitNebula  = "nebula"  // nebula.toml [execution]
	LimitConfig  = "config"  // quasar's global configuration file
	LimitDefault = "default" // quasar's built-in defaults: 3 cycles, 5.0 USD
	LimitComment = "comment" // a "Max cycles reached (N)" or "Budget exceeded: $X / $Y" comment
)

// Report is the reviewer's report that closes an approved quasar run.
type Report struct {
	Satisfaction     string // e.g. high | medium | low, as written
	Risk             string // e.g. low | medium | high, as written
	NeedsHumanReview *bool  // nil when the report does not say
	Summary          string
	// Source says where the report was read: "comment" (the bead's [reviewer report]
	// comment) or "nebula_state" (the phase's report in nebula.state.toml).
	Source string
}

// Cycle is the state of a run at the end of one of its cycles.
type Cycle struct {
	Cycle           int       // 1-based
	Time            time.Time // when the cycle ended, UTC
	TotalCostUSD    float64   // cumulative cost at the end of the cycle
	FilterCheckName string    // failing filter check; "" when the chain passed (or unknown)
	FilterOutput    string
	Findings        []analyze.ReviewFinding // raised in this cycle
	LintFixCalls    int                     // lint-fix coder calls in this cycle
	Approved        bool                    // the reviewer approved in this cycle

	FilterFixAttempts int     // recorded inner fix attempts in this cycle
	FilterFixCostUSD  float64 // their recorded cost

	Line int // the line of the record that ended the cycle in the run's file; 0 when the source records none

	// MaxCycles and MaxBudgetUSD are the limits the loop held at this cycle where the
	// source records them as they change (a trace's task_start and cycle_done); 0
	// where it does not, and the run's apply.
	MaxCycles    int
	MaxBudgetUSD float64

	// Rebuilt from history (beads source); zero when the source does not record them.
	CoderTime       time.Time // when the coder's comment for the cycle was posted, UTC
	ReviewerTime    time.Time // when the reviewer's comment for the cycle was posted, UTC
	ReviewTruncated bool      // the reviewer's comment was cut (quasar keeps 2000 bytes)
	Commits         []string  // SHAs of the cycle's commits (lint fixes included), in time order
}

// AgentCall is one recorded agent invocation.
type AgentCall struct {
	Cycle      int
	Role       string // coder | reviewer | lint_fix | filter_fix | architect | ...
	CostUSD    float64
	DurationMS int64
	Tokens     int64
	Time       time.Time
	Line       int // the call's 1-based line in the run's file; 0 when the source records none
}

// CheckEvent is one recorded filter check or inner fix attempt.
type CheckEvent struct {
	Cycle   int
	Kind    string // "filter_result", "filter_fix_attempt" or "filter_fix_result"
	Check   string
	Passed  bool // filter_result: the check passed; filter_fix_result: fixed
	Attempt int
	CostUSD float64
	Time    time.Time
	// OutputLen is a failed filter_result's output length (the output is not kept:
	// the cycle's end holds the output of the check it ends failing).
	OutputLen int
	Line      int // the event's 1-based line in the run's file; 0 when the source records none
}

// LastCycle returns the run's final cycle, or the zero Cycle when it has none.
func (r *Run) LastCycle() Cycle {
	if len(r.Cycles) == 0 {
		return Cycle{}
	}
	return r.Cycles[len(r.Cycles)-1]
}

// ProblemKind classifies a [Problem].
type ProblemKind string

// The problem kinds every source uses.
const (
	ProblemMalformed   ProblemKind = "malformed_line"  // not valid for the format (bad JSON, wrong shape)
	ProblemTruncated   ProblemKind = "truncated_line"  // a final line cut off mid-record
	ProblemInvalidUTF8 ProblemKind = "invalid_utf8"    // bytes that are not UTF-8 (replaced, line kept)
	ProblemOversize    ProblemKind = "oversize_line"   // longer than the source's line limit; skipped
	ProblemUnknownKind ProblemKind = "unknown_kind"    // a record/event kind the source does not know; skipped
	ProblemInvalid     ProblemKind = "invalid_record"  // well-formed but inconsistent or missing fields
	ProblemUnusable    ProblemKind = "unusable_run"    // a run or session that could not be rebuilt; skipped
	ProblemDuplicate   ProblemKind = "duplicate_run"   // a run key seen before; the later one is skipped
	ProblemUnknownFile ProblemKind = "unknown_file"    // no source recognises the file; skipped
	ProblemRead        ProblemKind = "read_error"      // the file could not be read (whole or in part)
	ProblemUnmatched   ProblemKind = "unmatched"       // refers to something the input does not hold (a parent, a run, a file)
	ProblemAnalysis    ProblemKind = "analysis_failed" // the session analyzer failed on a session (its outcome is unknown)
)

// Problem is one thing wrong with the input. Problems never stop a replay; the rest of
// the batch goes on.
type Problem struct {
	File   string      // slash-separated path relative to the input root
	Line   int         // 1-based line; 0 when it concerns a whole file or run
	Kind   ProblemKind //
	Detail string      // what is wrong and, where it helps, what to do
}

// Note is a counted fact about the input that is worth knowing but is not a problem:
// beads without cycle comments, reviewer comments that quasar cut, nebula phases that
// match no run. The replay's summary adds notes up by What.
type Note struct {
	What  string // what was counted, e.g. "beads: beads without cycle comments (not runs)"
	Count int
}

// Clip shortens a value a problem's detail quotes from the input to its first 60
// bytes and "…", so that one long field does not make the detail a page.
func Clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}

// String formats the problem as "file:line: kind: detail", on one line: a file name or
// detail holding a control character (a newline, an escape sequence) or invalid UTF-8
// is shown Go-quoted ([printable.Line]), never as it is.
func (p Problem) String() string {
	if p.Line > 0 {
		return fmt.Sprintf("%s:%d: %s: %s", printable.Line(p.File), p.Line, p.Kind, printable.Line(p.Detail))
	}
	return fmt.Sprintf("%s: %s: %s", printable.Line(p.File), p.Kind, printable.Line(p.Detail))
}

// Session is one agent session — a Claude Code transcript with its subagents, or one
// session of a vibes event log — as the assessment sees it: a sequence of events on
// event time.
type Session struct {
	// Key identifies the session uniquely and stably: the recorded session id, or the
	// file name when the transcript records none.
	Key    string
	Source string // name of the source format ("claude_code", "vibes_log")
	File   string // slash-separated path of the main file, relative to the input root
	Line   int    // line of the session's first record in File

	Title   string // the session's title or summary, when recorded
	Project string // working directory or project, when recorded
	Version string // the agent's version, when recorded

	Start time.Time
	End   time.Time

	// Events in replay order: non-decreasing Time (see the source for how records out
	// of time order are placed).
	Events []analyze.Event
	// Records maps each record type the source met to how many it read, skipped ones
	// included, so that nothing is dropped silently.
	Records map[string]int
	// Subagents is the number of subagent transcripts attached to the session.
	Subagents int
	// ContinuedFrom lists the session ids of the sessions this one resumed: a resumed
	// Claude Code session's file begins with records of the session it continues.
	ContinuedFrom []string
}
