package pipeline

import (
	"fmt"
	"math"
	"time"

	"github.com/loopwatch/loopwatch/analyze/struggle"
	"github.com/loopwatch/loopwatch/eval/baseline"

	"github.com/loopwatch/loopwatch/eval"
	"github.com/loopwatch/loopwatch/replay"
	"github.com/loopwatch/loopwatch/replay/input"
	"github.com/loopwatch/loopwatch/reports"
)

// scoring collects one configuration's predictions while results stream through:
// the configured detector's, a preset's beside it, or a baseline's.
type scoring struct {
	// struggleName and assessName label the configuration in tables and summaries.
	struggleName, assessName string
	// struggleHash and assessHash identify its struggle and assessment configurations
	// (a baseline's name when it has none).
	struggleHash, assessHash string
	runs, breaker, outcome   observations
	// moments holds a labelled session's interventions against its moments, which
	// every configuration's entry shares (see labelledSession).
	moments              chunked[momentEntry]
	hasRuns, hasSessions bool
	// configured marks the configured detectors' scoring, reported even with no input;
	// noOutcome a configuration without a session analysis (a baseline).
	configured, noOutcome bool
	failedAnalyses        int // sessions whose analysis failed: left out of the outcome scores
}

// addRun records a run's struggle outcome.
func (c *scoring) addRun(key string, label eval.Label, out replay.StruggleOutcome) {
	c.hasRuns = true
	c.runs.add(eval.Observation{Key: key, Label: label, Predicted: out.Triggered, Score: out.MaxScore})
}

// addSession records a session's outcome: the breaker (did it intervene, ranked by
// the peak frustration), the outcome prediction (ranked by its confidence that the
// outcome is bad) and, for a labelled session (labelled non-nil, from
// labelledSession), its interventions against its moments.
func (c *scoring) addSession(s *input.Session, label eval.Label, labelled *eval.MomentSession,
	o replay.SessionOutcome, outcomes eval.OutcomeClass) {
	c.hasSessions = true
	c.breaker.add(eval.Observation{Key: s.Key, Label: label, Predicted: len(o.Interventions) > 0,
		Score: o.PeakFrustration})
	if o.AnalysisFailed {
		c.failedAnalyses++
	}
	if !c.noOutcome && !o.AnalysisFailed { // a failed analysis predicts nothing: left out, counted as a problem
		obs := eval.Observation{Key: s.Key, Label: label, Score: math.NaN()}
		if a := o.Analysis; a != nil {
			obs.Predicted = outcomes.Label(string(a.Outcome)) == eval.Positive
			obs.Score = a.Confidence
			if !obs.Predicted {
				obs.Score = 1 - a.Confidence
			}
		}
		c.outcome.add(obs)
	}
	if labelled != nil {
		c.moments.add(momentEntry{session: labelled, interventions: points(s, o.Interventions)})
	}
}

// momentEntry is one configuration's interventions in a labelled session.
type momentEntry struct {
	session       *eval.MomentSession // its key, moments and human turns; no interventions
	interventions []eval.Point
}

// labelledSession returns a labelled session's friction moments (event indices) and
// human turns for event-level scoring, shared by every configuration's entry.
func labelledSession(s *input.Session, moments []int, humanTurns int) *eval.MomentSession {
	return &eval.MomentSession{Key: s.Key, HumanTurns: humanTurns, Moments: points(s, moments)}
}

// points returns the session's events at indices as points.
func points(s *input.Session, indices []int) []eval.Point {
	var out []eval.Point
	for _, i := range indices {
		out = append(out, eval.Point{Time: s.Events[i].Time, Index: i})
	}
	return out
}

// momentSessions returns the configuration's labelled sessions for event-level
// scoring.
func (c *scoring) momentSessions() []eval.MomentSession {
	out := make([]eval.MomentSession, 0, c.moments.len())
	c.moments.each(func(e *momentEntry) {
		ms := *e.session
		ms.Interventions = e.interventions
		out = append(out, ms)
	})
	return out
}

