package baseline

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/loopwatch/loopwatch/analyze"
	"github.com/loopwatch/loopwatch/analyze/struggle"
	"github.com/loopwatch/loopwatch/replay"
	"github.com/loopwatch/loopwatch/replay/input"
)

var t0 = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

func TestQuasarJaccard(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		want float64
	}{
		{"identical", "missing error check in handler", "missing error check in handler", 1},
		{"lower-cased tokens", "Missing ERROR check", "missing error CHECK", 1},
		{"white space of any kind", "missing\terror\n check", "missing error check", 1},
		{"repeated tokens count once", "error error check", "error check", 1},
		{"four of five tokens: exactly 0.8", "a b c d e", "a b c d", 0.8},
		{"three of four tokens: 0.75", "a b c d", "a b c", 0.75},
		{"disjoint", "a b", "c d", 0},
		{"punctuation is part of a token", "error.", "error", 0},
		{"both without tokens are identical", "", "  \n", 1},
		{"one without tokens matches nothing", "", "a", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := QuasarJaccard(tt.a, tt.b); got != tt.want {
				t.Errorf("QuasarJaccard(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
			}
		})
	}
}

func findings(descs ...string) []analyze.ReviewFinding {
	var out []analyze.ReviewFinding
	for _, d := range descs {
		out = append(out, analyze.ReviewFinding{Severity: analyze.SeverityMajor, Description: d})
	}
	return out
}

func TestQuasarOverlap(t *testing.T) {
	cur := findings("the handler leaks the response body", "a brand new finding nobody raised before")
	tests := []struct {
		name         string
		current, all []analyze.ReviewFinding
		want         float64
	}{
		{"no current finding", nil, findings("x y"), 0},
		{"every finding matches itself in the accumulated list", cur, append(findings("unrelated earlier finding"), cur...), 1},
		{"a lone finding without tokens matches itself too", findings(""), findings(""), 1},
		{"against earlier findings only, nothing repeats", cur, findings("unrelated earlier finding"), 0},
		{"similarity exactly 0.8 counts", findings("a b c d e"), findings("a b c d"), 1},
		{"similarity 0.75 does not", findings("a b c d"), findings("a b c"), 0},
		{"half of the findings repeat", findings("a b c d e", "x y z"), findings("A B C D"), 0.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := QuasarOverlap(tt.current, tt.all); got != tt.want {
				t.Errorf("QuasarOverlap = %v, want %v", got, tt.want)
			}
		})
	}
}

// state is a CycleState at the end of cycle n after EndCycle, with the given cost on
// a run of 5 cycles and a 10 USD budget (even pace: 2 USD a cycle).
func state(n int, cost float64, history []string, cur []analyze.ReviewFinding) *analyze.CycleState {
	s := &analyze.CycleState{Cycle: n, MaxCycles: 5, MaxBudgetUSD: 10, TotalCostUSD: cost,
		FilterHistory: history, Findings: cur}
	s.AllFindings = append(findings("an earlier, unrelated finding"), cur...)
	return s
}

