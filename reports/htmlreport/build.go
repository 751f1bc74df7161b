package htmlreport

import (
	"fmt"
	"math"

	"github.com/loopwatch/loopwatch/eval"
	"github.com/loopwatch/loopwatch/reports"
)

// MetricsTable is the replay summary's table — one row per detector with its counts,
// precision, recall, F1, AP and ROC AUC, each with its bootstrap interval ("—" where
// undefined) — and the detectors' warnings as notes.
func MetricsTable(title string, detectors []reports.DetectorReport) Table {
	t := Table{Title: title, Columns: []string{"detector", "config", "of", "n", "labelled", "scored", "TP", "FP", "FN", "TN",
		"precision", "recall", "F1", "AP", "ROC AUC"}}
	for _, d := range reports.ByDetector(detectors) {
		r := d.Report
		t.Rows = append(t.Rows, Row{Cells: []string{d.Detector, d.Config, r.Options.Unit, fmt.Sprint(r.Runs), fmt.Sprint(r.Runs - r.Unlabelled),
			fmt.Sprint(r.Scored), fmt.Sprint(r.TP), fmt.Sprint(r.FP), fmt.Sprint(r.FN), fmt.Sprint(r.TN),
			reports.FormatEstimate(r.Precision), reports.FormatEstimate(r.Recall), reports.FormatEstimate(r.F1),
			reports.FormatEstimate(r.AP), reports.FormatEstimate(r.AUC)}})
	}
	for _, n := range reports.DetectorNotes(detectors) {
		t.Notes = append(t.Notes, n.String())
	}
	return t
}

// ThresholdSweep is precision, recall and F1 against the score threshold, read off a
// curve: what flagging every observation scoring at or above x would give. The
// threshold where everything is flagged (−Inf, unscored observations) is not drawn.
// mark, when finite, marks the configured threshold.
func ThresholdSweep(title, scoreName string, c eval.Curve, mark float64) Sweep {
	sw := Sweep{Title: title, XLabel: scoreName + " threshold (flag at or above)", YLabel: "metric",
		Series: []Series{{Name: "precision"}, {Name: "recall"}, {Name: "F1"}}}
	for _, p := range c.Points {
		f1 := math.NaN()
		if s := p.Precision + p.Recall; s > 0 {
			f1 = 2 * p.Precision * p.Recall / s
		} else if s == 0 {
			f1 = 0
		}
		sw.Series[0].Points = append(sw.Series[0].Points, XY{p.Threshold, p.Precision})
		sw.Series[1].Points = append(sw.Series[1].Points, XY{p.Threshold, p.Recall})
		sw.Series[2].Points = append(sw.Series[2].Points, XY{p.Threshold, f1})
	}
	if drawable(mark) {
		sw.Marks = []Mark{{X: mark, Label: "configured " + short(mark)}}
	}
	return sw
}
