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
		row.LabelOutcome = reports.Ptr(rec.Outcome)
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
// predictions table for the evaluation of one target (see add): of each unit only what
// the target's evaluation reads — a score and a byte (eval.Observations), a bit
// (eval.OutcomeTally), a reference to counts and the delays (eval.MomentTally).
type scoring struct {
	configSpec
	obs                  eval.Observations // the struggle, breaker or outcome target's
	byOutcome            eval.OutcomeTally // every session's, for the outcome accuracy
	moments              eval.MomentTally  // the labelled sessions' event-level scores
	hasRuns, hasSessions bool
	hasMoments           bool // a labelled session's event-level score was among them
	failedAnalyses       int  // sessions whose analysis failed: left out of the outcome scores
}

// target is one of the evaluations of a configuration, in the order they are reported.
type target int

const (
	targetStruggle        target = iota // runs: struggle detection
	targetBreaker                       // sessions: the breaker
	targetOutcome                       // sessions: the outcome prediction, bad or not
	targetOutcomeAccuracy               // sessions: the outcome prediction, by outcome
	targetMoments                       // labelled sessions: event-level
	numTargets
)

// reserve allocates the observations of target only for n predictions, so that
// gathering them allocates nothing more.
func (c *scoring) reserve(only target, n predCounts) {
	switch only {
	case targetStruggle:
		c.obs.Grow(n.runs)
	case targetBreaker:
		c.obs.Grow(n.sessions)
	case targetOutcome:
		if !c.NoOutcome {
			c.obs.Grow(n.sessions)
		}
	case targetMoments:
		c.moments.Grow(n.moments, n.delays)
	}
}

// add gathers one prediction (sm: its event-level score, nil when none) into the
// observations of target only; what the evaluation asks of the others — whether there
// were runs, sessions, failed analyses, event-level scores — it counts whatever only is.
func (c *scoring) add(p *keptPrediction, sm *eval.SessionMoments, only target) {
	if p.flags&keptSession == 0 {
		c.hasRuns = true
		if only == targetStruggle {
			c.obs.Add(p.label.label(), p.flags&keptPredicted != 0, p.score)
		}
		return
	}
	c.hasSessions = true
	if p.flags&keptAnalysisFailed != 0 {
		c.failedAnalyses++
	}
	if sm != nil {
		c.hasMoments = true
	}
	switch {
	case only == targetBreaker:
		c.obs.Add(p.label.label(), p.flags&keptPredicted != 0, p.score)
	case only == targetOutcome && p.flags&keptOutcome != 0:
		c.obs.Add(p.label.label(), p.flags&keptOutcomePredicted != 0, p.outcomeScore)
	case only == targetOutcomeAccuracy:
		op := p.outcomePrediction()
		c.byOutcome.Add(&op)
	case only == targetMoments && sm != nil:
		c.moments.Add(sm)
	}
}

// keptPrediction is what the metrics read of one predictions row — its sort keys and
// its observations, taken with the row's own methods: 64 bytes (a labelled session's
// event-level score beside them, in keptPredictions), sharing the row's key and file
// strings. The merge keeps one per row of every shard in place of the row; a replay to
// a file writes its fields but the strings to a scratch file (predSpill), and reads
// them back into one at a time (key and file empty).
type keptPrediction struct {
	key, file    string
	score        float64 // struggle (a run) or breaker (a session); NaN when none
	outcomeScore float64 // a session's outcome score, with keptOutcome
	moments      int32   // a labelled session's event-level score: 1 + its index in keptPredictions.moments; 0 otherwise
	configIndex  int32
	label        labelCode
	flags        uint8 // keptSession, keptPredicted, …
	// A session's labelled and predicted outcome, by outcome (in the struct's
	// padding: it stays 64 bytes).
	labelOutcome, predictedOutcome outcomeCode
}

// outcomeCode is a session outcome in a byte: 1 + its index in [eval.OutcomeOrder],
// 0 for null or a string that is not an outcome (which eval.EvaluateOutcomes reads
// as null too).
type outcomeCode uint8

func outcomeCodeOf(o string) outcomeCode {
	return outcomeCode(1 + slices.Index(eval.OutcomeOrder(), strings.ToLower(strings.TrimSpace(o))))
}

func (c outcomeCode) outcome() string {
	if c == 0 {
		return ""
	}
	return eval.OutcomeOrder()[c-1]
}

// outcomePrediction returns a session's outcome prediction, by outcome. Its
// confidence is taken back from the outcome score (the confidence, or 1 − it when the
// predicted outcome is not bad; exact for a confidence of at least 0.5, within a
// rounding below that), which the row's predicted_confidence equals.
func (p *keptPrediction) outcomePrediction() eval.OutcomePrediction {
	conf := math.NaN()
	if p.predictedOutcome != 0 && p.flags&keptOutcome != 0 {
		conf = p.outcomeScore
		if p.flags&keptOutcomePredicted == 0 {
			conf = 1 - p.outcomeScore
		}
	}
	return eval.OutcomePrediction{Key: p.key, Label: p.labelOutcome.outcome(), Predicted: p.predictedOutcome.outcome(), Confidence: conf}
}

// The flags of a keptPrediction.
const (
	keptSession          = 1 << iota // a session's row (else a run's)
	keptPredicted                    // the struggle or breaker prediction
	keptAnalysisFailed               // the session's analysis failed
	keptOutcome                      // the session is scored for its outcome
	keptOutcomePredicted             // its outcome prediction
)