func TestQuasarEvaluate(t *testing.T) {
	def := struggle.DefaultStruggleConfig()
	with := func(f func(*struggle.StruggleConfig)) struggle.StruggleConfig { c := def; f(&c); return c }
	one := findings("fresh finding raised this cycle")
	tests := []struct {
		name      string
		state     *analyze.CycleState
		cfg       struggle.StruggleConfig
		score     float64
		burn      float64
		overlap   float64
		repeat    int
		triggered bool
	}{
		{name: "disabled: the zero signal", state: state(3, 6, []string{""}, one), cfg: with(func(c *struggle.StruggleConfig) { c.Enabled = false })},
		{name: "before MinCyclesBeforeCheck: the zero signal", state: state(1, 2, []string{""}, one), cfg: def},
		{name: "a finding and no cost: 0.40, no trigger", state: state(2, 0, []string{"", ""}, one), cfg: def,
			score: 0.40, overlap: 1},
		{name: "even pace saturates the burn: 0.40 + 0.25", state: state(2, 4, []string{"", ""}, one), cfg: def,
			score: 0.65, burn: 1, overlap: 1, triggered: true},
		{name: "burn 0.24 reaches the threshold", state: state(2, 0.96, []string{"", ""}, one), cfg: def,
			score: 0.40 + 0.25*0.8, burn: 0.24, overlap: 1, triggered: true},
		{name: "burn 0.2 stays below it", state: state(2, 0.8, []string{"", ""}, one), cfg: def,
			score: 0.40 + 0.25*(0.2/0.3), burn: 0.2, overlap: 1},
		{name: "no finding: the burn alone never triggers", state: state(4, 40, []string{"", "", "", ""}, nil), cfg: def,
			score: 0.25, burn: 5},
		{name: "a failing check repeated (never the case at quasar's decision points)", state: state(2, 0, []string{"test", "test"}, nil), cfg: def,
			score: 0.35, repeat: 2},
		{name: "an overlap threshold of 0 saturates a positive overlap", state: state(2, 0, []string{""}, one),
			cfg: with(func(c *struggle.StruggleConfig) { c.FindingOverlapThreshold = 0 }), score: 0.40, overlap: 1},
		{name: "a burn threshold of 0 leaves a zero burn at 0 (NaN clamps to 0)", state: state(2, 0, []string{""}, nil),
			cfg: with(func(c *struggle.StruggleConfig) { c.BudgetBurnThreshold = 0 })},
		{name: "a burn threshold of 0 saturates a positive burn", state: state(2, 0.5, []string{""}, nil),
			cfg: with(func(c *struggle.StruggleConfig) { c.BudgetBurnThreshold = 0 }), score: 0.25, burn: 0.125},
		{name: "a negative cost clamps to 0", state: state(2, -1, []string{""}, nil), cfg: def, burn: -0.25},
		{name: "no budget: no burn", state: &analyze.CycleState{Cycle: 2, MaxCycles: 5, TotalCostUSD: 3}, cfg: def},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := QuasarEvaluate(tt.state, tt.cfg)
			if math.Abs(got.Score-tt.score) > 1e-12 || math.Abs(got.BudgetBurnRate-tt.burn) > 1e-12 ||
				got.FindingOverlap != tt.overlap || got.FilterRepeat != tt.repeat || got.Triggered != tt.triggered {
				t.Errorf("got score %v burn %v overlap %v repeat %d triggered %v; want %v %v %v %d %v",
					got.Score, got.BudgetBurnRate, got.FindingOverlap, got.FilterRepeat, got.Triggered,
					tt.score, tt.burn, tt.overlap, tt.repeat, tt.triggered)
			}
			if (got.Reason != "") != got.Triggered {
				t.Errorf("reason %q with triggered %v: quasar writes a reason only when triggered", got.Reason, got.Triggered)
			}
		})
	}
	got := QuasarEvaluate(state(2, 4, []string{"", ""}, one), def).Reason
	if want := "struggle detected (score=0.65, threshold=0.60): finding-overlap=100%/60%; budget-burn=1.00/0.30;"; got != want {
		t.Errorf("reason %q, want quasar's %q", got, want)
	}
	if s := QuasarEvaluate(nil, def); s != (struggle.StruggleSignal{}) {
		t.Errorf("nil state: %+v", s)
	}
}

// mkRun numbers the cycles, ends each 10 minutes after the last, and ends the run a
// minute after its last cycle: a fixture run with 5 cycles and a 10 USD budget.
func mkRun(cycles ...input.Cycle) *input.Run {
	for i := range cycles {
		cycles[i].Cycle = i + 1
		cycles[i].Time = t0.Add(time.Duration(i+1) * 10 * time.Minute)
	}
	return &input.Run{Key: "fixture-run", MaxCycles: 5, MaxBudgetUSD: 10, Cycles: cycles, FilterKnown: true,
		End: t0.Add(time.Duration(len(cycles))*10*time.Minute + time.Minute)}
}

