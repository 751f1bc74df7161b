package pipeline

import (
	"time"

	"github.com/loopwatch/loopwatch/eval"
	"github.com/loopwatch/loopwatch/reports"
)

// keptScoring scores a configuration's predictions kept in memory, every target in
// turn: what a derivation does from a predictionSource, for tests that compare with it.
type keptScoring struct {
	spec  configSpec
	preds []keptPrediction
	kept  *keptPredictions
}

// scoringOf is a configuration's kept predictions, in the order given; kept holds
// their event-level scores.
func scoringOf(spec configSpec, preds []keptPrediction, kept *keptPredictions) *keptScoring {
	return &keptScoring{spec: spec, preds: preds, kept: kept}
}

// evaluate scores every target into res and returns the metric and curve rows.
func (k *keptScoring) evaluate(res *Result, opts eval.Options, window time.Duration, badOutcome string, withRuns bool) ([]reports.MetricRow, []reports.CurveRow) {
	var metrics []reports.MetricRow
	var curves []reports.CurveRow
	for t := range numTargets {
		c := &scoring{configSpec: k.spec}
		for i := range k.preds {
			p := &k.preds[i]
			var sm *eval.SessionMoments
			if p.moments > 0 {
				m := k.kept.sessionMoments(p)
				sm = &m
			}
			c.add(p, sm, t)
		}
		m, cv, err := c.evaluateTarget(t, res, opts, window, badOutcome, withRuns)
		if err != nil { // only a context's, and these options have none
			panic(err)
		}
		metrics, curves = append(metrics, m...), append(curves, cv...)
	}
	return metrics, curves
}
