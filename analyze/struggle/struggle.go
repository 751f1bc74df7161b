package struggle

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/loopwatch/loopwatch/analyze"
)

// The seed's weights of the three signals in the composite score.
const (
	WeightFilterRepeat   = 0.35
	WeightFindingOverlap = 0.40
	WeightBudgetBurn     = 0.25
)

// OverlapSimilarity is the seed's Jaccard similarity two finding descriptions must
// exceed to count as the same finding (the default of StruggleConfig.FindingSimilarity).
const OverlapSimilarity = 0.8

// StruggleSignal represents the result of analyzing a CycleState for struggle indicators.
type StruggleSignal struct {
	Triggered      bool    // true if the combined score exceeds the threshold
	Score          float64 // composite struggle score in [0.0, 1.0]
	FilterRepeat   int     // count of consecutive cycles failing the same filter check
	FindingOverlap float64 // ratio of findings in the current cycle that duplicate a prior cycle's findings
	BudgetBurnRate float64 // ratio of budget consumed per cycle vs remaining budget
	Reason         string  // human-readable summary of why the signal triggered
}

// Weights are the shares of the three normalised signals in the composite score.
// The seed fixes 0.35, 0.40 and 0.25; they need not sum to 1 (the score is capped at
// 1), and a weight of 0 switches its signal off.
type Weights struct {
	FilterRepeat   float64 `json:"filter_repeat"`
	FindingOverlap float64 `json:"finding_overlap"`
	BudgetBurn     float64 `json:"budget_burn"`
}

// SeedWeights returns the seed's weights.
func SeedWeights() Weights {
	return Weights{FilterRepeat: WeightFilterRepeat, FindingOverlap: WeightFindingOverlap, BudgetBurn: WeightBudgetBurn}
}

// StruggleConfig holds tunable thresholds for struggle detection. The first six
// fields are the seed's; the rest are loopwatch's, each defaulting to the seed's fixed
// value except CaseFold (see [DefaultStruggleConfig] and [SeedStruggleConfig]).
type StruggleConfig struct {
	Enabled                 bool    `json:"enabled"`                   // master switch; false = never trigger
	MinCyclesBeforeCheck    int     `json:"min_cycles_before_check"`   // do not evaluate until this many cycles have run (default: 2)
	FilterRepeatThreshold   int     `json:"filter_repeat_threshold"`   // consecutive same-filter failures to flag (default: 2)
	FindingOverlapThreshold float64 `json:"finding_overlap_threshold"` // overlap ratio above which findings are considered stuck (default: 0.6)
	BudgetBurnThreshold     float64 `json:"budget_burn_threshold"`     // fraction of budget per cycle that is considered excessive (default: 0.3)
	CompositeThreshold      float64 `json:"composite_threshold"`       // combined score above which decomposition triggers (default: 0.6)

	// Weights of the three signals in the score (default: the seed's 0.35/0.40/0.25).
	// With the seed's BudgetBurnThreshold of 0.3 the burn signal saturates at 0.3× the
	// even pace, so burn alone adds its whole weight to almost every run: raise the
	// threshold (e.g. 1.5: half again the even pace) or lower the weight to fix that.
	Weights Weights `json:"weights"`
	// FindingSimilarity is the Jaccard similarity two descriptions must exceed to be
	// the same finding (seed: 0.8, strictly above).
	FindingSimilarity float64 `json:"finding_similarity"`
	// CaseFold compares finding descriptions case-insensitively. The seed compares
	// whitespace tokens as they are (false); loopwatch folds case by default, since a
	// reviewer repeating a finding rarely keeps its capitals.
	CaseFold bool `json:"case_fold"`
}

// DefaultStruggleConfig returns loopwatch's defaults: the seed's thresholds and
// weights, with case-insensitive finding comparison.
func DefaultStruggleConfig() StruggleConfig {
	cfg := SeedStruggleConfig()
	cfg.CaseFold = true
	return cfg
}

