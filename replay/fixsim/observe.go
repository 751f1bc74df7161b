package fixsim

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/loopwatch/loopwatch/analyze/fixloop/checkparse"
	"github.com/loopwatch/loopwatch/analyze/fixloop/filter"
	"github.com/loopwatch/loopwatch/replay/input"
)

// chainOrder is quasar's filter chain order; the chain stops at the first failure.
var chainOrder = filter.CheckNames()

func chainIndex(check string) int { return slices.Index(chainOrder, check) }

// intern returns the chain's own copy of a check name of the chain, so that the
// failures of many runs share one string per check.
func intern(check string) string {
	if i := chainIndex(check); i >= 0 {
		return chainOrder[i]
	}
	return check
}

// Failure is one recorded filter failure: cycle Cycle of a run failed check Check. It
// keeps what the parser made of the check's output, not the output: the simulated
// coder does not read it.
type Failure struct {
	Cycle      int
	Check      string
	OutputLen  int     // length of the check's output
	Errors     int     // structured errors the parser found in it
	Unparsed   int     // output lines the parser did not recognise
	CostAtFail float64 // the run's cumulative cost at the end of the failing cycle

	// Next is what the next outer cycle did about the check, for the history estimate.
	Next Transition

	// Recorded is what the live inner fix loop did on the failure, when the run was
	// recorded with the loop on (Case.LoopOn); zero otherwise.
	Recorded Recorded
}

// Recorded is what a live inner fix loop did on one failure, as its run recorded it
// (filter_fix_attempt and filter_fix_result events, the cycle's filter_fix_attempts
// and filter_fix_cost_usd).
type Recorded struct {
	Attempts int // fix attempts (coder calls) the loop made
	// Reruns are the attempts whose re-run of the check the record shows — each a
	// trial of p: all of them in a record attempt by attempt, but one the budget
	// stopped before its re-run; none when only the cycle's counts say how many.
	Reruns     int
	Passed     int     // of the re-runs, those that passed
	Fixed      bool    // the loop fixed the failure inside its cycle
	CostUSD    float64 // what the attempts cost
	BudgetStop bool    // the run's budget stopped the loop's last attempt
}

// Transition is what the outer cycle after a failure tells about its check.
type Transition int

// Transitions.
const (
	NoNextCycle Transition = iota // the run ended with the failure
	Cleared                       // the next cycle passed the check
	NotCleared                    // the next cycle failed the same check
	Unknown                       // the next cycle failed an earlier check: the check was not reached
)

// Case is a run with recorded filter failures: what the simulation needs of it, and
// little more — the run's identity and a few numbers per failure, no check output —
// so that the cases of every run of a large replay can be kept until the history of
// all of them is known.
type Case struct {
	Key          string
	TaskID       string
	Title        string
	Outcome      input.Outcome
	Cycles       int
	MaxCycles    int
	MaxBudgetUSD float64
	TotalCostUSD float64

	// MeanCoderCostUSD is the run's mean coder call; CoderCostEstimated says it was
	// taken as half the mean cycle cost because no coder call was recorded.
	MeanCoderCostUSD   float64
	CoderCostEstimated bool
	MeanCycleCostUSD   float64

	// LoopOn says the run was recorded with the inner fix loop on: each failure's
	// Recorded is what the loop did on it, and nothing of the run is simulated.
	LoopOn bool

	Failures []Failure
}

