package fixsim

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"iter"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/loopwatch/loopwatch/analyze"
	"github.com/loopwatch/loopwatch/analyze/fixloop"
	"github.com/loopwatch/loopwatch/analyze/fixloop/checkparse"
	"github.com/loopwatch/loopwatch/analyze/fixloop/filter"
	"github.com/loopwatch/loopwatch/analyze/fixloop/fixprompt"
	"github.com/loopwatch/loopwatch/replay/input"
)

// Config configures the simulation. Zero fields take the defaults in brackets.
type Config struct {
	Draws          int     // draws of every check's p [100]
	TrialsPerDraw  int     // trials per failure and draw [20]
	Seed           uint64  // seed of every random stream [0]
	CostFraction   float64 // a fix attempt's cost as a fraction of the run's mean coder call [0.25]
	MaxFilterFixes int     // attempts per failure [fixloop.DefaultMaxFilterFixes], at most MaxFilterFixes
	Level          float64 // interval level [0.95]
}

// MaxFilterFixes is the most attempts per failure a Config is simulated with.
const MaxFilterFixes = 100

func (c Config) withDefaults() Config {
	if c.Draws <= 0 {
		c.Draws = 100
	}
	if c.TrialsPerDraw <= 0 {
		c.TrialsPerDraw = 20
	}
	if !(c.CostFraction > 0) {
		c.CostFraction = 0.25
	}
	if c.MaxFilterFixes <= 0 {
		c.MaxFilterFixes = fixloop.DefaultMaxFilterFixes
	}
	// The loop is replayed once per number of failed re-runs up to the limit, for every
	// failure: a limit past MaxFilterFixes is taken as it (the replay's flag refuses one).
	c.MaxFilterFixes = min(c.MaxFilterFixes, MaxFilterFixes)
	if !(c.Level > 0 && c.Level < 1) {
		c.Level = 0.95
	}
	return c
}

// Plan is a simulation ready to run: the configuration, the rates and the shared
// draws of every check's p. A Plan is read-only and safe for concurrent use.
type Plan struct {
	cfg   Config
	rates map[string]Rate
	draws map[string][]float64
	outer *Plan // predicts the loop-on runs' failures from the outer cycles' p; nil: no check
}

// WithOuterCheck returns a copy of p that also simulates the failures of every run
// recorded with the loop on — which p itself does not simulate — at a check outer has
// trials of (claims, which the loop never attempts, left out), with each check's p from
// outer ([History.OuterRates]: the outer cycles alone, no recorded attempt), and sums
// the failures it predicts fixed beside the ones the loop fixed ([Totals.OuterCheck]):
// a check of the simulation against loops that ran, on runs whose outcome none of its
// p was estimated from. The failures at other checks are counted, not checked.
func (p *Plan) WithOuterCheck(outer map[string]Rate) *Plan {
	q := *p
	q.outer = NewPlan(p.cfg, outer)
	return &q
}

// NewPlan draws every check's p cfg.Draws times: from its Jeffreys posterior for a
// history rate, constant for a given one.
func NewPlan(cfg Config, rates map[string]Rate) *Plan {
	cfg = cfg.withDefaults()
	p := &Plan{cfg: cfg, rates: rates, draws: map[string][]float64{}}
	checks := make([]string, 0, len(rates))
	for c := range rates {
		checks = append(checks, c)
	}
	slices.Sort(checks)
	for _, c := range checks {
		r := rates[c]
		ds := make([]float64, cfg.Draws)
		beta := distuv.Beta{Alpha: float64(r.Cleared) + 0.5, Beta: float64(r.Trials-r.Cleared) + 0.5,
			Src: rand.NewPCG(cfg.Seed, keyHash("p:"+c))}
		for i := range ds {
			if r.Source == "given" {
				ds[i] = r.P
			} else {
				ds[i] = beta.Rand()
			}
		}
		p.draws[c] = ds
	}
	return p
}