// kind is the row's kind, as the predictions table names it.
func (p *keptPrediction) kind() string {
	if p.flags&keptSession != 0 {
		return "session"
	}
	return "quasar_run"
}

// labelCode is an [eval.Label] the metrics tell apart, in a byte: any label that is
// not one of the four is scored as unlabelled, as eval scores it.
type labelCode uint8

const (
	codeUnlabelled labelCode = iota
	codePositive
	codeNegative
	codeAmbiguous
	codeExcluded
)

var codeLabels = [...]eval.Label{codeUnlabelled: eval.Unlabelled, codePositive: eval.Positive, codeNegative: eval.Negative,
	codeAmbiguous: eval.Ambiguous, codeExcluded: eval.Excluded}

func labelCodeOf(l eval.Label) labelCode {
	for c, known := range codeLabels {
		if l == known {
			return labelCode(c)
		}
	}
	return codeUnlabelled
}

func (c labelCode) label() eval.Label { return codeLabels[c] }

// keptOf returns what the metrics read of r — but its event-level score, which it
// returns beside (hasMoments: r has one), the keptPrediction's moments left 0.
func keptOf(r *reports.PredictionRow) (k keptPrediction, sm eval.SessionMoments, hasMoments bool) {
	k = keptPrediction{configIndex: r.ConfigIndex, file: r.File}
	var obs eval.Observation
	if r.Kind != "session" {
		obs = r.StruggleObservation()
	} else {
		k.flags |= keptSession
		obs = r.BreakerObservation()
		if r.AnalysisFailed != nil && *r.AnalysisFailed {
			k.flags |= keptAnalysisFailed
		}
		if o, ok := r.OutcomeObservation(); ok {
			k.flags |= keptOutcome
			k.outcomeScore = o.Score
			if o.Predicted {
				k.flags |= keptOutcomePredicted
			}
		}
		sm, hasMoments = r.SessionMoments()
	}
	k.key, k.label, k.score = obs.Key, labelCodeOf(obs.Label), obs.Score
	if r.Kind == "session" {
		o := r.OutcomePrediction()
		k.labelOutcome, k.predictedOutcome = outcomeCodeOf(o.Label), outcomeCodeOf(o.Predicted)
	}
	if obs.Predicted {
		k.flags |= keptPredicted
	}
	return k, sm, hasMoments
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

// evaluateTarget scores target t of the configuration, whose predictions c gathered
// for it (add), into res (summary reports, in the order detectors appear) and returns
// its metric and curve rows; the targets scored in order give a configuration's. withRuns
// says whether struggle is reported (runs were replayed, or nothing was). It fails only
// with opts.Context's error, once the context is done.
func (c *scoring) evaluateTarget(t target, res *Result, opts eval.Options, window time.Duration, badOutcome string, withRuns bool) (
	metrics []reports.MetricRow, curves []reports.CurveRow, err error) {
	add := func(detector, target, positive string, obs *eval.Observations, o eval.Options) {
		rep := obs.Evaluate(o)
		if rep.Err != nil {
			err = rep.Err
			return
		}
		name, hash := c.Assess, c.AssessHash
		if detector == "struggle" {
			name, hash = c.Struggle, c.StruggleHash
		}
		res.Detectors = append(res.Detectors, reports.DetectorReport{Detector: detector, Config: name, Report: rep})
		metrics = append(metrics, reports.MetricRows(detector, name, target, positive, hash, rep)...)
		curve := obs.Curves()
		res.Curves = append(res.Curves, CurveResult{Detector: detector, Config: name, Curve: curve})
		curves = append(curves, reports.CurveRows(detector, name, curve)...)
	}
	sessionOpts := opts
	sessionOpts.Unit = "sessions"
	switch {
	case t == targetStruggle:
		if withRuns && (c.hasRuns || c.Configured && !c.hasSessions) {
			add("struggle", "run", "struggled", &c.obs, opts)
		}
	case !c.hasSessions:
	case t == targetBreaker:
		add("breaker", "session", badOutcome, &c.obs, sessionOpts)
	case t == targetOutcome && !c.NoOutcome:
		add("outcome", "session", badOutcome, &c.obs, sessionOpts)
		if c.failedAnalyses > 0 && err == nil {
			rep := res.Detectors[len(res.Detectors)-1].Report
			rep.Warnings = append(rep.Warnings, fmt.Errorf("%d sessions whose analysis failed (analysis_failed problems) are left out of the outcome scores", c.failedAnalyses))
		}
	case t == targetOutcomeAccuracy && !c.NoOutcome:
		rep := c.byOutcome.Report(sessionOpts)
		if rep.Err != nil {
			return nil, nil, rep.Err
		}
		res.Outcomes = append(res.Outcomes, reports.OutcomeResult{Config: c.Assess, Report: rep})
		metrics = append(metrics, reports.OutcomeMetricRows("outcome", c.Assess, c.AssessHash, rep)...)
	case t == targetMoments && c.hasMoments:
		rep := c.moments.Report(window, opts)
		if rep.Err != nil {
			return nil, nil, rep.Err
		}
		rep.DelaysSeconds = nil // summarised: not kept for the rest of the replay (Result.Moments)
		res.Moments = append(res.Moments, reports.MomentResult{Detector: "breaker", Config: c.Assess, Report: rep})
		metrics = append(metrics, reports.MomentMetricRows("breaker", c.Assess, c.AssessHash, rep, opts)...)
	}
	if err != nil {
		return nil, nil, err
	}
	return metrics, curves, nil
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
