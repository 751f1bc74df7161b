package reports

import (
	"fmt"

	"github.com/loopwatch/loopwatch/replay/fixsim"
	"github.com/loopwatch/loopwatch/replay/input"
)

// FixFailureRow is one row of the fix-loop table (results.fixloop.parquet): the
// simulated inner fix loop on one recorded filter failure. Every figure is a
// simulation under the assumptions of package fixsim, not a measurement.
type FixFailureRow struct {
	RunKey         string  `parquet:"run_key"`
	Cycle          int32   `parquet:"cycle"`
	Check          string  `parquet:"filter_check_name"`
	OutputBytes    int32   `parquet:"output_bytes"`
	ParsedErrors   int32   `parquet:"parsed_errors"`
	UnparsedLines  int32   `parquet:"unparsed_lines"`
	NextCycle      string  `parquet:"next_cycle"` // cleared, not_cleared, unknown, none
	PassProb       float64 `parquet:"pass_prob"`
	PassProbSource string  `parquet:"pass_prob_source"` // history or given
	HistoryCleared int32   `parquet:"history_cleared"`
	HistoryTrials  int32   `parquet:"history_trials"`

	ExpectedAttempts float64 `parquet:"expected_attempts"`
	AttemptsLow      float64 `parquet:"attempts_low"`
	AttemptsHigh     float64 `parquet:"attempts_high"`
	PFixed           float64 `parquet:"p_fixed"`
	PFixedLow        float64 `parquet:"p_fixed_low"`
	PFixedHigh       float64 `parquet:"p_fixed_high"`
	CyclesSaved      float64 `parquet:"expected_cycles_saved"`
	FixCostUSD       float64 `parquet:"expected_fix_cost_usd"`
	FixCostLow       float64 `parquet:"fix_cost_low"`
	FixCostHigh      float64 `parquet:"fix_cost_high"`
	CostDeltaUSD     float64 `parquet:"expected_cost_delta_usd"`
	CostDeltaLow     float64 `parquet:"cost_delta_low"`
	CostDeltaHigh    float64 `parquet:"cost_delta_high"`
	PBudgetStop      float64 `parquet:"p_budget_stop"`
	Skipped          *string `parquet:"skipped,optional"`
	CoderCostSource  string  `parquet:"coder_cost_source"` // measured or estimated
	// Recorded: the run was recorded with the loop on, and the figures are what its loop
	// did (the intervals are the figures themselves), not a simulation.
	Recorded bool `parquet:"recorded"`
	// OuterPFixed: on a recorded row at a check an outer cycle reached, where the replay
	// checks the simulation on the loops that ran, the probability the simulation with
	// the outer cycles' pass probability fixes the failure; null otherwise.
	OuterPFixed     *float64 `parquet:"outer_p_fixed,optional"`
	OuterPFixedLow  *float64 `parquet:"outer_p_fixed_low,optional"`
	OuterPFixedHigh *float64 `parquet:"outer_p_fixed_high,optional"`
}

// FixRunRow is one row of the fix-loop run table (results.fixloop_runs.parquet): the
// simulated inner fix loop over all of a run's recorded filter failures.
type FixRunRow struct {
	RunKey          string   `parquet:"run_key"`
	Outcome         string   `parquet:"outcome"`
	Cycles          int32    `parquet:"cycles"`
	MaxCycles       int32    `parquet:"max_cycles"`
	Failures        int32    `parquet:"failures"`
	MeanCoderUSD    float64  `parquet:"mean_coder_call_usd"`
	CoderCostSource string   `parquet:"coder_cost_source"`
	MeanCycleUSD    float64  `parquet:"mean_cycle_cost_usd"`
	CyclesSaved     float64  `parquet:"expected_cycles_saved"`
	CyclesSavedLow  float64  `parquet:"cycles_saved_low"`
	CyclesSavedHigh float64  `parquet:"cycles_saved_high"`
	FixCostUSD      float64  `parquet:"expected_fix_cost_usd"`
	CostDeltaUSD    float64  `parquet:"expected_cost_delta_usd"`
	CostDeltaLow    float64  `parquet:"cost_delta_low"`
	CostDeltaHigh   float64  `parquet:"cost_delta_high"`
	PWithinLimit    *float64 `parquet:"p_within_limit,optional"`
	PWithinLow      *float64 `parquet:"p_within_limit_low,optional"`
	PWithinHigh     *float64 `parquet:"p_within_limit_high,optional"`
	Recorded        bool     `parquet:"recorded"` // recorded with the loop on: its figures are the loop's, not simulated
	// OuterCyclesSaved: on a recorded run, where the replay checks the simulation on the
	// loops that ran, the failures (at checks an outer cycle reached) the simulation
	// with the outer cycles' pass probability fixes; null otherwise.
	OuterCyclesSaved     *float64 `parquet:"outer_cycles_saved,optional"`
	OuterCyclesSavedLow  *float64 `parquet:"outer_cycles_saved_low,optional"`
	OuterCyclesSavedHigh *float64 `parquet:"outer_cycles_saved_high,optional"`
}

