package htmlreport

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/loopwatch/loopwatch/reports"
)

func p[T any](v T) *T { return &v }

func TestRunTrajectories(t *testing.T) {
	runs := []reports.RunRow{
		{RunKey: "fixture-low", Kind: "quasar_run", Cycles: p(int32(2)), StruggleMaxScore: p(0.2), Label: p("negative"), Outcome: p("approved")},
		{RunKey: "fixture-high", Kind: "quasar_run", Cycles: p(int32(2)), StruggleMaxScore: p(0.9), Label: p("positive"), Outcome: p("max_cycles"),
			StruggleFirstCycle: p(int32(2)), LeadCycles: p(int32(1))},
		{RunKey: "fixture-mid-b", Kind: "quasar_run", Cycles: p(int32(2)), StruggleMaxScore: p(0.5)},
		{RunKey: "fixture-mid-a", Kind: "quasar_run", Cycles: p(int32(2)), StruggleMaxScore: p(0.5)},
		{RunKey: "fixture-no-cycles", Kind: "quasar_run", StruggleMaxScore: p(1.0)},
		{RunKey: "fixture-session", Kind: "session"},
	}
	var cycles []reports.CycleRow
	for _, k := range []string{"fixture-low", "fixture-high", "fixture-mid-b", "fixture-mid-a", "fixture-session"} {
		cycles = append(cycles, reports.CycleRow{RunKey: k, Cycle: 1, Score: 0.2, Decision: true}, reports.CycleRow{RunKey: k, Cycle: 2, Score: 0.7, Triggered: true, Decision: true})
	}
	// Over the threshold in a cycle that decides nothing (approved): not marked.
	cycles = append(cycles, reports.CycleRow{RunKey: "fixture-high", Cycle: 3, Score: 0.8, Triggered: true, Approved: true})
	got := RunTrajectories(runs, cycles, 0.6, 3)
	var keys []string
	for _, r := range got {
		keys = append(keys, r.Key)
	}
	if want := []string{"fixture-high", "fixture-mid-a", "fixture-mid-b"}; !reflect.DeepEqual(keys, want) {
		t.Errorf("top runs %v, want %v", keys, want)
	}
	want := RunTrajectory{Key: "fixture-high", Label: "positive", Caption: "max_cycles · flagged at cycle 2, 1 cycle before the end", Threshold: 0.6,
		Cycles: []CycleScore{{1, 0.2, false}, {2, 0.7, true}, {3, 0.8, false}}}
	if !reflect.DeepEqual(got[0], want) {
		t.Errorf("got %+v\nwant %+v", got[0], want)
	}
	if got[1].Label != "unlabelled" || got[1].Caption != "outcome unknown" {
		t.Errorf("an unlabelled run: %+v", got[1])
	}
}

