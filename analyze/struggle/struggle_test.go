package struggle

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/loopwatch/loopwatch/analyze"
)

func finding(cycle int, desc string) analyze.ReviewFinding {
	return analyze.ReviewFinding{
		ID:          analyze.FindingID(analyze.SeverityMajor, desc),
		Severity:    analyze.SeverityMajor,
		Description: desc,
		Cycle:       cycle,
	}
}

const (
	nilDeref = "nil pointer dereference in handler when the request body is empty"
	racy     = "data race on the shared cache map between the reader and the writer goroutines"
	docs     = "exported function Parse lacks a doc comment"
)

func TestEvaluateStruggle(t *testing.T) {
	def := DefaultStruggleConfig()
	disabled := def
	disabled.Enabled = false
	zeroThresholds := def
	zeroThresholds.FilterRepeatThreshold = 0
	zeroThresholds.FindingOverlapThreshold = 0
	zeroThresholds.BudgetBurnThreshold = math.NaN()
	nanComposite := def
	nanComposite.CompositeThreshold = math.NaN()
	minThree := def
	minThree.MinCyclesBeforeCheck = 3

	// A state that saturates every signal at cycle 3.
	stuck := CycleState{
		Cycle: 3, MaxCycles: 5, TotalCostUSD: 9, MaxBudgetUSD: 10,
		FilterHistory: []string{"test", "test", "test"},
		Findings:      []analyze.ReviewFinding{finding(3, nilDeref)},
		AllFindings:   []analyze.ReviewFinding{finding(1, nilDeref), finding(2, nilDeref), finding(3, nilDeref)},
	}

	tests := []struct {
		name      string
		state     CycleState
		cfg       StruggleConfig
		triggered bool
		score     float64
		repeat    int
		overlap   float64
		burn      float64
		reason    []string // substrings the Reason must contain
	}{
		{
			name: "disabled config short-circuits", state: stuck, cfg: disabled,
			reason: []string{"disabled"},
		},
		{
			name:  "no struggle on the first cycle",
			state: CycleState{Cycle: 1, MaxCycles: 5, TotalCostUSD: 9, MaxBudgetUSD: 10, FilterHistory: []string{"build"}},
			cfg:   def, score: 0.35*0.5 + 0.25, repeat: 1, burn: 4.5,
			reason: []string{"< 0.60", "failed 1 consecutive cycles", "4.50×"},
		},
		{
			name: "score over threshold before MinCyclesBeforeCheck is recorded but does not trigger",
			state: CycleState{Cycle: 2, MaxCycles: 5, TotalCostUSD: 8, MaxBudgetUSD: 10,
				FilterHistory: []string{"test", "test"}},
			cfg: minThree, score: 0.35 + 0.25, repeat: 2, burn: 2,
			reason: []string{"not yet checked", "cycle 2 < 3"},
		},
		{
			name:  "every signal saturated triggers with score 1",
			state: stuck, cfg: def, triggered: true, score: 1, repeat: 3, overlap: 1, burn: 1.5,
			reason: []string{"struggling: score 1.00 ≥ 0.60 at cycle 3", `filter check "test" failed 3 consecutive cycles`, "1 of 1 findings repeat", "1.50× the even per-cycle budget"},
		},
		{
			name:  "filter repeat counts only the trailing run of the same check",
			state: CycleState{Cycle: 4, FilterHistory: []string{"test", "test", "build", "test"}},
			cfg:   def, score: 0.35 * 0.5, repeat: 1,
		},
		{
			name:  "filter repeat is zero when the last cycle passed the chain",
			state: CycleState{Cycle: 3, FilterHistory: []string{"vet", "vet", ""}},
			cfg:   def, score: 0, repeat: 0, reason: []string{"no struggle signal"},
		},
		{
			name:  "two consecutive same-check failures alone reach the filter weight",
			state: CycleState{Cycle: 2, FilterHistory: []string{"lint", "lint"}},
			cfg:   def, score: 0.35, repeat: 2,
		},
		{
			name: "finding overlap is the share of current findings matching a prior cycle",
			state: CycleState{Cycle: 2,
				Findings:    []analyze.ReviewFinding{finding(2, nilDeref), finding(2, docs)},
				AllFindings: []analyze.ReviewFinding{finding(1, nilDeref), finding(1, racy), finding(2, nilDeref), finding(2, docs)},
			},
			cfg: def, score: 0.40 * (0.5 / 0.6), overlap: 0.5,
		},
		{
			name: "a finding never matches itself in the current cycle",
			state: CycleState{Cycle: 1,
				Findings:    []analyze.ReviewFinding{finding(1, nilDeref)},
				AllFindings: []analyze.ReviewFinding{finding(1, nilDeref)},
			},
			cfg: def, score: 0, overlap: 0,
		},
		{
			name: "a near-duplicate (one word changed of eleven) overlaps",
			state: CycleState{Cycle: 2,
				Findings:    []analyze.ReviewFinding{finding(2, strings.Replace(nilDeref, "handler", "middleware", 1))},
				AllFindings: []analyze.ReviewFinding{finding(1, nilDeref)},
			},
			cfg: def, score: 0.40, overlap: 1,
		},
		{
			name: "overlap is case-insensitive",
			state: CycleState{Cycle: 3,
				Findings:    []analyze.ReviewFinding{finding(3, strings.ToUpper(racy))},
				AllFindings: []analyze.ReviewFinding{finding(1, racy)},
			},
			cfg: def, score: 0.40, overlap: 1,
		},
		{
			name: "Jaccard of exactly 0.8 is not above 0.8",
			state: CycleState{Cycle: 2,
				Findings:    []analyze.ReviewFinding{finding(2, "alpha beta gamma delta")},
				AllFindings: []analyze.ReviewFinding{finding(1, "alpha beta gamma delta epsilon")},
			},
			cfg: def, score: 0, overlap: 0,
		},
		{
			name: "empty descriptions never overlap",
			state: CycleState{Cycle: 2,
				Findings:    []analyze.ReviewFinding{finding(2, "  ")},
				AllFindings: []analyze.ReviewFinding{finding(1, "")},
			},
			cfg: def, score: 0, overlap: 0,
		},
		{
			name:  "budget burn compares actual per-cycle cost with the even ideal",
			state: CycleState{Cycle: 2, MaxCycles: 5, TotalCostUSD: 0.4, MaxBudgetUSD: 10},
			// actual 0.2/cycle, ideal 2/cycle → 0.1; normalised 0.1/0.3
			cfg: def, score: 0.25 * (0.1 / 0.3), burn: 0.1,
		},
		{
			name:  "zero budget or zero max cycles gives no burn signal",
			state: CycleState{Cycle: 2, MaxCycles: 0, TotalCostUSD: 3, MaxBudgetUSD: 0},
			cfg:   def, score: 0, burn: 0,
		},
		{
			name:  "NaN and negative cost give no burn signal",
			state: CycleState{Cycle: 2, MaxCycles: 3, TotalCostUSD: math.NaN(), MaxBudgetUSD: 5},
			cfg:   def, score: 0, burn: 0,
		},
		{
			name: "composite is the weighted sum of the normalised signals",
			state: CycleState{Cycle: 3, MaxCycles: 4, TotalCostUSD: 0.45, MaxBudgetUSD: 8,
				FilterHistory: []string{"", "", "build"},
				Findings:      []analyze.ReviewFinding{finding(3, nilDeref), finding(3, racy), finding(3, docs)},
				AllFindings:   []analyze.ReviewFinding{finding(1, docs)},
			},
			// repeat 1/2 → 0.175; overlap (1/3)/0.6 → 0.2222; burn (0.15/2=0.075)/0.3 → 0.0625
			cfg: def, score: 0.35*0.5 + 0.40*(1.0/3)/0.6 + 0.25*(0.075/0.3), repeat: 1, overlap: 1.0 / 3, burn: 0.075,
		},
		{
			name: "score exactly at the composite threshold triggers",
			state: CycleState{Cycle: 2, MaxCycles: 2, TotalCostUSD: 5, MaxBudgetUSD: 5,
				FilterHistory: []string{"test", "test"}},
			cfg: def, triggered: true, score: 0.60, repeat: 2, burn: 1,
			reason: []string{"struggling", "filter check", "even per-cycle budget"},
		},
		{
			name:  "zero and NaN thresholds switch their component off",
			state: stuck, cfg: zeroThresholds, score: 0, repeat: 3, overlap: 1, burn: 1.5,
		},
		{
			name:  "NaN composite threshold never triggers",
			state: stuck, cfg: nanComposite, score: 1, repeat: 3, overlap: 1, burn: 1.5,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := deepCopy(tt.state)
			got := EvaluateStruggle(&tt.state, tt.cfg)
			if fmt.Sprintf("%#v", before) != fmt.Sprintf("%#v", tt.state) {
				t.Errorf("EvaluateStruggle mutated its state")
			}
			if got.Triggered != tt.triggered {
				t.Errorf("Triggered = %v, want %v (reason %q)", got.Triggered, tt.triggered, got.Reason)
			}
			if !near(got.Score, tt.score) {
				t.Errorf("Score = %v, want %v", got.Score, tt.score)
			}
			if got.FilterRepeat != tt.repeat {
				t.Errorf("FilterRepeat = %d, want %d", got.FilterRepeat, tt.repeat)
			}
			if !near(got.FindingOverlap, tt.overlap) {
				t.Errorf("FindingOverlap = %v, want %v", got.FindingOverlap, tt.overlap)
			}
			if !near(got.BudgetBurnRate, tt.burn) {
				t.Errorf("BudgetBurnRate = %v, want %v", got.BudgetBurnRate, tt.burn)
			}
			if got.Score < 0 || got.Score > 1 || math.IsNaN(got.Score) {
				t.Errorf("Score %v outside [0, 1]", got.Score)
			}
			for _, want := range tt.reason {
				if !strings.Contains(got.Reason, want) {
					t.Errorf("Reason %q does not contain %q", got.Reason, want)
				}
			}
			if got.Triggered && got.Reason == "" {
				t.Error("triggered without a Reason")
			}
		})
	}
}

