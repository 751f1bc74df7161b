package reports

import (
	"math"
	"testing"

	"github.com/loopwatch/loopwatch/eval"
)

// TestPredictionObservations: a row gives back the observation it was made from; an
// undefined score is null in the table and NaN to eval; a session not scored for its
// outcome gives no outcome observation; only a labelled session has moments.
func TestPredictionObservations(t *testing.T) {
	run := PredictionRow{RunKey: "r", Kind: "quasar_run", Label: Ptr("positive"), StrugglePredicted: Ptr(true), StruggleScore: Score(0.7)}
	if o := run.StruggleObservation(); o != (eval.Observation{Key: "r", Label: eval.Positive, Predicted: true, Score: 0.7}) {
		t.Errorf("struggle %+v", o)
	}
	s := PredictionRow{RunKey: "s", Kind: "session", BreakerPredicted: Ptr(false), BreakerScore: Score(math.NaN()),
		OutcomePredicted: Ptr(false), OutcomeScore: Score(math.Inf(1))}
	if s.BreakerScore != nil || s.OutcomeScore != nil {
		t.Error("a score that is not finite must be null")
	}
	if o := s.BreakerObservation(); o.Label != eval.Unlabelled || !math.IsNaN(o.Score) || o.Predicted {
		t.Errorf("breaker %+v", o)
	}
	if o, ok := s.OutcomeObservation(); !ok || !math.IsNaN(o.Score) {
		t.Errorf("outcome %+v %v", o, ok)
	}
	if _, ok := s.SessionMoments(); ok {
		t.Error("an unlabelled session has no moments")
	}
	s.OutcomePredicted = nil
	if _, ok := s.OutcomeObservation(); ok {
		t.Error("a session not scored for its outcome gave an observation")
	}
	m := eval.SessionMoments{Key: "s", Moments: 3, Caught: 2, Interventions: 4, TruePositives: 1, FalseAlarms: 3, HumanTurns: 9,
		DelaySeconds: []float64{0, 12.5}, DelayEvents: []float64{0, 3}}
	s.Interventions = Ptr(int32(4))
	s.SetMoments(m)
	if got, ok := s.SessionMoments(); !ok || got.Caught != 2 || got.Interventions != 4 || got.HumanTurns != 9 || got.DelaySeconds[1] != 12.5 {
		t.Errorf("moments %+v", got)
	}
}