func TestQuasarRun(t *testing.T) {
	def := struggle.DefaultStruggleConfig()
	fresh := func(i int) []analyze.ReviewFinding {
		return findings([]string{"first finding", "second unrelated finding", "third one", "fourth one", "fifth"}[i])
	}
	tests := []struct {
		name      string
		run       *input.Run
		cfg       struggle.StruggleConfig
		evaluated []int
		scores    []float64 // at the evaluated cycles
		first     int
		leadCyc   int
		leadCost  float64
		leadSecs  float64
	}{
		{name: "fresh findings at an even pace trigger at cycle 2",
			run: mkRun(input.Cycle{TotalCostUSD: 2, Findings: fresh(0)}, input.Cycle{TotalCostUSD: 4, Findings: fresh(1)},
				input.Cycle{TotalCostUSD: 6.5, Approved: true}),
			cfg: def, evaluated: []int{2}, scores: []float64{0.65}, first: 2, leadCyc: 1, leadCost: 2.5, leadSecs: 11 * 60},
		{name: "without cost the score stays at 0.40",
			run: mkRun(input.Cycle{Findings: fresh(0)}, input.Cycle{Findings: fresh(1)}, input.Cycle{Findings: fresh(2)}),
			cfg: def, evaluated: []int{2, 3}, scores: []float64{0.40, 0.40}},
		{name: "a failing filter chain skips the review: no evaluation at that cycle",
			run: mkRun(input.Cycle{Findings: fresh(0)}, input.Cycle{FilterCheckName: "build", Findings: findings("filter check build failed")},
				input.Cycle{FilterCheckName: "build", Findings: findings("filter check build failed")}, input.Cycle{Findings: fresh(1)}),
			cfg: def, evaluated: []int{4}, scores: []float64{0.40}},
		{name: "a coder comment without its review is no rejection",
			run: mkRun(input.Cycle{CoderTime: t0, ReviewerTime: t0.Add(time.Minute), Findings: fresh(0), TotalCostUSD: 2},
				input.Cycle{CoderTime: t0.Add(11 * time.Minute), TotalCostUSD: 3}),
			cfg: def},
		{name: "a rejection with a review but no finding scores the burn alone",
			run: mkRun(input.Cycle{CoderTime: t0, ReviewerTime: t0.Add(time.Minute), Findings: fresh(0), TotalCostUSD: 2},
				input.Cycle{CoderTime: t0.Add(11 * time.Minute), ReviewerTime: t0.Add(12 * time.Minute), TotalCostUSD: 4}),
			cfg: def, evaluated: []int{2}, scores: []float64{0.25}},
		{name: "MinCyclesBeforeCheck 3 skips cycle 2",
			run: mkRun(input.Cycle{TotalCostUSD: 2, Findings: fresh(0)}, input.Cycle{TotalCostUSD: 4, Findings: fresh(1)},
				input.Cycle{TotalCostUSD: 6, Findings: fresh(2)}),
			cfg:       func() struggle.StruggleConfig { c := def; c.MinCyclesBeforeCheck = 3; return c }(),
			evaluated: []int{3}, scores: []float64{0.65}, first: 3, leadSecs: 60},
		{name: "disabled: nothing is evaluated",
			run: mkRun(input.Cycle{TotalCostUSD: 2, Findings: fresh(0)}, input.Cycle{TotalCostUSD: 4, Findings: fresh(1)}),
			cfg: func() struggle.StruggleConfig { c := def; c.Enabled = false; return c }()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := slices.Clone(tt.run.Cycles[0].Findings)
			res := QuasarRun(tt.run, tt.cfg)
			var evaluated []int
			var scores []float64
			maxScore := 0.0
			for _, c := range res.Cycles {
				if c.Evaluated {
					evaluated, scores = append(evaluated, c.Cycle), append(scores, c.Signal.Score)
					maxScore = max(maxScore, c.Signal.Score)
				} else if c.Signal != (struggle.StruggleSignal{}) {
					t.Errorf("cycle %d not evaluated but has a signal %+v", c.Cycle, c.Signal)
				}
			}
			if !slices.Equal(evaluated, tt.evaluated) || !slices.EqualFunc(scores, tt.scores, func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }) {
				t.Errorf("evaluated %v scores %v, want %v %v", evaluated, scores, tt.evaluated, tt.scores)
			}
			if res.MaxScore != maxScore || res.Triggered != (tt.first > 0) || res.FirstCycle != tt.first ||
				res.LeadCycles != tt.leadCyc || math.Abs(res.LeadCostUSD-tt.leadCost) > 1e-9 || res.LeadSeconds != tt.leadSecs {
				t.Errorf("verdict %+v; want first %d lead %d cycles %v USD %v s", res, tt.first, tt.leadCyc, tt.leadCost, tt.leadSecs)
			}
			if tt.first > 0 && !res.FirstTime.Equal(tt.run.Cycles[tt.first-1].Time) {
				t.Errorf("first time %v, want the end of cycle %d", res.FirstTime, tt.first)
			}
			if !slices.Equal(tt.run.Cycles[0].Findings, before) {
				t.Errorf("QuasarRun changed the run's findings")
			}
		})
	}
}

// TestQuasarVersusSeed shows the difference the baseline exists to show: fresh findings
// at an even pace make the shipped detector trigger and leave the seed's quiet.
func TestQuasarVersusSeed(t *testing.T) {
	run := mkRun(input.Cycle{TotalCostUSD: 2, Findings: findings("first finding")},
		input.Cycle{TotalCostUSD: 4, Findings: findings("an unrelated second finding")},
		input.Cycle{TotalCostUSD: 6, Findings: findings("a third, unrelated again")})
	seed := replay.ReplayRun(run, struggle.DefaultStruggleConfig())
	shipped := QuasarRun(run, struggle.DefaultStruggleConfig())
	if seed.Struggle.Triggered || seed.Struggle.MaxScore != 0.25 {
		t.Errorf("seed: %+v, want no trigger at 0.25 (burn only)", seed.Struggle)
	}
	if !shipped.Triggered || shipped.FirstCycle != 2 || shipped.MaxScore != 0.65 {
		t.Errorf("shipped: %+v, want a trigger at cycle 2 scoring 0.65", shipped)
	}
}

// TestQuasarRunLimitsAsTheyChange: the shipped detector, like the replay's, is
// evaluated at each cycle with the limits in force then (input.Cycle's), not the run's
// last.
func TestQuasarRunLimitsAsTheyChange(t *testing.T) {
	run := &input.Run{Key: "q-1", MaxCycles: 50, MaxBudgetUSD: 1000, Cycles: []input.Cycle{
		{Cycle: 1, Time: t0, TotalCostUSD: 2, MaxCycles: 5, MaxBudgetUSD: 10},
		{Cycle: 2, Time: t0.Add(time.Minute), TotalCostUSD: 4, MaxCycles: 50, MaxBudgetUSD: 1000},
	}}
	cfg := struggle.DefaultStruggleConfig()
	cfg.MinCyclesBeforeCheck = 1
	res := QuasarRun(run, cfg)
	for i, want := range []float64{(2.0 / 1) / (10.0 / 5), (4.0 / 2) / (1000.0 / 50)} {
		if c := res.Cycles[i]; !c.Evaluated || c.Signal.BudgetBurnRate != want {
			t.Errorf("cycle %d: %+v, want burn rate %v", i+1, c, want)
		}
	}
}
