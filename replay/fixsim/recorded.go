package fixsim

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/loopwatch/loopwatch/analyze/fixloop/filter"
	"github.com/loopwatch/loopwatch/replay/input"
	"github.com/loopwatch/loopwatch/replay/trace"
)

// The recorded event kinds of the inner fix loop (input.CheckEvent.Kind, the trace's),
// and its agent role.
const (
	kindFilterResult = trace.KindFilterResult
	kindFixAttempt   = trace.KindFilterFixAttempt
	kindFixResult    = trace.KindFilterFixResult
	roleFilterFix    = "filter_fix"
)

// maxCostUSD bounds a recorded failure's fix cost: past it a figure is no spend a
// loop made, and read as 0.
const maxCostUSD = 1e9

// mayHaveLoop reports whether run shows any sign of the inner fix loop — a fix event,
// a filter_fix agent call, a cycle's fix counts — so that a run without one is not
// read for it.
func mayHaveLoop(run *input.Run) bool {
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
	line      int // the line of its first event

	attempts, passed int     // distinct filter_fix_attempt events, and those whose re-run passed
	numbers          []int   // their attempt numbers, for duplicates
	attemptCost      float64 // their cost
	results          int     // filter_fix_result events; the last is read
	resultFixed      bool
	resultAttempts   int // -1: its count was out of range, not read
	resultCost       float64
	resultLine       int // the line of the filter_fix_result read
}

// counted reports whether a fix event of the failure was counted.
func (m *metFailure) counted() bool { return m != nil && (m.attempts > 0 || m.results > 0) }

// fixCalls are a cycle's filter_fix agent calls.
type fixCalls struct {
	n    int
	cost float64
}

// loopRecord is what a run says of its inner fix loop: the failures its events name,
// by cycle, and the cycles' filter_fix calls. Every inconsistency met reading it is a
// problem in probs; what is read instead is said there.
type loopRecord struct {
	run    *input.Run
	on     bool // the run was recorded with the loop on: a counted fix event, a filter_fix call or fix counts of a cycle it has
	events bool // the run records counted fix events: a failure with none had no attempt
	met    map[metKey]*metFailure
	order  map[int][]string // each cycle's failed checks, in the order first recorded
	calls  map[int]fixCalls
	counts []cycleCounts // each cycle's own fix counts, by its index (see readCounts)
	probs  []input.Problem
}

// cycleCounts are a cycle's own filter_fix_attempts and filter_fix_cost_usd.
type cycleCounts struct {
	attempts int
	cost     float64
}