func TestSessionTrajectories(t *testing.T) {
	runs := []reports.RunRow{
		{RunKey: "fixture-calm", Kind: "session", Events: p(int32(1)), PeakFrustrationEMA: p(0.9)},
		{RunKey: "fixture-marked", Kind: "session", Events: p(int32(3)), PeakFrustrationEMA: p(0.3), FrictionMoments: p(int32(1)), Interventions: p(int32(1)),
			LabelOutcome: p("failure"), Label: p("positive"), PredictedOutcome: p("partial")},
		{RunKey: "fixture-run", Kind: "quasar_run"},
	}
	events := []reports.EventRow{
		{SessionKey: "fixture-marked", Index: 1, FrustrationEMA: 0.1, FrictionLabel: p(false)},
		{SessionKey: "fixture-marked", Index: 2, FrustrationEMA: 0.3, FrictionLabel: p(true)},
		{SessionKey: "fixture-marked", Index: 3, FrustrationEMA: 0.2, Intervention: p("approach_pivot"), FrictionLabel: p(false)},
		{SessionKey: "fixture-calm", Index: 1, FrustrationEMA: 0.9},
	}
	got := SessionTrajectories(runs, events, 0.7, 5)
	want := []SessionTrajectory{
		{Key: "fixture-marked", Label: "failure (positive)", Caption: "predicted partial", Threshold: 0.7, EMA: []float64{0.1, 0.3, 0.2},
			Interventions: []Marker{{3, "approach_pivot"}}, Friction: []int{2}},
		{Key: "fixture-calm", Label: "unlabelled", Threshold: 0.7, EMA: []float64{0.9}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	if got := SessionTrajectories(runs, events, 0.7, 1); len(got) != 1 || got[0].Key != "fixture-marked" {
		t.Errorf("n = 1: %+v", got)
	}
}

// leadTimes is the lead-time histograms of runs and predictions, taken one at a time.
func leadTimes(runs []reports.RunRow, preds []reports.PredictionRow) []Histogram {
	var t LeadTally
	for i := range runs {
		t.AddRun(&runs[i])
	}
	for i := range preds {
		t.AddPrediction(&preds[i])
	}
	return t.Histograms()
}

func TestLeadTimes(t *testing.T) {
	runs := []reports.RunRow{
		{Confusion: p("tp"), LeadCycles: p(int32(2)), LeadCostUSD: p(1.5), LeadSeconds: p(120.0)},
		{Confusion: p("fp"), LeadCycles: p(int32(9)), LeadCostUSD: p(9.0), LeadSeconds: p(900.0)},
		{Confusion: p("tp"), LeadCycles: p(int32(1))},
	}
	// The configured detectors' delays, one per caught moment; a compared preset's are not drawn.
	preds := []reports.PredictionRow{{DelaySeconds: []float64{30}}, {}, {ConfigIndex: 1, DelaySeconds: []float64{99}}}
	hs := leadTimes(runs, preds)
	if len(hs) != 4 {
		t.Fatalf("%d histograms: %+v", len(hs), hs)
	}
	if !reflect.DeepEqual(hs[0].Values, []float64{1, 2}) || !hs[0].Integer || !reflect.DeepEqual(hs[1].Values, []float64{1.5}) ||
		!reflect.DeepEqual(hs[2].Values, []float64{2}) || !reflect.DeepEqual(hs[3].Values, []float64{30}) {
		t.Errorf("values %v %v %v %v", hs[0].Values, hs[1].Values, hs[2].Values, hs[3].Values)
	}
	slices.Reverse(runs) // the same rows in another order: the same histograms
	if again := leadTimes(runs, preds); !reflect.DeepEqual(again, hs) {
		t.Errorf("rows reversed: %+v, was %+v", again, hs)
	}
	if hs := leadTimes(nil, nil); len(hs) != 0 {
		t.Errorf("nothing gave %d histograms", len(hs))
	}
}

// TestTop: the runs and sessions kept from rows given one at a time are the ones
// TopRuns and TopSessions choose from all of them, over many rows, ties included.
func TestTop(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var rows []reports.RunRow
	for i := range 3000 {
		r := reports.RunRow{RunKey: fmt.Sprintf("k%04d", (i*7919)%3000), Kind: "quasar_run"} // unique keys, not in order
		if i%3 == 0 {
			r.Kind = "session"
			r.Events = p(int32(rng.IntN(3)))
			r.PeakFrustrationEMA = p(float64(rng.IntN(5)) / 4) // many ties
			if rng.IntN(10) == 0 {
				r.Interventions = p(int32(1))
			}
		} else {
			r.Cycles = p(int32(rng.IntN(3)))
			if rng.IntN(4) > 0 {
				r.StruggleMaxScore = p(float64(rng.IntN(7)) / 6)
			}
		}
		rows = append(rows, r)
	}
	for _, n := range []int{0, 1, 6, 50} {
		top := NewTop(n)
		for i := range rows {
			top.Add(&rows[i])
		}
		if got, want := top.Runs(), TopRuns(rows, n); !reflect.DeepEqual(got, want) || len(want) != n {
			t.Errorf("n %d: runs %d kept, not TopRuns' %d", n, len(got), len(want))
		}
		if got, want := top.Sessions(), TopSessions(rows, n); !reflect.DeepEqual(got, want) || len(want) != n {
			t.Errorf("n %d: sessions %d kept, not TopSessions' %d", n, len(got), len(want))
		}
		if len(top.runs) > 4*n+64 || len(top.sessions) > 4*n+64 {
			t.Errorf("n %d: holds %d runs and %d sessions", n, len(top.runs), len(top.sessions))
		}
	}
}