func TestEvaluateStruggleNilState(t *testing.T) {
	if got := EvaluateStruggle(nil, DefaultStruggleConfig()); got.Triggered || got.Score != 0 {
		t.Errorf("nil state: got %+v", got)
	}
}

func TestDefaultStruggleConfig(t *testing.T) {
	seed := StruggleConfig{Enabled: true, MinCyclesBeforeCheck: 2, FilterRepeatThreshold: 2,
		FindingOverlapThreshold: 0.6, BudgetBurnThreshold: 0.3, CompositeThreshold: 0.6,
		Weights: Weights{FilterRepeat: 0.35, FindingOverlap: 0.40, BudgetBurn: 0.25}, FindingSimilarity: 0.8}
	if got := SeedStruggleConfig(); got != seed {
		t.Errorf("SeedStruggleConfig() = %+v, want %+v", got, seed)
	}
	def := seed
	def.CaseFold = true
	if got := DefaultStruggleConfig(); got != def {
		t.Errorf("DefaultStruggleConfig() = %+v, want %+v", got, def)
	}
	for _, c := range []StruggleConfig{seed, def} {
		if err := c.Validate(); err != nil {
			t.Errorf("%+v: %v", c, err)
		}
	}
}

func TestValidate(t *testing.T) {
	for _, tt := range []struct {
		name string
		edit func(*StruggleConfig)
		want string // "" = valid
	}{
		{"zero switches off", func(c *StruggleConfig) {
			c.FilterRepeatThreshold, c.BudgetBurnThreshold, c.Weights.BudgetBurn = 0, 0, 0
		}, ""},
		{"negative composite", func(c *StruggleConfig) { c.CompositeThreshold = -5 }, "composite_threshold -5"},
		{"composite above 1", func(c *StruggleConfig) { c.CompositeThreshold = 1.5 }, "composite_threshold 1.5"},
		{"NaN burn", func(c *StruggleConfig) { c.BudgetBurnThreshold = math.NaN() }, "budget_burn_threshold NaN"},
		{"infinite burn", func(c *StruggleConfig) { c.BudgetBurnThreshold = math.Inf(1) }, "budget_burn_threshold +Inf"},
		{"negative repeat", func(c *StruggleConfig) { c.FilterRepeatThreshold = -1 }, "filter_repeat_threshold -1"},
		{"overlap above 1", func(c *StruggleConfig) { c.FindingOverlapThreshold = 2 }, "finding_overlap_threshold 2"},
		{"negative cycles", func(c *StruggleConfig) { c.MinCyclesBeforeCheck = -1 }, "min_cycles_before_check -1"},
		{"negative weight", func(c *StruggleConfig) { c.Weights.FindingOverlap = -0.1 }, "weights"},
		{"huge weights each finite", func(c *StruggleConfig) {
			c.Weights = Weights{FilterRepeat: 1e308, FindingOverlap: 1e308, BudgetBurn: 1e308}
		}, "sum to more than the largest float64"},
		{"two max weights", func(c *StruggleConfig) {
			c.Weights.FilterRepeat, c.Weights.BudgetBurn = math.MaxFloat64, math.MaxFloat64
		}, "sum to more"},
		{"one max weight", func(c *StruggleConfig) { c.Weights = Weights{FindingOverlap: math.MaxFloat64} }, ""},
		{"large finite sum", func(c *StruggleConfig) {
			c.Weights = Weights{FilterRepeat: 1e300, FindingOverlap: 1e300, BudgetBurn: 1e300}
		}, ""},
		{"infinite weight", func(c *StruggleConfig) { c.Weights.BudgetBurn = math.Inf(1) }, "weights must be numbers"},
		{"similarity above 1", func(c *StruggleConfig) { c.FindingSimilarity = 1.2 }, "finding_similarity 1.2"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := DefaultStruggleConfig()
			tt.edit(&c)
			err := c.Validate()
			if (err == nil) != (tt.want == "") || err != nil && !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Validate() = %v, want %q", err, tt.want)
			}
		})
	}
}

