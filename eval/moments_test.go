package eval

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

var momentT0 = time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)

// at is a point min minutes after momentT0 at event index idx.
func at(min float64, idx int) Point {
	return Point{Time: momentT0.Add(time.Duration(min * float64(time.Minute))), Index: idx}
}

func TestScoreSession(t *testing.T) {
	for _, tt := range []struct {
		name                   string
		s                      MomentSession
		caughtBy, catches      []int
		caught, tp, fa         int
		delaySeconds, delayEvs []float64
	}{
		{name: "hit, miss, and an intervention after nothing",
			s:        MomentSession{Moments: []Point{at(0, 1), at(20, 9)}, Interventions: []Point{at(2, 4), at(40, 15)}},
			caughtBy: []int{0, -1}, catches: []int{1, 0}, caught: 1, tp: 1, fa: 1, delaySeconds: []float64{120}, delayEvs: []float64{3}},
		{name: "an intervention before its moment catches nothing",
			s:        MomentSession{Moments: []Point{at(10, 5)}, Interventions: []Point{at(9, 3)}},
			caughtBy: []int{-1}, catches: []int{0}, fa: 1},
		{name: "two interventions after one moment: the second is a false alarm",
			s:        MomentSession{Moments: []Point{at(0, 0)}, Interventions: []Point{at(1, 2), at(5, 6)}},
			caughtBy: []int{0}, catches: []int{1, 0}, caught: 1, tp: 1, fa: 1, delaySeconds: []float64{60}, delayEvs: []float64{2}},
		{name: "one intervention after a burst catches every moment of it",
			s:        MomentSession{Moments: []Point{at(0, 0), at(1, 2), at(2, 4)}, Interventions: []Point{at(3, 5)}},
			caughtBy: []int{0, 0, 0}, catches: []int{3}, caught: 3, tp: 1, delaySeconds: []float64{180, 120, 60}, delayEvs: []float64{5, 3, 1}},
		{name: "a later intervention catches the moment an earlier one could not reach",
			s:        MomentSession{Moments: []Point{at(0, 0), at(4, 3)}, Interventions: []Point{at(1, 1), at(6, 5)}},
			caughtBy: []int{0, 1}, catches: []int{1, 1}, caught: 2, tp: 2, delaySeconds: []float64{60, 120}, delayEvs: []float64{1, 2}},
		{name: "exactly at the window's end is inside",
			s:        MomentSession{Moments: []Point{at(0, 0)}, Interventions: []Point{at(5, 1)}},
			caughtBy: []int{0}, catches: []int{1}, caught: 1, tp: 1, delaySeconds: []float64{300}, delayEvs: []float64{1}},
		{name: "just past the window is outside",
			s:        MomentSession{Moments: []Point{at(0, 0)}, Interventions: []Point{at(5.01, 1)}},
			caughtBy: []int{-1}, catches: []int{0}, fa: 1},
		{name: "interventions given out of order are taken in time order",
			s:        MomentSession{Moments: []Point{at(0, 0)}, Interventions: []Point{at(3, 4), at(1, 2)}},
			caughtBy: []int{1}, catches: []int{0, 1}, caught: 1, tp: 1, fa: 1, delaySeconds: []float64{60}, delayEvs: []float64{2}},
		{name: "at the moment's time but an earlier event: before it, catches nothing",
			s:        MomentSession{Moments: []Point{at(0, 5)}, Interventions: []Point{at(0, 3)}},
			caughtBy: []int{-1}, catches: []int{0}, fa: 1},
		{name: "at the moment's time and event: caught",
			s:        MomentSession{Moments: []Point{at(0, 5)}, Interventions: []Point{at(0, 5)}},
			caughtBy: []int{0}, catches: []int{1}, caught: 1, tp: 1, delaySeconds: []float64{0}, delayEvs: []float64{0}},
		{name: "empty", s: MomentSession{}, caughtBy: []int{}, catches: []int{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sc := ScoreSession(tt.s, 5*time.Minute)
			if !slices.Equal(sc.CaughtBy, tt.caughtBy) || !slices.Equal(sc.Catches, tt.catches) || sc.Caught != tt.caught ||
				sc.TruePositives != tt.tp || sc.FalseAlarms != tt.fa || !slices.Equal(sc.DelaySeconds, tt.delaySeconds) ||
				!slices.Equal(sc.DelayEvents, tt.delayEvs) {
				t.Errorf("got %+v", sc)
			}
		})
	}
}

