// Package synth generates synthetic agent activity with known ground truth, for
// loopwatch's built-in sample, golden tests and benchmarks. It is deterministic — the
// same configuration always gives the same bytes.
//
// Runs ([Generate]) are quasar run traces in the lossless run-trace format of
// [github.com/loopwatch/loopwatch/replay/trace]: runs that converge, make slow but
// real progress, trip the filter once, keep failing the same filter check, keep
// getting the same review findings, or burn their budget. Ground truth is the
// scenario a run was generated from: a run is positive ("struggled") when its
// scenario is one of the struggling ones, whatever a detector makes of it.
//
// Sessions ([GenerateSessions]) are Claude Code v2 transcripts, with a subagent
// transcript where the scenario delegates: a smooth success, a correction storm, a
// failing tool loop, an interrupt with a redirect, an abandoned session, and one
// with a subagent. [GenerateVibesLog] writes a vibes event log with two interleaved
// sessions, one smooth and one with friction. Their ground truth ([SessionLabel]) is
// the session labels of the Claude Code corpus (LABELS.md): the outcome, the number
// of human messages, and the record ids of the moments of friction. The projects,
// files and conversations are made up.
//
// [Layout] puts runs, sessions and logs into a dataset folder's files; [SampleFiles]
// is the built-in sample. The figures are synthetic: use them to exercise the tool
// and compare detector settings, never as a measurement of real agents.
//
// The ground truth is in the labels only: no field of a generated record names the
// scenario (a trace's phase is the task's nebula phase, drawn with its title).
//
// # Hard cases
//
// Some scenarios are hard cases that a detector at its defaults misses; the README
// ("What each detector is expected to miss") gives the figures, which
// `go test ./datasets/synth -run TestHardCases -hardcases` prints and the test keeps
// in step with the README:
//
//   - struggle misses [BudgetBurn]: only the budget signal scores, and its weight
//     (0.25) is under the composite threshold (0.6); and a few [RepeatFindings] runs of
//     three cycles, whose reworded findings fall below the 0.8 similarity to each
//     other (score 0.58).
//   - the breaker, scored by session outcome, flags [CorrectionStorm] (partial),
//     [InterruptRedirect] (success) and the vibes log's bumpy session (success): it
//     reacts to friction, also friction that is resolved.
//   - the offline outcome analysis calls [FailingToolLoop] partial, not failure: the
//     user gives up in words and the agent's last step, deleting the files, succeeds.
//   - at the event level, the breaker (edge-triggered, 5-minute cooldown) catches the
//     first of the three quick moments of friction of [CorrectionStorm] and
//     [FailingToolLoop], and one of the two of the vibes log's bumpy session.
package synth

import (
	"fmt"
	"iter"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/loopwatch/loopwatch/replay/trace"
)

// Scenario is the kind of run the generator plays out.
type Scenario string

// The scenarios. The first four are not struggling (negative), the rest are (positive).
const (
	Converge1      Scenario = "converge_1"      // approved in the first cycle
	Converge2      Scenario = "converge_2"      // one rejection, then approved
	SlowProgress   Scenario = "slow_progress"   // 3–4 cycles of different findings, then approved
	FilterFlake    Scenario = "filter_flake"    // a filter check fails once and is fixed the next cycle
	FilterRepeat   Scenario = "filter_repeat"   // the same filter check fails cycle after cycle
	RepeatFindings Scenario = "repeat_findings" // the reviewer raises the same findings cycle after cycle
	BudgetBurn     Scenario = "budget_burn"     // expensive cycles with lint-fix calls exhaust the budget
	Stuck          Scenario = "stuck"           // filter repeats and repeated findings together
)

// Scenarios lists every scenario in a fixed order.
var Scenarios = []Scenario{Converge1, Converge2, SlowProgress, FilterFlake, FilterRepeat, RepeatFindings, BudgetBurn, Stuck}

// Struggling reports whether runs of the scenario are positive.
func (s Scenario) Struggling() bool {
	switch s {
	case FilterRepeat, RepeatFindings, BudgetBurn, Stuck:
		return true
	}
	return false
}

