package tune

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/loopwatch/loopwatch/eval"
)

// TestPairedCountsSumAsTallies holds the paired bootstrap's packed counts to the
// tallies they pack: on any multiset of units, the two scores are the ones the
// tallies' sums give — packed as confusion cells, as alarm counts, and unpacked when a
// count does not fit.
func TestPairedCountsSumAsTallies(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	observation := func() tally {
		var t tally
		t.conf.Add(rng.IntN(2) == 0, rng.IntN(2) == 0)
		return t
	}
	alarms := func(moments, turns int) tally {
		caught := rng.IntN(moments + 1)
		ivs := rng.IntN(4)
		tp := min(ivs, caught)
		return tally{alarms: eval.AlarmCounts{Moments: moments, Caught: caught, Interventions: ivs, TruePositives: tp, FalseAlarms: ivs - tp,
			HumanTurns: turns, DelaySecondsSum: rng.Float64() * 100, SessionsWithMoments: min(moments, 1)}}
	}
	tests := []struct {
		name   string
		target Target
		packed string // "cells", "alarms" or "" (unpacked)
		units  func(n int) (a, b []unitOutcome)
	}{
		{"one observation a unit", TargetStruggle, "cells", func(n int) (a, b []unitOutcome) {
			for range n {
				a, b = append(a, unitOutcome{tally: observation()}), append(b, unitOutcome{tally: observation()})
			}
			return a, b
		}},
		{"a unit counted twice", TargetBreaker, "", func(n int) (a, b []unitOutcome) {
			for i := range n {
				x := observation()
				if i == n/2 {
					x.conf.Add(true, true)
				}
				a, b = append(a, unitOutcome{tally: x}), append(b, unitOutcome{tally: observation()})
			}
			return a, b
		}},
		{"friction", TargetFriction, "alarms", func(n int) (a, b []unitOutcome) {
			for range n {
				m, turns := rng.IntN(4), rng.IntN(30)
				a, b = append(a, unitOutcome{tally: alarms(m, turns)}), append(b, unitOutcome{tally: alarms(m, turns)})
			}
			return a, b
		}},
		{"friction, a count past int32", TargetFriction, "", func(n int) (a, b []unitOutcome) {
			for i := range n {
				m, turns := rng.IntN(4), rng.IntN(30)
				if i == 3 {
					turns = math.MaxInt32 + 1
				}
				a, b = append(a, unitOutcome{tally: alarms(m, turns)}), append(b, unitOutcome{tally: alarms(m, turns)})
			}
			return a, b
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := tt.units(50)
			p := newPairedCounts(tt.target, a, b)
			packed := ""
			switch {
			case p.cells != nil:
				packed = "cells"
			case p.alarms != nil:
				packed = "alarms"
			}
			if packed != tt.packed {
				t.Fatalf("packed as %q, want %q", packed, tt.packed)
			}
			for r := range 200 {
				idx := make([]int, len(a))
				for i := range idx {
					idx[i] = rng.IntN(len(a))
				}
				if r == 0 {
					idx = nil // no unit
				}
				var x, y tally
				for _, k := range idx {
					x.add(a[k].tally)
					y.add(b[k].tally)
				}
				gx, gy := p.scores(idx)
				if !sameScore(gx, x.score(tt.target)) || !sameScore(gy, y.score(tt.target)) {
					t.Fatalf("resample %d: scores %+v, %+v; the tallies' %+v, %+v", r, gx, gy, x.score(tt.target), y.score(tt.target))
				}
			}
		})
	}
}

// sameScore compares scores field by field, NaN equal to NaN.
func sameScore(a, b eval.Score) bool {
	eq := func(x, y float64) bool { return x == y || (math.IsNaN(x) && math.IsNaN(y)) }
	return eq(a.Precision, b.Precision) && eq(a.Recall, b.Recall) && a.FP == b.FP && a.FN == b.FN && eq(a.FalseAlarmsPer100, b.FalseAlarmsPer100)
}
