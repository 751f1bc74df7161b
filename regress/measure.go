package regress

import (
	"math"

	"github.com/loopwatch/loopwatch/datasets/registry"
	"github.com/loopwatch/loopwatch/eval"
	"github.com/loopwatch/loopwatch/pipeline"
)

// Measure extracts the metrics of the named detectors from a replay's result:
// detector → metric → measurement. A detector the replay did not evaluate or that
// scored no unit (struggle on a dataset without runs, friction without labelled
// sessions, outcome_class without a session labelled with an outcome, any detector
// whose labels match nothing) is absent: its baselines are missing, which fails a run,
// rather than recorded as undefined.
func Measure(res *pipeline.Result, detectors []string) map[string]map[string]*Measurement {
	out := map[string]map[string]*Measurement{}
	for _, name := range detectors {
		if name == registry.InputCheck {
			sum := res.Summary
			out[name] = map[string]*Measurement{
				"runs":     count(sum.Runs),
				"sessions": count(sum.Sessions),
				"problems": count(res.Problems()),
			}
			continue
		}
		if name == "outcome_class" {
			if len(res.Outcomes) > 0 && res.Outcomes[0].Report.Scored > 0 {
				r := res.Outcomes[0].Report // the configured analysis's
				out[name] = map[string]*Measurement{
					"accuracy":          measurement(r.Accuracy, r.Scored),
					"balanced_accuracy": point(r.BalancedAccuracy, r.Scored),
					"macro_f1":          point(r.MacroF1, r.Scored),
					"brier":             point(r.Brier, r.Scored),
					"scored":            count(r.Scored),
				}
			}
			continue
		}
		if name == "friction" {
			if len(res.Moments) > 0 && res.Moments[0].Report.HumanTurns > 0 {
				m := res.Moments[0].Report // the configured breaker's
				out[name] = map[string]*Measurement{
					"precision":                  measurement(m.Precision, m.Caught+m.FalseAlarms),
					"recall":                     measurement(m.Recall, m.Moments),
					"false_alarms_per_100_turns": measurement(m.FalseAlarmsPer100, m.HumanTurns),
					"moments":                    count(m.Moments),
				}
			}
			continue
		}
		for _, d := range res.Detectors {
			if d.Detector != name { // the configured detector: the first of its name
				continue
			}
			r := d.Report
			if r.Scored == 0 {
				break // no unit scored: no figure, so a baseline is missing rather than "undefined"
			}
			out[name] = map[string]*Measurement{
				"precision":         measurement(r.Precision, r.Scored),
				"recall":            measurement(r.Recall, r.Scored),
				"f1":                measurement(r.F1, r.Scored),
				"average_precision": measurement(r.AP, r.Scored),
				"roc_auc":           measurement(r.AUC, r.Scored),
				"scored":            count(r.Scored),
			}
			break
		}
	}
	return out
}

// measurement takes an estimate's value and its interval: the bootstrap's when it
// has one, else the Jeffreys interval (precision and recall only), else none.
func measurement(e eval.Estimate, n int) *Measurement {
	m := &Measurement{Value: e.Value, N: n, Interval: Interval{Low: math.NaN(), High: math.NaN()}}
	switch {
	case finite(e.Low) && finite(e.High):
		m.Interval = Interval{Kind: "bootstrap", Low: e.Low, High: e.High}
	case finite(e.JeffreysLow) && finite(e.JeffreysHigh):
		m.Interval = Interval{Kind: "jeffreys", Low: e.JeffreysLow, High: e.JeffreysHigh}
	}
	return m
}

// point is a measurement without an interval: the tolerance alone judges it.
func point(v float64, n int) *Measurement {
	return &Measurement{Value: v, N: n, Interval: Interval{Low: math.NaN(), High: math.NaN()}}
}

// count is a count: a point with itself as N.
func count(n int) *Measurement { return point(float64(n), n) }

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