// Config says what to generate.
type Config struct {
	Seed uint64
	// Plan lists the scenario of each run, in order. When empty, Runs runs are drawn
	// from Scenarios with equal probability.
	Plan []Scenario
	Runs int
	// Start is the time of the first run's first event; runs start an hour apart.
	Start time.Time
	// RerunEvery makes every n-th run the next epoch of the previous run's task
	// (a re-run of the same bead), written to the same file; 0 disables.
	RerunEvery int
	// FixLoopEvery records every n-th run with quasar's inner filter fix loop on (seed
	// inner-fix-loop): a failed check is met by up to three fix attempts — a flaky
	// failure fixed at one of them, a repeated one never — each a filter_fix call, a
	// filter_fix_attempt and a filter_fix_result; a fixed check goes on to the
	// reviewer as the chain had passed. 0 disables; the other runs are unchanged.
	FixLoopEvery int
}

// Run is one generated run.
type Run struct {
	Key      string // the run key replay will give it
	Task     string
	Epoch    string
	File     string // slash-separated file name the run belongs in
	Scenario Scenario
	Events   []trace.Envelope
}

// Positive reports the run's ground truth.
func (r Run) Positive() bool { return r.Scenario.Struggling() }

// Outcome returns the outcome the run's task_state records.
func (r Run) Outcome() string {
	last := r.Events[len(r.Events)-1]
	return last.Data.(trace.TaskState).Outcome
}

// Generate plays out the runs of cfg.
func Generate(cfg Config) []Run {
	var runs []Run
	for r := range Runs(cfg) {
		runs = append(runs, r)
	}
	return runs
}

// Runs plays out the runs of cfg one at a time, in order: the runs of [Generate],
// without holding them all.
func Runs(cfg Config) iter.Seq[Run] {
	return func(yield func(Run) bool) {
		rng := rand.New(rand.NewPCG(cfg.Seed, 0x73796e7468))
		plan := cfg.Plan
		if len(plan) == 0 {
			plan = make([]Scenario, cfg.Runs)
			for i := range plan {
				plan[i] = Scenarios[rng.IntN(len(Scenarios))]
			}
		}
		start := cfg.Start
		if start.IsZero() {
			start = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
		}
		var prev Run
		prevEpoch := 0
		for i, sc := range plan {
			g := &gen{rng: rng, t: start.Add(time.Duration(i) * time.Hour)}
			task := fmt.Sprintf("synth-%04d", i+1)
			n := 1
			file := task + ".jsonl"
			if cfg.RerunEvery > 0 && i > 0 && (i+1)%cfg.RerunEvery == 0 {
				// The next epoch of the previous run's task: with RerunEvery 1 every run
				// after the first is one more epoch of the first task.
				task, n, file = prev.Task, prevEpoch+1, prev.File
			}
			epoch := fmt.Sprintf("e%d", n)
			prevEpoch = n
			g.task, g.epoch = task, epoch
			if cfg.FixLoopEvery > 0 && (i+1)%cfg.FixLoopEvery == 0 {
				// The loop draws from a stream of its own: the runs, and what the run
				// does besides the loop, are drawn as without it.
				g.loopRng = rand.New(rand.NewPCG(cfg.Seed, 0x6669786c6f6f70^uint64(i)))
			}
			g.play(sc)
			prev = Run{Key: task + "@" + epoch, Task: task, Epoch: epoch, File: file, Scenario: sc, Events: g.events}
			if !yield(prev) {
				return
			}
		}
	}
}

type gen struct {
	rng         *rand.Rand
	t           time.Time
	task, epoch string
	events      []trace.Envelope
	cost        float64
	loopRng     *rand.Rand // the inner fix loop's draws when the run is recorded with it on; nil when off
}

func (g *gen) emit(kind string, data any, after time.Duration) {
	g.t = g.t.Add(after)
	g.events = append(g.events, trace.Envelope{TS: g.t, Kind: kind, Epoch: g.epoch, Task: g.task, Data: data})
}

func (g *gen) between(lo, hi float64) float64 {
	return round2(lo + g.rng.Float64()*(hi-lo))
}

func (g *gen) minutes(lo, hi int) time.Duration {
	return time.Duration(lo+g.rng.IntN(hi-lo+1))*time.Minute + time.Duration(g.rng.IntN(60))*time.Second
}

