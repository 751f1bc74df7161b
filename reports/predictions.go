package reports

import (
	"math"

	"github.com/loopwatch/loopwatch/eval"
)

// PredictionRow is one row of the predictions table (results.predictions.parquet):
// what one configuration predicted for one run or session — the configured
// detectors', each compared preset's, the shipped-today baselines' — with the label
// it is scored against. The metrics and curves tables are computed from these rows
// and nothing else, by the replay and by the merge of a replay split in shards alike,
// so that both give the same metrics. Undefined values (a score that is not a finite
// number, a column of the other kind of unit) are null.
type PredictionRow struct {
	RunKey string `parquet:"run_key"`
	Kind   string `parquet:"kind"` // quasar_run or session
	File   string `parquet:"file"` // the input file, relative to --in (a session's main transcript)
	// Config names the configuration as the metrics table does; ConfigIndex is its
	// position in the metrics table's order (0: the configured detectors).
	Config      string  `parquet:"config"`
	ConfigIndex int32   `parquet:"config_index"`
	Label       *string `parquet:"label,optional"` // positive, negative, ambiguous, excluded; null when unlabelled

	// Runs: struggle detection triggered at a decision point, and the run's ranking
	// score (the peak struggle score at a decision point).
	StrugglePredicted *bool    `parquet:"struggle_predicted,optional"`
	StruggleScore     *float64 `parquet:"struggle_score,optional"`

	// Sessions: the breaker intervened (Interventions > 0), ranked by the peak
	// frustration EMA; the session analysis predicted a bad outcome, ranked by its
	// confidence that the outcome is bad. OutcomePredicted is null when the session is
	// not scored for its outcome: its analysis failed (AnalysisFailed), or the
	// configuration has no session analysis (a baseline).
	BreakerPredicted *bool    `parquet:"breaker_predicted,optional"`
	BreakerScore     *float64 `parquet:"breaker_score,optional"`
	Interventions    *int32   `parquet:"interventions,optional"`
	OutcomePredicted *bool    `parquet:"outcome_predicted,optional"`
	OutcomeScore     *float64 `parquet:"outcome_score,optional"`
	AnalysisFailed   *bool    `parquet:"analysis_failed,optional"`

	// Sessions, by outcome: the outcome the final analysis predicted and its
	// confidence (null without a final analysis: it failed, the final end fell
	// past the sampler's burn-in, or the configuration has none), and the labelled
	// outcome (null when the session's label gives none). The outcome accuracy and the
	// confusion by outcome are computed from the two outcomes.
	PredictedOutcome    *string  `parquet:"predicted_outcome,optional"`
	PredictedConfidence *float64 `parquet:"predicted_confidence,optional"`
	LabelOutcome        *string  `parquet:"label_outcome,optional"`

	// Labelled sessions: the interventions scored against the labelled friction
	// moments (eval.ScoreSession), null otherwise. DelaySeconds and DelayEvents hold,
	// for each caught moment in moment order, the time and events to the intervention
	// that caught it.
	Moments       *int32    `parquet:"moments,optional"`
	MomentsCaught *int32    `parquet:"moments_caught,optional"`
	TruePositives *int32    `parquet:"true_positives,optional"`
	FalseAlarms   *int32    `parquet:"false_alarms,optional"`
	HumanTurns    *int32    `parquet:"human_turns,optional"`
	DelaySeconds  []float64 `parquet:"delay_seconds,list"`
	DelayEvents   []float64 `parquet:"delay_events,list"`
}

// SetMoments records a labelled session's event-level score.
func (r *PredictionRow) SetMoments(m eval.SessionMoments) {
	r.Moments, r.MomentsCaught = ptr(int32(m.Moments)), ptr(int32(m.Caught))
	r.TruePositives, r.FalseAlarms, r.HumanTurns = ptr(int32(m.TruePositives)), ptr(int32(m.FalseAlarms)), ptr(int32(m.HumanTurns))
	r.DelaySeconds, r.DelayEvents = m.DelaySeconds, m.DelayEvents
}

// Scored returns the label the row is scored against (Unlabelled when null).
func (r *PredictionRow) scoredLabel() eval.Label {
	if r.Label == nil {
		return eval.Unlabelled
	}
	return eval.Label(*r.Label)
}

// StruggleObservation returns a run row's struggle observation.
func (r *PredictionRow) StruggleObservation() eval.Observation {
	return eval.Observation{Key: r.RunKey, Label: r.scoredLabel(), Predicted: deref(r.StrugglePredicted), Score: score(r.StruggleScore)}
}

// BreakerObservation returns a session row's breaker observation.
func (r *PredictionRow) BreakerObservation() eval.Observation {
	return eval.Observation{Key: r.RunKey, Label: r.scoredLabel(), Predicted: deref(r.BreakerPredicted), Score: score(r.BreakerScore)}
}

// OutcomeObservation returns a session row's outcome observation; ok is false when
// the session is not scored for its outcome.
func (r *PredictionRow) OutcomeObservation() (obs eval.Observation, ok bool) {
	if r.OutcomePredicted == nil {
		return eval.Observation{}, false
	}
	return eval.Observation{Key: r.RunKey, Label: r.scoredLabel(), Predicted: *r.OutcomePredicted, Score: score(r.OutcomeScore)}, true
}

// OutcomePrediction returns a session row's predicted and labelled outcome, as
// [eval.EvaluateOutcomes] scores them ("" where null, NaN without a confidence).
func (r *PredictionRow) OutcomePrediction() eval.OutcomePrediction {
	return eval.OutcomePrediction{Key: r.RunKey, Label: deref(r.LabelOutcome), Predicted: deref(r.PredictedOutcome),
		Confidence: score(r.PredictedConfidence)}
}

// SessionMoments returns a labelled session row's event-level score; ok is false for
// other rows.
func (r *PredictionRow) SessionMoments() (m eval.SessionMoments, ok bool) {
	if r.Moments == nil {
		return eval.SessionMoments{}, false
	}
	return eval.SessionMoments{Key: r.RunKey, Moments: int(*r.Moments), Caught: int(deref(r.MomentsCaught)),
		Interventions: int(deref(r.Interventions)), TruePositives: int(deref(r.TruePositives)), FalseAlarms: int(deref(r.FalseAlarms)),
		HumanTurns: int(deref(r.HumanTurns)), DelaySeconds: r.DelaySeconds, DelayEvents: r.DelayEvents}, true
}

// Score returns a finite score, or null.
func Score(v float64) *float64 { return finite(v) }

func score(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// Ptr returns a pointer to v: for the optional columns of rows built elsewhere.
func Ptr[T any](v T) *T { return &v }