// TestMomentScoringNotGameable: firing again and again after each moment (cooldown 0)
// never raises precision or recall; it only adds false alarms.
func TestMomentScoringNotGameable(t *testing.T) {
	moments := []Point{at(0, 0), at(30, 10), at(60, 20)}
	once := MomentSession{Moments: moments, Interventions: []Point{at(1, 1), at(40, 15)}, HumanTurns: 20}
	spam := MomentSession{Moments: moments, HumanTurns: 20}
	for _, m := range moments {
		for k := 1; k <= 10; k++ {
			spam.Interventions = append(spam.Interventions, Point{Time: m.Time.Add(time.Duration(k) * 20 * time.Second), Index: m.Index + k})
		}
	}
	a := EvaluateMoments([]MomentSession{once}, 5*time.Minute, Options{Resamples: -1})
	b := EvaluateMoments([]MomentSession{spam}, 5*time.Minute, Options{Resamples: -1})
	if a.Precision.Value != 0.5 || a.Recall.Value != 1.0/3 || a.FalseAlarmsPer100.Value != 5 {
		t.Errorf("once: precision %v recall %v fa/100 %v", a.Precision.Value, a.Recall.Value, a.FalseAlarmsPer100.Value)
	}
	if b.Recall.Value != 1 || b.Precision.Value != 0.1 || b.FalseAlarms != 27 || b.FalseAlarmsPer100.Value != 135 {
		t.Errorf("spam: precision %v recall %v false alarms %d (%v per 100 turns)", b.Precision.Value, b.Recall.Value, b.FalseAlarms, b.FalseAlarmsPer100.Value)
	}
}

// TestMomentPrecisionOverBursts: precision is caught moments over caught moments and
// false alarms, so firing once more at a moment of a burst that a later intervention
// caught does not raise it (true positives over interventions would: 1/2 → 2/3).
func TestMomentPrecisionOverBursts(t *testing.T) {
	burst := []Point{at(0, 0), at(1, 2)}
	once := MomentSession{Moments: burst, Interventions: []Point{at(1, 2), at(30, 9)}, HumanTurns: 10}
	twice := MomentSession{Moments: burst, Interventions: []Point{at(0, 0), at(1, 2), at(30, 9)}, HumanTurns: 10}
	for _, tt := range []struct {
		name      string
		s         MomentSession
		tp, fa    int
		precision float64
	}{
		{"once after the burst", once, 1, 1, 2.0 / 3},
		{"at each moment of the burst", twice, 2, 1, 2.0 / 3},
	} {
		rep := EvaluateMoments([]MomentSession{tt.s}, 5*time.Minute, Options{Resamples: -1})
		if rep.TruePositives != tt.tp || rep.FalseAlarms != tt.fa || rep.Caught != 2 || rep.Precision.Value != tt.precision {
			t.Errorf("%s: tp %d fa %d caught %d precision %v, want tp %d fa %d caught 2 precision %v", tt.name,
				rep.TruePositives, rep.FalseAlarms, rep.Caught, rep.Precision.Value, tt.tp, tt.fa, tt.precision)
		}
		var a AlarmCounts
		a.Add(ScoreSession(tt.s, 5*time.Minute).Counts(len(tt.s.Moments), len(tt.s.Interventions), tt.s.HumanTurns))
		if a.Precision() != rep.Precision.Value {
			t.Errorf("%s: AlarmCounts.Precision %v, the report %v", tt.name, a.Precision(), rep.Precision.Value)
		}
	}
}