// cyclePlan is what happens in one cycle.
type cyclePlan struct {
	failCheck string   // filter check that fails; "" when the chain passes
	findings  []string // findings the reviewer raises; none and !approved is impossible
	lintFixes int
	approved  bool
	expensive bool
}

func (g *gen) play(sc Scenario) {
	maxCycles, budget := 5, 10.0
	if g.rng.IntN(3) == 0 {
		maxCycles, budget = 3, 5.0 // quasar's defaults
	}
	var plan []cyclePlan
	fresh := g.rng.Perm(len(findingPool))
	next := func() string { f := findingPool[fresh[0]]; fresh = fresh[1:]; return f }
	outcome := "approved"
	switch sc {
	case Converge1:
		plan = []cyclePlan{{approved: true}}
	case Converge2:
		plan = []cyclePlan{{findings: []string{next()}}, {approved: true}}
	case SlowProgress:
		n := 3 + g.rng.IntN(2)
		if n > maxCycles {
			n = maxCycles
		}
		for i := 0; i < n-1; i++ {
			plan = append(plan, cyclePlan{findings: []string{next()}})
		}
		plan = append(plan, cyclePlan{approved: true})
	case FilterFlake:
		check := checks[g.rng.IntN(len(checks)-1)]
		plan = []cyclePlan{{failCheck: check, findings: []string{next()}}, {approved: true}}
	case FilterRepeat:
		check := checks[g.rng.IntN(len(checks)-1)]
		for i := 0; i < maxCycles; i++ {
			plan = append(plan, cyclePlan{failCheck: check, findings: []string{next()}})
		}
		outcome = "max_cycles"
	case RepeatFindings:
		same := []string{next(), next()}
		for i := 0; i < maxCycles; i++ {
			fs := []string{g.reword(same[0])}
			if i > 0 {
				fs = append(fs, g.reword(same[1]))
			}
			plan = append(plan, cyclePlan{findings: fs})
		}
		outcome = "max_cycles"
	case BudgetBurn:
		for i := 0; i < maxCycles; i++ {
			plan = append(plan, cyclePlan{findings: []string{next()}, lintFixes: 2, expensive: true})
		}
		outcome = "budget_exceeded"
	case Stuck:
		check := checks[g.rng.IntN(len(checks)-1)]
		same := next()
		for i := 0; i < maxCycles; i++ {
			plan = append(plan, cyclePlan{failCheck: check, findings: []string{g.reword(same)}})
		}
		outcome = "decomposed"
		if g.rng.IntN(2) == 0 {
			outcome = "max_cycles"
		}
	}
	// The task's title and phase say what it is about, never its scenario: the ground
	// truth is in the labels only, so no column of the replay's output leaks it.
	task := g.rng.IntN(len(titles))
	g.emit(trace.KindTaskStart, trace.TaskStart{Title: titles[task], Phase: phases[task],
		MaxCycles: maxCycles, MaxBudgetUSD: budget}, 0)
	callCap := budget / float64(2*maxCycles)
	for i, p := range plan {
		cycle := i + 1
		coder := g.between(0.35, 0.85) * callCap
		if p.expensive {
			coder = callCap
		}
		g.agent(cycle, "coder", coder, g.minutes(3, 12))
		for l := 0; l < p.lintFixes; l++ {
			g.agent(cycle, "lint_fix", g.between(0.5, 0.9)*callCap, g.minutes(1, 3))
		}
		output := ""
		for _, c := range checks {
			passed := c != p.failCheck
			out := ""
			if !passed {
				out = filterOutput(c, g.task, g.rng)
				output = out
			}
			g.emit(trace.KindFilterResult, trace.FilterResult{Cycle: cycle, Check: c, Passed: passed, Output: out,
				ElapsedMS: int64(200 + g.rng.IntN(9000))}, time.Duration(5+g.rng.IntN(40))*time.Second)
			if !passed {
				break
			}
		}
		failCheck, fixAttempts, fixCost := p.failCheck, 0, 0.0
		if failCheck != "" && g.loopRng != nil {
			main := g.rng
			g.rng = g.loopRng
			if g.fixFailure(cycle, failCheck, sc == FilterFlake, callCap, &fixAttempts, &fixCost) {
				failCheck, output = "", "" // fixed: the cycle goes on to the reviewer
				g.agent(cycle, "reviewer", g.between(0.15, 0.45)*callCap, g.minutes(1, 5))
			}
			g.rng = main
		}
		if p.failCheck == "" {
			g.agent(cycle, "reviewer", g.between(0.15, 0.45)*callCap, g.minutes(1, 5))
		}
		var fs []trace.Finding
		for _, f := range p.findings {
			fs = append(fs, trace.Finding{Severity: severities[g.rng.IntN(len(severities))], Description: f})
		}
		if failCheck != "" {
			// quasar turns a filter failure into a synthetic finding and skips the reviewer.
			fs = []trace.Finding{{Severity: "major", Description: fmt.Sprintf("filter check %s failed", failCheck)}}
		}
		g.emit(trace.KindCycleDone, trace.CycleDone{Cycle: cycle, MaxCycles: maxCycles, TotalCostUSD: round2(g.cost),
			MaxBudgetUSD: budget, FilterCheckName: failCheck, FilterOutput: output, Findings: fs,
			LintFixCalls: p.lintFixes, Approved: p.approved, FilterFixAttempts: fixAttempts, FilterFixCostUSD: round2(fixCost)}, time.Second)
		if sc == BudgetBurn && g.cost > budget {
			g.emit(trace.KindTaskState, trace.TaskState{Outcome: outcome, Cycles: cycle, TotalCostUSD: round2(g.cost),
				Reason: fmt.Sprintf("Budget exceeded: $%.2f / $%.2f", g.cost, budget)}, time.Second)
			return
		}
	}
	reason := ""
	if outcome == "max_cycles" {
		reason = fmt.Sprintf("Max cycles reached (%d). Manual review recommended.", maxCycles)
	}
	g.emit(trace.KindTaskState, trace.TaskState{Outcome: outcome, Cycles: len(plan), TotalCostUSD: round2(g.cost), Reason: reason}, time.Second)
}

