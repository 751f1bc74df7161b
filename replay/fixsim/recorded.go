package fixsim

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/loopwatch/loopwatch/replay/input"
)

// The recorded event kinds and agent role of the inner fix loop (package trace's).
const (
	kindFilterResult = "filter_result"
	kindFixAttempt   = "filter_fix_attempt"
	kindFixResult    = "filter_fix_result"
	roleFilterFix    = "filter_fix"
)

// loopOn reports whether run was recorded with the inner fix loop on: a fix event, a
// filter_fix agent call, a cycle's fix counts.
func loopOn(run *input.Run) bool {
	return slices.ContainsFunc(run.Checks, func(e input.CheckEvent) bool { return e.Kind == kindFixAttempt || e.Kind == kindFixResult }) ||
		slices.ContainsFunc(run.Calls, func(c input.AgentCall) bool { return c.Role == roleFilterFix }) ||
		slices.ContainsFunc(run.Cycles, func(c input.Cycle) bool { return c.FilterFixAttempts > 0 || c.FilterFixCostUSD > 0 })
}

// metKey names a failure the loop met: a check in a cycle.
type metKey struct {
	cycle int
	check string
}

// metFailure is what a run's events record of one failure the live loop met.
type metFailure struct {
	outputLen int // the failed chain result's output length

	attempts, passed int     // distinct filter_fix_attempt events, and those whose re-run passed
	numbers          []int   // their attempt numbers, for duplicates
	attemptCost      float64 // their cost
	results          int     // filter_fix_result events; the last is read
	resultFixed      bool
	resultAttempts   int
	resultCost       float64
}

// fixCalls are a cycle's filter_fix agent calls.
type fixCalls struct {
	n    int
	cost float64
}

// loopRecord is what a run recorded with the loop on says of its loop: the failures
// its events name, by cycle, and the cycles' filter_fix calls. Every inconsistency
// met reading it is a problem in probs; what is read instead is said there.
type loopRecord struct {
	run    *input.Run
	events bool // the run records fix events: a failure with none had no attempt
	met    map[metKey]*metFailure
	order  map[int][]string // each cycle's failed checks, in the order first recorded
	calls  map[int]fixCalls
	probs  []input.Problem
}

// readLoop gathers what run records of its loop: failed chain results and fix events
// by cycle and check, and filter_fix calls by cycle. Events of a cycle the run has no
// end of, or of no check, are reported and not counted; so are a failure's attempts
// past MaxFilterFixes and an attempt number recorded twice.
func readLoop(run *input.Run) *loopRecord {
	l := &loopRecord{run: run, met: map[metKey]*metFailure{}, order: map[int][]string{}, calls: map[int]fixCalls{}}
	ended := make(map[int]bool, len(run.Cycles))
	for _, cyc := range run.Cycles {
		ended[cyc.Cycle] = true
	}
	orphans := map[int]int{}
	for _, e := range run.Checks {
		fix := e.Kind == kindFixAttempt || e.Kind == kindFixResult
		l.events = l.events || fix
		switch {
		case e.Kind == kindFilterResult && e.Passed:
			continue
		case e.Check == "":
			if fix {
				l.problem("a %s of cycle %d names no check; not counted in the loop's record", e.Kind, e.Cycle)
			}
			continue
		case !ended[e.Cycle]:
			orphans[e.Cycle]++
			continue
		}
		k := metKey{e.Cycle, e.Check}
		m := l.met[k]
		if m == nil {
			m = &metFailure{}
			l.met[k] = m
			l.order[e.Cycle] = append(l.order[e.Cycle], e.Check)
		}
		switch e.Kind {
		case kindFilterResult:
			m.outputLen = max(m.outputLen, e.OutputLen)
		case kindFixAttempt:
			switch {
			case e.Attempt > 0 && slices.Contains(m.numbers, e.Attempt):
				l.problem("cycle %d: attempt %d at %s recorded twice; counted once", e.Cycle, e.Attempt, e.Check)
				continue
			case m.attempts == MaxFilterFixes:
				l.problem("cycle %d: more than %d fix attempts at %s; the rest not counted", e.Cycle, MaxFilterFixes, e.Check)
				continue
			}
			m.attempts++
			if e.Attempt > 0 {
				m.numbers = append(m.numbers, e.Attempt)
			}
			if e.Passed {
				m.passed++
			}
			m.attemptCost += l.cost(e.Cycle, e.Check, e.Kind, e.CostUSD)
		case kindFixResult:
			m.results++
			if m.results == 2 {
				l.problem("cycle %d: more than one filter_fix_result at %s; the last read", e.Cycle, e.Check)
			}
			m.resultFixed, m.resultCost = e.Passed, l.cost(e.Cycle, e.Check, e.Kind, e.CostUSD)
			m.resultAttempts = e.Attempt
			if e.Attempt < 0 || e.Attempt > MaxFilterFixes {
				l.problem("cycle %d: filter_fix_result at %s counts %d attempts, outside 0…%d; read as %d", e.Cycle, e.Check, e.Attempt,
					MaxFilterFixes, min(max(e.Attempt, 0), MaxFilterFixes))
				m.resultAttempts = min(max(e.Attempt, 0), MaxFilterFixes)
			}
		}
	}
	for _, cycle := range slices.Sorted(maps.Keys(orphans)) {
		l.probs = append(l.probs, input.Problem{File: run.File, Kind: input.ProblemUnmatched,
			Detail: fmt.Sprintf("run %s: %d filter or fix event(s) of cycle %d, which has no cycle_done; not counted in the fix loop's record",
				run.Key, orphans[cycle], cycle)})
	}
	for _, call := range run.Calls {
		if call.Role == roleFilterFix {
			fc := l.calls[call.Cycle]
			fc.n++
			if call.CostUSD >= 0 && !math.IsInf(call.CostUSD, 0) { // the reader reported the others
				fc.cost += call.CostUSD
			}
			l.calls[call.Cycle] = fc
		}
	}
	return l
}

