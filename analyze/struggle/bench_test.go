package struggle

import (
	"fmt"
	"testing"

	"github.com/loopwatch/loopwatch/analyze"
)

// BenchmarkEvaluateStruggle measures the per-cycle cost of EvaluateStruggle on a run
// at its fifth cycle with 4 findings per cycle of realistic length.
func BenchmarkEvaluateStruggle(b *testing.B) {
	for _, perCycle := range []int{1, 4, 16} {
		b.Run(fmt.Sprintf("findings=%d", perCycle), func(b *testing.B) {
			state := CycleState{MaxCycles: 5, MaxBudgetUSD: 10}
			for c := 1; c <= 5; c++ {
				state.Cycle = c
				state.TotalCostUSD = float64(c) * 1.7
				state.FilterCheckName = "test"
				state.Findings = state.Findings[:0:0]
				for i := 0; i < perCycle; i++ {
					state.Findings = append(state.Findings, analyze.ReviewFinding{Severity: analyze.SeverityMajor,
						Description: fmt.Sprintf("finding %d: the handler in internal/loop/loop.go does not close the response body on the error path of cycle %d", i, c)})
				}
				state.EndCycle()
			}
			cfg := DefaultStruggleConfig()
			b.ReportAllocs()
			for b.Loop() {
				EvaluateStruggle(&state, cfg)
			}
		})
	}
}
