package struggle_test

import (
	"fmt"

	"github.com/loopwatch/loopwatch/analyze"
	"github.com/loopwatch/loopwatch/analyze/struggle"
)

// The loop accumulates each cycle with EndCycle and then evaluates it.
func ExampleEvaluateStruggle() {
	state := analyze.CycleState{MaxCycles: 5, MaxBudgetUSD: 10}
	for cycle, check := range []string{"test", "test"} {
		state.Cycle = cycle + 1
		state.TotalCostUSD += 1.5
		state.FilterCheckName = check
		state.Findings = []analyze.ReviewFinding{{Severity: analyze.SeverityMajor,
			Description: "TestParse fails on an empty input file"}}
		state.EndCycle()
		sig := struggle.EvaluateStruggle(&state, struggle.DefaultStruggleConfig())
		fmt.Printf("cycle %d: triggered=%v score=%.2f\n  %s\n", state.Cycle, sig.Triggered, sig.Score, sig.Reason)
	}
	// Output:
	// cycle 1: triggered=false score=0.42
	//   score 0.42 < 0.60: filter check "test" failed 1 consecutive cycles (+0.17); spending 0.75× the even per-cycle budget (+0.25)
	// cycle 2: triggered=true score=1.00
	//   struggling: score 1.00 ≥ 0.60 at cycle 2: filter check "test" failed 2 consecutive cycles (+0.35); 1 of 1 findings repeat an earlier cycle's (overlap 1.00, +0.40); spending 0.75× the even per-cycle budget (+0.25)
}
