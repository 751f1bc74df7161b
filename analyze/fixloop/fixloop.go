package fixloop

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/loopwatch/loopwatch/analyze"
	"github.com/loopwatch/loopwatch/analyze/fixloop/checkparse"
	"github.com/loopwatch/loopwatch/analyze/fixloop/filter"
	"github.com/loopwatch/loopwatch/analyze/fixloop/fixprompt"
)

// DefaultMaxFilterFixes is the number of inner fix attempts per filter failure when
// FixLoop.MaxFilterFixes is not positive.
const DefaultMaxFilterFixes = 3

// CommitSuffix ends the summary of every filter-fix commit.
const CommitSuffix = " (filter fix)"

// maxCommitSummary is quasar's cut of the task title used as a commit summary.
const maxCommitSummary = 72

// FixTools returns the tools a fix attempt may use: Read, Edit, Write and Glob — no
// Bash, so the coder cannot run commands during a fix pass. Each call returns a new
// slice.
func FixTools() []string { return []string{"Read", "Edit", "Write", "Glob"} }

// SingleCheckRunner can execute a single named check. Defined here, where it is
// consumed; satisfied by *filter.Chain.
type SingleCheckRunner interface {
	RunCheck(ctx context.Context, workDir string, name string) (*filter.CheckResult, error)
}

var _ SingleCheckRunner = (*filter.Chain)(nil)

// FixRequest is one fix invocation of the coder.
type FixRequest struct {
	Prompt    string   // the focused fix prompt
	Tools     []string // allowed tools ([FixTools]); the attempt's own copy
	BudgetUSD float64  // spend cap of this call; 0 means no cap
	WorkDir   string   // FixLoop.WorkDir
	CheckName string   // the failing check
	Attempt   int      // 1-based attempt number
	Errors    int      // structured errors the prompt lists (0: raw output fallback)
}

// FixResult is what a fix invocation reports.
type FixResult struct {
	Summary string  // the coder's reply
	CostUSD float64 // what the call cost
}

// Coder runs a fix invocation. quasar adapts its agent.Invoker (coder role, the
// request's tools as AllowedTools, BudgetUSD as MaxBudgetUSD); a replay plugs in a
// simulated coder.
type Coder interface {
	Fix(ctx context.Context, req FixRequest) (FixResult, error)
}

// CoderFunc adapts a function to [Coder].
type CoderFunc func(ctx context.Context, req FixRequest) (FixResult, error)

// Fix calls f.
func (f CoderFunc) Fix(ctx context.Context, req FixRequest) (FixResult, error) { return f(ctx, req) }

// Committer commits the work tree after a fix attempt. Its method is quasar's
// CycleCommitter.CommitCycle: label is the task bead, and the commit subject is
// `<label>/cycle-<cycle>: <summary>`.
type Committer interface {
	CommitCycle(ctx context.Context, label string, cycle int, summary string) (sha string, err error)
}

// ErrBudgetExceeded is what [StateBudget]'s errors match with errors.Is.
var ErrBudgetExceeded = errors.New("budget exceeded")

// BudgetError reports a budget breach; it matches [ErrBudgetExceeded].
type BudgetError struct {
	TotalUSD, MaxUSD float64
}

func (e *BudgetError) Error() string {
	return "Budget exceeded: $" + strconv.FormatFloat(e.TotalUSD, 'f', 4, 64) + " / $" + strconv.FormatFloat(e.MaxUSD, 'f', 2, 64)
}

// Is reports whether target is [ErrBudgetExceeded].
func (e *BudgetError) Is(target error) bool { return target == ErrBudgetExceeded }

// BudgetChecker decides after each fix attempt whether the run may go on. A non-nil
// error stops the loop and is returned unchanged.
type BudgetChecker interface {
	CheckBudget(ctx context.Context, state *analyze.CycleState) error
}

// BudgetFunc adapts a function to [BudgetChecker].
type BudgetFunc func(ctx context.Context, state *analyze.CycleState) error

// CheckBudget calls f.
func (f BudgetFunc) CheckBudget(ctx context.Context, state *analyze.CycleState) error {
	return f(ctx, state)
}