// SeedStruggleConfig returns the seed's literal configuration: its defaults, its
// weights and similarity, and descriptions compared as they are written.
func SeedStruggleConfig() StruggleConfig {
	return StruggleConfig{
		Enabled:                 true,
		MinCyclesBeforeCheck:    2,
		FilterRepeatThreshold:   2,
		FindingOverlapThreshold: 0.6,
		BudgetBurnThreshold:     0.3,
		CompositeThreshold:      0.6,
		Weights:                 SeedWeights(),
		FindingSimilarity:       OverlapSimilarity,
	}
}

// Preset returns the named configuration: "loopwatch" ([DefaultStruggleConfig]) or
// "seed" ([SeedStruggleConfig]).
func Preset(name string) (StruggleConfig, error) {
	switch name {
	case "loopwatch":
		return DefaultStruggleConfig(), nil
	case "seed":
		return SeedStruggleConfig(), nil
	}
	return StruggleConfig{}, fmt.Errorf("struggle: unknown preset %q (presets: loopwatch, seed)", name)
}

// Validate rejects settings that are not meaningful: negative counts, thresholds or
// weights, NaN or infinite values, weights whose sum is not finite (the score, their
// weighted sum, would overflow to +Inf), a similarity or composite threshold outside
// [0, 1]. (A zero threshold or weight is meaningful: it switches its signal off.)
func (c StruggleConfig) Validate() error {
	bad := func(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) || v < 0 }
	switch {
	case c.MinCyclesBeforeCheck < 0:
		return fmt.Errorf("struggle: min_cycles_before_check %d must be ≥ 0", c.MinCyclesBeforeCheck)
	case c.FilterRepeatThreshold < 0:
		return fmt.Errorf("struggle: filter_repeat_threshold %d must be ≥ 0 (0 switches filter repeat off)", c.FilterRepeatThreshold)
	case bad(c.FindingOverlapThreshold) || c.FindingOverlapThreshold > 1:
		return fmt.Errorf("struggle: finding_overlap_threshold %v must be in [0, 1] (0 switches overlap off)", c.FindingOverlapThreshold)
	case bad(c.BudgetBurnThreshold):
		return fmt.Errorf("struggle: budget_burn_threshold %v must be a number ≥ 0 (0 switches burn off)", c.BudgetBurnThreshold)
	case bad(c.CompositeThreshold) || c.CompositeThreshold > 1:
		return fmt.Errorf("struggle: composite_threshold %v must be in [0, 1]", c.CompositeThreshold)
	case bad(c.Weights.FilterRepeat) || bad(c.Weights.FindingOverlap) || bad(c.Weights.BudgetBurn):
		return errors.New("struggle: weights must be numbers ≥ 0")
	case math.IsInf(c.Weights.FilterRepeat+c.Weights.FindingOverlap+c.Weights.BudgetBurn, 0):
		return fmt.Errorf("struggle: weights %v, %v and %v sum to more than the largest float64 (the score would be +Inf); weights need not exceed 1",
			c.Weights.FilterRepeat, c.Weights.FindingOverlap, c.Weights.BudgetBurn)
	case bad(c.FindingSimilarity) || c.FindingSimilarity > 1:
		return fmt.Errorf("struggle: finding_similarity %v must be in [0, 1]", c.FindingSimilarity)
	}
	return nil
}

// Measures are the raw signals of one cycle, before any threshold or weight: what
// [Score] turns into a signal under a configuration. Replaying a run once and scoring
// its measures under many configurations gives the same signals as evaluating each
// configuration on the run (the tuning of thresholds relies on it).
type Measures struct {
	Cycle        int
	FilterRepeat int
	// FindingSimilarity holds, for each finding of the current cycle, its highest
	// Jaccard similarity with a finding of an earlier cycle (0 when there is none),
	// sorted ascending: [Measures.Overlap] counts those above a similarity by binary
	// search, so scoring one cycle's measures costs the same however many findings it
	// has.
	FindingSimilarity []float64
	BudgetBurnRate    float64
}