// Observe extracts a run's filter failures. It returns nil when the run has none or
// its filter history was not recorded. A check name outside quasar's chain is
// reported; the failure is still simulated, with a history of its own.
//
// A run recorded with the inner fix loop on (a filter_fix_attempt or filter_fix_result
// event of a check in one of its cycles, a filter_fix agent call in one, a cycle's
// filter_fix_attempts or filter_fix_cost_usd) is observed as the loop met it
// (Case.LoopOn): its failures are every check the chain failed in a cycle — the ones
// the loop fixed, which the cycle's end no longer names, included — each with what
// the loop did on it (see loopRecord.recorded). What does not add up in its record is
// a problem, and so is a stray fix event of a run without the loop.
func Observe(run *input.Run) (*Case, []input.Problem) {
	if !run.FilterKnown || len(run.Cycles) == 0 {
		return nil, nil
	}
	var probs []input.Problem
	c := &Case{Key: run.Key, TaskID: run.TaskID, Title: run.Title, Outcome: run.Outcome, Cycles: len(run.Cycles),
		MaxCycles: run.MaxCycles, MaxBudgetUSD: run.MaxBudgetUSD, TotalCostUSD: run.LastCycle().TotalCostUSD}
	var loop *loopRecord
	if mayHaveLoop(run) {
		loop = readLoop(run)
		probs = append(probs, loop.probs...) // a stray event of a run without the loop too
		loop.probs = nil
		if c.LoopOn = loop.on; !c.LoopOn {
			loop = nil
		}
	}
	fixCost := 0.0
	for i, cyc := range run.Cycles {
		checks := loop.checks(cyc.Cycle) // the cycle's failed checks: the ones the loop met, in order, then the end's
		if cyc.FilterCheckName != "" && !slices.Contains(checks, cyc.FilterCheckName) {
			checks = append(checks, cyc.FilterCheckName)
		}
		for j, check := range checks {
			if chainIndex(check) < 0 {
				probs = append(probs, input.Problem{File: run.File, Line: cyc.Line, Kind: input.ProblemInvalid,
					Detail: fmt.Sprintf("run %s: cycle %d names filter check %q, not one of %s; its pass probability from its own history",
						run.Key, cyc.Cycle, check, strings.Join(chainOrder, ", "))})
			}
			f := Failure{Cycle: cyc.Cycle, Check: intern(check), CostAtFail: cyc.TotalCostUSD}
			if check == cyc.FilterCheckName {
				f.OutputLen = len(cyc.FilterOutput)
				parsed := checkparse.ParseCheckOutput(filter.CheckResult{Name: f.Check, Output: cyc.FilterOutput})
				f.Errors, f.Unparsed = len(parsed.Errors), parsed.Unrecognized
			} else {
				f.OutputLen = loop.outputLen(cyc.Cycle, check) // the cycle's end no longer holds the output: the chain's result did
			}
			if i+1 < len(run.Cycles) {
				f.Next = transition(f.Check, run.Cycles[i+1].FilterCheckName)
			}
			if loop != nil {
				// The cycle's own counts are the failure's its end names, or else its first's.
				f.Recorded = loop.recorded(i, check, check == cyc.FilterCheckName || cyc.FilterCheckName == "" && j == 0)
				fixCost += f.Recorded.CostUSD
			}
			c.Failures = append(c.Failures, f)
		}
	}
	if loop != nil {
		probs = append(probs, loop.probs...)
	}
	if len(c.Failures) == 0 {
		return nil, probs
	}
	var coderSum float64
	var coders int
	for _, call := range run.Calls {
		if call.Role == "coder" && call.CostUSD >= 0 && !math.IsInf(call.CostUSD, 0) {
			coderSum += call.CostUSD
			coders++
		}
	}
	// A cycle the loop fixed in is saved whole by the loop: what it saves is a cycle
	// without the loop's own attempts, whose cost the run's total holds.
	c.MeanCycleCostUSD = max(c.TotalCostUSD-fixCost, 0) / float64(c.Cycles)
	if coders > 0 {
		c.MeanCoderCostUSD = coderSum / float64(coders)
	} else {
		c.MeanCoderCostUSD, c.CoderCostEstimated = c.MeanCycleCostUSD/2, true
	}
	return c, probs
}

func transition(check, next string) Transition {
	switch {
	case next == check:
		return NotCleared
	case next == "":
		return Cleared
	}
	ci, ni := chainIndex(check), chainIndex(next)
	if ci >= 0 && ni > ci {
		return Cleared
	}
	return Unknown
}

