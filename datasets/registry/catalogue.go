package registry

import "slices"

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
	// LowerIsBetter is true when a rise is the bad direction (false alarms); for every
	// other metric a drop is.
	LowerIsBetter bool
	// Tolerance is the tolerance --update-baseline gives a baseline it records for the
	// first time, in the metric's units.
	Tolerance float64
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
	falseAlarm = Metric{Name: "false_alarms_per_100_turns", LowerIsBetter: true, Tolerance: 0.5}
	accuracy   = Metric{Name: "accuracy", Tolerance: 0.02}
	balanced   = Metric{Name: "balanced_accuracy", Tolerance: 0.02}
	macroF1    = Metric{Name: "macro_f1", Tolerance: 0.02}
	brier      = Metric{Name: "brier", LowerIsBetter: true, Tolerance: 0.02}
)

// Detectors lists the detectors a registry may name, in report order: struggle
// detection of quasar runs, the circuit breaker and the outcome prediction of
// sessions (positive: a bad outcome), the breaker's interventions scored against
// labelled friction moments (event level), and the session analysis's outcome by
// class (success, partial, failure, abandoned) against the labelled one.
var Detectors = []Detector{
	{Name: "struggle", Of: "runs", Metrics: []Metric{precision, recall, f1, ap, auc}},
	{Name: "breaker", Of: "sessions", Metrics: []Metric{precision, recall, f1, ap, auc}},
	{Name: "outcome", Of: "sessions", Metrics: []Metric{precision, recall, f1, ap, auc}},
	{Name: "friction", Of: "friction moments", Metrics: []Metric{precision, recall, falseAlarm}},
	{Name: "outcome_class", Of: "sessions labelled with an outcome", Metrics: []Metric{accuracy, balanced, macroF1, brier}},
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

func detectorNames() []string {
	var out []string
	for _, d := range Detectors {
		out = append(out, d.Name)
	}
	return out
}

func (d Detector) metricNames() []string {
	var out []string
	for _, m := range d.Metrics {
		out = append(out, m.Name)
	}
	return out
}