// TestWeightsAndSwitches: the weights scale each signal; the budget signal saturates
// at the seed's threshold and can be fixed by the threshold; case folding is a switch.
func TestWeightsAndSwitches(t *testing.T) {
	evenPace := &CycleState{Cycle: 2, MaxCycles: 5, MaxBudgetUSD: 10, TotalCostUSD: 4} // burn rate 1.0
	seed := SeedStruggleConfig()
	if got := EvaluateStruggle(evenPace, seed).Score; !near(got, 0.25) {
		t.Errorf("seed: an even pace scores %v, want the whole burn weight 0.25", got)
	}
	fixed := seed
	fixed.BudgetBurnThreshold = 2
	if got := EvaluateStruggle(evenPace, fixed).Score; !near(got, 0.125) {
		t.Errorf("burn threshold 2: %v, want 0.125", got)
	}
	heavy := seed
	heavy.Weights = Weights{BudgetBurn: 0.7}
	if got := EvaluateStruggle(evenPace, heavy); !near(got.Score, 0.7) || !got.Triggered {
		t.Errorf("burn weight 0.7: %+v", got)
	}
	shouty := &CycleState{Cycle: 2, Findings: []analyze.ReviewFinding{{Description: "Missing Error Check", Cycle: 2}},
		AllFindings: []analyze.ReviewFinding{{Description: "missing error check", Cycle: 1}, {Description: "Missing Error Check", Cycle: 2}}}
	if got := EvaluateStruggle(shouty, seed).FindingOverlap; got != 0 {
		t.Errorf("seed (case kept): overlap %v, want 0", got)
	}
	if got := EvaluateStruggle(shouty, DefaultStruggleConfig()).FindingOverlap; got != 1 {
		t.Errorf("default (case folded): overlap %v, want 1", got)
	}
}