// Config returns the plan's configuration, defaults applied.
func (p *Plan) Config() Config { return p.cfg }

// Rate returns the rate of a check.
func (p *Plan) Rate(check string) Rate { return p.rates[check] }

// Estimate is an expectation with its interval.
type Estimate struct {
	Mean, Low, High float64
}

// FailureResult is the simulation of one recorded failure.
type FailureResult struct {
	RunKey  string
	Failure Failure
	Rate    Rate

	Attempts     Estimate // coder calls of the inner loop
	PFixed       Estimate // probability the loop fixes the failure (= expected outer cycles saved)
	FixCostUSD   Estimate // cost of the fix attempts
	CostDeltaUSD Estimate // fix cost minus the saved cycle's cost; negative saves money
	// PBudgetStop is the probability that the budget check stopped the loop.
	PBudgetStop float64
	// Outer is, for a failure of a run recorded with the loop on under a plan with an
	// outer check, the probability the outer plan's simulation fixes it; nil otherwise
	// (and for a check no outer cycle reached).
	Outer *Estimate
	// Skipped names why the loop did not run at all ("claims": the seed's guard), or "".
	Skipped string
}

// RunResult is the simulation of a run's failures together.
type RunResult struct {
	Case         *Case
	CyclesSaved  Estimate
	FixCostUSD   Estimate
	CostDeltaUSD Estimate
	// PWithinLimit is the probability the run finishes within its cycle limit (see the
	// package doc); nil when that is unknown for the run's outcome.
	PWithinLimit *Estimate

	perDraw [4][]float64 // saved, fix cost, delta, within — for totals
	// OuterCyclesSaved is, for a run recorded with the loop on under a plan with an
	// outer check, the failures the outer plan's simulation fixes of those it checked
	// (the ones at a check an outer cycle reached); nil otherwise.
	OuterCyclesSaved *Estimate

	// predicted is OuterCyclesSaved per draw; checked and checkedFixed count the
	// failures checked and those of them the loop fixed, unchecked the others.
	predicted                        []float64
	checked, checkedFixed, unchecked int
}

// scriptedRunner is a single-check runner whose first fails re-runs fail and whose
// later ones pass.
type scriptedRunner struct {
	fails, runs int
	result      filter.CheckResult // reused: the loop reads a result before the next re-run
}

func (s *scriptedRunner) Run(context.Context, string) (*filter.Result, error) {
	return nil, errors.New("fixsim: the simulated filter only re-runs single checks")
}

func (s *scriptedRunner) RunCheck(_ context.Context, _ string, name string) (*filter.CheckResult, error) {
	s.runs++
	s.result = filter.CheckResult{Name: name, Passed: s.runs > s.fails}
	return &s.result, nil
}

// simCoder is the simulated coder: every fix attempt costs the same, at most the
// budget the loop gives the call (as a real coder's spend is capped at it).
type simCoder struct{ cost float64 }

func (c simCoder) Fix(_ context.Context, req fixloop.FixRequest) (fixloop.FixResult, error) {
	cost := c.cost
	if req.BudgetUSD > 0 {
		cost = min(cost, req.BudgetUSD)
	}
	return fixloop.FixResult{Summary: "simulated fix", CostUSD: cost}, nil
}

// path is what the loop did on one failure when its first k re-runs failed and the
// next passed: the loop is deterministic, so this is what every trial meeting those
// re-run results gets.
type path struct {
	reruns      int // re-runs the loop made (≤ k: it stopped before re-run k+1)
	calls       float64
	fixed       bool
	cost, delta float64
	outcome     fixloop.Outcome
}

