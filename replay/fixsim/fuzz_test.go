package fixsim

import (
	"bytes"
	"context"
	"math"
	"testing"

	"github.com/loopwatch/loopwatch/replay/trace"
)

// FuzzObserve reads any trace, observes its runs and simulates them: nothing panics,
// and what a run's record of its loop gives is in range — attempts within 0…100,
// passes within the re-runs within the attempts, a fix one attempt at least, costs
// within 0…maxCostUSD — and every figure of a run, a failure and the totals is finite.
func FuzzObserve(f *testing.F) {
	line := func(kind, data string) string {
		return `{"ts":"2026-03-01T10:00:00Z","kind":"` + kind + `","epoch":"e","task":"t","data":` + data + "}\n"
	}
	f.Add([]byte(line("filter_result", `{"cycle":1,"check":"build","passed":false,"output":"x.go:1:1: bad"}`) +
		line("filter_fix_attempt", `{"cycle":1,"check":"build","attempt":1,"cost_usd":0.2,"passed":true}`) +
		line("filter_fix_result", `{"cycle":1,"check":"build","fixed":true,"attempts":1,"cost_usd":0.2}`) +
		line("cycle_done", `{"cycle":1,"total_cost_usd":1,"filter_check_name":"","findings":[]}`) +
		line("cycle_done", `{"cycle":2,"total_cost_usd":2,"filter_check_name":"test","filter_output":"FAIL","findings":[],"filter_fix_attempts":3,"filter_fix_cost_usd":0.6}`) +
		line("task_state", `{"outcome":"max_cycles"}`)))
	f.Add([]byte(line("agent_done", `{"cycle":1,"role":"filter_fix","cost_usd":-3}`) +
		line("filter_fix_result", `{"cycle":1,"check":"vet","fixed":true,"attempts":2000000000,"cost_usd":1e308}`) +
		line("filter_fix_attempt", `{"cycle":1,"check":"vet","attempt":1,"cost_usd":1e308,"passed":false}`) +
		line("filter_fix_attempt", `{"cycle":1,"check":"vet","attempt":1,"cost_usd":1e308,"passed":false}`) +
		line("cycle_done", `{"cycle":1,"total_cost_usd":1,"filter_check_name":"vet","findings":[]}`) +
		line("task_state", `{"outcome":"approved"}`)))
	f.Fuzz(func(t *testing.T, in []byte) {
		runs, _ := trace.Read("f", bytes.NewReader(in))
		h := NewHistory()
		var cases []*Case
		for _, r := range runs {
			c, _ := Observe(r)
			if c == nil {
				continue
			}
			for _, fl := range c.Failures {
				rec := fl.Recorded
				if rec.Attempts < 0 || rec.Attempts > MaxFilterFixes || rec.Passed < 0 || rec.Passed > rec.Reruns || rec.Reruns > rec.Attempts ||
					rec.Fixed && rec.Attempts < 1 || !(rec.CostUSD >= 0 && rec.CostUSD <= maxCostUSD) {
					t.Fatalf("run %s, cycle %d, %s: recorded %+v", c.Key, fl.Cycle, fl.Check, rec)
				}
			}
			if !(c.MeanCycleCostUSD >= 0) {
				t.Fatalf("run %s: mean cycle cost %v", c.Key, c.MeanCycleCostUSD)
			}
			h.Add(c)
			cases = append(cases, c)
		}
		plan := NewPlan(Config{Draws: 4, TrialsPerDraw: 2}, h.Rates(nil))
		if h.Checkable() {
			plan = plan.WithOuterCheck(h.OuterRates(nil))
		}
		finite := func(what string, es ...Estimate) {
			for _, e := range es {
				for _, v := range []float64{e.Mean, e.Low, e.High} {
					if math.IsNaN(v) || math.IsInf(v, 0) || e.Low > e.High {
						t.Fatalf("%s: %+v", what, e)
					}
				}
			}
		}
		tot, err := plan.SimulateAll(context.Background(), cases, 1, func(r RunResult, fs []FailureResult) error {
			finite("run "+r.Case.Key, r.CyclesSaved, r.FixCostUSD, r.CostDeltaUSD)
			for _, f := range fs {
				finite("failure of run "+r.Case.Key, f.Attempts, f.PFixed, f.FixCostUSD, f.CostDeltaUSD)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		finite("totals", tot.CyclesSaved(), tot.FixCostUSD(), tot.CostDeltaUSD())
	})
}
