package fixsim

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/loopwatch/loopwatch/analyze"
	"github.com/loopwatch/loopwatch/analyze/fixloop"
	"github.com/loopwatch/loopwatch/analyze/fixloop/checkparse"
	"github.com/loopwatch/loopwatch/analyze/fixloop/filter"
	"github.com/loopwatch/loopwatch/analyze/fixloop/fixprompt"
	"github.com/loopwatch/loopwatch/replay/input"
)

// simRunner is the simulated single-check runner: a re-run passes with probability p.
type simRunner struct {
	rng    *rand.Rand
	p      float64
	output string
	result filter.CheckResult // reused: the loop reads a result before the next re-run
}

func (s *simRunner) Run(context.Context, string) (*filter.Result, error) {
	return nil, errors.New("fixsim: the simulated filter only re-runs single checks")
}

func (s *simRunner) RunCheck(_ context.Context, _ string, name string) (*filter.CheckResult, error) {
	if s.rng.Float64() < s.p {
		s.result = filter.CheckResult{Name: name, Passed: true}
	} else {
		s.result = filter.CheckResult{Name: name, Output: s.output}
	}
	return &s.result, nil
}

// referenceSimulate is Simulate as first written — a fresh CycleState and Result for
// every trial, the title and recorded outputs passed along — kept to pin the optimised
// Simulate to it bit for bit.
func (p *Plan) referenceSimulate(ctx context.Context, c *Case, taskID, title string, outputs []string) (RunResult, []FailureResult, error) {
	cfg := p.cfg
	rng := rand.New(rand.NewPCG(cfg.Seed, keyHash("run:"+c.Key)))
	runner := &simRunner{rng: rng}
	coder := simCoder{cost: cfg.CostFraction * c.MeanCoderCostUSD}
	// The loop is real; parsing and prompt text do not matter to a simulated coder, so
	// the parse of the recorded output is reused and the prompt left empty.
	n := len(c.Failures)
	loops := make([]fixloop.FixLoop, n)
	for i, f := range c.Failures {
		if len(p.draws[f.Check]) != cfg.Draws {
			return RunResult{}, nil, fmt.Errorf("fixsim: run %s: check %q has no rate in the plan", c.Key, f.Check)
		}
		parsed := checkparse.ParseResult{CheckName: f.Check}
		loops[i] = fixloop.FixLoop{Filter: runner, Coder: coder, MaxFilterFixes: cfg.MaxFilterFixes,
			Parse:       func(filter.CheckResult) checkparse.ParseResult { return parsed },
			BuildPrompt: func(fixprompt.Input) string { return "" }}
	}
	// Sums over the trials of one draw, per failure: attempts, fixed, cost, delta.
	type acc struct{ attempts, fixed, cost, delta []float64 }
	per := make([]acc, n)
	for i := range per {
		per[i] = acc{make([]float64, cfg.Draws), make([]float64, cfg.Draws), make([]float64, cfg.Draws), make([]float64, cfg.Draws)}
	}
	budgetStops := make([]int, n)
	skipped := make([]string, n)
	run := RunResult{Case: c}
	for i := range run.perDraw {
		run.perDraw[i] = make([]float64, cfg.Draws)
	}
	withinKnown := c.Outcome == input.OutcomeApproved || c.Outcome == input.OutcomeMaxCycles
	trials := float64(cfg.TrialsPerDraw)
	for d := 0; d < cfg.Draws; d++ {
		within := 0
		for k := 0; k < cfg.TrialsPerDraw; k++ {
			if err := ctx.Err(); err != nil {
				return RunResult{}, nil, err
			}
			fixedAny := false
			for i, f := range c.Failures {
				runner.p, runner.output = p.draws[f.Check][d], outputs[i]
				state := analyze.CycleState{TaskBeadID: taskID, TaskTitle: title, Cycle: f.Cycle, MaxCycles: c.MaxCycles,
					MaxBudgetUSD: c.MaxBudgetUSD, TotalCostUSD: f.CostAtFail, FilterCheckName: f.Check, FilterOutput: outputs[i]}
				res, err := loops[i].RunFilterFixLoop(ctx, &state, f.Check, outputs[i])
				switch {
				case res.Outcome == fixloop.OutcomeBudgetExceeded:
					budgetStops[i]++
				case err != nil:
					return RunResult{}, nil, err
				case res.Outcome == fixloop.OutcomeSkippedClaims:
					skipped[i] = "claims"
				}
				cost := res.CostUSD()
				delta := cost
				if res.Fixed() {
					delta -= c.MeanCycleCostUSD
					fixedAny = true
				}
				a := &per[i]
				a.attempts[d] += float64(res.CoderCalls())
				a.fixed[d] += b2f(res.Fixed())
				a.cost[d] += cost
				a.delta[d] += delta
			}
			if c.Outcome == input.OutcomeApproved || fixedAny {
				within++
			}
		}
		for i := range per {
			a := &per[i]
			a.attempts[d] /= trials
			a.fixed[d] /= trials
			a.cost[d] /= trials
			a.delta[d] /= trials
			run.perDraw[0][d] += a.fixed[d]
			run.perDraw[1][d] += a.cost[d]
			run.perDraw[2][d] += a.delta[d]
		}
		if withinKnown {
			run.perDraw[3][d] = float64(within) / trials
		}
	}
	results := make([]FailureResult, n)
	for i, f := range c.Failures {
		a := per[i]
		results[i] = FailureResult{RunKey: c.Key, Failure: f, Rate: p.rates[f.Check],
			Attempts: p.estimate(a.attempts), PFixed: p.estimate(a.fixed), FixCostUSD: p.estimate(a.cost),
			CostDeltaUSD: p.estimate(a.delta), Skipped: skipped[i],
			PBudgetStop: float64(budgetStops[i]) / float64(cfg.Draws*cfg.TrialsPerDraw)}
	}
	run.CyclesSaved, run.FixCostUSD, run.CostDeltaUSD = p.estimate(run.perDraw[0]), p.estimate(run.perDraw[1]), p.estimate(run.perDraw[2])
	if withinKnown {
		e := p.estimate(run.perDraw[3])
		run.PWithinLimit = &e
	}
	return run, results, nil
}

