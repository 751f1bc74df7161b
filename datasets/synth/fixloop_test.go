package synth

import (
	"reflect"
	"testing"

	"github.com/loopwatch/loopwatch/replay/trace"
)

// TestFixLoopRuns: a run recorded with the inner fix loop on meets each filter failure
// with up to three attempts, each a filter_fix call and a filter_fix_attempt, and a
// filter_fix_result; a flaky failure is fixed at one of them and its cycle goes on to
// the reviewer, a repeated one never is. The scenarios, the cycles and the runs without
// the loop are those of a dataset without it.
func TestFixLoopRuns(t *testing.T) {
	plain := Generate(Config{Seed: 5, Runs: 80})
	withLoop := Generate(Config{Seed: 5, Runs: 80, FixLoopEvery: 2})
	fixed, exhausted := 0, 0
	for i, r := range withLoop {
		p := plain[i]
		if r.Scenario != p.Scenario || r.Key != p.Key {
			t.Fatalf("run %d: %s %v, without the loop %s %v", i, r.Key, r.Scenario, p.Key, p.Scenario)
		}
		cycles := func(run Run) (n int) {
			for _, e := range run.Events {
				if e.Kind == trace.KindCycleDone {
					n++
				}
			}
			return n
		}
		if cycles(r) != cycles(p) {
			t.Errorf("%s: %d cycles, %d without the loop", r.Key, cycles(r), cycles(p))
		}
		on := (i+1)%2 == 0
		if !on && !reflect.DeepEqual(r.Events, p.Events) {
			t.Errorf("%s, recorded without the loop, differs from the dataset without it", r.Key)
		}
		attempts := map[int]int{}
		results := map[int]trace.FilterFixResult{}
		calls := map[int]int{}
		callCost, attemptCost := map[int]float64{}, map[int]float64{}
		for _, e := range r.Events {
			switch d := e.Data.(type) {
			case trace.FilterFixAttempt:
				attempts[d.Cycle]++
				attemptCost[d.Cycle] += d.CostUSD
				if d.Attempt != attempts[d.Cycle] {
					t.Errorf("%s cycle %d: attempt %d numbered %d", r.Key, d.Cycle, attempts[d.Cycle], d.Attempt)
				}
			case trace.FilterFixResult:
				results[d.Cycle] = d
			case trace.AgentDone:
				if d.Role == "filter_fix" {
					calls[d.Cycle]++
					callCost[d.Cycle] += d.CostUSD
				}
			case trace.CycleDone:
				res, met := results[d.Cycle]
				if !on {
					if met || attempts[d.Cycle] > 0 || d.FilterFixAttempts > 0 {
						t.Errorf("%s (loop off) cycle %d records the loop", r.Key, d.Cycle)
					}
					continue
				}
				if calls[d.Cycle] != attempts[d.Cycle] || met && res.Attempts != attempts[d.Cycle] {
					t.Errorf("%s cycle %d: %d calls, %d attempts, result %+v", r.Key, d.Cycle, calls[d.Cycle], attempts[d.Cycle], res)
				}
				// Each attempt is its call; the result and the cycle's end say what they cost.
				cost := round2(attemptCost[d.Cycle])
				if round2(callCost[d.Cycle]) != cost || met && res.CostUSD != cost || d.FilterFixCostUSD != cost {
					t.Errorf("%s cycle %d: calls $%v, attempts $%v, result $%v, cycle_done $%v", r.Key, d.Cycle, callCost[d.Cycle], cost, res.CostUSD, d.FilterFixCostUSD)
				}
				if d.FilterCheckName != "" && d.FilterCheckName != "claims" && !met {
					t.Errorf("%s cycle %d ends failing %s with no fix result", r.Key, d.Cycle, d.FilterCheckName)
				}
				switch {
				case !met:
				case res.Fixed:
					fixed++
					if d.FilterCheckName != "" || d.FilterFixAttempts != 0 || r.Scenario != FilterFlake {
						t.Errorf("%s (%v) cycle %d fixed, its end %+v", r.Key, r.Scenario, d.Cycle, d)
					}
				default:
					exhausted++
					if d.FilterCheckName != res.Check || d.FilterFixAttempts != 3 || res.Attempts != 3 {
						t.Errorf("%s cycle %d exhausted, its end %+v, result %+v", r.Key, d.Cycle, d, res)
					}
				}
			}
		}
	}
	if fixed == 0 || exhausted == 0 {
		t.Errorf("%d failures fixed and %d exhausted: want both", fixed, exhausted)
	}
}
