package struggle

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/loopwatch/loopwatch/analyze"
)

// The seed's weights of the three signals in the composite score.
const (
	WeightFilterRepeat   = 0.35
	WeightFindingOverlap = 0.40
	WeightBudgetBurn     = 0.25
)

// OverlapSimilarity is the Jaccard similarity two finding descriptions must exceed to
// count as the same finding.
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

// StruggleConfig holds tunable thresholds for struggle detection.
type StruggleConfig struct {
	Enabled                 bool    `json:"enabled"`                   // master switch; false = never trigger
	MinCyclesBeforeCheck    int     `json:"min_cycles_before_check"`   // do not evaluate until this many cycles have run (default: 2)
	FilterRepeatThreshold   int     `json:"filter_repeat_threshold"`   // consecutive same-filter failures to flag (default: 2)
	FindingOverlapThreshold float64 `json:"finding_overlap_threshold"` // overlap ratio above which findings are considered stuck (default: 0.6)
	BudgetBurnThreshold     float64 `json:"budget_burn_threshold"`     // fraction of budget per cycle that is considered excessive (default: 0.3)
	CompositeThreshold      float64 `json:"composite_threshold"`       // combined score above which decomposition triggers (default: 0.6)
}

// DefaultStruggleConfig returns a StruggleConfig with sensible defaults.
func DefaultStruggleConfig() StruggleConfig {
	return StruggleConfig{
		Enabled:                 true,
		MinCyclesBeforeCheck:    2,
		FilterRepeatThreshold:   2,
		FindingOverlapThreshold: 0.6,
		BudgetBurnThreshold:     0.3,
		CompositeThreshold:      0.6,
	}
}

// EvaluateStruggle analyzes a CycleState for struggle signals.
// It returns a StruggleSignal indicating whether the phase should be paused for decomposition.
// The function is pure — it reads CycleState fields but does not mutate them.
func EvaluateStruggle(state *CycleState, cfg StruggleConfig) StruggleSignal {
	if !cfg.Enabled || state == nil {
		return StruggleSignal{Reason: "struggle detection disabled"}
	}
	sig := StruggleSignal{
		FilterRepeat:   filterRepeat(state.FilterHistory),
		FindingOverlap: findingOverlap(state),
		BudgetBurnRate: burnRate(state),
	}
	repeat := WeightFilterRepeat * normalise(float64(sig.FilterRepeat), float64(cfg.FilterRepeatThreshold))
	overlap := WeightFindingOverlap * normalise(sig.FindingOverlap, cfg.FindingOverlapThreshold)
	burn := WeightBudgetBurn * normalise(sig.BudgetBurnRate, cfg.BudgetBurnThreshold)
	sig.Score = math.Min(repeat+overlap+burn, 1)
	sig.Triggered = sig.Score >= cfg.CompositeThreshold && state.Cycle >= cfg.MinCyclesBeforeCheck
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

// findingOverlap is the fraction of the current cycle's findings that have a Jaccard
// similarity above OverlapSimilarity with a finding from an earlier cycle.
func findingOverlap(state *CycleState) float64 {
	if len(state.Findings) == 0 {
		return 0
	}
	var prior [][]string
	for _, f := range state.AllFindings {
		if f.Cycle < state.Cycle {
			prior = append(prior, tokenSet(f.Description))
		}
	}
	if len(prior) == 0 {
		return 0
	}
	overlapping := 0
	for _, f := range state.Findings {
		cur := tokenSet(f.Description)
		for _, p := range prior {
			if jaccardSets(cur, p) > OverlapSimilarity {
				overlapping++
				break
			}
		}
	}
	return float64(overlapping) / float64(len(state.Findings))
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
func jaccardSimilarity(a, b string) float64 {
	return jaccardSets(tokenSet(a), tokenSet(b))
}

// tokenSet returns the distinct lower-cased whitespace tokens of s, sorted.
func tokenSet(s string) []string {
	fields := strings.Fields(strings.ToLower(s))
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