// paths runs the real loop on failure f of c once for every sequence of re-run results
// it can meet — k failures then a pass, k = 0 … MaxFilterFixes (the last: every
// re-run fails) — and returns what it did on each.
func (p *Plan) paths(ctx context.Context, c *Case, f *Failure, coder fixloop.Coder) ([]path, error) {
	runner := &scriptedRunner{}
	loop := fixloop.FixLoop{Filter: runner, Coder: coder, MaxFilterFixes: p.cfg.MaxFilterFixes,
		Parse:       func(filter.CheckResult) checkparse.ParseResult { return checkparse.ParseResult{CheckName: f.Check} },
		BuildPrompt: func(fixprompt.Input) string { return "" }}
	out := make([]path, loop.MaxFixes()+1)
	for k := range out {
		runner.fails, runner.runs = k, 0
		state := analyze.CycleState{TaskBeadID: c.TaskID, TaskTitle: c.Title, Cycle: f.Cycle, MaxCycles: c.MaxCycles, MaxBudgetUSD: c.MaxBudgetUSD,
			TotalCostUSD: f.CostAtFail, FilterCheckName: f.Check}
		res, err := loop.RunFilterFixLoop(ctx, &state, f.Check, "")
		if err != nil && res.Outcome != fixloop.OutcomeBudgetExceeded {
			return nil, err
		}
		cost := res.CostUSD()
		delta := cost
		if res.Fixed() {
			delta -= c.MeanCycleCostUSD
		}
		out[k] = path{reruns: runner.runs, calls: float64(res.CoderCalls()), fixed: res.Fixed(), cost: cost, delta: delta,
			outcome: res.Outcome}
	}
	return out, nil
}

// Simulate runs the real inner fix loop on every failure of c, Draws × TrialsPerDraw
// times, and summarises the results.
//
// Each trial draws the results of the loop's re-runs of the check — each passes with
// probability p — one at a time, as the loop asks for them. The loop itself is run
// once per failure for every sequence of re-run results it can meet (see paths), not
// once per trial: being deterministic, it does the same on the same results, so a
// trial takes what it did on the sequence drawn. This is exactly — draw for draw, sum
// for sum — what running the loop in every trial with a random runner gives (a test
// keeps that implementation to compare), at a fraction of the cost.
func (p *Plan) Simulate(ctx context.Context, c *Case) (RunResult, []FailureResult, error) {
	return p.simulate(ctx, c, &simRoom{})
}

// simRoom is the room a simulation sums in, kept from one simulation to the next by a
// worker that runs many: what a simulation returns is never in it.
type simRoom struct {
	sums, sorted []float64
}

// floats returns room for n floats in *buf, holding what it held.
func floats(buf *[]float64, n int) []float64 {
	if cap(*buf) < n {
		*buf = make([]float64, n)
	}
	return (*buf)[:n]
}