// StateBudget is quasar's checkBudget on the state's own limit: a *[BudgetError] when
// MaxBudgetUSD > 0 and TotalCostUSD ≥ MaxBudgetUSD.
type StateBudget struct{}

// CheckBudget implements [BudgetChecker].
func (StateBudget) CheckBudget(_ context.Context, s *analyze.CycleState) error {
	if s.MaxBudgetUSD <= 0 || s.TotalCostUSD < s.MaxBudgetUSD {
		return nil
	}
	return &BudgetError{TotalUSD: s.TotalCostUSD, MaxUSD: s.MaxBudgetUSD}
}

// FilterFixBudget is filterFixBudget(): a quarter of quasar's per-agent cap
// maxBudgetUSD/(2·maxCycles); 0 (no cap) when maxBudgetUSD ≤ 0. A maxCycles below 1
// counts as 1.
func FilterFixBudget(maxBudgetUSD float64, maxCycles int) float64 {
	if maxBudgetUSD <= 0 {
		return 0
	}
	return maxBudgetUSD / float64(2*max(maxCycles, 1)) / 4
}

// FixLoop is the configuration of the inner fix loop. Filter and Coder are required
// for the loop to run; everything else is optional.
type FixLoop struct {
	// Filter is the chain whose check failed. The loop runs only when it is a
	// SingleCheckRunner; nil or not, it falls through.
	Filter filter.Filter
	// Coder makes the fix attempts.
	Coder Coder
	// Committer, when set, commits after each attempt that passed the budget check.
	Committer Committer
	// Budget is checked after each attempt; nil means StateBudget.
	Budget BudgetChecker
	// MaxFilterFixes caps the attempts; ≤ 0 means DefaultMaxFilterFixes.
	MaxFilterFixes int
	// FixBudgetUSD caps each fix call; ≤ 0 means FilterFixBudget of the state's limits.
	FixBudgetUSD float64
	// WorkDir is passed to the coder and to RunCheck.
	WorkDir string
	// CommitSummary is the commit summary; "" means the task title's first line,
	// cut to 72 bytes.
	CommitSummary string
	// Parse parses check output; nil means checkparse.ParseCheckOutput.
	Parse func(filter.CheckResult) checkparse.ParseResult
	// BuildPrompt builds the fix prompt; nil means fixprompt.Build.
	BuildPrompt func(fixprompt.Input) string
	// OnAttempt, when set, is called after every attempt with its record — for live
	// events (quasar's filter_fix_attempt); the same records are in Result.Attempts.
	OnAttempt func(Attempt)
}

// Outcome says how a run of the loop ended.
type Outcome string

// The outcomes of [FixLoop.RunFilterFixLoop].
const (
	OutcomeFixed            Outcome = "fixed"              // the check passed after an attempt
	OutcomeExhausted        Outcome = "exhausted"          // MaxFilterFixes attempts, still failing
	OutcomeSkippedClaims    Outcome = "skipped_claims"     // claims check: never fixed here
	OutcomeSkippedNoFilter  Outcome = "skipped_no_filter"  // nil Filter (or a nil pointer in it)
	OutcomeSkippedNotRunner Outcome = "skipped_not_runner" // Filter is not a SingleCheckRunner
	OutcomeBudgetExceeded   Outcome = "budget_exceeded"    // the budget check stopped the loop
	OutcomeCancelled        Outcome = "cancelled"          // the context ended
	OutcomeError            Outcome = "error"              // coder, runner or configuration error
)

// Attempt records one coder invocation.
type Attempt struct {
	N           int           // 1-based
	Errors      int           // structured errors in the prompt (0: raw fallback)
	PromptBytes int           // length of the prompt
	CostUSD     float64       // reported by the coder (0 when it failed)
	Summary     string        // the coder's reply
	CoderErr    error         // the coder's error; the loop stopped
	CommitSHA   string        // from the Committer
	CommitErr   error         // commit failure (the loop went on)
	Rerun       bool          // the check was re-run after this attempt
	Passed      bool          // the re-run passed
	Elapsed     time.Duration // the re-run's CheckResult.Elapsed
}

