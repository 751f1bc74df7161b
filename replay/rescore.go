package replay

import (
	"time"

	"github.com/loopwatch/loopwatch/analyze"
	"github.com/loopwatch/loopwatch/analyze/struggle"
	"github.com/loopwatch/loopwatch/replay/input"
)

// RunTrace is what struggle detection reads of one run, cycle by cycle, before any
// threshold or weight: each cycle's raw measures ([struggle.Measure]) with what a
// decision and its lead time need. A run is traced once per way of comparing
// findings (CaseFold) and scored under any number of configurations with
// [RunTrace.Outcome], which gives exactly the StruggleOutcome [ReplayRun] gives under
// the same configuration: both decide through the same code (the tuning relies on it,
// and a test holds it).
type RunTrace struct {
	// CaseFold is the finding comparison the measures were taken with; Outcome
	// scores only configurations with the same CaseFold.
	CaseFold bool
	Cycles   []CycleTrace
	lead     leadBase
}

// CycleTrace is one cycle's measures and what the decision at its end depends on.
type CycleTrace struct {
	Cycle        int
	Time         time.Time // end of the cycle
	TotalCostUSD float64   // cumulative, at the end of the cycle
	Approved     bool      // an approved cycle ends the run: nothing is left to decide
	Measures     struggle.Measures
}

// leadBase is what the lead time of a first trigger is measured against: the run's
// last cycle and its end.
type leadBase struct {
	lastCycle int
	lastCost  float64
	end       time.Time
}

func newLeadBase(run *input.Run) leadBase {
	last := run.LastCycle()
	end := run.End
	if end.IsZero() {
		end = last.Time
	}
	return leadBase{lastCycle: last.Cycle, lastCost: last.TotalCostUSD, end: end}
}

// TraceRun accumulates run's cycles as quasar's loop does ([analyze.CycleState.EndCycle])
// and measures each; caseFold compares finding descriptions case-insensitively
// ([struggle.StruggleConfig.CaseFold]).
func TraceRun(run *input.Run, caseFold bool) *RunTrace {
	t := &RunTrace{CaseFold: caseFold, Cycles: make([]CycleTrace, 0, len(run.Cycles)), lead: newLeadBase(run)}
	state := newCycleState(run)
	tr := struggle.NewTracker(caseFold)
	for i := range run.Cycles {
		c := &run.Cycles[i]
		state.advance(c)
		t.Cycles = append(t.Cycles, CycleTrace{Cycle: c.Cycle, Time: c.Time, TotalCostUSD: c.TotalCostUSD, Approved: c.Approved,
			Measures: tr.Measure(&state.CycleState)})
	}
	return t
}

// Outcome scores the trace under cfg. A cfg whose CaseFold differs from the trace's
// is scored as if it were the trace's: trace the run again for it.
func (t *RunTrace) Outcome(cfg struggle.StruggleConfig) StruggleOutcome {
	var d decider
	for i := range t.Cycles {
		c := &t.Cycles[i]
		d.observe(c.Cycle, c.Time, c.TotalCostUSD, c.Approved, struggle.Score(&c.Measures, cfg), cfg)
	}
	return d.finish(t.lead)
}

// cycleState is the loop state a replay accumulates over a run's cycles.
type cycleState struct{ analyze.CycleState }

func newCycleState(run *input.Run) *cycleState {
	return &cycleState{analyze.CycleState{TaskBeadID: run.TaskID, TaskTitle: run.Title, Phase: run.Phase,
		MaxCycles: run.MaxCycles, MaxBudgetUSD: run.MaxBudgetUSD}}
}

// advance ends cycle c on the state, as quasar's runLoop does before it evaluates:
// with the limits in force at c where the source records them as they change, the
// run's otherwise.
func (s *cycleState) advance(c *input.Cycle) {
	s.Cycle = c.Cycle
	if c.MaxCycles > 0 {
		s.MaxCycles = c.MaxCycles
	}
	if c.MaxBudgetUSD > 0 {
		s.MaxBudgetUSD = c.MaxBudgetUSD
	}
	s.TotalCostUSD = c.TotalCostUSD
	s.FilterCheckName, s.FilterOutput = c.FilterCheckName, c.FilterOutput
	s.Findings = append(s.Findings[:0:0], c.Findings...)
	s.FilterFixAttempts, s.FilterFixCostUSD = c.FilterFixAttempts, c.FilterFixCostUSD
	s.EndCycle()
}

// decider folds a run's per-cycle signals into its StruggleOutcome: the decision
// rule [ReplayRun] and [RunTrace.Outcome] share.
type decider struct {
	out      StruggleOutcome
	firstCum float64 // cumulative cost at the first trigger
}

// observe takes the signal at the end of a cycle and reports whether the loop would
// act on it there (a decision point): the cycle was not approved and it is at least
// MinCyclesBeforeCheck.
func (d *decider) observe(cycle int, at time.Time, cumCost float64, approved bool, sig struggle.StruggleSignal, cfg struggle.StruggleConfig) bool {
	decision := !approved && cfg.Enabled && cycle >= cfg.MinCyclesBeforeCheck
	if !decision {
		return false
	}
	if sig.Score > d.out.MaxScore {
		d.out.MaxScore = sig.Score
	}
	if sig.Triggered && !d.out.Triggered {
		d.out.Triggered, d.out.FirstCycle, d.out.FirstTime = true, cycle, at
		d.firstCum = cumCost
	}
	return true
}

// finish adds the lead time of the first trigger.
func (d *decider) finish(lb leadBase) StruggleOutcome {
	out := d.out
	if out.Triggered {
		out.LeadCycles = lb.lastCycle - out.FirstCycle
		out.LeadCostUSD = lb.lastCost - d.firstCum
		out.LeadSeconds = lb.end.Sub(out.FirstTime).Seconds()
	}
	return out
}
