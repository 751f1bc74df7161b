package llm

import (
	"context"
	"errors"
	"fmt"
	"regexp"
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
	// interrupts, and with CountInterventions interventions) make an otherwise
	// successful session partial. Default 3, the seed's correction-storm size.
	PartialFriction int `json:"partial_friction"`
	// PartialFrictionShare: with EndReading, heavy friction also needs friction
	// events on at least this share of the human turns, so that four corrections in
	// a long session of twenty turns are not "heavy". Default 0.5; 0 leaves the
	// count alone.
	PartialFrictionShare float64 `json:"partial_friction_share"`
	// CountInterventions counts the breaker's interventions as friction events. An
	// intervention answers friction already counted, so the default false does not
	// count it twice; the rules before EndReading counted it.
	CountInterventions bool `json:"count_interventions"`
	// EndReading reads what the end of the session says (see
	// [OfflineAnalyzer.AnalyzeSession]): the human's last text turn (acceptance in
	// several languages, friction), a trailing interrupt and plan-mode hand-offs,
	// build/test/lint failures left unresolved per kind of command, rejections that
	// carry the human's words. Off: the earlier rules ([LegacyOfflineConfig]).
	// Default true.
	EndReading bool `json:"end_reading"`
	// Acceptance are the patterns of an accepting human turn (default
	// [DefaultAcceptancePatterns]); used with EndReading.
	Acceptance []string `json:"acceptance"`
	// AgentClaims reads the start of the agent's final message (with EndReading): a
	// report of the work done (DoneClaims) outweighs a build, test or lint failure
	// left before it that no later result shows fixed (the check the agent ran last
	// may print nothing telling, as "make lint | tail -3" does); a concession of an
	// open problem (ProblemClaims) counts like a failure left. The agent's words are
	// never read for the human's mood. Default true.
	AgentClaims bool `json:"agent_claims"`
	// DoneClaims and ProblemClaims are the patterns (defaults [DefaultDoneClaims],
	// [DefaultProblemClaims]).
	DoneClaims    []string `json:"done_claims"`
	ProblemClaims []string `json:"problem_claims"`
}

// DefaultOfflineConfig returns the defaults documented on [OfflineConfig].
func DefaultOfflineConfig() OfflineConfig {
	return OfflineConfig{FailureEMA: 0.70, PartialFriction: 3, PartialFrictionShare: 0.5, EndReading: true,
		Acceptance: DefaultAcceptancePatterns(), AgentClaims: true, DoneClaims: DefaultDoneClaims(),
		ProblemClaims: DefaultProblemClaims()}
}

// LegacyOfflineConfig returns the offline analyzer's rules before EndReading (the
// seed has no offline analyzer: its session analysis is a model's): friction counts
// interventions, heavy friction is a count alone, the end is read from the last
// human turn's signals and the last tool outcome.
func LegacyOfflineConfig() OfflineConfig {
	return OfflineConfig{FailureEMA: 0.70, PartialFriction: 3, CountInterventions: true}
}

// Validate checks the thresholds and compiles the acceptance patterns.
func (c OfflineConfig) Validate() error {
	switch {
	case !(c.FailureEMA > 0):
		return fmt.Errorf("llm: offline.failure_ema %v must be > 0", c.FailureEMA)
	case c.PartialFriction < 1:
		return errors.New("llm: offline.partial_friction must be ≥ 1")
	case !(c.PartialFrictionShare >= 0 && c.PartialFrictionShare <= 1):
		return fmt.Errorf("llm: offline.partial_friction_share %v must be in [0, 1]", c.PartialFrictionShare)
	}
	for _, set := range [][]string{c.Acceptance, c.DoneClaims, c.ProblemClaims} {
		if _, err := compileAcceptance(set); err != nil {
			return err
		}
	}
	return nil
}

// OfflineAnalyzer is a deterministic [AssessmentLLM]: rules over the signals the
// session buffer collected, with no model and no network. It is the default in
// replay, and a baseline for the harness. It is safe for concurrent use.
type OfflineAnalyzer struct {
	cfg                   OfflineConfig
	accept, done, problem []*regexp.Regexp
}

// NewOfflineAnalyzer returns an analyzer with the given rules. cfg should have
// passed [OfflineConfig.Validate]; an acceptance pattern that does not compile is
// left out.
func NewOfflineAnalyzer(cfg OfflineConfig) *OfflineAnalyzer {
	a := &OfflineAnalyzer{cfg: cfg}
	for _, set := range []struct {
		patterns []string
		into     *[]*regexp.Regexp
	}{{cfg.Acceptance, &a.accept}, {cfg.DoneClaims, &a.done}, {cfg.ProblemClaims, &a.problem}} {
		for _, p := range set.patterns {
			if re, err := regexp.Compile(p); err == nil {
				*set.into = append(*set.into, re)
			}
		}
	}
	return a
}

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

// AnalyzeSession classifies a session. With EndReading (the default) it reads the
// end of the session (see analyzeEnd in the source: no human turn, frustration EMA,
// plan hand-off, last-turn friction, trailing interrupt, unresolved failures,
// acceptance, heavy friction, verified work, in that order). Without it, by the
// first rule that applies:
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
	friction := st.Count(detect.Frustration) + st.Count(detect.UserCorrection) + st.Count(detect.Interrupt)
	if a.cfg.CountInterventions {
		friction += st.Interventions
	}
	lastNeg := detect.Has(st.LastHumanSignals, detect.Frustration) || detect.Has(st.LastHumanSignals, detect.UserCorrection) ||
		detect.Has(st.LastHumanSignals, detect.Interrupt)
	lastPos := !lastNeg && detect.Has(st.LastHumanSignals, detect.Success)
	brokenAtEnd := st.LastToolOutcome.IsToolFailure() && st.LastToolIndex > st.LastHumanIndex
	hook := t.Reason == session.EndHook

	var o Outcome
	var conf float64
	var why string
	switch {
	case a.cfg.EndReading:
		o, conf, why = a.analyzeEnd(&t, friction)
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
