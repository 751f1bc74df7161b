package eval

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkEvaluate measures a full evaluation — confusion counts, AP, ROC AUC and a
// 2000-resample bootstrap of all of them — over n runs.
func BenchmarkEvaluate(b *testing.B) {
	for _, n := range []int{100, 10000} {
		b.Run(fmt.Sprint("runs=", n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			obs := make([]Observation, n)
			for i := range obs {
				pos := rng.Float64() < 0.3
				score := rng.Float64()
				if pos {
					score += 0.3
				}
				label := Negative
				if pos {
					label = Positive
				}
				obs[i] = Observation{Key: fmt.Sprint(i), Label: label, Predicted: score > 0.6, Score: score}
			}
			b.ReportAllocs()
			for b.Loop() {
				Evaluate(obs, Options{Seed: 1})
			}
		})
	}
}
