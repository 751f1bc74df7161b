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

	Failures []Failure
}

// Observe extracts a run's filter failures. It returns nil when the run has none or
// its filter history was not recorded. A check name outside quasar's chain is
// reported; the failure is still simulated, with a history of its own.
func Observe(run *input.Run) (*Case, []input.Problem) {
	if !run.FilterKnown || len(run.Cycles) == 0 {
		return nil, nil
	}
	var probs []input.Problem
	c := &Case{Key: run.Key, TaskID: run.TaskID, Title: run.Title, Outcome: run.Outcome, Cycles: len(run.Cycles),
		MaxCycles: run.MaxCycles, MaxBudgetUSD: run.MaxBudgetUSD, TotalCostUSD: run.LastCycle().TotalCostUSD}
	for i, cyc := range run.Cycles {
		if cyc.FilterCheckName == "" {
			continue
		}
		if chainIndex(cyc.FilterCheckName) < 0 {
			probs = append(probs, input.Problem{File: run.File, Kind: input.ProblemInvalid,
				Detail: fmt.Sprintf("run %s: cycle %d names filter check %q, not one of %s; simulated with its own history",
					run.Key, cyc.Cycle, cyc.FilterCheckName, strings.Join(chainOrder, ", "))})
		}
		f := Failure{Cycle: cyc.Cycle, Check: intern(cyc.FilterCheckName), OutputLen: len(cyc.FilterOutput),
			CostAtFail: cyc.TotalCostUSD}
		parsed := checkparse.ParseCheckOutput(filter.CheckResult{Name: f.Check, Output: cyc.FilterOutput})
		f.Errors, f.Unparsed = len(parsed.Errors), parsed.Unrecognized
		if i+1 < len(run.Cycles) {
			f.Next = transition(f.Check, run.Cycles[i+1].FilterCheckName)
		}
		c.Failures = append(c.Failures, f)
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
	c.MeanCycleCostUSD = c.TotalCostUSD / float64(c.Cycles)
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

// History pools, per check, how often the outer cycle after a failure cleared it.
type History struct {
	cleared, trials map[string]int
	seen            map[string]bool
}

// NewHistory returns an empty history.
func NewHistory() *History {
	return &History{cleared: map[string]int{}, trials: map[string]int{}, seen: map[string]bool{}}
}

// Add pools a case's transitions.
func (h *History) Add(c *Case) {
	for _, f := range c.Failures {
		h.seen[f.Check] = true
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
	Check   string
	Source  string // "history" (Jeffreys posterior of the counts) or "given"
	Cleared int    // history: next cycles that cleared the check
	Trials  int    // history: failures followed by a cycle that reached the check
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
// history has seen: given[c] when set, else the history's estimate.
func (h *History) Rates(given map[string]float64) map[string]Rate {
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
		r.P = r.Mean()
		out[c] = r
	}
	return out
}
