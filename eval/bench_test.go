package eval

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// benchObservations returns n runs, 30% positive, with scores that separate the
// classes somewhat: every score distinct, or (tied) rounded to twenty levels as a
// composite of a few weighted signals is.
func benchObservations(n int, tied bool) []Observation {
	rng := rand.New(rand.NewPCG(1, 2))
	obs := make([]Observation, n)
	for i := range obs {
		pos := rng.Float64() < 0.3
		score := rng.Float64()
		if pos {
			score += 0.3
		}
		if tied {
			score = math.Round(score*20) / 20
		}
		label := Negative
		if pos {
			label = Positive
		}
		obs[i] = Observation{Key: fmt.Sprint(i), Label: label, Predicted: score > 0.6, Score: score}
	}
	return obs
}

// BenchmarkEvaluate measures a full evaluation — confusion counts, AP, ROC AUC and a
// 2000-resample bootstrap of all of them — over n runs, as Evaluate does it (impl=counts)
// and as it did before resampling counts (impl=reference: the observations copied into
// every resample, gonum's ROC per resample). Compare the two with benchstat:
//
//	go test -run '^$' -bench 'Evaluate$' -benchmem -count 6 ./eval > eval.txt
//	benchstat -col /impl eval.txt
func BenchmarkEvaluate(b *testing.B) {
	for _, n := range []int{100, 10000, 100000} {
		for _, scores := range []string{"distinct", "tied"} {
			obs := benchObservations(n, scores == "tied")
			for _, impl := range []struct {
				name string
				eval func([]Observation, Options) *Report
			}{{"counts", Evaluate}, {"reference", referenceEvaluate}} {
				b.Run(fmt.Sprintf("runs=%d/scores=%s/impl=%s", n, scores, impl.name), func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						impl.eval(obs, Options{Seed: 1})
					}
				})
			}
		}
	}
}

// BenchmarkEvaluateMoments measures the event-level scoring of n sessions with a
// 2000-resample bootstrap over sessions. Its resamples add up per-session counts, so
// it allocates nothing per resample.
func BenchmarkEvaluateMoments(b *testing.B) {
	for _, n := range []int{100, 10000} {
		rng := rand.New(rand.NewPCG(3, 4))
		start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		sessions := make([]MomentSession, n)
		for i := range sessions {
			s := MomentSession{Key: fmt.Sprint(i), HumanTurns: 5 + rng.IntN(20)}
			for range rng.IntN(4) {
				s.Moments = append(s.Moments, Point{Time: start.Add(time.Duration(rng.IntN(3600)) * time.Second), Index: rng.IntN(200)})
			}
			for range rng.IntN(4) {
				s.Interventions = append(s.Interventions, Point{Time: start.Add(time.Duration(rng.IntN(3600)) * time.Second), Index: rng.IntN(200)})
			}
			sessions[i] = s
		}
		b.Run(fmt.Sprint("sessions=", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				EvaluateMoments(sessions, 5*time.Minute, Options{Seed: 1})
			}
		})
	}
}