// Measure computes the raw signals of state; caseFold compares descriptions
// case-insensitively ([StruggleConfig.CaseFold]).
func Measure(state *CycleState, caseFold bool) Measures {
	return Measures{
		Cycle:             state.Cycle,
		FilterRepeat:      filterRepeat(state.FilterHistory),
		FindingSimilarity: findingSimilarity(state, caseFold),
		BudgetBurnRate:    burnRate(state),
	}
}

// Overlap is the fraction of the current cycle's findings whose similarity is above
// similarity.
func (m *Measures) Overlap(similarity float64) float64 {
	n := len(m.FindingSimilarity)
	if n == 0 {
		return 0
	}
	above := n - sort.Search(n, func(i int) bool { return m.FindingSimilarity[i] > similarity })
	return float64(above) / float64(n)
}

// Score turns measures into a signal under cfg (without Reason): the weighted sum of
// the normalised signals, capped at 1, triggering at CompositeThreshold from
// MinCyclesBeforeCheck on. It does not allocate.
func Score(m *Measures, cfg StruggleConfig) StruggleSignal {
	if !cfg.Enabled {
		return StruggleSignal{}
	}
	sig := StruggleSignal{FilterRepeat: m.FilterRepeat, FindingOverlap: m.Overlap(cfg.FindingSimilarity), BudgetBurnRate: m.BudgetBurnRate}
	repeat, overlap, burn := components(sig, cfg)
	sig.Score = math.Min(repeat+overlap+burn, 1)
	sig.Triggered = sig.Score >= cfg.CompositeThreshold && m.Cycle >= cfg.MinCyclesBeforeCheck
	return sig
}

// components returns the weighted, normalised signals.
func components(sig StruggleSignal, cfg StruggleConfig) (repeat, overlap, burn float64) {
	return weight(cfg.Weights.FilterRepeat) * normalise(float64(sig.FilterRepeat), float64(cfg.FilterRepeatThreshold)),
		weight(cfg.Weights.FindingOverlap) * normalise(sig.FindingOverlap, cfg.FindingOverlapThreshold),
		weight(cfg.Weights.BudgetBurn) * normalise(sig.BudgetBurnRate, cfg.BudgetBurnThreshold)
}

// weight is w, or 0 for a NaN or negative weight.
func weight(w float64) float64 {
	if !(w > 0) {
		return 0
	}
	return w
}

// EvaluateStruggle analyzes a CycleState for struggle signals.
// It returns a StruggleSignal indicating whether the phase should be paused for decomposition.
// The function is pure — it reads CycleState fields but does not mutate them.
func EvaluateStruggle(state *CycleState, cfg StruggleConfig) StruggleSignal {
	if !cfg.Enabled || state == nil {
		return StruggleSignal{Reason: "struggle detection disabled"}
	}
	m := Measure(state, cfg.CaseFold)
	sig := Score(&m, cfg)
	repeat, overlap, burn := components(sig, cfg)
	sig.Reason = reason(state, cfg, sig, repeat, overlap, burn)
	return sig
}

// CycleState is the quasar loop state the detector reads; an alias of
// [analyze.CycleState] so that EvaluateStruggle keeps the seed's signature.
type CycleState = analyze.CycleState

// normalise returns min(v/threshold, 1), 0 for a switched-off threshold (≤ 0 or NaN) and
// for a NaN or non-positive signal.
func normalise(v, threshold float64) float64 {
	if !(threshold > 0) || !(v > 0) {
		return 0
	}
	return math.Min(v/threshold, 1)
}

// filterRepeat counts the trailing identical non-empty entries of history.
func filterRepeat(history []string) int {
	n := len(history)
	if n == 0 || history[n-1] == "" {
		return 0
	}
	last, count := history[n-1], 0
	for i := n - 1; i >= 0 && history[i] == last; i-- {
		count++
	}
	return count
}