var transitionNames = map[fixsim.Transition]string{fixsim.NoNextCycle: "none", fixsim.Cleared: "cleared",
	fixsim.NotCleared: "not_cleared", fixsim.Unknown: "unknown"}

// FixRows converts a simulated run into its run row and failure rows.
func FixRows(run fixsim.RunResult, failures []fixsim.FailureResult) (FixRunRow, []FixFailureRow) {
	c := run.Case
	src := "measured"
	if c.CoderCostEstimated {
		src = "estimated"
	}
	rr := FixRunRow{RunKey: c.Key, Outcome: string(c.Outcome), Cycles: int32(c.Cycles), MaxCycles: int32(c.MaxCycles),
		Failures: int32(len(c.Failures)), MeanCoderUSD: c.MeanCoderCostUSD, CoderCostSource: src, MeanCycleUSD: c.MeanCycleCostUSD,
		CyclesSaved: run.CyclesSaved.Mean, CyclesSavedLow: run.CyclesSaved.Low, CyclesSavedHigh: run.CyclesSaved.High,
		FixCostUSD: run.FixCostUSD.Mean, CostDeltaUSD: run.CostDeltaUSD.Mean, CostDeltaLow: run.CostDeltaUSD.Low,
		CostDeltaHigh: run.CostDeltaUSD.High, Recorded: c.LoopOn}
	if w := run.PWithinLimit; w != nil {
		rr.PWithinLimit, rr.PWithinLow, rr.PWithinHigh = ptr(w.Mean), ptr(w.Low), ptr(w.High)
	}
	if o := run.OuterCyclesSaved; o != nil {
		rr.OuterCyclesSaved, rr.OuterCyclesSavedLow, rr.OuterCyclesSavedHigh = ptr(o.Mean), ptr(o.Low), ptr(o.High)
	}
	rows := make([]FixFailureRow, len(failures))
	for i, f := range failures {
		fl := f.Failure
		rows[i] = FixFailureRow{RunKey: f.RunKey, Cycle: int32(fl.Cycle), Check: fl.Check, OutputBytes: int32(fl.OutputLen),
			ParsedErrors: int32(fl.Errors), UnparsedLines: int32(fl.Unparsed), NextCycle: transitionNames[fl.Next],
			PassProb: f.Rate.Mean(), PassProbSource: f.Rate.Source, HistoryCleared: int32(f.Rate.Cleared), HistoryTrials: int32(f.Rate.Trials),
			ExpectedAttempts: f.Attempts.Mean, AttemptsLow: f.Attempts.Low, AttemptsHigh: f.Attempts.High,
			PFixed: f.PFixed.Mean, PFixedLow: f.PFixed.Low, PFixedHigh: f.PFixed.High, CyclesSaved: f.PFixed.Mean,
			FixCostUSD: f.FixCostUSD.Mean, FixCostLow: f.FixCostUSD.Low, FixCostHigh: f.FixCostUSD.High,
			CostDeltaUSD: f.CostDeltaUSD.Mean, CostDeltaLow: f.CostDeltaUSD.Low, CostDeltaHigh: f.CostDeltaUSD.High,
			PBudgetStop: f.PBudgetStop, CoderCostSource: src, Recorded: c.LoopOn}
		if f.Skipped != "" {
			rows[i].Skipped = ptr(f.Skipped)
		}
		if o := f.Outer; o != nil {
			rows[i].OuterPFixed, rows[i].OuterPFixedLow, rows[i].OuterPFixedHigh = ptr(o.Mean), ptr(o.Low), ptr(o.High)
		}
	}
	return rr, rows
}

// FixCaseRow is one row of the fix-loop cases table (results.fixloop_cases.parquet):
// one recorded filter failure with what the simulation needs of its run — the input
// of the fix-loop simulation, as the failure and run tables are its output. The
// simulation pools every run's history into each check's pass probability, so a
// replay split in shards keeps these rows and simulates in the merge. The check's
// output text is not kept: the simulated coder and check runner never read it (its
// length, and what the error parser made of it, are).
type FixCaseRow struct {
	RunKey             string  `parquet:"run_key"`
	File               string  `parquet:"file"`
	TaskID             string  `parquet:"task_id"`
	Title              string  `parquet:"title"`
	Outcome            string  `parquet:"outcome"`
	Cycles             int32   `parquet:"cycles"`
	MaxCycles          int32   `parquet:"max_cycles"`
	MaxBudgetUSD       float64 `parquet:"max_budget_usd"`
	TotalCostUSD       float64 `parquet:"total_cost_usd"`
	MeanCoderUSD       float64 `parquet:"mean_coder_call_usd"`
	CoderCostEstimated bool    `parquet:"coder_cost_estimated"`
	MeanCycleUSD       float64 `parquet:"mean_cycle_cost_usd"`

	Cycle         int32   `parquet:"cycle"`
	Check         string  `parquet:"filter_check_name"`
	OutputBytes   int32   `parquet:"output_bytes"`
	ParsedErrors  int32   `parquet:"parsed_errors"`
	UnparsedLines int32   `parquet:"unparsed_lines"`
	CostAtFailure float64 `parquet:"cost_at_failure_usd"`
	NextCycle     string  `parquet:"next_cycle"` // cleared, not_cleared, unknown, none

	// Recorded: the run was recorded with the inner fix loop on, and the recorded_*
	// columns are what the loop did on the failure (all zero otherwise).
	Recorded           bool    `parquet:"recorded"`
	RecordedAttempts   int32   `parquet:"recorded_attempts"`
	RecordedReruns     int32   `parquet:"recorded_reruns"`
	RecordedPassed     int32   `parquet:"recorded_reruns_passed"`
	RecordedFixed      bool    `parquet:"recorded_fixed"`
	RecordedFixCostUSD float64 `parquet:"recorded_fix_cost_usd"`
	RecordedBudgetStop bool    `parquet:"recorded_budget_stop"`
}

