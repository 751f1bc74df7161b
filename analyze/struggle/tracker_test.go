package struggle

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/loopwatch/loopwatch/analyze"
)

// TestTrackerMeasuresAsMeasure: a Tracker following a run cycle by cycle gives
// exactly Measure's measures at every cycle, for runs as EndCycle builds them and for
// states it cannot follow (measured afresh).
func TestTrackerMeasuresAsMeasure(t *testing.T) {
	words := []string{"nil", "Nil", "pointer", "in", "handler", "the", "body", "is", "not", "closed", "error", "path", "x"}
	checks := []string{"", "", "build", "test", "lint"}
	tests := []struct {
		name  string
		shape func(rng *rand.Rand, s *CycleState) // changes a state after EndCycle
	}{
		{"as EndCycle builds it", nil},
		{"findings without a cycle (0) count as prior", func(rng *rand.Rand, s *CycleState) {
			if rng.IntN(4) == 0 && len(s.AllFindings) > 0 {
				s.AllFindings[len(s.AllFindings)-1].Cycle = 0
			}
		}},
		{"findings appended out of cycle order", func(rng *rand.Rand, s *CycleState) {
			if rng.IntN(5) == 0 && s.Cycle > 2 {
				s.AllFindings = append(s.AllFindings, analyze.ReviewFinding{Description: "nil pointer", Cycle: 1 + rng.IntN(s.Cycle-1)})
			}
		}},
		{"a state that starts again", func(rng *rand.Rand, s *CycleState) {
			if rng.IntN(6) == 0 {
				*s = CycleState{Cycle: 1, MaxCycles: 5, MaxBudgetUSD: 10}
				s.EndCycle()
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(3, 4))
			for run := range 200 {
				caseFold := run%2 == 0
				tr := NewTracker(caseFold)
				state := CycleState{MaxCycles: 5, MaxBudgetUSD: 10}
				for c := 1; c <= 12; c++ {
					state.Cycle, state.TotalCostUSD = c, float64(c)*rng.Float64()*3
					state.FilterCheckName = checks[rng.IntN(len(checks))]
					state.Findings = nil
					for range rng.IntN(4) {
						var d []byte
						for k := range rng.IntN(6) {
							if k > 0 {
								d = append(d, ' ')
							}
							d = append(d, words[rng.IntN(len(words))]...)
						}
						state.Findings = append(state.Findings, analyze.ReviewFinding{Severity: analyze.SeverityMajor, Description: string(d)})
					}
					state.EndCycle()
					if tt.shape != nil {
						tt.shape(rng, &state)
					}
					got, want := tr.Measure(&state), Measure(&state, caseFold)
					if !reflect.DeepEqual(got, want) {
						t.Fatalf("run %d cycle %d: tracker %+v, Measure %+v", run, c, got, want)
					}
					cfg := DefaultStruggleConfig()
					cfg.CaseFold = caseFold
					if got, want := NewTracker(caseFold).Evaluate(&state, cfg), EvaluateStruggle(&state, cfg); got != want {
						t.Fatalf("run %d cycle %d: Evaluate %+v, EvaluateStruggle %+v", run, c, got, want)
					}
				}
			}
		})
	}
}

// TestTrackerForgetsPastItsBound: past MaxPriorDescriptions distinct descriptions the
// oldest are forgotten; the recent ones still match.
func TestTrackerForgetsPastItsBound(t *testing.T) {
	tr := NewTracker(false)
	state := CycleState{MaxCycles: 5, MaxBudgetUSD: 10}
	for c := 1; c <= MaxPriorDescriptions+10; c++ {
		state.Cycle = c
		state.Findings = []analyze.ReviewFinding{{Description: fmt.Sprintf("finding number %d", c)}}
		state.EndCycle()
		tr.Measure(&state)
	}
	for _, tt := range []struct {
		description string
		want        float64
	}{
		{"finding number 1", 0.5}, // forgotten: only "finding number" of a recent one matches
		{fmt.Sprintf("finding number %d", MaxPriorDescriptions), 1},
	} {
		s := state
		s.Cycle++
		s.Findings = []analyze.ReviewFinding{{Description: tt.description}}
		s.EndCycle()
		if got := tr.Measure(&s).FindingSimilarity; len(got) != 1 || got[0] != tt.want {
			t.Errorf("%q: similarity %v, want %v", tt.description, got, tt.want)
		}
	}
}

// TestTrackerKeepsWhatRepeats: a description raised at every cycle stays among those
// compared, however many others came and went: it is what the overlap looks for.
func TestTrackerKeepsWhatRepeats(t *testing.T) {
	tr := NewTracker(false)
	state := CycleState{MaxCycles: 5, MaxBudgetUSD: 10}
	for c := 1; c <= MaxPriorDescriptions+50; c++ {
		state.Cycle = c
		state.Findings = []analyze.ReviewFinding{{Description: "the response body is never closed"},
			{Description: fmt.Sprintf("unique finding %d", c)}}
		state.EndCycle()
		if got, want := tr.Measure(&state), Measure(&state, false); !reflect.DeepEqual(got, want) {
			t.Fatalf("cycle %d: tracker %+v, Measure %+v", c, got, want)
		}
	}
}

// BenchmarkTrackerLongRun measures runs of growing length cycle by cycle, with a
// Tracker and with Measure at every cycle, and reports the cost of a cycle
// (ns/cycle, averaged over the run): the tracker's grows with the earlier distinct
// descriptions up to MaxPriorDescriptions and no further, Measure's with the whole run.
func BenchmarkTrackerLongRun(b *testing.B) {
	for _, cycles := range []int{10, 100, 1000, 4000} {
		findings := make([][]analyze.ReviewFinding, cycles+1)
		for c := 1; c <= cycles; c++ {
			findings[c] = []analyze.ReviewFinding{{Severity: analyze.SeverityMajor,
				Description: fmt.Sprintf("the handler in internal/loop/loop.go does not close the response body on path %d", c)}}
		}
		for _, impl := range []string{"tracker", "measure"} {
			b.Run(fmt.Sprintf("cycles=%d/%s", cycles, impl), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					state := CycleState{MaxCycles: 5, MaxBudgetUSD: 10}
					tr := NewTracker(true)
					for c := 1; c <= cycles; c++ {
						state.Cycle, state.FilterCheckName, state.Findings = c, "test", findings[c]
						state.EndCycle()
						if impl == "tracker" {
							tr.Measure(&state)
						} else {
							Measure(&state, true)
						}
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*cycles), "ns/cycle")
			})
		}
	}
}