// TestMoreInterventionsNeverImprove adds one intervention at a time to random sessions:
// unless it catches a moment nothing caught before, no figure may improve — precision
// and false alarms only stay or worsen, recall stays.
func TestMoreInterventionsNeverImprove(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const window = 5 * time.Minute
	point := func() Point { return at(float64(rng.IntN(60)), rng.IntN(40)) }
	for trial := range 3000 {
		s := MomentSession{HumanTurns: 40}
		for range rng.IntN(6) {
			s.Moments = append(s.Moments, point())
		}
		for range rng.IntN(6) {
			s.Interventions = append(s.Interventions, point())
		}
		before := ScoreSession(s, window).Counts(len(s.Moments), len(s.Interventions), s.HumanTurns)
		more := s
		more.Interventions = append(slices.Clip(s.Interventions), point())
		after := ScoreSession(more, window).Counts(len(more.Moments), len(more.Interventions), more.HumanTurns)
		if after.Caught < before.Caught || after.FalseAlarms < before.FalseAlarms {
			t.Fatalf("trial %d: adding %v uncaught a moment or cleared a false alarm: %+v → %+v", trial, more.Interventions[len(s.Interventions)], before, after)
		}
		if after.Caught > before.Caught {
			continue // a new catch: better recall is earned
		}
		worse := func(x, y float64) bool { return !math.IsNaN(x) && !math.IsNaN(y) && y > x }
		if worse(before.Precision(), after.Precision()) || after.Recall() != before.Recall() && !math.IsNaN(before.Recall()) ||
			after.FalseAlarmsPer100() < before.FalseAlarmsPer100() {
			t.Fatalf("trial %d: %+v\nadding %v improved a figure without a new catch: precision %v → %v, recall %v → %v, false alarms %v → %v",
				trial, s, more.Interventions[len(s.Interventions)], before.Precision(), after.Precision(), before.Recall(), after.Recall(),
				before.FalseAlarmsPer100(), after.FalseAlarmsPer100())
		}
	}
}

func TestEvaluateMoments(t *testing.T) {
	sessions := []MomentSession{
		{Key: "a", Moments: []Point{at(0, 1), at(20, 9)}, Interventions: []Point{at(2, 4), at(40, 15)}, HumanTurns: 10},
		{Key: "b", Moments: []Point{at(10, 5)}, Interventions: []Point{at(9, 3)}, HumanTurns: 4},
		{Key: "c", HumanTurns: 2},
		{Key: "d", Moments: []Point{at(0, 0)}, Interventions: []Point{at(1, 2), at(5, 6)}, HumanTurns: 4},
	}
	rep := EvaluateMoments(sessions, 5*time.Minute, Options{Seed: 1, Resamples: 500})
	if rep.Moments != 4 || rep.Caught != 2 || rep.Interventions != 5 || rep.TruePositives != 2 || rep.FalseAlarms != 3 || rep.HumanTurns != 20 {
		t.Fatalf("counts %+v", rep)
	}
	if rep.Recall.Value != 0.5 || rep.Precision.Value != 0.4 || rep.FalseAlarmsPer100.Value != 15 {
		t.Errorf("recall %v precision %v fa/100 %v", rep.Recall.Value, rep.Precision.Value, rep.FalseAlarmsPer100.Value)
	}
	// delays: 120 s (3 events) and 60 s (2 events)
	if rep.MedianDelaySeconds != 90 || rep.MeanDelaySeconds != 90 || rep.MedianDelayEvents != 2.5 || rep.P90DelaySeconds != 120 ||
		!slices.Equal(rep.DelaysSeconds, []float64{60, 120}) {
		t.Errorf("delays %v %v %v %v %v", rep.MedianDelaySeconds, rep.MeanDelaySeconds, rep.MedianDelayEvents, rep.P90DelaySeconds, rep.DelaysSeconds)
	}
	for name, e := range map[string]Estimate{"recall": rep.Recall, "precision": rep.Precision, "fa/100": rep.FalseAlarmsPer100} {
		if !(e.Low <= e.Value && e.Value <= e.High) {
			t.Errorf("%s interval %+v", name, e)
		}
	}
	for name, e := range map[string]Estimate{"recall": rep.Recall, "precision": rep.Precision, "fa/100": rep.FalseAlarmsPer100} {
		if !math.IsNaN(e.JeffreysLow) || !math.IsNaN(e.JeffreysHigh) {
			t.Errorf("%s has a Jeffreys interval %+v: moments and interventions of a session are no independent trials", name, e)
		}
	}
	again := EvaluateMoments(sessions, 5*time.Minute, Options{Seed: 1, Resamples: 500})
	if fmt.Sprint(again.Recall, again.Precision, again.FalseAlarmsPer100) != fmt.Sprint(rep.Recall, rep.Precision, rep.FalseAlarmsPer100) {
		t.Error("same seed, different intervals")
	}
	empty := EvaluateMoments([]MomentSession{{Key: "x"}}, time.Minute, Options{Resamples: -1})
	if !math.IsNaN(empty.Precision.Value) || !math.IsNaN(empty.Recall.Value) || !math.IsNaN(empty.FalseAlarmsPer100.Value) ||
		len(empty.Warnings) != 3 || !math.IsNaN(empty.MedianDelaySeconds) {
		t.Errorf("empty: %+v", empty)
	}
}