// findingSimilarity returns, for each finding of the current cycle, its highest
// Jaccard similarity with a finding from an earlier cycle.
func findingSimilarity(state *CycleState, caseFold bool) []float64 {
	if len(state.Findings) == 0 {
		return nil
	}
	var prior [][]string
	for _, f := range state.AllFindings {
		if f.Cycle < state.Cycle {
			prior = append(prior, tokenSet(f.Description, caseFold))
		}
	}
	out := make([]float64, len(state.Findings))
	if len(prior) == 0 {
		return out
	}
	for i, f := range state.Findings {
		cur := tokenSet(f.Description, caseFold)
		for _, p := range prior {
			out[i] = math.Max(out[i], jaccardSets(cur, p))
		}
	}
	slices.Sort(out)
	return out
}

// burnRate is the actual per-cycle cost over the ideal even per-cycle cost.
func burnRate(state *CycleState) float64 {
	if state.Cycle <= 0 || state.MaxCycles <= 0 || !(state.MaxBudgetUSD > 0) {
		return 0
	}
	cost := state.TotalCostUSD
	if !(cost > 0) {
		return 0
	}
	actual := cost / float64(state.Cycle)
	ideal := state.MaxBudgetUSD / float64(state.MaxCycles)
	return actual / ideal
}

// jaccardSimilarity computes the Jaccard similarity of two strings
// tokenized on whitespace. Returns a value in [0.0, 1.0].
// It is the seed's helper, literally: case counts ("Nil" is not "nil"); the measures
// fold case when StruggleConfig.CaseFold says so.
func jaccardSimilarity(a, b string) float64 {
	return jaccardSets(tokenSet(a, false), tokenSet(b, false))
}

// tokenSet returns the distinct whitespace tokens of s, lower-cased when caseFold,
// sorted.
func tokenSet(s string, caseFold bool) []string {
	if caseFold {
		s = strings.ToLower(s)
	}
	fields := strings.Fields(s)
	if len(fields) < 2 {
		return fields
	}
	slices.Sort(fields)
	out := fields[:1]
	for _, f := range fields[1:] {
		if f != out[len(out)-1] {
			out = append(out, f)
		}
	}
	return out
}

// jaccardSets is |a∩b| / |a∪b| for two sorted sets; 0 when both are empty.
func jaccardSets(a, b []string) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 0
	}
	inter, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			inter++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}

func reason(state *CycleState, cfg StruggleConfig, sig StruggleSignal, repeat, overlap, burn float64) string {
	var parts []string
	if repeat > 0 {
		parts = append(parts, fmt.Sprintf("filter check %q failed %d consecutive cycles (+%.2f)",
			state.FilterHistory[len(state.FilterHistory)-1], sig.FilterRepeat, repeat))
	}
	if overlap > 0 {
		n := len(state.Findings)
		parts = append(parts, fmt.Sprintf("%d of %d findings repeat an earlier cycle's (overlap %.2f, +%.2f)",
			int(math.Round(sig.FindingOverlap*float64(n))), n, sig.FindingOverlap, overlap))
	}
	if burn > 0 {
		parts = append(parts, fmt.Sprintf("spending %.2f× the even per-cycle budget (+%.2f)", sig.BudgetBurnRate, burn))
	}
	var verdict string
	switch {
	case sig.Triggered:
		verdict = fmt.Sprintf("struggling: score %.2f ≥ %.2f at cycle %d", sig.Score, cfg.CompositeThreshold, state.Cycle)
	case sig.Score >= cfg.CompositeThreshold:
		verdict = fmt.Sprintf("score %.2f ≥ %.2f but cycle %d < %d: not yet checked", sig.Score, cfg.CompositeThreshold, state.Cycle, cfg.MinCyclesBeforeCheck)
	case len(parts) == 0:
		return fmt.Sprintf("no struggle signal (score 0.00 < %.2f)", cfg.CompositeThreshold)
	default:
		verdict = fmt.Sprintf("score %.2f < %.2f", sig.Score, cfg.CompositeThreshold)
	}
	return verdict + ": " + strings.Join(parts, "; ")
}