// Result is the outcome of one [FixLoop.RunFilterFixLoop] call. It is complete even
// when the call returns an error.
type Result struct {
	CheckName    string
	Outcome      Outcome
	MaxAttempts  int       // attempts allowed (0 when skipped)
	FixBudgetUSD float64   // cap of each fix call
	LastOutput   string    // output of the latest run of the check (the input output if never re-run)
	Attempts     []Attempt // one per coder invocation, in order
}

// Fixed reports whether the check passed: the seed's `fixed` return value.
func (r *Result) Fixed() bool { return r.Outcome == OutcomeFixed }

// CoderCalls is the number of coder invocations.
func (r *Result) CoderCalls() int { return len(r.Attempts) }

// FailedAttempts is the number of attempts whose re-run failed: what this call added
// to CycleState.FilterFixAttempts.
func (r *Result) FailedAttempts() int {
	n := 0
	for i := range r.Attempts {
		if r.Attempts[i].Rerun && !r.Attempts[i].Passed {
			n++
		}
	}
	return n
}

// CostUSD is the total cost of this call's coder invocations: what it added to
// CycleState.TotalCostUSD and FilterFixCostUSD.
func (r *Result) CostUSD() float64 {
	var c float64
	for i := range r.Attempts {
		c += r.Attempts[i].CostUSD
	}
	return c
}

// LastCommitSHA is the SHA of the last successful commit, "" when none.
func (r *Result) LastCommitSHA() string {
	for i := len(r.Attempts) - 1; i >= 0; i-- {
		if r.Attempts[i].CommitSHA != "" && r.Attempts[i].CommitErr == nil {
			return r.Attempts[i].CommitSHA
		}
	}
	return ""
}

// MaxFixes returns the effective attempt limit (maxFilterFixes()).
func (l *FixLoop) MaxFixes() int {
	if l.MaxFilterFixes > 0 {
		return l.MaxFilterFixes
	}
	return DefaultMaxFilterFixes
}

// FixBudget returns the cap of each fix call for this state (filterFixBudget()).
func (l *FixLoop) FixBudget(state *analyze.CycleState) float64 {
	if l.FixBudgetUSD > 0 {
		return l.FixBudgetUSD
	}
	return FilterFixBudget(state.MaxBudgetUSD, state.MaxCycles)
}

