package eval

import (
	"math"
	"testing"
	"time"
)

func TestEvaluateMoments(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	at := func(min float64, idx int) Point {
		return Point{Time: t0.Add(time.Duration(min * float64(time.Minute))), Index: idx}
	}
	sessions := []MomentSession{
		// Moment at 0 hit by the intervention at 2 (within 5m); moment at 20 missed;
		// the intervention at 40 follows no moment.
		{Key: "a", Moments: []Point{at(0, 1), at(20, 9)}, Interventions: []Point{at(2, 4), at(40, 15)}},
		// An intervention before its moment does not count.
		{Key: "b", Moments: []Point{at(10, 5)}, Interventions: []Point{at(9, 3)}},
		// No moments, no interventions.
		{Key: "c"},
		// Two interventions after one moment: one hit, both true positives.
		{Key: "d", Moments: []Point{at(0, 0)}, Interventions: []Point{at(1, 2), at(5, 6)}},
	}
	rep := EvaluateMoments(sessions, 5*time.Minute, Options{Seed: 1, Resamples: 500})
	if rep.Moments != 4 || rep.Hits != 2 || rep.Interventions != 5 || rep.TruePositives != 3 {
		t.Fatalf("counts %+v", rep)
	}
	if rep.Recall.Value != 0.5 || rep.Precision.Value != 0.6 {
		t.Errorf("recall %v precision %v", rep.Recall.Value, rep.Precision.Value)
	}
	// delays: 120 s (4−1 = 3 events) and 60 s (2 events)
	if rep.MedianDelaySeconds != 90 || rep.MeanDelaySeconds != 90 || rep.MedianDelayEvents != 2.5 {
		t.Errorf("delays %v %v %v", rep.MedianDelaySeconds, rep.MeanDelaySeconds, rep.MedianDelayEvents)
	}
	if !(rep.Recall.Low <= 0.5 && 0.5 <= rep.Recall.High) || math.IsNaN(rep.Recall.JeffreysLow) {
		t.Errorf("recall intervals %+v", rep.Recall)
	}
	// Exactly at the window's edge is inside.
	edge := EvaluateMoments([]MomentSession{{Moments: []Point{at(0, 0)}, Interventions: []Point{at(5, 1)}}}, 5*time.Minute, Options{Resamples: -1})
	if edge.Hits != 1 {
		t.Error("an intervention exactly at the window's end is a hit")
	}
	empty := EvaluateMoments([]MomentSession{{Key: "x"}}, time.Minute, Options{Resamples: -1})
	if !math.IsNaN(empty.Precision.Value) || !math.IsNaN(empty.Recall.Value) || len(empty.Warnings) != 2 || !math.IsNaN(empty.MedianDelaySeconds) {
		t.Errorf("empty: %+v", empty)
	}
}
