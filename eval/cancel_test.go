package eval

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

// TestBootstrapStopsWhenCancelled: every bootstrap stops once its context is done and
// fails with the context's error — an interrupt is not a plausible report with
// undefined intervals — and a context that is not done changes nothing.
func TestBootstrapStopsWhenCancelled(t *testing.T) {
	var obs []Observation
	var preds []OutcomePrediction
	var sessions []MomentSession
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 40 {
		label := []Label{Positive, Negative}[i%2]
		obs = append(obs, Observation{Key: fmt.Sprint(i), Label: label, Predicted: i%3 == 0, Score: float64(i % 7)})
		preds = append(preds, OutcomePrediction{Key: fmt.Sprint(i), Label: "success", Predicted: []string{"success", "failure"}[i%2]})
		sessions = append(sessions, MomentSession{Key: fmt.Sprint(i), HumanTurns: 5,
			Moments:       []Point{{Time: t0, Index: 1}},
			Interventions: []Point{{Time: t0.Add(time.Duration(i%3) * time.Minute), Index: 2 + i%3}}})
	}
	calls := 0 // of the paired figures
	paired := func(opts Options) error {
		_, err := PairedBootstraps(len(obs), 1, func(units []int, a, b []float64) {
			calls++
			a[0], b[0] = float64(units[0]), 1
		}, opts)
		return err
	}
	tests := []struct {
		name string
		run  func(Options) error
	}{
		{"Evaluate", func(o Options) error { return Evaluate(obs, o).Err }},
		{"EvaluateMoments", func(o Options) error { return EvaluateMoments(sessions, 5*time.Minute, o).Err }},
		{"EvaluateOutcomes", func(o Options) error { return EvaluateOutcomes(preds, o).Err }},
		{"PairedBootstraps", paired},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := Options{Seed: 1, Resamples: MaxResamples}
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			opts.Context = ctx
			calls = 0
			if err := tt.run(opts); !errors.Is(err, context.Canceled) {
				t.Errorf("a cancelled context: %v, want %v", err, context.Canceled)
			}
			if calls > 1 { // the figures on every unit, then no resample
				t.Errorf("the paired figures computed %d times after the context was done", calls)
			}
			opts.Resamples, opts.Context = 200, context.Background()
			if err := tt.run(opts); err != nil {
				t.Errorf("a context not done: %v", err)
			}
		})
	}
}
