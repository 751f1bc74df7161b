package pipeline

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/loopwatch/loopwatch/analyze/struggle"
	"github.com/loopwatch/loopwatch/eval/baseline"

	"github.com/loopwatch/loopwatch/eval"
	"github.com/loopwatch/loopwatch/replay"
	"github.com/loopwatch/loopwatch/replay/input"
	"github.com/loopwatch/loopwatch/reports"
)

// configSpec is one configuration a replay scores: the configured detectors, a preset
// compared with them, or the shipped-today baselines. The replay's list of them is in
// every table's metadata (loopwatch.configs), in the order of the metrics table; the
// predictions table names each by its index in it.
type configSpec struct {
	// Struggle and Assess label the configuration in tables and summaries.
	Struggle string `json:"struggle"`
	Assess   string `json:"assess"`
	// StruggleHash and AssessHash identify its struggle and assessment configurations
	// (a baseline's name when it has none).
	StruggleHash string `json:"struggle_hash"`
	AssessHash   string `json:"assess_hash"`
	// Configured marks the configured detectors, reported even with no input;
	// NoOutcome a configuration without a session analysis (a baseline).
	Configured bool `json:"configured,omitempty"`
	NoOutcome  bool `json:"no_outcome,omitempty"`
}

// runPrediction is a run's predictions row under the configuration at index i.
func runPrediction(r *input.Run, label eval.Label, i int, spec configSpec, out replay.StruggleOutcome) reports.PredictionRow {
	return reports.PredictionRow{RunKey: r.Key, Kind: "quasar_run", File: r.File, Config: spec.Struggle, ConfigIndex: int32(i), Label: labelPtr(label),
		StrugglePredicted: reports.Ptr(out.Triggered), StruggleScore: reports.Score(out.MaxScore)}
}

// sessionPrediction is a session's predictions row under the configuration at index i:
// the breaker (did it intervene, ranked by the peak frustration), the outcome
// prediction (ranked by its confidence that the outcome is bad) and, for a labelled
// session, its interventions scored against its friction moments.
func sessionPrediction(s *input.Session, rec eval.LabelRecord, labelled bool, moments []int, humanTurns int, i int, spec configSpec,
	o replay.SessionOutcome, outcomes eval.OutcomeClass, window time.Duration) reports.PredictionRow {
	row := reports.PredictionRow{RunKey: s.Key, Kind: "session", File: s.File, Config: spec.Assess, ConfigIndex: int32(i), Label: labelPtr(rec.Label),
		BreakerPredicted: reports.Ptr(len(o.Interventions) > 0), BreakerScore: reports.Score(o.PeakFrustration),
		Interventions: reports.Ptr(int32(len(o.Interventions))), AnalysisFailed: reports.Ptr(o.AnalysisFailed)}
	if !spec.NoOutcome && !o.AnalysisFailed { // a failed analysis predicts nothing: left out, counted as a problem
		predicted, score := false, math.NaN()
		if a := o.Analysis; a != nil {
			predicted = outcomes.Label(string(a.Outcome)) == eval.Positive
			score = a.Confidence
			if !predicted {
				score = 1 - a.Confidence
			}
		}
		row.OutcomePredicted, row.OutcomeScore = &predicted, reports.Score(score)
		if a := o.Analysis; a != nil {
			row.PredictedOutcome, row.PredictedConfidence = reports.Ptr(string(a.Outcome)), reports.Score(a.Confidence)
		}
	}
	if labelled && rec.Outcome != "" {
		row.LabelOutcome = &rec.Outcome
	}
	if labelled {
		row.SetMoments(momentSession(s, moments, o.Interventions, humanTurns).Score(window))
	}
	return row
}

func labelPtr(l eval.Label) *string {
	if l == eval.Unlabelled {
		return nil
	}
	return reports.Ptr(string(l))
}

// scoring is one configuration's predictions, gathered from its rows of the
// predictions table for evaluation.
type scoring struct {
	configSpec
	runs, breaker, outcome []eval.Observation
	byOutcome              []eval.OutcomePrediction // every session's, for the outcome accuracy
	moments                []eval.SessionMoments
	hasRuns, hasSessions   bool
	failedAnalyses         int // sessions whose analysis failed: left out of the outcome scores
}

// scoringOf gathers a configuration's rows, in the order given.
func scoringOf(spec configSpec, preds []keptPrediction) *scoring {
	c := &scoring{configSpec: spec}
	for i := range preds {
		p := &preds[i]
		if p.session == nil {
			c.hasRuns = true
			c.runs = append(c.runs, p.obs)
			continue
		}
		c.hasSessions = true
		c.breaker = append(c.breaker, p.obs)
		if p.session.analysisFailed {
			c.failedAnalyses++
		}
		if p.session.outcomeOK {
			c.outcome = append(c.outcome, p.session.outcome)
		}
		c.byOutcome = append(c.byOutcome, p.session.byOutcome.prediction(p.obs.Key))
		if p.session.momentsOK {
			c.moments = append(c.moments, p.session.moments)
		}
	}
	return c
}

// keptPrediction is what the metrics read of one predictions row — its sort keys and
// its observations, taken with the row's own methods — kept for the whole replay in
// place of the row, a third of its size and none of its allocations.
type keptPrediction struct {
	configIndex int32
	kind, file  string
	obs         eval.Observation // struggle (a run) or breaker (a session); obs.Key is the row's key
	session     *keptSession     // nil for a run
}