// TestSimulateMatchesReference: the optimised Simulate gives exactly — bit for bit,
// intervals and per-draw sums included — what the reference gives, on random runs
// that cover every check, the claims guard, budget stops, unknown checks, every
// outcome, measured and estimated coder costs, history and given rates.
func TestSimulateMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	checks := []string{"build", "vet", "lint", "test", "claims", "frobnicate", ""}
	outcomes := []input.Outcome{input.OutcomeApproved, input.OutcomeMaxCycles, input.OutcomeBudgetExceeded, input.OutcomeDecomposed}
	var cases []*Case
	var outputs [][]string
	titles := map[string]string{}
	history := NewHistory()
	for len(cases) < 60 {
		n := 1 + rng.IntN(6)
		cycles := make([]input.Cycle, n)
		cost := 0.0
		for i := range cycles {
			cost += 0.1 + rng.Float64()
			check := checks[rng.IntN(len(checks))]
			out := ""
			if check != "" {
				out = fmt.Sprintf("x.go:%d:2: undefined: y%d\n", i, rng.IntN(9))
			}
			cycles[i] = cyc(check, cost)
			cycles[i].FilterOutput = out
		}
		key := fmt.Sprintf("run-%d", len(cases))
		run := mkRun(key, outcomes[rng.IntN(len(outcomes))], cycles...)
		run.MaxBudgetUSD = []float64{0, cost + 0.05, cost + 0.5, cost + 5, 100}[rng.IntN(5)]
		run.Title = "Task " + key
		if rng.IntN(3) == 0 {
			run.Calls = nil
		}
		c, _ := Observe(run)
		if c == nil {
			continue
		}
		var outs []string
		for _, cy := range run.Cycles {
			if cy.FilterCheckName != "" {
				outs = append(outs, cy.FilterOutput)
			}
		}
		cases, outputs, titles[key] = append(cases, c), append(outputs, outs), run.Title
		history.Add(c)
	}
	seen := map[string]bool{}
	defer func() {
		if len(seen) != 3 {
			t.Errorf("the random runs cover only %v", seen)
		}
	}()
	for _, given := range []map[string]float64{nil, {"build": 0.3, "test": 0.9}} {
		for _, cfg := range []Config{{Seed: 1}, {Seed: 9, Draws: 7, TrialsPerDraw: 3, MaxFilterFixes: 5, Level: 0.8, CostFraction: 2}} {
			plan := NewPlan(cfg, history.Rates(given))
			for i, c := range cases {
				got, gotF, err := plan.Simulate(context.Background(), c)
				want, wantF, werr := plan.referenceSimulate(context.Background(), c, "task-"+c.Key, titles[c.Key], outputs[i])
				if err != nil || werr != nil {
					t.Fatal(err, werr)
				}
				for _, f := range gotF {
					switch {
					case f.Skipped == "claims":
						seen["claims"] = true
					case f.PBudgetStop > 0 && f.PBudgetStop < 1: // after a failed re-run
						seen["some trials stopped by the budget"] = true
					case f.PFixed.Mean > 0 && f.PFixed.Mean < 1:
						seen["fixed in some trials"] = true
					}
				}
				if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotF, wantF) {
					t.Fatalf("%s (given %v, config %+v):\n got %+v\n%+v\nwant %+v\n%+v", c.Key, given, cfg, got, gotF, want, wantF)
				}
			}
		}
	}
}
