package reports

import "github.com/loopwatch/loopwatch/eval"

// OutcomeMetricRows converts an outcome evaluation of the configuration config into
// metric rows (target "session_outcome", positive class "predicted outcome =
// labelled outcome"; runs counts the sessions given, scored those labelled with an
// outcome other than none that have a final analysis, excluded those labelled none,
// unlabelled those whose label gives no outcome):
// accuracy with its intervals, the majority baseline, balanced accuracy, macro F1,
// mean confidence and Brier score, per outcome its support, precision and recall
// ("recall.abandoned"), and every cell of the confusion matrix
// ("confusion.success.abandoned": labelled success, predicted abandoned; column
// "none" counts sessions without a prediction).
func OutcomeMetricRows(detector, config, configHash string, rep *eval.OutcomeReport) []MetricRow {
	opts := rep.Options
	b := metricRows{base: MetricRow{Detector: detector, Config: config, Target: "session_outcome", PositiveClass: "predicted outcome = labelled outcome",
		CILevel: opts.Level, Resamples: int32(max(opts.Resamples, 0)), Seed: int64(opts.Seed), Runs: int32(rep.Sessions),
		Scored: int32(rep.Scored), Excluded: int32(rep.Excluded), Unlabelled: int32(rep.Unlabelled), ConfigHash: configHash}}
	b.value("correct", float64(rep.Correct))
	b.value("unpredicted", float64(rep.Unpredicted))
	b.estimate("accuracy", rep.Accuracy)
	b.value("majority_accuracy", rep.Majority)
	b.value("balanced_accuracy", rep.BalancedAccuracy)
	b.value("macro_f1", rep.MacroF1)
	b.value("mean_confidence", rep.MeanConfidence)
	b.value("brier", rep.Brier)
	for _, s := range rep.PerOutcome {
		b.value("support."+s.Outcome, float64(s.Support))
		b.value("precision."+s.Outcome, s.Precision)
		b.value("recall."+s.Outcome, s.Recall)
	}
	order := eval.OutcomeOrder()
	for i, label := range order {
		for j, predicted := range order {
			b.value("confusion."+label+"."+predicted, float64(rep.Matrix[i][j]))
		}
	}
	return b.rows
}