// TestScoreEqualsEvaluate: measuring once and scoring under a configuration gives the
// signal EvaluateStruggle gives, for every configuration of a grid.
func TestScoreEqualsEvaluate(t *testing.T) {
	state := &CycleState{Cycle: 3, MaxCycles: 5, MaxBudgetUSD: 10, TotalCostUSD: 7,
		FilterHistory: []string{"", "test", "test"},
		Findings:      []analyze.ReviewFinding{{Description: "a b c d e", Cycle: 3}, {Description: "x y", Cycle: 3}},
		AllFindings:   []analyze.ReviewFinding{{Description: "a b c d f", Cycle: 1}, {Description: "x y z", Cycle: 2}}}
	for _, fold := range []bool{false, true} {
		m := Measure(state, fold)
		for _, sim := range []float64{0.3, 0.6, 0.8} {
			for _, comp := range []float64{0.2, 0.5, 0.9} {
				for _, burn := range []float64{0, 0.3, 1.5} {
					cfg := DefaultStruggleConfig()
					cfg.CaseFold, cfg.FindingSimilarity, cfg.CompositeThreshold, cfg.BudgetBurnThreshold = fold, sim, comp, burn
					want := EvaluateStruggle(state, cfg)
					got := Score(&m, cfg)
					want.Reason = ""
					if got != want {
						t.Errorf("fold %v sim %v comp %v burn %v: Score %+v, EvaluateStruggle %+v", fold, sim, comp, burn, got, want)
					}
				}
			}
		}
	}
}