// problem records an inconsistency of the run's record of its loop.
func (l *loopRecord) problem(format string, args ...any) {
	l.probs = append(l.probs, input.Problem{File: l.run.File, Kind: input.ProblemInvalid,
		Detail: fmt.Sprintf("run %s: ", l.run.Key) + fmt.Sprintf(format, args...)})
}

// cost is a recorded cost, 0 (and reported) when it is negative or not finite.
func (l *loopRecord) cost(cycle int, check, field string, v float64) float64 {
	if v >= 0 && !math.IsInf(v, 0) {
		return v
	}
	l.problem("cycle %d: %s at %s costs %v; read as 0", cycle, field, check, v)
	return 0
}

// checks are the failed checks cycle's events name, in the order first recorded; nil
// on a nil record.
func (l *loopRecord) checks(cycle int) []string {
	if l == nil {
		return nil
	}
	return slices.Clone(l.order[cycle])
}

// outputLen is the output length of check's failed chain result in cycle.
func (l *loopRecord) outputLen(cycle int, check string) int {
	if l == nil || l.met[metKey{cycle, check}] == nil {
		return 0
	}
	return l.met[metKey{cycle, check}].outputLen
}

// recorded is what the loop did on the failure of check in cyc: by its
// filter_fix_result when there is one, else by its attempts. A run without fix events
// records its loop by the cycle's counts (filter_fix_attempts, the failed attempts,
// which the loop resets on a fix, and filter_fix_cost_usd) and filter_fix calls, given
// to the one failure charged (the one the cycle's end names, or else its first): the
// check the cycle's end no longer names was fixed. In a run with fix events a failure
// without any had no attempt. A fix counts one attempt and one pass at least.
func (l *loopRecord) recorded(cyc input.Cycle, check string, charged bool) Recorded {
	m := l.met[metKey{cyc.Cycle, check}]
	named := check == cyc.FilterCheckName
	var r Recorded
	switch {
	case m != nil && m.results > 0:
		r = Recorded{Attempts: max(m.resultAttempts, m.attempts), Passed: m.passed, Fixed: m.resultFixed, CostUSD: m.resultCost}
		if m.resultAttempts < m.attempts {
			l.problem("cycle %d: filter_fix_result at %s counts %d attempts, its attempts are %d; read as %d", cyc.Cycle, check,
				m.resultAttempts, m.attempts, m.attempts)
		}
		if !r.Fixed && r.Passed > 0 {
			l.problem("cycle %d: an attempt at %s passed its re-run, its filter_fix_result says not fixed; read as not fixed", cyc.Cycle, check)
		}
		if !r.Fixed && !named {
			l.problem("cycle %d: filter_fix_result says %s not fixed, the cycle's end no longer names it failing; read as not fixed", cyc.Cycle, check)
		}
	case m != nil && m.attempts > 0:
		r = Recorded{Attempts: m.attempts, Passed: m.passed, Fixed: m.passed > 0, CostUSD: m.attemptCost}
	case l.events:
		if !named && m != nil {
			l.problem("cycle %d: %s failed with no fix event recorded and the cycle's end no longer names it; read as not fixed, no attempt", cyc.Cycle, check)
		}
		if named && cyc.FilterFixAttempts > 0 {
			l.problem("cycle %d: filter_fix_attempts %d, its fix events at %s 0; the events read", cyc.Cycle, cyc.FilterFixAttempts, check)
		}
		return Recorded{}
	case charged:
		calls := l.calls[cyc.Cycle]
		r = Recorded{Attempts: max(cyc.FilterFixAttempts, calls.n), Fixed: !named, CostUSD: cyc.FilterFixCostUSD}
		if r.CostUSD == 0 {
			r.CostUSD = calls.cost
		}
		r.CostUSD = l.cost(cyc.Cycle, check, "filter_fix_cost_usd", r.CostUSD)
	default:
		r = Recorded{Fixed: !named}
	}
	if r.Fixed {
		if r.Attempts == 0 && l.events {
			l.problem("cycle %d: %s fixed with no attempt recorded; read as one", cyc.Cycle, check)
		}
		r.Attempts, r.Passed = max(r.Attempts, 1), max(r.Passed, 1)
	}
	if named && r.Fixed && l.events {
		l.problem("cycle %d: %s recorded fixed, the cycle's end still names it failing; read as fixed", cyc.Cycle, check)
	}
	if named && l.events && !r.Fixed && cyc.FilterFixAttempts > 0 && cyc.FilterFixAttempts != r.Attempts {
		l.problem("cycle %d: filter_fix_attempts %d, its fix events at %s %d; the events read", cyc.Cycle, cyc.FilterFixAttempts, check, r.Attempts)
	}
	r.Attempts = min(r.Attempts, MaxFilterFixes)
	r.Passed = min(r.Passed, r.Attempts)
	if math.IsInf(r.CostUSD, 0) {
		l.problem("cycle %d: the fix attempts at %s cost more than a float holds; read as 0", cyc.Cycle, check)
		r.CostUSD = 0
	}
	return r
}
