package eval

import (
	"fmt"
	"math"
	"testing"
	"time"
)

// TestFewResamples: one or two bootstrap resamples (replay and tune --resamples 1, the
// registry's eval.resamples 1) never panic where a metric is undefined on every
// resample drawn — half of one, rounded down, is none, and the quantiles of no sample
// panicked (stat: zero length slice) — and an interval drawn is an interval.
func TestFewResamples(t *testing.T) {
	// One positive, flagged, among many negatives never flagged: most resamples hold
	// no positive (recall undefined) and no flag (precision undefined).
	var rare []Observation
	for i := range 20 {
		o := Observation{Key: fmt.Sprint(i), Label: Negative, Score: 0}
		if i == 0 {
			o = Observation{Key: "0", Label: Positive, Predicted: true, Score: 1}
		}
		rare = append(rare, o)
	}
	// Sessions of which one has an intervention catching its moment.
	var sessions []MomentSession
	at := func(s int) Point { return Point{Time: time.Unix(int64(s), 0), Index: s} }
	for i := range 20 {
		s := MomentSession{Key: fmt.Sprint(i), Moments: []Point{at(10)}, HumanTurns: 5}
		if i == 0 {
			s.Interventions = []Point{at(11)}
		}
		sessions = append(sessions, s)
	}
	check := func(t *testing.T, what string, value, lo, hi float64) {
		t.Helper()
		if math.IsNaN(lo) != math.IsNaN(hi) || lo > hi || (!math.IsNaN(lo) && math.IsNaN(value)) {
			t.Errorf("%s: %v [%v, %v]", what, value, lo, hi)
		}
	}
	for _, tt := range []struct {
		name string
		run  func(t *testing.T, opts Options)
	}{
		{"Evaluate", func(t *testing.T, opts Options) {
			rep := Evaluate(rare, opts)
			for name, e := range map[string]Estimate{"precision": rep.Precision, "recall": rep.Recall, "F1": rep.F1, "F-beta": rep.FBeta} {
				check(t, name, e.Value, e.Low, e.High)
			}
		}},
		{"EvaluateMoments", func(t *testing.T, opts Options) {
			rep := EvaluateMoments(sessions, time.Minute, opts)
			for name, e := range map[string]Estimate{"precision": rep.Precision, "recall": rep.Recall, "false alarms": rep.FalseAlarmsPer100} {
				check(t, name, e.Value, e.Low, e.High)
			}
		}},
		{"PairedBootstraps", func(t *testing.T, opts Options) {
			ds, err := PairedBootstraps(20, 1, func(units []int, a, b []float64) {
				a[0], b[0] = math.NaN(), 1 // defined on all the units only: none resampled holds unit 0 to 19 in order
				for i, u := range units {
					if u != i {
						return
					}
				}
				a[0] = 0
			}, opts)
			if err != nil {
				t.Fatal(err)
			}
			check(t, "difference", ds[0].Diff, ds[0].Low, ds[0].High)
		}},
	} {
		for _, resamples := range []int{1, 2, 3} {
			for seed := range uint64(8) {
				t.Run(fmt.Sprintf("%s/%d/%d", tt.name, resamples, seed), func(t *testing.T) {
					tt.run(t, Options{Resamples: resamples, Seed: seed})
				})
			}
		}
	}
}
