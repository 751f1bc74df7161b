package reports

import (
	"context"
	"strings"
	"testing"

	"github.com/loopwatch/loopwatch/replay/fixsim"
	"github.com/loopwatch/loopwatch/replay/input"
)

// TestWriteFixSummary: the fix-loop line says whether its figures are simulated,
// recorded with the loop on, or both, and counts the limit-stopped runs that would
// finish among the simulated runs only.
func TestWriteFixSummary(t *testing.T) {
	off := &fixsim.Case{Key: "off", Outcome: input.OutcomeMaxCycles, Cycles: 2, MaxCycles: 2, MeanCoderCostUSD: 1, MeanCycleCostUSD: 2,
		Failures: []fixsim.Failure{{Cycle: 1, Check: "test", Next: fixsim.NotCleared}, {Cycle: 2, Check: "test"}}}
	on := &fixsim.Case{Key: "on", Outcome: input.OutcomeMaxCycles, Cycles: 1, MaxCycles: 1, MeanCoderCostUSD: 1, MeanCycleCostUSD: 2, LoopOn: true,
		Failures: []fixsim.Failure{{Cycle: 1, Check: "build", Recorded: fixsim.Recorded{Attempts: 3, CostUSD: 0.75}}}}
	plan := fixsim.NewPlan(fixsim.Config{Seed: 1, Draws: 10, TrialsPerDraw: 5}, map[string]fixsim.Rate{
		"test": {Check: "test", Source: "given", P: 1}, "build": {Check: "build", Source: "given", P: 1}})
	checked := plan.WithOuterCheck(map[string]fixsim.Rate{"build": {Check: "build", Source: "given", P: 1, Trials: 1}, "vet": {Check: "vet"}})
	wide := &fixsim.Case{Key: "wide", Outcome: input.OutcomeApproved, Cycles: 2, MaxCycles: 3, MeanCoderCostUSD: 1, MeanCycleCostUSD: 2, LoopOn: true,
		Failures: []fixsim.Failure{{Cycle: 1, Check: "build", Recorded: fixsim.Recorded{Attempts: 5, Reruns: 5, Passed: 1, Fixed: true, CostUSD: 1}},
			{Cycle: 2, Check: "vet", Recorded: fixsim.Recorded{Attempts: 1, Reruns: 1, CostUSD: 0.25}}}}
	tests := []struct {
		name  string
		cases []*fixsim.Case
		want  string
		plan  *fixsim.Plan // nil: plan
	}{
		{"none", nil, "fixloop (simulated): no recorded filter failure to simulate\n", nil},
		{"simulated", []*fixsim.Case{off}, "fixloop (simulated): 2 filter failures in 1 run: 2.0 [2.0, 2.0] outer cycles saved, net cost −$3.50 [−$3.50, −$3.50] after $0.50 of fix attempts; 1.0 [1, 1] of 1 run stopped by the cycle limit would finish (optimistic)\n", nil},
		{"recorded", []*fixsim.Case{on}, "fixloop (recorded with the loop on, not simulated): 1 filter failure in 1 run: 0.0 [0.0, 0.0] outer cycles saved, net cost $0.75 [$0.75, $0.75] after $0.75 of fix attempts\n", nil},
		{"both", []*fixsim.Case{off, on}, "fixloop: 3 filter failures in 2 runs, 1 of them in 1 run recorded with the loop on (what it did), 2 simulated: 2.0 [2.0, 2.0] outer cycles saved, net cost −$2.75 [−$2.75, −$2.75] after $1.25 of fix attempts; 1.0 [1, 1] of 1 run stopped by the cycle limit would finish (optimistic)\n", nil},
		{"checked", []*fixsim.Case{on}, "fixloop (recorded with the loop on, not simulated): 1 filter failure in 1 run: 0.0 [0.0, 0.0] outer cycles saved, net cost $0.75 [$0.75, $0.75] after $0.75 of fix attempts; checked on the loops that ran: of 1 failure they met they fixed 0, the simulation with the outer cycles' pass probability predicts 1.0 [1.0, 1.0]\n", checked},
		{"checked, not all, past the limit", []*fixsim.Case{wide}, "fixloop (recorded with the loop on, not simulated): 2 filter failures in 1 run: 1.0 [1.0, 1.0] outer cycles saved, net cost −$0.75 [−$0.75, −$0.75] after $1.25 of fix attempts; checked on the loops that ran: of 1 failure they met they fixed 1, the simulation with the outer cycles' pass probability predicts 1.0 [1.0, 1.0] (1 more at checks no outer cycle reached, not checked); the loops that ran made up to 5 attempts at a failure, the simulation 3 (--max-filter-fixes)\n", checked},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := plan
			if tt.plan != nil {
				p = tt.plan
			}
			tot, err := p.SimulateAll(context.Background(), tt.cases, 1, func(fixsim.RunResult, []fixsim.FailureResult) error { return nil })
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			WriteFixSummary(&b, tot)
			if b.String() != tt.want {
				t.Errorf("got  %q\nwant %q", b.String(), tt.want)
			}
		})
	}
}
