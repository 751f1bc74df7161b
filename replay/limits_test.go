package replay

import (
	"strings"
	"testing"

	"github.com/loopwatch/loopwatch/analyze/struggle"
	"github.com/loopwatch/loopwatch/replay/trace"
)

// TestLimitsAsTheyChange: a trace whose limits change between cycles is evaluated at
// each cycle with the limits in force then, not with the run's last — the detector
// sees only the cycles up to the one it decides on.
func TestLimitsAsTheyChange(t *testing.T) {
	in := `{"ts":"2026-03-01T10:00:00Z","kind":"task_start","task":"q-1","data":{"max_cycles":5,"max_budget_usd":10}}
{"ts":"2026-03-01T10:01:00Z","kind":"cycle_done","task":"q-1","data":{"cycle":1,"total_cost_usd":2}}
{"ts":"2026-03-01T10:02:00Z","kind":"cycle_done","task":"q-1","data":{"cycle":2,"total_cost_usd":4,"max_cycles":50,"max_budget_usd":1000}}
{"ts":"2026-03-01T10:03:00Z","kind":"cycle_done","task":"q-1","data":{"cycle":3,"total_cost_usd":6}}
`
	runs, probs := trace.Read("t.jsonl", strings.NewReader(in))
	if len(runs) != 1 || len(probs) != 0 {
		t.Fatalf("runs %v, problems %v", runs, probs)
	}
	if r := runs[0]; r.MaxCycles != 50 || r.MaxBudgetUSD != 1000 {
		t.Errorf("the run's limits %d, %v, want the last: 50, 1000", r.MaxCycles, r.MaxBudgetUSD)
	}
	// Burn = (cost / cycle) / (budget / max cycles).
	want := []float64{(2.0 / 1) / (10.0 / 5), (4.0 / 2) / (1000.0 / 50), (6.0 / 3) / (1000.0 / 50)}
	res := ReplayRun(runs[0], struggle.DefaultStruggleConfig())
	tr := TraceRun(runs[0], true)
	for i, w := range want {
		if got := res.Cycles[i].Signal.BudgetBurnRate; got != w {
			t.Errorf("cycle %d: burn rate %v, want %v", i+1, got, w)
		}
		if got := tr.Cycles[i].Measures.BudgetBurnRate; got != w {
			t.Errorf("cycle %d: traced burn rate %v, want %v", i+1, got, w)
		}
	}
}