// readLoop gathers what run records of its loop: failed chain results and fix events
// by cycle and check, and filter_fix calls by cycle. Events of no check, or of a cycle
// whose cycle_done was not read, are reported and not counted — but those of the
// cycle after the last, which the run ended in; so are a failure's attempts past
// MaxFilterFixes, an attempt number recorded twice and a verdict's count out of range.
func readLoop(run *input.Run) *loopRecord {
	l := &loopRecord{run: run, met: map[metKey]*metFailure{}, order: map[int][]string{}, calls: map[int]fixCalls{}}
	n := len(run.Cycles)                                // a trace's cycles are numbered 1…n
	orphans, orphanLine := map[int]int{}, map[int]int{} // events and calls of each cycle not read, and the first one's line
	for _, e := range run.Checks {
		fix := e.Kind == kindFixAttempt || e.Kind == kindFixResult
		switch {
		case e.Kind == kindFilterResult && e.Passed:
			continue
		case e.Cycle == n+1 && endedInCycle(run.Outcome):
			continue // the cycle the run ended in, with no end to count it by
		case e.Cycle < 1 || e.Cycle > n:
			orphans[e.Cycle]++
			orphanLine[e.Cycle] = cmp.Or(orphanLine[e.Cycle], e.Line)
			continue
		case e.Check == "":
			if fix {
				l.problem(e.Line, "a %s of cycle %d names no check; not counted in the loop's record", e.Kind, e.Cycle)
			}
			continue
		}
		l.events = l.events || fix
		k := metKey{e.Cycle, e.Check}
		m := l.met[k]
		if m == nil {
			m = &metFailure{line: e.Line}
			l.met[k] = m
			l.order[e.Cycle] = append(l.order[e.Cycle], e.Check)
		}
		switch e.Kind {
		case kindFilterResult:
			m.outputLen = max(m.outputLen, e.OutputLen)
		case kindFixAttempt:
			switch {
			case e.Attempt > 0 && slices.Contains(m.numbers, e.Attempt):
				l.problem(e.Line, "cycle %d: attempt %d at %s recorded twice; counted once", e.Cycle, e.Attempt, e.Check)
				continue
			case m.attempts == MaxFilterFixes:
				l.problem(e.Line, "cycle %d: more than %d fix attempts at %s; the rest not counted", e.Cycle, MaxFilterFixes, e.Check)
				continue
			}
			m.attempts++
			if e.Attempt > 0 {
				m.numbers = append(m.numbers, e.Attempt)
			}
			if e.Passed {
				m.passed++
			}
			m.attemptCost += l.cost(e.Line, e.Cycle, e.Check, e.Kind, e.CostUSD)
		case kindFixResult:
			m.results++
			if m.results == 2 {
				l.problem(e.Line, "cycle %d: more than one filter_fix_result at %s; the last read", e.Cycle, e.Check)
			}
			m.resultFixed, m.resultCost, m.resultAttempts, m.resultLine = e.Passed, l.cost(e.Line, e.Cycle, e.Check, e.Kind, e.CostUSD), e.Attempt, e.Line
			if e.Attempt < 0 || e.Attempt > MaxFilterFixes {
				l.problem(e.Line, "cycle %d: filter_fix_result at %s counts %d attempts, outside 0…%d; its count not read", e.Cycle, e.Check,
					e.Attempt, MaxFilterFixes)
				m.resultAttempts = -1
			}
		}
	}
	for _, call := range run.Calls {
		switch {
		case call.Role != roleFilterFix:
		case call.Cycle == n+1 && endedInCycle(run.Outcome): // the cycle the run ended in
		case call.Cycle < 1 || call.Cycle > n:
			orphans[call.Cycle]++
			orphanLine[call.Cycle] = cmp.Or(orphanLine[call.Cycle], call.Line)
		default:
			fc := l.calls[call.Cycle]
			fc.n++
			if call.CostUSD >= 0 && !math.IsInf(call.CostUSD, 0) { // the reader reported the others
				fc.cost += call.CostUSD
			}
			l.calls[call.Cycle] = fc
		}
	}
	for _, cycle := range slices.Sorted(maps.Keys(orphans)) {
		l.probs = append(l.probs, input.Problem{File: run.File, Line: orphanLine[cycle], Kind: input.ProblemUnmatched,
			Detail: fmt.Sprintf("run %s: %d filter or fix event(s) or filter_fix call(s) of cycle %d, whose cycle_done was not read; not counted in the fix loop's record",
				run.Key, orphans[cycle], cycle)})
	}
	failed := func(i int) bool { return run.Cycles[i].FilterCheckName != "" || len(l.order[run.Cycles[i].Cycle]) > 0 }
	l.counts = readCounts(run.Cycles, failed)
	l.on = l.events
	for i, cyc := range run.Cycles {
		worked := l.counts[i].attempts > 0 || l.counts[i].cost > 0 || l.calls[cyc.Cycle].n > 0
		switch {
		case worked && failed(i):
			l.on = true
		case worked:
			l.problem(cyc.Line, "cycle %d: fix attempts recorded (filter_fix_attempts %d, filter_fix_cost_usd %v, %d filter_fix calls) but no failed check; not counted",
				cyc.Cycle, l.counts[i].attempts, l.counts[i].cost, l.calls[cyc.Cycle].n)
		}
	}
	return l
}

// endedInCycle reports whether a run of this outcome may have ended inside a cycle,
// before its cycle_done: cut off, or stopped by its budget or an error.
func endedInCycle(o input.Outcome) bool {
	return o == input.OutcomeIncomplete || o == input.OutcomeBudgetExceeded || o == input.OutcomeError
}