func TestJaccardSimilarity(t *testing.T) {
	tests := []struct {
		a, b string
		want float64
	}{
		{"", "", 0},
		{"a b c", "", 0},
		{"a b c", "a b c", 1},
		{"a  b\tc\n", "c b a", 1},
		{"a b", "b c", 1.0 / 3},
		{"a a a b", "a b b", 1},
		{"Nil Pointer", "nil pointer", 0}, // the seed's helper: case counts
		{"ÉCHEC total", "échec total", 1.0 / 3},
		{"a b c d", "a b c d e", 0.8},
		{"x", "y", 0},
	}
	for _, tt := range tests {
		if got := jaccardSimilarity(tt.a, tt.b); !near(got, tt.want) {
			t.Errorf("jaccardSimilarity(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
		if got, back := jaccardSimilarity(tt.a, tt.b), jaccardSimilarity(tt.b, tt.a); got != back {
			t.Errorf("jaccardSimilarity not symmetric on %q, %q: %v vs %v", tt.a, tt.b, got, back)
		}
	}
}

// TestEndCycleThenEvaluate checks the accumulation the seed asks runLoop to do, driven
// cycle by cycle the way both quasar and the replay drive it.
func TestEndCycleThenEvaluate(t *testing.T) {
	cfg := DefaultStruggleConfig()
	state := CycleState{MaxCycles: 5, MaxBudgetUSD: 10}
	cycles := []struct {
		check    string
		findings []string
		cost     float64
		want     StruggleSignal
	}{
		{"", []string{nilDeref}, 1, StruggleSignal{BudgetBurnRate: 0.5}},
		{"test", []string{nilDeref}, 2, StruggleSignal{Triggered: true, FilterRepeat: 1, FindingOverlap: 1, BudgetBurnRate: 0.5}},
		{"test", nil, 3, StruggleSignal{Triggered: true, FilterRepeat: 2, BudgetBurnRate: 0.5}},
	}
	for i, c := range cycles {
		state.Cycle = i + 1
		state.TotalCostUSD = c.cost
		state.FilterCheckName = c.check
		state.Findings = nil
		for _, d := range c.findings {
			state.Findings = append(state.Findings, analyze.ReviewFinding{Severity: analyze.SeverityMajor, Description: d})
		}
		state.EndCycle()
		got := EvaluateStruggle(&state, cfg)
		if got.Triggered != c.want.Triggered || got.FilterRepeat != c.want.FilterRepeat ||
			!near(got.FindingOverlap, c.want.FindingOverlap) || !near(got.BudgetBurnRate, c.want.BudgetBurnRate) {
			t.Errorf("cycle %d: got %+v, want %+v", i+1, got, c.want)
		}
	}
	if want := []string{"", "test", "test"}; !reflect.DeepEqual(state.FilterHistory, want) {
		t.Errorf("FilterHistory = %q, want %q", state.FilterHistory, want)
	}
	if len(state.AllFindings) != 2 || state.AllFindings[0].Cycle != 1 || state.AllFindings[1].Cycle != 2 {
		t.Errorf("AllFindings not stamped with their cycles: %+v", state.AllFindings)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func deepCopy(s CycleState) CycleState {
	s.FilterHistory = append([]string(nil), s.FilterHistory...)
	s.Findings = append([]analyze.ReviewFinding(nil), s.Findings...)
	s.AllFindings = append([]analyze.ReviewFinding(nil), s.AllFindings...)
	return s
}
