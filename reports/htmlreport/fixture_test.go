package htmlreport

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/loopwatch/loopwatch/eval"
	"github.com/loopwatch/loopwatch/replay/input"
	"github.com/loopwatch/loopwatch/reports"
)

// fixtureObservations are n synthetic labelled observations whose scores separate the
// classes by skill (0: not at all), rounded to two decimals so that scores tie.
func fixtureObservations(seed uint64, n int, skill float64) []eval.Observation {
	rng := rand.New(rand.NewPCG(seed, 42))
	obs := make([]eval.Observation, n)
	for i := range obs {
		l, s := eval.Negative, rng.Float64()
		if rng.Float64() < 0.35 {
			l, s = eval.Positive, math.Pow(s, 1/(1+4*skill)) // skewed towards 1
		}
		obs[i] = eval.Observation{Key: fmt.Sprintf("fixture-%03d", i), Label: l, Score: math.Round(s*100) / 100, Predicted: s >= 0.6}
	}
	return obs
}

// fixture is a synthetic report with every section filled.
func fixture() *Data {
	configured := fixtureObservations(1, 120, 0.55)
	struggle := eval.Curves(configured)
	rep := eval.Evaluate(configured, eval.Options{Seed: 1, Resamples: 200})
	breakerObs := fixtureObservations(5, 24, 0.3)
	breaker := eval.Curves(breakerObs)
	brep := eval.Evaluate(breakerObs, eval.Options{Seed: 1, Resamples: 200, Unit: "sessions"})

	summary := MetricsTable("Detectors (fixture data)", []reports.DetectorReport{{Detector: "struggle", Config: "loopwatch", Report: rep}, {Detector: "breaker", Config: "loopwatch", Report: brep}})
	verdicts := Table{Title: "Regression verdicts", Columns: []string{"dataset", "detector", "metric", "baseline", "now", "delta", "interval", "verdict"},
		Rows: []Row{
			{Cells: []string{"fixture-synth", "struggle", "recall", "0.714", "0.571", "−0.143", "[0.33, 0.80]", "regression"}, Status: StatusBad},
			{Cells: []string{"fixture-synth", "struggle", "precision", "1.000", "1.000", "0.000", "[0.62, 1.00]", "ok"}, Status: StatusOK},
			{Cells: []string{"fixture-synth", "breaker", "precision", "0.667", "0.640", "−0.027", "[0.18, 0.96]", "within noise"}, Status: StatusWarn},
		},
		Notes: []string{"a drop is a regression when the baseline lies outside the new interval and the delta exceeds the tolerance"}}

	var runs []RunTrajectory
	for r := range 4 {
		rng := rand.New(rand.NewPCG(uint64(r), 9))
		tr := RunTrajectory{Key: fmt.Sprintf("fixture-run-%d@e1", r), Label: []string{"positive", "positive", "negative", "ambiguous"}[r], Threshold: 0.6}
		score := 0.1
		for c := 1; c <= 3+r; c++ {
			score = math.Min(1, score+rng.Float64()*0.3)
			tr.Cycles = append(tr.Cycles, CycleScore{Cycle: c, Score: math.Round(score*100) / 100, Triggered: score >= 0.6 && c >= 2})
		}
		tr.Caption = fmt.Sprintf("max_cycles after %d cycles", len(tr.Cycles))
		runs = append(runs, tr)
	}

	var sessions []SessionTrajectory
	for s := range 2 {
		rng := rand.New(rand.NewPCG(uint64(s), 17))
		st := SessionTrajectory{Key: fmt.Sprintf("fixture-session-%d", s), Label: []string{"failure (positive)", "success (negative)"}[s],
			Threshold: 0.7, Friction: []int{12, 30 + s}}
		ema := 0.0
		for i := 1; i <= 60+40*s; i++ {
			x := 0.0
			if (i > 10 && i < 20) || (i > 28 && i < 36) {
				x = rng.Float64()
			}
			ema = 0.7*ema + 0.3*x
			st.EMA = append(st.EMA, math.Round(ema*1000)/1000)
		}
		st.Interventions = []Marker{{Index: 17, Label: "clarification_pause"}, {Index: 34, Label: "approach_pivot"}}
		sessions = append(sessions, st)
	}

	return &Data{
		Title:  "loopwatch report — fixture",
		Facts:  []Fact{{"input", "fixture data (synthetic)"}, {"labels", "fixture labels"}, {"configuration", "seed defaults; tuned: composite_threshold 0.45"}},
		Tables: []Table{summary, verdicts},
		Curves: []CurveSet{
			{Detector: "struggle", Series: []CurveSeries{
				{Name: "configured", Curve: struggle},
				{Name: "seed", Curve: eval.Curves(fixtureObservations(1, 120, 0.35)), Dashed: true},
				{Name: "shipped today", Curve: eval.Curves(fixtureObservations(1, 120, 0.1)), Dashed: true},
				{Name: "tuned", Curve: eval.Curves(fixtureObservations(1, 120, 0.75))},
			}, Note: "score: the run's highest struggle score; positive: the run struggled"},
			{Detector: "breaker", Series: []CurveSeries{{Name: "configured", Curve: breaker,
				Points: []OperatingPoint{{Label: "baseline", Recall: 0.8, Precision: 0.7, Hollow: true}, {Label: "now", Recall: 0.55, Precision: 0.6},
					{Label: "undefined", Recall: 0.5, Precision: math.NaN()}}}}},
		},
		Sweeps: []Sweep{ThresholdSweep("struggle: metrics by score threshold", "struggle score", struggle, 0.6)},
		LeadTimes: []Histogram{
			{Title: "Lead in cycles", XLabel: "cycles before the run ended", Values: []float64{1, 1, 2, 2, 2, 3, 5, math.NaN()}, Integer: true},
			{Title: "Lead in dollars", XLabel: "cost after the detection (USD)", Values: []float64{0.4, 1.25, 2.5, 2.75, 3.1, 4.8, 7.9, 8.2}},
		},
		Runs:     runs,
		Sessions: sessions,
		Problems: []input.Problem{
			{File: "runs/fixture-a.jsonl", Line: 3, Kind: input.ProblemMalformed, Detail: "not JSON: invalid character 'x'"},
			{File: "runs/fixture-b.jsonl", Line: 0, Kind: input.ProblemUnusable, Detail: "no cycle_done"},
			{File: "runs/fixture-a.jsonl", Line: 9, Kind: input.ProblemMalformed, Detail: "not JSON: unexpected end"},
		},
		Notes: []string{"claude_code: records skipped: no use to the assessment: 24", "fixture data: the figures measure nothing real"},
	}
}