// RunFilterFixLoop attempts to fix the failing check checkName, whose output was
// checkOutput, with a fast inner loop; see the package documentation for the steps and
// the readings of the seed. It updates state (TotalCostUSD, FilterFixCostUSD,
// FilterFixAttempts) and returns the run's [Result] — Fixed() is the seed's `fixed` —
// and an error when the budget check, the coder, the runner or the context stopped it.
func (l *FixLoop) RunFilterFixLoop(ctx context.Context, state *analyze.CycleState, checkName, checkOutput string) (Result, error) {
	res := Result{CheckName: checkName, LastOutput: checkOutput}

	// Guard: claims failures need coordination, not code fixes.
	if checkName == filter.CheckClaims {
		res.Outcome = OutcomeSkippedClaims
		return res, nil
	}
	if l.Filter == nil || isNilPointer(l.Filter) {
		res.Outcome = OutcomeSkippedNoFilter
		return res, nil
	}
	runner, ok := l.Filter.(SingleCheckRunner)
	if !ok {
		res.Outcome = OutcomeSkippedNotRunner
		return res, nil
	}
	if state == nil || l.Coder == nil {
		res.Outcome = OutcomeError
		return res, errors.New("fixloop: RunFilterFixLoop needs a CycleState and a Coder")
	}

	parse := l.Parse
	if parse == nil {
		parse = checkparse.ParseCheckOutput
	}
	build := l.BuildPrompt
	if build == nil {
		build = fixprompt.Build
	}
	budget := l.Budget
	if budget == nil {
		budget = StateBudget{}
	}
	maxFixes := l.MaxFixes()
	res.MaxAttempts = maxFixes
	res.FixBudgetUSD = l.FixBudget(state)
	res.Attempts = make([]Attempt, 0, min(maxFixes, 8)) // a limit set high allocates as attempts are made

	parsed := parse(filter.CheckResult{Name: checkName, Output: checkOutput})
	for n := 1; n <= maxFixes; n++ {
		if err := ctx.Err(); err != nil {
			res.Outcome = OutcomeCancelled
			return res, fmt.Errorf("fixloop: %q fix attempt %d not started: %w", checkName, n, err)
		}
		// A fresh tool list for the prompt and for the coder of every attempt: one that
		// changes the list it was given cannot widen the next attempt's tools.
		prompt := build(fixprompt.Input{
			BeadID: state.TaskBeadID, Title: state.TaskTitle, Parsed: parsed,
			Tools: FixTools(), BudgetUSD: res.FixBudgetUSD, Attempt: n, MaxAttempts: maxFixes,
		})
		res.Attempts = append(res.Attempts, Attempt{N: n, Errors: len(parsed.Errors), PromptBytes: len(prompt)})
		a := &res.Attempts[len(res.Attempts)-1]

		fr, err := l.Coder.Fix(ctx, FixRequest{
			Prompt: prompt, Tools: FixTools(), BudgetUSD: res.FixBudgetUSD, WorkDir: l.WorkDir,
			CheckName: checkName, Attempt: n, Errors: len(parsed.Errors),
		})
		if err != nil {
			a.CoderErr = err
			res.Outcome = stopOutcome(ctx)
			l.notify(a)
			return res, fmt.Errorf("fixloop: coder filter-fix invocation failed: %w", err)
		}
		if !(fr.CostUSD >= 0) || math.IsInf(fr.CostUSD, 0) {
			// A cost below zero would lower the spend the budget check reads; it is not
			// recorded as the attempt's (Result.CostUSD is what was added to the state).
			a.Summary = fr.Summary
			res.Outcome = OutcomeError
			l.notify(a)
			return res, fmt.Errorf("fixloop: the coder reported %v USD for attempt %d: a cost is a finite number ≥ 0", fr.CostUSD, n)
		}
		a.CostUSD, a.Summary = fr.CostUSD, fr.Summary
		state.TotalCostUSD += fr.CostUSD
		state.FilterFixCostUSD += fr.CostUSD

		if err := budget.CheckBudget(ctx, state); err != nil {
			res.Outcome = OutcomeBudgetExceeded
			l.notify(a)
			return res, err
		}

		if l.Committer != nil {
			a.CommitSHA, a.CommitErr = l.Committer.CommitCycle(ctx, state.TaskBeadID, state.Cycle, l.commitSummary(state)+CommitSuffix)
		}

		cr, err := runner.RunCheck(ctx, l.WorkDir, checkName)
		if err == nil && cr == nil {
			err = errors.New("runner returned no result")
		}
		if err != nil {
			res.Outcome = stopOutcome(ctx)
			l.notify(a)
			return res, fmt.Errorf("fixloop: re-running check %q: %w", checkName, err)
		}
		a.Rerun, a.Passed, a.Elapsed = true, cr.Passed, cr.Elapsed
		res.LastOutput = cr.Output
		if cr.Passed {
			res.Outcome = OutcomeFixed
			l.notify(a)
			return res, nil
		}
		parsed = parse(filter.CheckResult{Name: checkName, Passed: false, Output: cr.Output, Elapsed: cr.Elapsed})
		state.FilterFixAttempts++
		l.notify(a)
	}
	res.Outcome = OutcomeExhausted
	return res, nil
}

func (l *FixLoop) notify(a *Attempt) {
	if l.OnAttempt != nil {
		l.OnAttempt(*a)
	}
}

func stopOutcome(ctx context.Context) Outcome {
	if ctx.Err() != nil {
		return OutcomeCancelled
	}
	return OutcomeError
}

func (l *FixLoop) commitSummary(state *analyze.CycleState) string {
	if l.CommitSummary != "" {
		return l.CommitSummary
	}
	s, _, _ := strings.Cut(state.TaskTitle, "\n")
	s = strings.TrimSpace(s)
	if len(s) > maxCommitSummary {
		k := maxCommitSummary
		for k > 0 && !utf8.RuneStart(s[k]) {
			k--
		}
		s = strings.TrimSpace(s[:k])
	}
	return s
}

// isNilPointer reports whether f holds a nil pointer (a typed nil, such as a nil
// *filter.Chain), which f == nil does not catch.
func isNilPointer(f any) bool {
	v := reflect.ValueOf(f)
	return v.Kind() == reflect.Pointer && v.IsNil()
}