// keptSession is what the metrics read of a session's row beside its breaker.
type keptSession struct {
	analysisFailed       bool
	outcome              eval.Observation
	outcomeOK, momentsOK bool
	moments              eval.SessionMoments
	byOutcome            keptOutcome
}

// keptOutcome is a session row's predicted and labelled outcome, each as its index
// in [eval.OutcomeOrder] (−1 for null or not an outcome: how eval.EvaluateOutcomes
// reads either), and the prediction's confidence.
type keptOutcome struct {
	label, predicted int8
	confidence       float64
}

func keepOutcome(p eval.OutcomePrediction) keptOutcome {
	index := func(o string) int8 {
		return int8(slices.Index(eval.OutcomeOrder(), strings.ToLower(strings.TrimSpace(o))))
	}
	return keptOutcome{label: index(p.Label), predicted: index(p.Predicted), confidence: p.Confidence}
}

// prediction returns the session's outcome prediction again.
func (k keptOutcome) prediction(key string) eval.OutcomePrediction {
	name := func(i int8) string {
		if i < 0 {
			return ""
		}
		return eval.OutcomeOrder()[i]
	}
	return eval.OutcomePrediction{Key: key, Label: name(k.label), Predicted: name(k.predicted), Confidence: k.confidence}
}

// keep returns what the metrics read of r.
func keep(r *reports.PredictionRow) keptPrediction {
	k := keptPrediction{configIndex: r.ConfigIndex, kind: r.Kind, file: r.File}
	if r.Kind != "session" {
		k.obs = r.StruggleObservation()
		return k
	}
	k.obs = r.BreakerObservation()
	k.session = &keptSession{analysisFailed: r.AnalysisFailed != nil && *r.AnalysisFailed}
	k.session.outcome, k.session.outcomeOK = r.OutcomeObservation()
	k.session.moments, k.session.momentsOK = r.SessionMoments()
	k.session.byOutcome = keepOutcome(r.OutcomePrediction())
	return k
}

// momentSession returns a session's friction moments and interventions (event
// indices) for event-level scoring.
func momentSession(s *input.Session, moments, interventions []int, humanTurns int) eval.MomentSession {
	ms := eval.MomentSession{Key: s.Key, HumanTurns: humanTurns}
	for _, m := range moments {
		ms.Moments = append(ms.Moments, eval.Point{Time: s.Events[m].Time, Index: m})
	}
	for _, i := range interventions {
		ms.Interventions = append(ms.Interventions, eval.Point{Time: s.Events[i].Time, Index: i})
	}
	return ms
}

// evaluate scores the configuration's predictions into res (summary reports, in the
// order detectors appear) and returns its metric and curve rows. withRuns says
// whether struggle is reported (runs were replayed, or nothing was).
func (c *scoring) evaluate(res *Result, opts eval.Options, window time.Duration, badOutcome string, withRuns bool) ([]reports.MetricRow, []reports.CurveRow) {
	var metrics []reports.MetricRow
	var curves []reports.CurveRow
	add := func(detector, target, positive string, obs []eval.Observation, o eval.Options) {
		rep := eval.Evaluate(obs, o)
		name, hash := c.Assess, c.AssessHash
		if detector == "struggle" {
			name, hash = c.Struggle, c.StruggleHash
		}
		res.Detectors = append(res.Detectors, reports.DetectorReport{Detector: detector, Config: name, Report: rep})
		metrics = append(metrics, reports.MetricRows(detector, name, target, positive, hash, rep)...)
		curve := eval.Curves(obs)
		res.Curves = append(res.Curves, CurveResult{Detector: detector, Config: name, Curve: curve})
		curves = append(curves, reports.CurveRows(detector, name, curve)...)
	}
	if withRuns && (c.hasRuns || c.Configured && !c.hasSessions) {
		add("struggle", "run", "struggled", c.runs, opts)
	}
	if c.hasSessions {
		sessionOpts := opts
		sessionOpts.Unit = "sessions"
		add("breaker", "session", badOutcome, c.breaker, sessionOpts)
		if !c.NoOutcome {
			add("outcome", "session", badOutcome, c.outcome, sessionOpts)
			if c.failedAnalyses > 0 {
				rep := res.Detectors[len(res.Detectors)-1].Report
				rep.Warnings = append(rep.Warnings, fmt.Errorf("%d sessions whose analysis failed (analysis_failed problems) are left out of the outcome scores", c.failedAnalyses))
			}
			rep := eval.EvaluateOutcomes(c.byOutcome, sessionOpts)
			res.Outcomes = append(res.Outcomes, reports.OutcomeResult{Config: c.Assess, Report: rep})
			metrics = append(metrics, reports.OutcomeMetricRows("outcome", c.Assess, c.AssessHash, rep)...)
		}
		if len(c.moments) > 0 {
			rep := eval.EvaluateSessionMoments(c.moments, window, opts)
			res.Moments = append(res.Moments, reports.MomentResult{Detector: "breaker", Config: c.Assess, Report: rep})
			metrics = append(metrics, reports.MomentMetricRows("breaker", c.Assess, c.AssessHash, rep, opts)...)
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
