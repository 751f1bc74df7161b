package pipeline

import (
	"fmt"
	"math"
	"reflect"
	"testing"

	"github.com/loopwatch/loopwatch/eval"
)

// TestObservations checks that the compact, chunked observations give back what was
// added, in order, around the chunk boundaries.
func TestObservations(t *testing.T) {
	labels := []eval.Label{eval.Positive, eval.Negative, eval.Unlabelled, eval.Ambiguous, eval.Excluded}
	for _, n := range []int{0, 1, chunkLen - 1, chunkLen, chunkLen + 1, 3*chunkLen + 17} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			var held observations
			var moments chunked[eval.MomentSession]
			want := []eval.Observation{}
			var wantMoments []eval.MomentSession
			for i := range n {
				ob := eval.Observation{Key: fmt.Sprintf("s%d", i), Label: labels[i*7%len(labels)], Predicted: i%3 == 0, Score: float64(i) / 10}
				if i%11 == 0 {
					ob.Score = math.NaN()
				}
				held.add(ob)
				want = append(want, ob)
				ms := eval.MomentSession{Key: ob.Key, HumanTurns: i}
				moments.add(ms)
				wantMoments = append(wantMoments, ms)
			}
			got := held.all()
			if len(got) != n || held.chunks.len() != n || moments.len() != n {
				t.Fatalf("%d observations, %d held, %d moments; want %d", len(got), held.chunks.len(), moments.len(), n)
			}
			for i := range got {
				a, b := got[i], want[i]
				if a.Key != b.Key || a.Label != b.Label || a.Predicted != b.Predicted || !(a.Score == b.Score || math.IsNaN(a.Score) && math.IsNaN(b.Score)) {
					t.Fatalf("observation %d: %+v, want %+v", i, a, b)
				}
			}
			var gotMoments []eval.MomentSession
			moments.each(func(m *eval.MomentSession) { gotMoments = append(gotMoments, *m) })
			if !reflect.DeepEqual(gotMoments, wantMoments) {
				t.Fatalf("moments differ")
			}
		})
	}
}
