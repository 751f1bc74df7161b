package baseline

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/loopwatch/loopwatch/analyze"
	"github.com/loopwatch/loopwatch/analyze/struggle"
	"github.com/loopwatch/loopwatch/replay/input"
)

// quasar's own constants (internal/loop/struggle.go): the seed's weights, and the
// Jaccard similarity at or above which two finding descriptions are the same finding.
const (
	quasarFilterRepeatWeight   = 0.35
	quasarFindingOverlapWeight = 0.40
	quasarBudgetBurnWeight     = 0.25
	quasarJaccardThreshold     = 0.8
)

// QuasarEvaluate is quasar's EvaluateStruggle as shipped. Unlike the seed's detector
// (package struggle) it returns the zero signal when cfg is disabled or the cycle is
// before MinCyclesBeforeCheck; it compares the current findings with the whole of
// AllFindings, current ones included ([QuasarOverlap]); a threshold of 0 saturates its
// signal (x/0 = +Inf, clamped to 1) unless the signal is 0 (NaN, clamped to 0); the
// score is not capped at 1; and Reason is set only when the signal triggers, in
// quasar's words.
//
// Call it, as quasar's loop does, after [analyze.CycleState.EndCycle] has appended the
// cycle's findings to AllFindings.
func QuasarEvaluate(state *analyze.CycleState, cfg struggle.StruggleConfig) struggle.StruggleSignal {
	if !cfg.Enabled || state == nil || state.Cycle < cfg.MinCyclesBeforeCheck {
		return struggle.StruggleSignal{}
	}
	sig := struggle.StruggleSignal{
		FilterRepeat:   quasarFilterRepeat(state.FilterHistory),
		FindingOverlap: QuasarOverlap(state.Findings, state.AllFindings),
		BudgetBurnRate: quasarBurnRate(state),
	}
	sig.Score = quasarFilterRepeatWeight*clamp01(float64(sig.FilterRepeat)/float64(cfg.FilterRepeatThreshold)) +
		quasarFindingOverlapWeight*clamp01(sig.FindingOverlap/cfg.FindingOverlapThreshold) +
		quasarBudgetBurnWeight*clamp01(sig.BudgetBurnRate/cfg.BudgetBurnThreshold)
	if sig.Score >= cfg.CompositeThreshold {
		sig.Triggered = true
		sig.Reason = quasarReason(sig, cfg)
	}
	return sig
}

// QuasarOverlap is quasar's finding overlap: the fraction of current findings whose
// description has a [QuasarJaccard] similarity of at least 0.8 with some finding of
// all. Quasar passes the accumulated list, current findings included, so every
// finding matches itself and the overlap is 1 whenever current is not empty.
func QuasarOverlap(current, all []analyze.ReviewFinding) float64 {
	if len(current) == 0 {
		return 0
	}
	tokens := make([]map[string]bool, len(all))
	for i := range all {
		tokens[i] = quasarTokens(all[i].Description)
	}
	overlapping := 0
	for _, cur := range current {
		ct := quasarTokens(cur.Description)
		for _, at := range tokens {
			if jaccardTokens(ct, at) >= quasarJaccardThreshold {
				overlapping++
				break
			}
		}
	}
	return float64(overlapping) / float64(len(current))
}

// QuasarJaccard is quasar's Jaccard similarity of two descriptions over their sets of
// lower-cased white-space tokens. Two descriptions without a token are identical (1);
// one without a token is unlike any other (0).
func QuasarJaccard(a, b string) float64 {
	return jaccardTokens(quasarTokens(a), quasarTokens(b))
}

func quasarTokens(s string) map[string]bool {
	words := strings.Fields(s)
	set := make(map[string]bool, len(words))
	for _, w := range words {
		set[strings.ToLower(w)] = true
	}
	return set
}