// readCounts returns each cycle's own fix counts. The trace format has them the
// cycle's; the seed's loop keeps them in its CycleState across cycles — the cost
// always, the attempts until a fix — so a run whose counts carry over is read by their
// increase from one cycle to the next (an attempts figure that falls was reset: the
// figure itself). A run's counts carry over when they read as the seed keeps them: a
// cycle with no failed check holds the cycle before's non-zero figure, the cost never
// falls, and read by increase no cycle has attempts without a cost. Any other run is
// read per cycle — one whose every cycle fails too: its counts cannot tell.
func readCounts(cycles []input.Cycle, failed func(i int) bool) []cycleCounts {
	perCycle := make([]cycleCounts, len(cycles))
	for i, c := range cycles {
		perCycle[i] = cycleCounts{c.FilterFixAttempts, c.FilterFixCostUSD}
	}
	repeated := false
	for i := 1; i < len(cycles); i++ {
		p, c := cycles[i-1], cycles[i]
		if c.FilterFixCostUSD < p.FilterFixCostUSD {
			return perCycle // the seed's cost never falls
		}
		repeated = repeated || !failed(i) && (c.FilterFixAttempts > 0 && c.FilterFixAttempts == p.FilterFixAttempts ||
			c.FilterFixCostUSD > 0 && c.FilterFixCostUSD == p.FilterFixCostUSD)
	}
	if !repeated {
		return perCycle
	}
	increase := make([]cycleCounts, len(cycles))
	for i, c := range cycles {
		increase[i] = perCycle[i]
		if i > 0 {
			p := cycles[i-1]
			if c.FilterFixAttempts >= p.FilterFixAttempts {
				increase[i].attempts -= p.FilterFixAttempts
			}
			increase[i].cost -= p.FilterFixCostUSD
		}
		if increase[i].attempts > 0 && increase[i].cost == 0 {
			return perCycle // attempts that cost nothing: not the seed's carried figures
		}
	}
	return increase
}

// problem records an inconsistency of the run's record of its loop, at line (0: the
// run's, when its source records no line).
func (l *loopRecord) problem(line int, format string, args ...any) {
	l.probs = append(l.probs, input.Problem{File: l.run.File, Line: line, Kind: input.ProblemInvalid,
		Detail: fmt.Sprintf("run %s: ", l.run.Key) + fmt.Sprintf(format, args...)})
}

