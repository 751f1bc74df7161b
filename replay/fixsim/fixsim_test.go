package fixsim

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/loopwatch/loopwatch/analyze/fixloop/filter"

	"github.com/loopwatch/loopwatch/replay/input"
)

func cyc(check string, cost float64) input.Cycle {
	out := ""
	if check != "" {
		out = "x.go:1:2: undefined: y\n"
	}
	return input.Cycle{FilterCheckName: check, FilterOutput: out, TotalCostUSD: cost}
}

func mkRun(key string, outcome input.Outcome, cycles ...input.Cycle) *input.Run {
	for i := range cycles {
		cycles[i].Cycle = i + 1
	}
	return &input.Run{Key: key, Outcome: outcome, Cycles: cycles, FilterKnown: true, MaxCycles: 5, MaxBudgetUSD: 100,
		Calls: []input.AgentCall{{Role: "coder", CostUSD: 2}, {Role: "reviewer", CostUSD: 1}, {Role: "coder", CostUSD: 4}}}
}

func TestObserve(t *testing.T) {
	run := mkRun("r", input.OutcomeMaxCycles, cyc("test", 1), cyc("test", 2), cyc("build", 3), cyc("lint", 4), cyc("", 5), cyc("vet", 6), cyc("frobnicate", 8))
	c, probs := Observe(run)
	if c == nil || len(c.Failures) != 6 {
		t.Fatalf("case %+v", c)
	}
	want := []Transition{NotCleared, Unknown, Cleared, Cleared, Unknown, NoNextCycle}
	for i, f := range c.Failures {
		if f.Next != want[i] {
			t.Errorf("failure %d (%s at cycle %d): transition %v, want %v", i, f.Check, f.Cycle, f.Next, want[i])
		}
		if f.Errors != 1 {
			t.Errorf("failure %d: %d parsed errors", i, f.Errors)
		}
	}
	if len(probs) != 1 || !strings.Contains(probs[0].Detail, `"frobnicate"`) {
		t.Errorf("problems %v", probs)
	}
	if c.MeanCoderCostUSD != 3 || c.CoderCostEstimated || c.MeanCycleCostUSD != 8.0/7 {
		t.Errorf("costs %+v", c)
	}
	run.Calls = nil
	if c, _ := Observe(run); !c.CoderCostEstimated || c.MeanCoderCostUSD != 4.0/7 {
		t.Errorf("estimated coder cost %+v", c)
	}
	if c, _ := Observe(mkRun("clean", input.OutcomeApproved, cyc("", 1))); c != nil {
		t.Error("a run without failures is a case")
	}
	unknown := mkRun("u", input.OutcomeApproved, cyc("test", 1))
	unknown.FilterKnown = false
	if c, _ := Observe(unknown); c != nil {
		t.Error("a run without filter history is a case")
	}
	long := mkRun("l", input.OutcomeApproved, cyc("test", 1))
	long.Cycles[0].FilterOutput = strings.Repeat("a", 1<<20)
	if c, _ := Observe(long); c.Failures[0].OutputLen != 1<<20 {
		t.Error("output length not kept")
	}
	// Check names of the chain are interned: many runs' failures share one string.
	dec := mkRun("d", input.OutcomeApproved, cyc(strings.Clone("test"), 1))
	if c, _ := Observe(dec); unsafe.StringData(c.Failures[0].Check) != unsafe.StringData(filter.CheckTest) {
		t.Error("check name not interned")
	}
}

func TestRates(t *testing.T) {
	h := NewHistory()
	c, _ := Observe(mkRun("r", input.OutcomeApproved, cyc("test", 1), cyc("test", 2), cyc("", 3), cyc("weird", 4)))
	h.Add(c)
	rates := h.Rates(map[string]float64{"build": 0.9})
	if r := rates["test"]; r.Source != "history" || r.Cleared != 1 || r.Trials != 2 || r.P != 1.5/3 {
		t.Errorf("test rate %+v", r)
	}
	if r := rates["build"]; r.Source != "given" || r.P != 0.9 {
		t.Errorf("build rate %+v", r)
	}
	if r := rates["weird"]; r.Trials != 0 || r.P != 0.5 {
		t.Errorf("a check outside the chain: %+v", r)
	}
	if r := rates["claims"]; r.Source != "history" || r.P != 0.5 {
		t.Errorf("unseen chain check: %+v", r)
	}
}