// evaluate scores the configuration's predictions into res (summary reports, in the
// order detectors appear) and returns its metric and curve rows. withRuns says
// whether struggle is reported (runs were replayed, or nothing was).
func (c *scoring) evaluate(res *Result, opts eval.Options, window time.Duration, badOutcome string, withRuns bool) ([]reports.MetricRow, []reports.CurveRow) {
	var metrics []reports.MetricRow
	var curves []reports.CurveRow
	add := func(detector, target, positive string, held *observations, o eval.Options) {
		obs := held.all()
		rep := eval.Evaluate(obs, o)
		name, hash := c.assessName, c.assessHash
		if detector == "struggle" {
			name, hash = c.struggleName, c.struggleHash
		}
		res.Detectors = append(res.Detectors, reports.DetectorReport{Detector: detector, Config: name, Report: rep})
		metrics = append(metrics, reports.MetricRows(detector, name, target, positive, hash, rep)...)
		curve := eval.Curves(obs)
		res.Curves = append(res.Curves, CurveResult{Detector: detector, Config: name, Curve: curve})
		curves = append(curves, reports.CurveRows(detector, name, curve)...)
	}
	if withRuns && (c.hasRuns || c.configured && !c.hasSessions) {
		add("struggle", "run", "struggled", &c.runs, opts)
	}
	if c.hasSessions {
		sessionOpts := opts
		sessionOpts.Unit = "sessions"
		add("breaker", "session", badOutcome, &c.breaker, sessionOpts)
		if !c.noOutcome {
			add("outcome", "session", badOutcome, &c.outcome, sessionOpts)
			if c.failedAnalyses > 0 {
				rep := res.Detectors[len(res.Detectors)-1].Report
				rep.Warnings = append(rep.Warnings, fmt.Errorf("%d sessions whose analysis failed (analysis_failed problems) are left out of the outcome scores", c.failedAnalyses))
			}
		}
		if c.moments.len() > 0 {
			rep := eval.EvaluateMoments(c.momentSessions(), window, opts)
			res.Moments = append(res.Moments, reports.MomentResult{Detector: "breaker", Config: c.assessName, Report: rep})
			metrics = append(metrics, reports.MomentMetricRows("breaker", c.assessName, c.assessHash, rep, opts)...)
		}
	}
	return metrics, curves
}

// Shipped is the name of the shipped-today baselines in tables and summaries: quasar's
// struggle detection and vibes' breaker as the two projects run them today (package
// eval/baseline).
const Shipped = "shipped-today"

// shippedRun and shippedSession hold a unit's baseline outcomes, computed in the
// replay's workers (replay.Options.RunHook and SessionHook).
type shippedRun struct{ out replay.StruggleOutcome }

type shippedSession struct {
	out replay.SessionOutcome
	err error
}

// scoreShippedRun replays a run through quasar's shipped struggle detection.
func scoreShippedRun(rr *replay.RunResult) { rr.Extra = &shippedRun{out: ShippedRun(rr.Run)} }

// scoreShippedSession replays a session through vibes' shipped breaker.
func scoreShippedSession(sr *replay.SessionResult) {
	out, err := ShippedSession(sr.Session)
	sr.Extra = &shippedSession{out: out, err: err}
}

// ShippedRun is struggle detection's outcome for a run as quasar ships it today
// (package eval/baseline), with quasar's default thresholds.
func ShippedRun(run *input.Run) replay.StruggleOutcome {
	q := baseline.QuasarRun(run, struggle.SeedStruggleConfig())
	return replay.StruggleOutcome{Triggered: q.Triggered, FirstCycle: q.FirstCycle, FirstTime: q.FirstTime,
		MaxScore: q.MaxScore, LeadCycles: q.LeadCycles, LeadCostUSD: q.LeadCostUSD, LeadSeconds: q.LeadSeconds}
}

// ShippedSession is the breaker's outcome for a session as vibes ships it today
// (package eval/baseline): its interventions and peak frustration.
func ShippedSession(s *input.Session) (replay.SessionOutcome, error) {
	v, err := baseline.VibesSession(s.Events, baseline.DefaultVibesConfig())
	if err != nil {
		return replay.SessionOutcome{}, err
	}
	return replay.SessionOutcome{Interventions: v.Interventions, PeakFrustration: v.PeakFrustration}, nil
}
