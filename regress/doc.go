// Package regress is loopwatch's nightly regression: it replays every dataset of the
// registry (package datasets/registry) under each of its configurations through the
// shared pipeline, compares each detector's metrics with the baselines recorded in
// the registry, and says which regressed.
//
// The rule ([Rule], [Judge]): a metric regresses when it moves in its bad direction
// by more than its tolerance and the baseline lies outside the interval measured now
// — the bootstrap interval, the Jeffreys interval for precision and recall when the
// bootstrap gives none, the tolerance alone when there is no interval. Both must
// hold: the tolerance says how much change matters, the interval whether the change
// is more than the noise of the data. Improvement is judged on the same terms. The
// bad direction is down for precision, recall, F1, average precision and ROC AUC,
// and up for false alarms per 100 human turns.
//
// Verdicts are ok, improved, regressed, new (no baseline yet, or a baseline recorded
// as undefined that is defined now), missing (a baseline nothing measures now: the
// replay failed, the detector gave no figure, or the metric became undefined) and
// skipped (the dataset's corpus is absent). Regressed and missing fail the run.
//
// [Run] returns a [Report], which writes regress.md and regress.json
// ([Report.WriteFiles]); [Report.Updates] are the baselines --update-baseline records
// ([registry.Registry.Rewrite]).
package regress