// History pools, per check, how often the outer cycle after a failure cleared it and,
// from runs recorded with the loop on, how often a fix attempt's re-run passed.
type History struct {
	cleared, trials map[string]int
	passed, tries   map[string]int // recorded re-runs
	met             map[string]int // failures of runs recorded with the loop on
	seen            map[string]bool
}

// NewHistory returns an empty history.
func NewHistory() *History {
	return &History{cleared: map[string]int{}, trials: map[string]int{}, passed: map[string]int{}, tries: map[string]int{},
		met: map[string]int{}, seen: map[string]bool{}}
}

// Add pools a case's transitions — or, for a run recorded with the loop on, its fix
// attempts: the failures such a run leaves to the next cycle are the ones the loop
// could not fix, no sample of a check's failures.
func (h *History) Add(c *Case) {
	for _, f := range c.Failures {
		h.seen[f.Check] = true
		if c.LoopOn {
			h.passed[f.Check] += f.Recorded.Passed
			h.tries[f.Check] += f.Recorded.Reruns
			if f.Check != filter.CheckClaims { // the loop never attempts it: nothing to check
				h.met[f.Check]++
			}
			continue
		}
		switch f.Next {
		case Cleared:
			h.cleared[f.Check]++
			h.trials[f.Check]++
		case NotCleared:
			h.trials[f.Check]++
		}
	}
}

// Rate is the pass probability of one fix attempt on a check.
type Rate struct {
	Check string
	// Source is "recorded" (the Jeffreys posterior of recorded fix attempts: Trials
	// attempts, Cleared of them passed), "history" (that of the outer cycles after a
	// failure: Trials failures followed by a cycle that reached the check, Cleared of
	// them cleared it) or "given".
	Source  string
	Cleared int
	Trials  int
	P       float64
}

// Mean returns the rate's point value: the given p, or the posterior mean.
func (r Rate) Mean() float64 {
	if r.Source == "given" {
		return r.P
	}
	return (float64(r.Cleared) + 0.5) / (float64(r.Trials) + 1)
}

// Rates returns the rate of every check of quasar's chain and every other check the
// history has seen: given[c] when set; else, when the check has recorded fix attempts,
// their estimate — they measure what p is, one attempt's pass — and the outer cycles'
// otherwise.
func (h *History) Rates(given map[string]float64) map[string]Rate { return h.rates(given, true) }

// OuterRates is Rates without the recorded fix attempts: every check's p from the
// outer cycles alone (or given), the p a replay without loop-on runs would simulate
// with — what [Plan.WithOuterCheck] checks against the loops that ran.
func (h *History) OuterRates(given map[string]float64) map[string]Rate { return h.rates(given, false) }

// Checkable reports whether a check has both failures of runs recorded with the loop
// on and outer cycles that reached it after a failure: what an outer check needs.
func (h *History) Checkable() bool {
	for c, n := range h.met {
		if n > 0 && h.trials[c] > 0 {
			return true
		}
	}
	return false
}

func (h *History) rates(given map[string]float64, recorded bool) map[string]Rate {
	out := make(map[string]Rate, len(chainOrder)+len(h.seen))
	checks := slices.Clone(chainOrder)
	for c := range h.seen {
		if !slices.Contains(checks, c) {
			checks = append(checks, c)
		}
	}
	for _, c := range checks {
		if p, ok := given[c]; ok {
			out[c] = Rate{Check: c, Source: "given", P: p}
			continue
		}
		r := Rate{Check: c, Source: "history", Cleared: h.cleared[c], Trials: h.trials[c]}
		if n := h.tries[c]; n > 0 && recorded {
			r = Rate{Check: c, Source: "recorded", Cleared: h.passed[c], Trials: n}
		}
		r.P = r.Mean()
		out[c] = r
	}
	return out
}
