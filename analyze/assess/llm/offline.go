package llm

import (
	"context"
	"fmt"
	"strings"

	"github.com/loopwatch/loopwatch/analyze"
	"github.com/loopwatch/loopwatch/analyze/assess/detect"
	"github.com/loopwatch/loopwatch/analyze/assess/session"
)

// OfflineConfig tunes the [OfflineAnalyzer]'s rules.
type OfflineConfig struct {
	// FailureEMA: a session whose final frustration EMA is at least this failed.
	// Default 0.70, the breaker's check-in threshold: a session that ends as
	// frustrated as that has not been rescued.
	FailureEMA float64 `json:"failure_ema"`
	// PartialFriction: this many friction events (frustration and correction signals,
	// interrupts, interventions) make an otherwise successful session partial.
	// Default 3, the seed's correction-storm size.
	PartialFriction int `json:"partial_friction"`
}

// DefaultOfflineConfig returns the defaults documented on [OfflineConfig].
func DefaultOfflineConfig() OfflineConfig { return OfflineConfig{FailureEMA: 0.70, PartialFriction: 3} }

// OfflineAnalyzer is a deterministic [AssessmentLLM]: rules over the signals the
// session buffer collected, with no model and no network. It is the default in
// replay, and a baseline for the harness. It is safe for concurrent use.
type OfflineAnalyzer struct {
	cfg OfflineConfig
}

// NewOfflineAnalyzer returns an analyzer with the given rules.
func NewOfflineAnalyzer(cfg OfflineConfig) *OfflineAnalyzer { return &OfflineAnalyzer{cfg: cfg} }

// SummarizeSegment describes a segment by its counts, e.g. "Events 13–28: 3 from
// the human, 6 tool results (2 errors). Signals: 1 frustration, 1 build_failure."
func (a *OfflineAnalyzer) SummarizeSegment(ctx context.Context, seg session.Segment) (SegmentSummary, error) {
	if err := ctx.Err(); err != nil {
		return SegmentSummary{}, err
	}
	var human, tools, toolErrs int
	var counts [detect.NumKinds]int
	for i := range seg.Entries {
		e := &seg.Entries[i]
		switch {
		case detect.IsHumanTurn(&e.Event):
			human++
		case e.Event.Kind == analyze.KindToolResult:
			tools++
			if e.Event.ToolStatus == analyze.ToolStatusError {
				toolErrs++
			}
		}
		for _, s := range e.Signals {
			counts[s.Kind]++
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Events %d–%d: %d from the human, %d tool results (%d errors).", seg.From, seg.To, human, tools, toolErrs)
	if seg.Omitted > 0 {
		fmt.Fprintf(&b, " %d events not buffered.", seg.Omitted)
	}
	writeCounts(&b, &counts)
	return SegmentSummary{Text: b.String(), Metrics: ComputeMetrics(seg.Entries)}, nil
}

func writeCounts(b *strings.Builder, counts *[detect.NumKinds]int) {
	sep := " Signals: "
	for k := 1; k < detect.NumKinds; k++ {
		if counts[k] > 0 {
			fmt.Fprintf(b, "%s%d %s", sep, counts[k], detect.Kind(k))
			sep = ", "
		}
	}
	if sep == " Signals: " {
		b.WriteString(" No signals.")
	} else {
		b.WriteString(".")
	}
}

// AnalyzeSession classifies a session by the first rule that applies:
//
//  1. no human turn at all → abandoned (0.3): nothing shows what was wanted;
//  2. final frustration EMA ≥ FailureEMA → failure (0.7);
//  3. the human's last turn was friction (frustration, correction, interrupt) →
//     failure (0.6) if the session was ended by a hook, abandoned (0.6) otherwise:
//     the complaint was never answered to the human's satisfaction;
//  4. the last build/test outcome after the human's last turn was a failure →
//     partial (0.5) if ended by a hook, abandoned (0.5) otherwise: work stopped
//     broken;
//  5. the human's last turn was approval (a success pattern) → success (0.8), or
//     partial (0.6) after at least PartialFriction friction events;
//  6. at least PartialFriction friction events → partial (0.5);
//  7. otherwise → success (0.6): nothing visibly went wrong.
func (a *OfflineAnalyzer) AnalyzeSession(ctx context.Context, t session.Transcript) (SessionAnalysis, error) {
	if err := ctx.Err(); err != nil {
		return SessionAnalysis{}, err
	}
	st := &t.Stats
	friction := st.Count(detect.Frustration) + st.Count(detect.UserCorrection) + st.Count(detect.Interrupt) + st.Interventions
	lastNeg := detect.Has(st.LastHumanSignals, detect.Frustration) || detect.Has(st.LastHumanSignals, detect.UserCorrection) ||
		detect.Has(st.LastHumanSignals, detect.Interrupt)
	lastPos := !lastNeg && detect.Has(st.LastHumanSignals, detect.Success)
	brokenAtEnd := st.LastToolOutcome.IsToolFailure() && st.LastToolIndex > st.LastHumanIndex
	hook := t.Reason == session.EndHook

	var o Outcome
	var conf float64
	var why string
	switch {
	case st.UserMessages+st.Interrupts == 0:
		o, conf, why = OutcomeAbandoned, 0.3, "no human turn"
	case st.FrustrationEMA >= a.cfg.FailureEMA:
		o, conf, why = OutcomeFailure, 0.7, fmt.Sprintf("final frustration EMA %.2f", st.FrustrationEMA)
	case lastNeg && hook:
		o, conf, why = OutcomeFailure, 0.6, "the human's last turn was friction"
	case lastNeg:
		o, conf, why = OutcomeAbandoned, 0.6, "the human's last turn was friction and the session stopped"
	case brokenAtEnd && hook:
		o, conf, why = OutcomePartial, 0.5, "the last build/test outcome was a failure"
	case brokenAtEnd:
		o, conf, why = OutcomeAbandoned, 0.5, "the session stopped after a failing build/test"
	case lastPos && friction >= a.cfg.PartialFriction:
		o, conf, why = OutcomePartial, 0.6, "approved after heavy friction"
	case lastPos:
		o, conf, why = OutcomeSuccess, 0.8, "the human's last turn was approval"
	case friction >= a.cfg.PartialFriction:
		o, conf, why = OutcomePartial, 0.5, "heavy friction"
	default:
		o, conf, why = OutcomeSuccess, 0.6, "nothing visibly went wrong"
	}
	summary := fmt.Sprintf("%s: %s (%d messages, %d human turns, %d friction events, %d interventions, frustration EMA %.2f, ended by %s).",
		o, why, st.Messages, st.UserMessages+st.Interrupts, friction, st.Interventions, st.FrustrationEMA, t.Reason)
	return SessionAnalysis{Outcome: o, Confidence: conf, Summary: summary}, nil
}