// cost is a recorded cost, 0 (and reported at line) when it is negative, not finite
// or past maxCostUSD.
func (l *loopRecord) cost(line, cycle int, check, field string, v float64) float64 {
	if v >= 0 && v <= maxCostUSD {
		return v
	}
	l.problem(line, "cycle %d: %s at %s costs %v; read as 0", cycle, field, check, v)
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

// recorded is what the loop did on the failure of check in cyc: by its fix events —
// its filter_fix_result, else its attempts. A run without fix events records its loop
// by the cycle's counts (filter_fix_attempts, the failed re-runs, which the loop
// resets on a fix, and filter_fix_cost_usd) and filter_fix calls, given to the one
// failure charged (the one the cycle's end names, or else its first): a check the
// cycle's end no longer names was fixed; such counts say how many attempts, not which
// re-runs passed (Reruns 0). In a run with fix events a failure without any had no
// attempt; claims never has one (the seed's guard). A fix counts one attempt at
// least. The last attempt of a budget_exceeded or error run's last cycle, when its
// failed re-runs are one fewer than its attempts, was stopped before its re-run.
func (l *loopRecord) recorded(i int, check string, charged bool) Recorded {
	cyc := l.run.Cycles[i]
	m := l.met[metKey{cyc.Cycle, check}]
	named := check == cyc.FilterCheckName
	calls, counts := l.calls[cyc.Cycle], l.counts[i]
	// A cycle's attempts and cost by its own record: its filter_fix calls, which are the
	// attempts, else its counts.
	cycleAttempts, cycleCost := counts.attempts, counts.cost
	if calls.n > 0 {
		cycleAttempts, cycleCost = calls.n, calls.cost
	}
	var r Recorded
	switch {
	case m.counted():
		if check == filter.CheckClaims {
			l.problem(m.line, "cycle %d: fix events at claims, which the seed's loop never attempts; read as recorded", cyc.Cycle)
		}
		r = Recorded{Attempts: m.attempts, Reruns: m.attempts, Passed: m.passed, Fixed: m.passed > 0, CostUSD: m.attemptCost}
		if m.results > 0 {
			r.Fixed, r.CostUSD = m.resultFixed, m.resultCost
			switch {
			case m.resultAttempts < 0 && m.attempts == 0 && named: // out of range: the cycle's own record says how many
				r.Attempts = cycleAttempts
			case m.resultAttempts < 0: // out of range: the attempts' count stands
			case m.resultAttempts < m.attempts:
				l.problem(m.resultLine, "cycle %d: filter_fix_result at %s counts %d attempts, its attempts are %d; read as %d", cyc.Cycle, check,
					m.resultAttempts, m.attempts, m.attempts)
			default:
				r.Attempts, r.Reruns = m.resultAttempts, m.resultAttempts
			}
			if r.Fixed && r.Passed == 0 && r.Reruns > 0 {
				r.Passed = 1 // the verdict: the last re-run passed
			}
			if !r.Fixed && r.Passed > 0 {
				l.problem(m.resultLine, "cycle %d: an attempt at %s passed its re-run, its filter_fix_result says not fixed; read as not fixed", cyc.Cycle, check)
				r.Passed = 0
			}
			if !r.Fixed && !named {
				l.problem(m.resultLine, "cycle %d: filter_fix_result says %s not fixed, the cycle's end no longer names it failing; read as not fixed", cyc.Cycle, check)
			}
		}
	case check == filter.CheckClaims:
		if named && cycleAttempts > 0 {
			l.problem(cyc.Line, "cycle %d: fix attempts recorded at claims, which the loop never attempts (the seed's guard); not counted", cyc.Cycle)
		}
		return Recorded{}
	case l.events:
		if !named && m != nil {
			l.problem(m.line, "cycle %d: %s failed with no fix event recorded and the cycle's end no longer names it; read as not fixed, no attempt", cyc.Cycle, check)
		}
		if named && counts.attempts > 0 {
			l.problem(cyc.Line, "cycle %d: filter_fix_attempts %d, its fix events at %s 0; the events read", cyc.Cycle, counts.attempts, check)
		}
		return Recorded{}
	case charged:
		r = Recorded{Attempts: cycleAttempts, Fixed: !named, CostUSD: l.cost(cyc.Line, cyc.Cycle, check, "filter_fix_cost_usd", cycleCost)}
		// The counts are the failed re-runs: a failure the loop gave up on has as many as
		// calls, one fewer when the budget stopped the last — more only when carried over
		// from a cycle before, which the first cycle has not.
		if named && calls.n > 0 && counts.attempts > 0 && (counts.attempts < calls.n-1 || i == 0 && counts.attempts > calls.n) {
			l.problem(cyc.Line, "cycle %d: filter_fix_attempts %d, its filter_fix calls %d; the calls read", cyc.Cycle, counts.attempts, calls.n)
		}
	default:
		r = Recorded{Fixed: !named}
	}
	if r.Fixed && r.Attempts == 0 {
		if l.events {
			l.problem(cyc.Line, "cycle %d: %s fixed with no attempt recorded; read as one", cyc.Cycle, check)
		}
		r.Attempts = 1
	}
	if named && r.Fixed && l.events {
		l.problem(cyc.Line, "cycle %d: %s recorded fixed, the cycle's end still names it failing; read as fixed", cyc.Cycle, check)
	}
	stopped := i == len(l.run.Cycles)-1 && (l.run.Outcome == input.OutcomeBudgetExceeded || l.run.Outcome == input.OutcomeError)
	if named && !r.Fixed && r.Attempts > 0 && stopped && counts.attempts == r.Attempts-1 {
		r.BudgetStop = true
		r.Reruns = min(r.Reruns, r.Attempts-1)
	} else if named && l.events && !r.Fixed && counts.attempts > 0 && counts.attempts != r.Attempts {
		l.problem(cyc.Line, "cycle %d: filter_fix_attempts %d, its fix events at %s %d; the events read", cyc.Cycle, counts.attempts, check, r.Attempts)
	}
	r.Attempts = min(r.Attempts, MaxFilterFixes)
	r.Reruns = min(r.Reruns, r.Attempts)
	r.Passed = min(r.Passed, r.Reruns)
	if r.CostUSD > maxCostUSD {
		l.problem(cyc.Line, "cycle %d: the fix attempts at %s cost %v; read as 0", cyc.Cycle, check, r.CostUSD)
		r.CostUSD = 0
	}
	return r
}
