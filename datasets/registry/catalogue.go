package registry

import (
	"fmt"
	"math"
	"slices"
)

// Presets are the configuration names a dataset's configs may list without a
// [configs.NAME] table: each names a preset of both --struggle-config and
// --assess-config. "default" (the detectors' defaults, no flag) is always accepted.
// Adding a preset is adding its name here.
var Presets = []string{"loopwatch", "seed"}

// DefaultConfig names the detectors' defaults: no --struggle-config, no
// --assess-config.
const DefaultConfig = "default"

// Metric is one metric a baseline may be recorded for.
type Metric struct {
	Name string
	// LowerIsBetter is true when a rise is the bad direction (false alarms, the Brier
	// score, problems); for every other metric a drop is.
	LowerIsBetter bool
	// Tolerance is the tolerance --update-baseline gives a baseline it records for the
	// first time, in the metric's units.
	Tolerance float64
	// Scale is what values the metric takes, which a baseline must be one of.
	Scale Scale
}

// Scale is the range of a metric's values.
type Scale int

// The scales.
const (
	Proportion Scale = iota // in [0, 1]
	Rate                    // ≥ 0 (false alarms per 100 turns)
	Count                   // a whole number ≥ 0 (units, moments, problems)
)

// Check reports whether v is a value of the metric: NaN (undefined) or on its scale.
func (m Metric) Check(v float64) error {
	switch {
	case math.IsNaN(v):
		return nil
	case math.IsInf(v, 0):
		return fmt.Errorf("%v is not a figure (nan records an undefined metric)", v)
	case m.Scale == Proportion && (v < 0 || v > 1):
		return fmt.Errorf("%v is outside [0, 1], the range of %s", v, m.Name)
	case v < 0:
		return fmt.Errorf("%v is negative, which %s never is", v, m.Name)
	case m.Scale == Count && v != math.Trunc(v):
		return fmt.Errorf("%v is not a whole number; %s is a count", v, m.Name)
	}
	return nil
}

// Detector is one detector a dataset may be scored on, with its metrics.
type Detector struct {
	Name string
	// Of says what it scores, for people: runs, sessions or friction moments.
	Of      string
	Metrics []Metric
}

// The metrics, with the names of the metrics table (results.metrics.parquet).
var (
	precision  = Metric{Name: "precision", Tolerance: 0.02}
	recall     = Metric{Name: "recall", Tolerance: 0.02}
	f1         = Metric{Name: "f1", Tolerance: 0.02}
	ap         = Metric{Name: "average_precision", Tolerance: 0.02}
	auc        = Metric{Name: "roc_auc", Tolerance: 0.02}
	falseAlarm = Metric{Name: "false_alarms_per_100_turns", LowerIsBetter: true, Tolerance: 0.5, Scale: Rate}
	accuracy   = Metric{Name: "accuracy", Tolerance: 0.02}
	balanced   = Metric{Name: "balanced_accuracy", Tolerance: 0.02}
	macroF1    = Metric{Name: "macro_f1", Tolerance: 0.02}
	brier      = Metric{Name: "brier", LowerIsBetter: true, Tolerance: 0.02}
)

// The counts the figures rest on, with no tolerance: input or labels that go missing
// (files that no longer parse, label rows that no longer read, a labels file cut
// short) fail a run even where the figures stay within theirs.
var (
	scored   = Metric{Name: "scored", Scale: Count}  // the units a detector scored
	moments  = Metric{Name: "moments", Scale: Count} // the labelled friction moments scored
	runs     = Metric{Name: "runs", Scale: Count}
	sessions = Metric{Name: "sessions", Scale: Count}
	problems = Metric{Name: "problems", LowerIsBetter: true, Scale: Count}
)

// InputCheck is the check every dataset gets whatever its detectors: what its replay
// read — runs, sessions, and problems as --strict counts them (the input's, the
// labels files' bad rows, label keys that match nothing, labelled moments that are
// not events).
const InputCheck = "input"

// Detectors lists the detectors a registry may name, in report order, after
// [InputCheck], which it may not: struggle detection of quasar runs, the circuit
// breaker and the outcome prediction of sessions (positive: a bad outcome), the
// breaker's interventions scored against labelled friction moments (event level), and
// the session analysis's outcome by class (success, partial, failure, abandoned)
// against the labelled one.
var Detectors = []Detector{
	{Name: InputCheck, Of: "what the replay read", Metrics: []Metric{runs, sessions, problems}},
	{Name: "struggle", Of: "runs", Metrics: []Metric{precision, recall, f1, ap, auc, scored}},
	{Name: "breaker", Of: "sessions", Metrics: []Metric{precision, recall, f1, ap, auc, scored}},
	{Name: "outcome", Of: "sessions", Metrics: []Metric{precision, recall, f1, ap, auc, scored}},
	{Name: "friction", Of: "friction moments", Metrics: []Metric{precision, recall, falseAlarm, moments}},
	{Name: "outcome_class", Of: "sessions labelled with an outcome", Metrics: []Metric{accuracy, balanced, macroF1, brier, scored}},
}

// LookupDetector returns the named detector.
func LookupDetector(name string) (Detector, bool) {
	i := slices.IndexFunc(Detectors, func(d Detector) bool { return d.Name == name })
	if i < 0 {
		return Detector{}, false
	}
	return Detectors[i], true
}

// Metric returns the detector's metric of that name.
func (d Detector) Metric(name string) (Metric, bool) {
	i := slices.IndexFunc(d.Metrics, func(m Metric) bool { return m.Name == name })
	if i < 0 {
		return Metric{}, false
	}
	return d.Metrics[i], true
}

// detectorNames lists the detectors a dataset may name.
func detectorNames() []string {
	var out []string
	for _, d := range Detectors {
		out = append(out, d.Name)
	}
	return listed(out)
}

// listed leaves out of names the input check, which no dataset lists.
func listed(names []string) []string {
	return slices.DeleteFunc(slices.Clone(names), func(n string) bool { return n == InputCheck })
}

func (d Detector) metricNames() []string {
	var out []string
	for _, m := range d.Metrics {
		out = append(out, m.Name)
	}
	return out
}