func TestSimulate(t *testing.T) {
	ctx := context.Background()
	given := func(p float64) map[string]Rate {
		return map[string]Rate{"test": {Check: "test", Source: "given", P: p}, "claims": {Check: "claims", Source: "given", P: 1}}
	}
	run := mkRun("r", input.OutcomeMaxCycles, cyc("test", 1), cyc("test", 2), cyc("claims", 3), cyc("test", 4), cyc("test", 5))
	c, _ := Observe(run)
	fixCost := 0.25 * 3 // CostFraction × mean coder call
	cycleCost := 1.0    // 5 / 5 cycles
	tests := []struct {
		p                 float64
		attempts, pFixed  float64
		tolerance         float64 // on pFixed; attempts get 2.5×
		within            float64
		runSaved, runCost float64
	}{
		{p: 1, attempts: 1, pFixed: 1, within: 1, runSaved: 4, runCost: 4 * (fixCost - cycleCost)},
		{p: 0, attempts: 3, pFixed: 0, within: 0, runSaved: 0, runCost: 4 * 3 * fixCost},
		// p = ½, 3 attempts: P(fixed) = 1 − ½³, E[attempts] = 1 + ½ + ¼.
		{p: 0.5, attempts: 1.75, pFixed: 0.875, tolerance: 0.03, within: 1 - math.Pow(0.125, 4), runSaved: 3.5},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint("p=", tt.p), func(t *testing.T) {
			plan := NewPlan(Config{Seed: 1}, given(tt.p))
			rr, fr, err := plan.Simulate(ctx, c)
			if err != nil {
				t.Fatal(err)
			}
			for i, f := range fr {
				if f.Failure.Check == "claims" {
					if f.Skipped != "claims" || f.Attempts.Mean != 0 || f.PFixed.Mean != 0 {
						t.Errorf("claims failure simulated: %+v", f)
					}
					continue
				}
				if math.Abs(f.Attempts.Mean-tt.attempts) > 2.5*tt.tolerance+1e-12 || math.Abs(f.PFixed.Mean-tt.pFixed) > tt.tolerance+1e-12 {
					t.Errorf("failure %d: attempts %v pFixed %v, want %v %v", i, f.Attempts.Mean, f.PFixed.Mean, tt.attempts, tt.pFixed)
				}
				if !(f.PFixed.Low <= f.PFixed.Mean+1e-12 && f.PFixed.Mean <= f.PFixed.High+1e-12) {
					t.Errorf("failure %d: mean outside its interval %+v", i, f.PFixed)
				}
				if want := f.Attempts.Mean * fixCost; math.Abs(f.FixCostUSD.Mean-want) > 1e-9 {
					t.Errorf("fix cost %v, want %v", f.FixCostUSD.Mean, want)
				}
			}
			if math.Abs(rr.CyclesSaved.Mean-tt.runSaved) > 4*tt.tolerance+1e-9 {
				t.Errorf("run saves %v cycles, want %v", rr.CyclesSaved.Mean, tt.runSaved)
			}
			if tt.tolerance == 0 && math.Abs(rr.CostDeltaUSD.Mean-tt.runCost) > 1e-9 {
				t.Errorf("run cost delta %v, want %v", rr.CostDeltaUSD.Mean, tt.runCost)
			}
			if rr.PWithinLimit == nil || math.Abs(rr.PWithinLimit.Mean-tt.within) > 0.01 {
				t.Errorf("within limit %+v, want %v", rr.PWithinLimit, tt.within)
			}
		})
	}
}