// FixCaseRows converts a run's recorded failures into rows, one per failure; file is
// the run's input file.
func FixCaseRows(c *fixsim.Case, file string) []FixCaseRow {
	rows := make([]FixCaseRow, len(c.Failures))
	for i, f := range c.Failures {
		rows[i] = FixCaseRow{RunKey: c.Key, File: file, TaskID: c.TaskID, Title: c.Title, Outcome: string(c.Outcome), Cycles: int32(c.Cycles),
			MaxCycles: int32(c.MaxCycles), MaxBudgetUSD: c.MaxBudgetUSD, TotalCostUSD: c.TotalCostUSD, MeanCoderUSD: c.MeanCoderCostUSD,
			CoderCostEstimated: c.CoderCostEstimated, MeanCycleUSD: c.MeanCycleCostUSD,
			Cycle: int32(f.Cycle), Check: f.Check, OutputBytes: int32(f.OutputLen), ParsedErrors: int32(f.Errors),
			UnparsedLines: int32(f.Unparsed), CostAtFailure: f.CostAtFail, NextCycle: transitionNames[f.Next],
			Recorded: c.LoopOn, RecordedAttempts: int32(f.Recorded.Attempts), RecordedReruns: int32(f.Recorded.Reruns),
			RecordedPassed: int32(f.Recorded.Passed), RecordedFixed: f.Recorded.Fixed, RecordedFixCostUSD: f.Recorded.CostUSD,
			RecordedBudgetStop: f.Recorded.BudgetStop}
	}
	return rows
}

// FixCases converts rows back into cases: consecutive rows of one run make one case.
// An unknown next_cycle is an error.
func FixCases(rows []FixCaseRow) ([]*fixsim.Case, error) {
	var cases []*fixsim.Case
	for _, r := range rows {
		next, ok := transitions[r.NextCycle]
		if !ok {
			return nil, fmt.Errorf("fix-loop case of run %s, cycle %d: next_cycle %q is none of none, cleared, not_cleared, unknown", r.RunKey, r.Cycle, r.NextCycle)
		}
		if n := len(cases); n == 0 || cases[n-1].Key != r.RunKey {
			cases = append(cases, &fixsim.Case{Key: r.RunKey, TaskID: r.TaskID, Title: r.Title, Outcome: input.Outcome(r.Outcome),
				Cycles: int(r.Cycles), MaxCycles: int(r.MaxCycles), MaxBudgetUSD: r.MaxBudgetUSD, TotalCostUSD: r.TotalCostUSD,
				MeanCoderCostUSD: r.MeanCoderUSD, CoderCostEstimated: r.CoderCostEstimated, MeanCycleCostUSD: r.MeanCycleUSD,
				LoopOn: r.Recorded})
		}
		c := cases[len(cases)-1]
		if r.Recorded != c.LoopOn {
			return nil, fmt.Errorf("fix-loop case of run %s, cycle %d: recorded is %v where the run's first failure has %v", r.RunKey, r.Cycle, r.Recorded, c.LoopOn)
		}
		if !(0 <= r.RecordedPassed && r.RecordedPassed <= r.RecordedReruns && r.RecordedReruns <= r.RecordedAttempts) {
			return nil, fmt.Errorf("fix-loop case of run %s, cycle %d: %d recorded attempts, %d re-runs, %d passed", r.RunKey, r.Cycle,
				r.RecordedAttempts, r.RecordedReruns, r.RecordedPassed)
		}
		c.Failures = append(c.Failures, fixsim.Failure{Cycle: int(r.Cycle), Check: r.Check, OutputLen: int(r.OutputBytes),
			Errors: int(r.ParsedErrors), Unparsed: int(r.UnparsedLines), CostAtFail: r.CostAtFailure, Next: next,
			Recorded: fixsim.Recorded{Attempts: int(r.RecordedAttempts), Reruns: int(r.RecordedReruns), Passed: int(r.RecordedPassed),
				Fixed: r.RecordedFixed, CostUSD: r.RecordedFixCostUSD, BudgetStop: r.RecordedBudgetStop}})
	}
	return cases, nil
}

var transitions = func() map[string]fixsim.Transition {
	m := map[string]fixsim.Transition{}
	for t, name := range transitionNames {
		m[name] = t
	}
	return m
}()