// simulate is Simulate summing in room.
func (p *Plan) simulate(ctx context.Context, c *Case, room *simRoom) (RunResult, []FailureResult, error) {
	if c.LoopOn {
		run, fails := p.recorded(c), p.recordedFailures(c)
		if p.outer != nil {
			if err := p.outerCheck(ctx, &run, fails, room); err != nil {
				return RunResult{}, nil, err
			}
		}
		return run, fails, nil
	}
	cfg := p.cfg
	// The trials' stream, read by unitFloat without the call through rand.Source: a
	// third of the simulation's time went to drawing.
	rng := rand.NewPCG(cfg.Seed, keyHash("run:"+c.Key))
	coder := simCoder{cost: cfg.CostFraction * c.MeanCoderCostUSD}
	n := len(c.Failures)
	paths := make([][]path, n)
	draws := make([][]float64, n) // each failure's check's draws of p
	for i := range c.Failures {
		f := &c.Failures[i]
		if draws[i] = p.draws[f.Check]; len(draws[i]) != cfg.Draws {
			return RunResult{}, nil, fmt.Errorf("fixsim: run %s: check %q has no rate in the plan", c.Key, f.Check)
		}
		var err error
		if paths[i], err = p.paths(ctx, c, f, coder); err != nil {
			return RunResult{}, nil, err
		}
	}
	// Sums over the trials of one draw, per failure: attempts, fixed, cost, delta.
	type acc struct{ attempts, fixed, cost, delta []float64 }
	per := make([]acc, n)
	sums := floats(&room.sums, 4*n*cfg.Draws)
	clear(sums)
	for i := range per {
		k := 4 * i * cfg.Draws
		part := func(j int) []float64 { return sums[k+j*cfg.Draws : k+(j+1)*cfg.Draws : k+(j+1)*cfg.Draws] }
		per[i] = acc{part(0), part(1), part(2), part(3)}
	}
	budgetStops := make([]int, n)
	skipped := make([]string, n)
	run := RunResult{Case: c, perDraw: p.newPerDraw()}
	withinKnown := c.Outcome == input.OutcomeApproved || c.Outcome == input.OutcomeMaxCycles
	trials := float64(cfg.TrialsPerDraw)
	for d := 0; d < cfg.Draws; d++ {
		if err := ctx.Err(); err != nil { // once a draw: a check a trial cost 7% of the simulation
			return RunResult{}, nil, err
		}
		within := 0
		for range cfg.TrialsPerDraw {
			fixedAny := false
			for i := range paths {
				// Re-run k+1 is drawn when the loop, its first k re-runs having failed, asks
				// for it; a pass or a loop that stopped ends the trial on path k.
				pi, prob := paths[i], draws[i][d]
				k := 0
				for pi[k].reruns > k && !(unitFloat(rng.Uint64()) < prob) {
					k++
				}
				pt := &pi[k]
				switch pt.outcome {
				case fixloop.OutcomeBudgetExceeded:
					budgetStops[i]++
				case fixloop.OutcomeSkippedClaims:
					skipped[i] = "claims"
				}
				if pt.fixed {
					fixedAny = true
				}
				a := &per[i]
				a.attempts[d] += pt.calls
				a.fixed[d] += b2f(pt.fixed)
				a.cost[d] += pt.cost
				a.delta[d] += pt.delta
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
	scratch := floats(&room.sorted, cfg.Draws)
	for i, f := range c.Failures {
		a := per[i]
		results[i] = FailureResult{RunKey: c.Key, Failure: f, Rate: p.rates[f.Check],
			Attempts: p.estimateInto(scratch, a.attempts), PFixed: p.estimateInto(scratch, a.fixed),
			FixCostUSD: p.estimateInto(scratch, a.cost), CostDeltaUSD: p.estimateInto(scratch, a.delta), Skipped: skipped[i],
			PBudgetStop: float64(budgetStops[i]) / float64(cfg.Draws*cfg.TrialsPerDraw)}
	}
	run.CyclesSaved = p.estimateInto(scratch, run.perDraw[0])
	run.FixCostUSD = p.estimateInto(scratch, run.perDraw[1])
	run.CostDeltaUSD = p.estimateInto(scratch, run.perDraw[2])
	if withinKnown {
		e := p.estimateInto(scratch, run.perDraw[3])
		run.PWithinLimit = &e
	}
	return run, results, nil
}

// outerCheck simulates, with the outer plan, the failures of a run recorded with the
// loop on whose check the outer cycles reached, and sets what it predicts beside what
// the loop did: each such failure's Outer, the run's OuterCyclesSaved and the per-draw
// sums the totals add up.
func (p *Plan) outerCheck(ctx context.Context, run *RunResult, fails []FailureResult, room *simRoom) error {
	off := *run.Case
	off.LoopOn = false
	off.Failures = nil
	var at []int // the failures checked, by their index in the run
	for i, f := range run.Case.Failures {
		switch {
		case f.Check == filter.CheckClaims: // the loop never attempts it: nothing to check
		case p.outer.rates[f.Check].Trials > 0:
			off.Failures = append(off.Failures, f)
			at = append(at, i)
		default:
			run.unchecked++
		}
	}
	if len(at) == 0 {
		return nil
	}
	pred, predFails, err := p.outer.simulate(ctx, &off, room)
	if err != nil {
		return err
	}
	for j, i := range at {
		e := predFails[j].PFixed
		fails[i].Outer = &e
		run.checkedFixed += int(b2f(run.Case.Failures[i].Recorded.Fixed))
	}
	run.checked = len(at)
	run.OuterCyclesSaved = &pred.CyclesSaved
	run.predicted = pred.perDraw[0] // failures fixed, per draw
	return nil
}

// recorded is the result of a run recorded with the loop on: what its loop did, the
// same in every draw. Such a run finished within its cycle limit when it was approved:
// the loop was there, and a run stopped by the limit was not saved by it.
func (p *Plan) recorded(c *Case) RunResult {
	var saved, cost, delta float64
	for _, f := range c.Failures {
		d := recordedDelta(c, f.Recorded)
		saved += b2f(f.Recorded.Fixed)
		cost += f.Recorded.CostUSD
		delta += d
	}
	run := RunResult{Case: c, CyclesSaved: exact(saved), FixCostUSD: exact(cost), CostDeltaUSD: exact(delta), perDraw: p.newPerDraw()}
	within := b2f(c.Outcome == input.OutcomeApproved)
	for d := range p.cfg.Draws {
		run.perDraw[0][d], run.perDraw[1][d], run.perDraw[2][d], run.perDraw[3][d] = saved, cost, delta, within
	}
	if c.Outcome == input.OutcomeApproved || c.Outcome == input.OutcomeMaxCycles {
		e := exact(within)
		run.PWithinLimit = &e
	}
	return run
}

// newPerDraw returns a run's four per-draw sums, zero, in one allocation.
func (p *Plan) newPerDraw() (out [4][]float64) {
	d := p.cfg.Draws
	all := make([]float64, 4*d)
	for i := range out {
		out[i] = all[i*d : (i+1)*d : (i+1)*d]
	}
	return out
}

// recordedFailures are the failure results of a run recorded with the loop on.
func (p *Plan) recordedFailures(c *Case) []FailureResult {
	out := make([]FailureResult, len(c.Failures))
	for i, f := range c.Failures {
		r := f.Recorded
		out[i] = FailureResult{RunKey: c.Key, Failure: f, Rate: p.rates[f.Check], Attempts: exact(float64(r.Attempts)),
			PFixed: exact(b2f(r.Fixed)), FixCostUSD: exact(r.CostUSD), CostDeltaUSD: exact(recordedDelta(c, r)),
			PBudgetStop: b2f(r.BudgetStop)}
		if f.Check == filter.CheckClaims && r.Attempts == 0 {
			out[i].Skipped = "claims"
		}
	}
	return out
}

// recordedDelta is a recorded failure's cost delta: its attempts' cost, less the
// run's mean cycle cost when the loop fixed it.
func recordedDelta(c *Case, r Recorded) float64 {
	if r.Fixed {
		return r.CostUSD - c.MeanCycleCostUSD
	}
	return r.CostUSD
}

// exact is an estimate without uncertainty: a recorded figure.
func exact(v float64) Estimate { return Estimate{Mean: v, Low: v, High: v} }

// unitFloat reads a draw x of the stream as rand.Rand.Float64 does: its low 53 bits
// over 2⁵³, uniform in [0, 1).
func unitFloat(x uint64) float64 { return float64(x<<11>>11) / (1 << 53) }

// estimate is the mean of per-draw means with their percentile interval.
func (p *Plan) estimate(perDraw []float64) Estimate {
	return p.estimateInto(make([]float64, len(perDraw)), perDraw)
}

// estimateInto is estimate sorting a copy of perDraw in scratch, which must be as long.
func (p *Plan) estimateInto(scratch, perDraw []float64) Estimate {
	sorted := scratch[:len(perDraw)]
	copy(sorted, perDraw)
	slices.Sort(sorted)
	sum := 0.0
	for _, v := range sorted {
		sum += v
	}
	alpha := (1 - p.cfg.Level) / 2
	e := Estimate{Low: quantile(sorted, alpha), High: quantile(sorted, 1-alpha)}
	// The mean lies between the smallest and the largest draw; a sum's rounding must
	// not put it outside (a constant's mean one ulp from it).
	e.Mean = min(max(sum/float64(len(sorted)), sorted[0]), sorted[len(sorted)-1])
	return e
}

// quantile is the empirical quantile of sorted values: the smallest value with at
// least a fraction q of the values at or below it.
func quantile(sorted []float64, q float64) float64 {
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// Totals sums run results per draw, for dataset-wide expectations with intervals.
type Totals struct {
	plan     *Plan
	Runs     int
	Failures int
	// RecordedRuns and RecordedFailures count the runs recorded with the loop on and
	// their failures: what the loop did on them is recorded, not simulated.
	RecordedRuns, RecordedFailures int
	// LimitRuns counts the simulated runs stopped by their cycle limit that had
	// failures (a run recorded with the loop on was stopped with the loop there).
	LimitRuns int
	perDraw   [4][]float64

	checked, checkedFixed, unchecked int       // the outer check: failures checked, those their loop fixed, those not checked
	predicted                        []float64 // the failures checked the outer plan fixes, per draw
	maxAttempts                      int       // the most attempts a recorded loop made at a failure
}

// NewTotals returns empty totals for the plan's draws.
func (p *Plan) NewTotals() *Totals {
	t := &Totals{plan: p}
	for i := range t.perDraw {
		t.perDraw[i] = make([]float64, p.cfg.Draws)
	}
	return t
}

// Add adds a run's result.
func (t *Totals) Add(r RunResult) {
	t.Runs++
	t.Failures += len(r.Case.Failures)
	if r.Case.LoopOn {
		t.RecordedRuns++
		t.RecordedFailures += len(r.Case.Failures)
		for _, f := range r.Case.Failures {
			t.maxAttempts = max(t.maxAttempts, f.Recorded.Attempts)
		}
	}
	limit := r.Case.Outcome == input.OutcomeMaxCycles && !r.Case.LoopOn
	if limit {
		t.LimitRuns++
	}
	if t.plan.outer != nil && r.Case.LoopOn {
		if t.predicted == nil {
			t.predicted = make([]float64, t.plan.cfg.Draws)
		}
		for d, v := range r.predicted {
			t.predicted[d] += v
		}
		t.checked += r.checked
		t.checkedFixed += r.checkedFixed
		t.unchecked += r.unchecked
	}
	for d := range t.perDraw[0] {
		for i := 0; i < 3; i++ {
			t.perDraw[i][d] += r.perDraw[i][d]
		}
		if limit {
			t.perDraw[3][d] += r.perDraw[3][d]
		}
	}
}

// CyclesSaved, FixCostUSD and CostDeltaUSD are the expected totals over all runs;
// LimitRunsFinishing is the expected number of limit-stopped runs that would finish.
func (t *Totals) CyclesSaved() Estimate        { return t.plan.estimate(t.perDraw[0]) }
func (t *Totals) FixCostUSD() Estimate         { return t.plan.estimate(t.perDraw[1]) }
func (t *Totals) CostDeltaUSD() Estimate       { return t.plan.estimate(t.perDraw[2]) }
func (t *Totals) LimitRunsFinishing() Estimate { return t.plan.estimate(t.perDraw[3]) }

// OuterCheck is the check a plan [Plan.WithOuterCheck] made: of the checked failures
// of the runs recorded with the loop on — those at a check the outer cycles reached —
// their loop fixed fixed, and the simulation with the outer cycles' p predicts
// predicted of them fixed; unchecked counts the other failures of those runs. ok is
// false when the plan made no check or checked no failure.
func (t *Totals) OuterCheck() (checked, fixed, unchecked int, predicted Estimate, ok bool) {
	if t.checked == 0 {
		return 0, 0, t.unchecked, Estimate{}, false
	}
	return t.checked, t.checkedFixed, t.unchecked, t.plan.estimate(t.predicted), true
}

// AttemptLimits returns the most attempts a loop recorded with the loop on made at a
// failure, and the limit the simulation runs the loop with (Config.MaxFilterFixes).
func (t *Totals) AttemptLimits() (recorded, simulated int) {
	return t.maxAttempts, t.plan.cfg.MaxFilterFixes
}

func keyHash(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// SimulateAll simulates every case on workers goroutines (≤ 0: GOMAXPROCS) and hands
// each run's results to emit in the order of cases, from the calling goroutine, adding
// them to the totals it returns: [Plan.SimulateSeq] over the slice.
func (p *Plan) SimulateAll(ctx context.Context, cases []*Case, workers int, emit func(RunResult, []FailureResult) error) (*Totals, error) {
	return p.SimulateSeq(ctx, func(yield func(*Case, error) bool) {
		for _, c := range cases {
			if !yield(c, nil) {
				return
			}
		}
	}, workers, emit)
}

// windowPerWorker is SimulateSeq's reorder window, in cases per worker.
const windowPerWorker = 16

// SimulateSeq simulates the cases of a sequence — read from a file as they are
// simulated, say — on workers goroutines (≤ 0: GOMAXPROCS) and hands each run's
// results to emit in the order of the sequence, from the calling goroutine, adding them
// to the totals it returns. A case is taken from the sequence only when fewer than a
// windowPerWorker per worker are being simulated or wait for an earlier run to finish, and a run's
// results are dropped once emitted, so memory does not grow with the number of cases.
// The results are those of Simulate, whatever workers is. An error from the sequence,
// a simulation or emit stops it and is returned.
func (p *Plan) SimulateSeq(ctx context.Context, cases iter.Seq2[*Case, error], workers int, emit func(RunResult, []FailureResult) error) (*Totals, error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	type job struct {
		index int
		c     *Case
	}
	type result struct {
		index    int
		run      RunResult
		failures []FailureResult
		err      error
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The window bounds the cases taken and not yet emitted: sixteen a worker, so the
	// workers go on while a long case is simulated or emit writes rows. Neither channel
	// makes the feeder or a worker wait for the other's turn on a core: jobs holds a
	// case a worker, results every case the window lets in.
	jobs := make(chan job, workers)
	results := make(chan result, windowPerWorker*workers)
	window := make(chan struct{}, windowPerWorker*workers)
	fed := make(chan struct{}) // closed when the sequence is done: total or feedErr set
	total, feedErr := -1, error(nil)
	go func() {
		defer close(jobs)
		defer close(fed)
		n := 0
		for c, err := range cases {
			if err != nil {
				feedErr = err
				return
			}
			select {
			case window <- struct{}{}:
			case <-ctx.Done():
				return
			}
			select {
			case jobs <- job{n, c}:
			case <-ctx.Done():
				return
			}
			n++
		}
		total = n
	}()
	for range workers {
		go func() {
			var room simRoom
			for j := range jobs {
				r := result{index: j.index}
				r.run, r.failures, r.err = p.simulate(ctx, j.c, &room)
				select {
				case results <- r:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	totals := p.NewTotals()
	pending := map[int]result{}
	done := fed
	for next := 0; ; {
		r, ok := pending[next]
		if !ok {
			if done == nil && next == total {
				return totals, nil
			}
			select {
			case r := <-results:
				pending[r.index] = r
			case <-done:
				done = nil
				if feedErr != nil {
					return nil, feedErr
				}
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			continue
		}
		delete(pending, next)
		next++
		if r.err != nil {
			return nil, r.err
		}
		totals.Add(r.run)
		if err := emit(r.run, r.failures); err != nil {
			return nil, err
		}
		<-window // only once emitted: the window bounds the cases taken and not yet emitted
	}
}