func TestSimulateBudgetStop(t *testing.T) {
	run := mkRun("r", input.OutcomeBudgetExceeded, cyc("test", 9.9))
	run.MaxBudgetUSD = 10
	c, _ := Observe(run)
	plan := NewPlan(Config{}, map[string]Rate{"test": {Check: "test", Source: "given", P: 1}})
	rr, fr, err := plan.Simulate(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if fr[0].PBudgetStop != 1 || fr[0].PFixed.Mean != 0 || fr[0].Attempts.Mean != 1 {
		t.Errorf("budget stop: %+v", fr[0])
	}
	if rr.PWithinLimit != nil {
		t.Error("within-limit is unknown for a budget-exceeded run")
	}
}

// TestDeterministic checks that a run's result depends on the seed and the run only,
// not on which runs were simulated before it.
func TestDeterministic(t *testing.T) {
	h := NewHistory()
	a, _ := Observe(mkRun("a", input.OutcomeMaxCycles, cyc("test", 1), cyc("test", 2), cyc("", 3)))
	b, _ := Observe(mkRun("b", input.OutcomeApproved, cyc("build", 1), cyc("", 2)))
	h.Add(a)
	h.Add(b)
	plan := NewPlan(Config{Seed: 9}, h.Rates(nil))
	ra1, _, _ := plan.Simulate(context.Background(), a)
	plan.Simulate(context.Background(), b)
	ra2, _, _ := plan.Simulate(context.Background(), a)
	if ra1.CyclesSaved != ra2.CyclesSaved || ra1.CostDeltaUSD != ra2.CostDeltaUSD {
		t.Error("same run, same seed, different result")
	}
	other, _, _ := NewPlan(Config{Seed: 10}, h.Rates(nil)).Simulate(context.Background(), a)
	if other.CyclesSaved == ra1.CyclesSaved {
		t.Error("the seed is not used")
	}
	// With history rates the interval reflects the uncertainty of p.
	if ra1.CyclesSaved.High-ra1.CyclesSaved.Low < 0.2 {
		t.Errorf("interval %+v too narrow for a history of 2 transitions", ra1.CyclesSaved)
	}
	tot := plan.NewTotals()
	tot.Add(ra1)
	rb, _, _ := plan.Simulate(context.Background(), b)
	tot.Add(rb)
	if got, want := tot.CyclesSaved().Mean, ra1.CyclesSaved.Mean+rb.CyclesSaved.Mean; math.Abs(got-want) > 1e-9 {
		t.Errorf("total %v, want %v", got, want)
	}
	if tot.Runs != 2 || tot.Failures != 3 || tot.LimitRuns != 1 {
		t.Errorf("totals %+v", tot)
	}
}

func TestSimulateCancelled(t *testing.T) {
	c, _ := Observe(mkRun("r", input.OutcomeApproved, cyc("test", 1)))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := NewPlan(Config{}, NewHistory().Rates(nil)).Simulate(ctx, c); err == nil {
		t.Error("cancelled simulation succeeded")
	}
}

// BenchmarkSimulate simulates a run with three filter failures at the defaults (100
// draws × 20 trials each); it reports failures/s and, per failure, the time and
// allocations.
func BenchmarkSimulate(b *testing.B) {
	c, _ := Observe(mkRun("r", input.OutcomeMaxCycles, cyc("test", 1), cyc("test", 2), cyc("build", 3)))
	plan := NewPlan(Config{}, NewHistory().Rates(nil))
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	b.ReportAllocs()
	for b.Loop() {
		plan.Simulate(context.Background(), c)
	}
	runtime.ReadMemStats(&ms1)
	failures := float64(b.N * len(c.Failures))
	b.ReportMetric(failures/b.Elapsed().Seconds(), "failures/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/failures, "ns/failure")
	b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/failures, "allocs/failure")
}

// observedCases observes n runs, run i failing the checks from i % len(checks) on,
// one a cycle ("" passes), its outcome alternating between the cycle limit and
// approved, and returns the cases and their history.
func observedCases(n int, checks ...string) ([]*Case, *History) {
	var cases []*Case
	h := NewHistory()
	for i := range n {
		var cycles []input.Cycle
		for k, c := range checks[i%len(checks):] {
			cycles = append(cycles, cyc(c, float64(k+1)))
		}
		c, _ := Observe(mkRun(fmt.Sprintf("r%02d", i), []input.Outcome{input.OutcomeMaxCycles, input.OutcomeApproved}[i%2], cycles...))
		if c != nil {
			cases = append(cases, c)
			h.Add(c)
		}
	}
	return cases, h
}

// TestSimulateAll: the results of every case in order, equal to Simulate's, and the
// same totals whatever the number of workers; an error from emit stops it.
func TestSimulateAll(t *testing.T) {
	cases, h := observedCases(40, "test", "build", "", "lint", "test")
	plan := NewPlan(Config{Seed: 5, Draws: 20, TrialsPerDraw: 5}, h.Rates(nil))
	want := plan.NewTotals()
	var wantRuns []RunResult
	var wantFails [][]FailureResult
	for _, c := range cases {
		r, fs, err := plan.Simulate(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		want.Add(r)
		wantRuns, wantFails = append(wantRuns, r), append(wantFails, fs)
	}
	// The workers sum in room they keep from one case to the next, of any number of
	// failures: the results are those of Simulate, which starts afresh each time.
	for _, workers := range []int{1, 2, 5} {
		var got []RunResult
		var gotFails [][]FailureResult
		tot, err := plan.SimulateAll(context.Background(), cases, workers, func(r RunResult, fs []FailureResult) error {
			if len(fs) != len(r.Case.Failures) {
				t.Errorf("%s: %d failure results", r.Case.Key, len(fs))
			}
			got, gotFails = append(got, r), append(gotFails, fs)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, wantRuns) || !reflect.DeepEqual(gotFails, wantFails) || !reflect.DeepEqual(tot.perDraw, want.perDraw) ||
			tot.Runs != want.Runs || tot.Failures != want.Failures {
			t.Errorf("workers %d: results differ from Simulate's in order", workers)
		}
	}
	stop := errors.New("stop")
	n := 0
	if _, err := plan.SimulateAll(context.Background(), cases, 2, func(RunResult, []FailureResult) error { n++; return stop }); !errors.Is(err, stop) || n != 1 {
		t.Errorf("emit error: %v after %d", err, n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := plan.SimulateAll(ctx, cases, 2, func(RunResult, []FailureResult) error { return nil }); err == nil {
		t.Error("cancelled SimulateAll succeeded")
	}
}

// TestSimulateSeq: a sequence of cases gives SimulateAll's results over the slice, in
// order, taking a case only when fewer than a window of them are out (simulated or
// waiting to be emitted); an error of the sequence stops it.
func TestSimulateSeq(t *testing.T) {
	cases, h := observedCases(60, "test", "build", "", "lint", "test", "vet")
	plan := NewPlan(Config{Seed: 7, Draws: 20, TrialsPerDraw: 5}, h.Rates(nil))
	var want []RunResult
	var wantFails [][]FailureResult
	wantTot, err := plan.SimulateAll(context.Background(), cases, 1, func(r RunResult, fs []FailureResult) error {
		want, wantFails = append(want, r), append(wantFails, fs)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, workers := range []int{1, 2, 3} {
		var emitted atomic.Int64
		var taken, most int64
		seq := func(yield func(*Case, error) bool) {
			for _, c := range cases {
				taken++
				most = max(most, taken-emitted.Load())
				if !yield(c, nil) {
					return
				}
			}
		}
		var got []RunResult
		var gotFails [][]FailureResult
		tot, err := plan.SimulateSeq(context.Background(), seq, workers, func(r RunResult, fs []FailureResult) error {
			emitted.Add(1)
			got, gotFails = append(got, r), append(gotFails, fs)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotFails, wantFails) || !reflect.DeepEqual(tot.perDraw, wantTot.perDraw) ||
			tot.Runs != wantTot.Runs || tot.Failures != wantTot.Failures {
			t.Errorf("workers %d: the sequence's results differ from the slice's", workers)
		}
		// The feeder takes a case after the window lets it in: one more than the window
		// may have been taken from the sequence (read) while the window is full.
		if most > int64(windowPerWorker*workers+1) {
			t.Errorf("workers %d: %d cases out at once, the window is %d", workers, most, windowPerWorker*workers)
		}
	}
	bad := errors.New("unreadable case")
	seq := func(yield func(*Case, error) bool) {
		for i, c := range cases {
			if i == 10 {
				yield(nil, bad)
				return
			}
			if !yield(c, nil) {
				return
			}
		}
	}
	if _, err := plan.SimulateSeq(context.Background(), seq, 2, func(RunResult, []FailureResult) error { return nil }); !errors.Is(err, bad) {
		t.Errorf("a sequence's error: %v", err)
	}
	empty := func(func(*Case, error) bool) {}
	if tot, err := plan.SimulateSeq(context.Background(), empty, 2, func(RunResult, []FailureResult) error { return nil }); err != nil || tot.Runs != 0 {
		t.Errorf("an empty sequence: %v, %+v", err, tot)
	}
}