func jaccardTokens(a, b map[string]bool) float64 {
	switch {
	case len(a) == 0 && len(b) == 0:
		return 1
	case len(a) == 0 || len(b) == 0:
		return 0
	}
	inter := 0
	for t := range a {
		if b[t] {
			inter++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}

// quasarFilterRepeat counts the trailing entries of history equal to its last, which
// must be non-empty.
func quasarFilterRepeat(history []string) int {
	if len(history) == 0 || history[len(history)-1] == "" {
		return 0
	}
	last, n := history[len(history)-1], 0
	for i := len(history) - 1; i >= 0 && history[i] == last; i-- {
		n++
	}
	return n
}

// quasarBurnRate is the actual per-cycle cost over the even per-cycle budget; 0 when
// a limit or the cycle is not positive.
func quasarBurnRate(state *analyze.CycleState) float64 {
	if state.MaxBudgetUSD <= 0 || state.MaxCycles <= 0 || state.Cycle <= 0 {
		return 0
	}
	return (state.TotalCostUSD / float64(state.Cycle)) / (state.MaxBudgetUSD / float64(state.MaxCycles))
}

// clamp01 is quasar's clamp: NaN and negatives are 0, anything above 1 is 1.
func clamp01(v float64) float64 {
	switch {
	case math.IsNaN(v) || v < 0:
		return 0
	case v > 1:
		return 1
	}
	return v
}

func quasarReason(sig struggle.StruggleSignal, cfg struggle.StruggleConfig) string {
	var b strings.Builder
	fmt.Fprintf(&b, "struggle detected (score=%.2f, threshold=%.2f):", sig.Score, cfg.CompositeThreshold)
	if sig.FilterRepeat > 0 {
		fmt.Fprintf(&b, " filter-repeat=%d/%d;", sig.FilterRepeat, cfg.FilterRepeatThreshold)
	}
	if sig.FindingOverlap > 0 {
		fmt.Fprintf(&b, " finding-overlap=%.0f%%/%.0f%%;", sig.FindingOverlap*100, cfg.FindingOverlapThreshold*100)
	}
	if sig.BudgetBurnRate > 0 {
		fmt.Fprintf(&b, " budget-burn=%.2f/%.2f;", sig.BudgetBurnRate, cfg.BudgetBurnThreshold)
	}
	return b.String()
}

// QuasarCycle is quasar's shipped struggle evaluation at the end of one cycle.
type QuasarCycle struct {
	Cycle int
	// Evaluated reports whether quasar's loop evaluates struggle at this cycle (a
	// decision point): see [ReviewerRejected]; detection is enabled and the cycle is
	// at least MinCyclesBeforeCheck.
	Evaluated bool
	// Signal is [QuasarEvaluate]'s result where Evaluated, the zero signal elsewhere.
	Signal struggle.StruggleSignal
}

// QuasarResult is the shipped struggle detector's verdict on one run.
type QuasarResult struct {
	Cycles []QuasarCycle // one per cycle of the run, in order

	Triggered  bool      // the signal triggered at a decision point
	FirstCycle int       // the first cycle where it did (0: never)
	FirstTime  time.Time // the end of that cycle
	// MaxScore is the highest score over the decision points (0 when there are none):
	// the run's ranking score for average precision and ROC curves.
	MaxScore float64
	// Lead from the first trigger to the run's end, as the replay reports it for the
	// configured detector: cycles left, cost spent after the trigger, seconds from the
	// end of the trigger's cycle to the run's end (its last cycle's end when the run
	// records none).
	LeadCycles  int
	LeadCostUSD float64
	LeadSeconds float64
}

// ReviewerRejected reports whether quasar's reviewer ran in cycle c and rejected it:
// the cycle was not approved, its filter chain passed (a failing chain sends the
// cycle back to the coder without a review, and quasar does not evaluate struggle
// then), and, where the source records when each comment was posted (CoderTime set),
// a reviewer comment was posted (ReviewerTime set): a cycle of a rebuilt history that
// ends with the coder's comment was cut off before its review.
func ReviewerRejected(c *input.Cycle) bool {
	return !c.Approved && c.FilterCheckName == "" && !(c.ReviewerTime.IsZero() && !c.CoderTime.IsZero())
}

// QuasarRun replays run through quasar's shipped struggle detection, cycle by cycle:
// each cycle's CycleState is accumulated with [analyze.CycleState.EndCycle], as the
// replay does for the configured detector, and evaluated with [QuasarEvaluate] at the
// cycles quasar evaluates at (after a reviewer rejection, see [ReviewerRejected]).
// cfg carries quasar's thresholds; [struggle.DefaultStruggleConfig] holds its
// defaults (with Enabled set). The detector sees only the cycles up to the one it
// decides on.
func QuasarRun(run *input.Run, cfg struggle.StruggleConfig) *QuasarResult {
	res := &QuasarResult{Cycles: make([]QuasarCycle, 0, len(run.Cycles))}
	state := analyze.CycleState{TaskBeadID: run.TaskID, TaskTitle: run.Title, Phase: run.Phase,
		MaxCycles: run.MaxCycles, MaxBudgetUSD: run.MaxBudgetUSD}
	first := -1 // index of the first trigger's cycle
	for i := range run.Cycles {
		c := &run.Cycles[i]
		state.Cycle, state.TotalCostUSD = c.Cycle, c.TotalCostUSD
		if c.MaxCycles > 0 { // the limits in force at this cycle, where the source records them
			state.MaxCycles = c.MaxCycles
		}
		if c.MaxBudgetUSD > 0 {
			state.MaxBudgetUSD = c.MaxBudgetUSD
		}
		state.FilterCheckName, state.FilterOutput = c.FilterCheckName, c.FilterOutput
		state.Findings = append([]analyze.ReviewFinding(nil), c.Findings...)
		state.FilterFixAttempts, state.FilterFixCostUSD = c.FilterFixAttempts, c.FilterFixCostUSD
		state.EndCycle()
		qc := QuasarCycle{Cycle: c.Cycle,
			Evaluated: cfg.Enabled && c.Cycle >= cfg.MinCyclesBeforeCheck && ReviewerRejected(c)}
		if qc.Evaluated {
			qc.Signal = QuasarEvaluate(&state, cfg)
			res.MaxScore = max(res.MaxScore, qc.Signal.Score)
			if qc.Signal.Triggered && first < 0 {
				first = i
			}
		}
		res.Cycles = append(res.Cycles, qc)
	}
	if first >= 0 {
		fc, last := run.Cycles[first], run.LastCycle()
		res.Triggered, res.FirstCycle, res.FirstTime = true, fc.Cycle, fc.Time
		res.LeadCycles = last.Cycle - fc.Cycle
		res.LeadCostUSD = last.TotalCostUSD - fc.TotalCostUSD
		end := run.End
		if end.IsZero() {
			end = last.Time
		}
		res.LeadSeconds = end.Sub(fc.Time).Seconds()
	}
	return res
}