// fixFailure records the inner fix loop meeting a failure of check: up to three
// attempts (the seed's DefaultMaxFilterFixes), the one that fixes it drawn among them
// when fixable, none otherwise. It reports whether the loop fixed the failure and
// sets the cycle's filter_fix_attempts (the failed attempts, reset to 0 by a fix, as
// the seed's loop keeps them) and their cost.
func (g *gen) fixFailure(cycle int, check string, fixable bool, callCap float64, attempts *int, cost *float64) bool {
	fixAt := 0
	if fixable {
		fixAt = 1 + g.rng.IntN(3)
	}
	fixed, made := false, 0
	for a := 1; a <= 3 && !fixed; a++ {
		c := round2(g.between(0.1, 0.3) * callCap)
		g.agent(cycle, "filter_fix", c, g.minutes(1, 3))
		fixed, made = a == fixAt, a
		*cost += c
		g.emit(trace.KindFilterFixAttempt, trace.FilterFixAttempt{Cycle: cycle, Check: check, Attempt: a, CostUSD: c, Passed: fixed},
			time.Duration(5+g.rng.IntN(40))*time.Second)
	}
	g.emit(trace.KindFilterFixResult, trace.FilterFixResult{Cycle: cycle, Check: check, Fixed: fixed, Attempts: made, CostUSD: round2(*cost)}, time.Second)
	if !fixed {
		*attempts = made
	}
	return fixed
}

func (g *gen) agent(cycle int, role string, cost float64, took time.Duration) {
	cost = round2(cost)
	g.cost += cost
	g.emit(trace.KindAgentDone, trace.AgentDone{Cycle: cycle, Role: role, CostUSD: cost, DurationMS: took.Milliseconds(),
		Tokens: int64(20000 + g.rng.IntN(180000))}, took)
}

// reword changes one word of a description, as a reviewer restating the same finding
// does: the Jaccard similarity to the original stays above 0.8 for descriptions of ten
// or more words.
func (g *gen) reword(desc string) string {
	words := strings.Fields(desc)
	i := g.rng.IntN(len(words))
	if alt, ok := synonyms[strings.ToLower(words[i])]; ok {
		words[i] = alt
	}
	return strings.Join(words, " ")
}

func round2(v float64) float64 { return float64(int64(v*100+0.5)) / 100 }
