package pipeline

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/loopwatch/loopwatch"
	"github.com/loopwatch/loopwatch/eval"
	"github.com/loopwatch/loopwatch/internal/plural"
	"github.com/loopwatch/loopwatch/reports"
	"github.com/loopwatch/loopwatch/reports/htmlreport"
)

// ReportTrajectories is how many runs' and sessions' trajectories a report draws.
const ReportTrajectories = 6

// Report builds the HTML report of a committed replay: the metrics of every
// configuration, the PR and ROC curves with the compared configurations overlaid, the
// threshold sweeps, the lead times, the trajectories of the top runs and sessions,
// the problems and the notes. It reads the run and prediction tables back from the
// output — a merge's from its shards — a row at a time, keeping the lead times and
// the rows the trajectories may draw, and of the cycle and event tables only the rows
// of the trajectories drawn: what it holds does not grow with the replay.
func Report(res *Result, title string) (*htmlreport.Data, error) {
	sum := res.Summary
	d := &htmlreport.Data{Title: title}
	d.Facts = []htmlreport.Fact{
		{Name: "input", Value: fmt.Sprintf("%s: %s, %s (%s), %s", reports.FilesRead(sum), plural.Count(sum.Runs, "run"),
			plural.Count(sum.Sessions, "session"), plural.Count(sum.Events, "event"), plural.Count(sum.TotalProblems(), "problem"))},
		{Name: "labels", Value: res.LabelsNote},
		{Name: "output", Value: cmp.Or(res.Out.Folder(), res.Out.Path(""))},
		{Name: "input fingerprint", Value: sum.Fingerprint},
		{Name: "loopwatch", Value: loopwatch.Version},
	}
	d.Tables = append(d.Tables, htmlreport.MetricsTable("Detectors, as configured and beside it", res.Detectors))
	if len(res.Moments) > 0 {
		d.Tables = append(d.Tables, momentTable(res.Moments))
	}
	d.Tables = append(d.Tables, outcomeTables(res.Outcomes)...)
	if t := res.FixTotals; t != nil && t.Failures > 0 {
		var b strings.Builder
		reports.WriteFixSummary(&b, t)
		d.Notes = append(d.Notes, strings.TrimSpace(b.String()))
	}

	// Curves: one set per detector, the configured curve drawn solid, the others dashed.
	sets := map[string]*htmlreport.CurveSet{}
	var order []string
	for _, c := range res.Curves {
		set := sets[c.Detector]
		if set == nil {
			set = &htmlreport.CurveSet{Detector: c.Detector, Note: curveNote(c.Detector)}
			sets[c.Detector] = set
			order = append(order, c.Detector)
		}
		set.Series = append(set.Series, htmlreport.CurveSeries{Name: c.Config, Curve: c.Curve, Dashed: len(set.Series) > 0})
	}
	for _, det := range order {
		set := sets[det]
		d.Curves = append(d.Curves, *set)
		configured := set.Series[0]
		switch det {
		case "struggle":
			d.Sweeps = append(d.Sweeps, htmlreport.ThresholdSweep("struggle ("+configured.Name+"): metrics against the composite threshold",
				"peak struggle score", configured.Curve, res.Struggle.CompositeThreshold))
		case "breaker":
			sw := htmlreport.ThresholdSweep("breaker ("+configured.Name+"): metrics against a threshold on the peak frustration",
				"peak frustration EMA", configured.Curve, res.Assess.Breaker.FrustrationThreshold)
			sw.Note = "What flagging the sessions whose peak frustration reaches each threshold would give. The breaker " +
				"itself also intervenes without that frustration (a clarification pause after a storm of corrections, an approach pivot after a streak of failures), so " +
				"at its configured threshold its own precision and recall, in the metrics table, can differ from the curve's."
			d.Sweeps = append(d.Sweeps, sw)
		}
	}

	// The run and prediction tables are read a row at a time: what is kept of them is
	// the lead times' values and the rows the trajectories may draw.
	var lead htmlreport.LeadTally
	top := htmlreport.NewTop(ReportTrajectories)
	if _, err := readTable(res, "runs", func(r *reports.RunRow) bool { lead.AddRun(r); top.Add(r); return false }); err != nil {
		return nil, err
	}
	if _, err := readTable(res, "predictions", func(p *reports.PredictionRow) bool { lead.AddPrediction(p); return false }); err != nil {
		return nil, err
	}
	d.LeadTimes = lead.Histograms()
	topRuns := top.Runs()
	runKeys := keySet(topRuns)
	cycles, err := readTable(res, "cycles", func(c *reports.CycleRow) bool { return runKeys[c.RunKey] })
	if err != nil {
		return nil, err
	}
	d.Runs = htmlreport.RunTrajectories(topRuns, cycles, res.Struggle.CompositeThreshold, ReportTrajectories)
	topSessions := top.Sessions()
	sessionKeys := keySet(topSessions)
	events, err := readTable(res, "events", func(e *reports.EventRow) bool { return sessionKeys[e.SessionKey] })
	if err != nil {
		return nil, err
	}
	d.Sessions = htmlreport.SessionTrajectories(topSessions, events, res.Assess.Breaker.FrustrationThreshold, ReportTrajectories)

	d.Problems, d.ProblemsTotal = sum.Problems, sum.TotalProblems()
	for _, what := range slices.Sorted(maps.Keys(sum.Notes)) {
		d.Notes = append(d.Notes, fmt.Sprintf("%s: %d", what, sum.Notes[what]))
	}
	for _, w := range res.Warnings {
		d.Notes = append(d.Notes, w.Error())
	}
	if n := res.UnmatchedCount; n > 0 {
		d.Notes = append(d.Notes, fmt.Sprintf("%s %s no run or session: %s", plural.Count(n, "label key"), plural.Form(n, "matches", "match"), examples(res.UnmatchedLabels, n, 10)))
	}
	return d, nil
}

// WriteReport writes res's HTML report (see Report) to path, a .html file.
func WriteReport(res *Result, title, path string) error {
	d, err := Report(res, title)
	if err != nil {
		return err
	}
	return htmlreport.WriteFile(path, d)
}

func keySet(rows []reports.RunRow) map[string]bool {
	out := map[string]bool{}
	for _, r := range rows {
		out[r.RunKey] = true
	}
	return out
}

// curveNote says what a detector's ranking score is and what positive means.
func curveNote(detector string) string {
	switch detector {
	case "struggle":
		return "Runs ranked by their peak struggle score at a decision point; positive: the run struggled."
	case "breaker":
		return "Sessions ranked by their peak frustration EMA; positive: a bad outcome (failure, abandoned)."
	case "outcome":
		return "Sessions ranked by the analysis's confidence that the outcome is bad; positive: a bad outcome."
	}
	return ""
}

// momentTable is the event-level table: each configuration's interventions against
// the labelled friction moments.
func momentTable(results []reports.MomentResult) htmlreport.Table {
	first := results[0].Report
	t := htmlreport.Table{Title: fmt.Sprintf("Interventions at friction moments (window %s): %d sessions, %d moments, %d human turns",
		first.Window, first.Sessions, first.Moments, first.HumanTurns),
		Columns: []string{"config", "interventions", "caught first", "false alarms", "recall", "precision", "false alarms /100 turns", "median delay"},
		Notes:   []string{"A moment is caught when an intervention follows it within the window; only the first intervention to catch a moment is a true positive (caught first), every other one a false alarm. Precision is caught moments over caught moments and false alarms."}}
	for _, m := range results {
		r := m.Report
		delay := "—"
		if r.Caught > 0 {
			delay = fmt.Sprintf("%.0f s", r.MedianDelaySeconds)
		}
		t.Rows = append(t.Rows, htmlreport.Row{Cells: []string{m.Config, fmt.Sprint(r.Interventions), fmt.Sprint(r.TruePositives),
			fmt.Sprint(r.FalseAlarms), reports.FormatEstimate(r.Recall), reports.FormatEstimate(r.Precision),
			reports.FormatRate(r.FalseAlarmsPer100), delay}})
	}
	return t
}

// outcomeTables are the session analysis's outcome accuracy, as the summary prints it:
// a row per configuration, and the first configuration's sessions by labelled and
// predicted outcome. None when no session is labelled with an outcome.
func outcomeTables(results []reports.OutcomeResult) []htmlreport.Table {
	if len(results) == 0 || results[0].Report.Sessions == results[0].Report.Unlabelled {
		return nil
	}
	first := results[0].Report
	acc := htmlreport.Table{Title: fmt.Sprintf("Session outcomes: the final analysis's outcome against the labelled one, %d of %d sessions scored",
		first.Scored, first.Sessions),
		Columns: []string{"config", "accuracy", "correct", "majority baseline", "balanced accuracy", "macro F1", "mean confidence", "Brier", "no analysis"},
		Notes: []string{fmt.Sprintf("Sessions labelled success, partial, failure or abandoned are scored (%d labelled none and %d without an outcome label are not); "+
			"the majority baseline always predicts the most common labelled outcome; Brier scores the confidence as the probability that the outcome is right (0.25: always 0.5).",
			first.Excluded, first.Unlabelled)}}
	for _, o := range results {
		r := o.Report
		acc.Rows = append(acc.Rows, htmlreport.Row{Cells: []string{o.Config, reports.FormatEstimate(r.Accuracy), fmt.Sprintf("%d/%d", r.Correct, r.Scored),
			reports.FormatValue(r.Majority), reports.FormatValue(r.BalancedAccuracy), reports.FormatValue(r.MacroF1),
			reports.FormatValue(r.MeanConfidence), reports.FormatValue(r.Brier), fmt.Sprint(r.Unpredicted)}})
	}
	order := eval.OutcomeOrder()
	matrix := htmlreport.Table{Title: results[0].Config + ": sessions by outcome, labelled (rows) and predicted (columns)",
		Columns: append([]string{"labelled"}, order...),
		Notes:   []string{"Row none: sessions labelled none (not scored); column none: no final analysis."}}
	for i, label := range order {
		cells := []string{label}
		for j := range order {
			cells = append(cells, fmt.Sprint(first.Matrix[i][j]))
		}
		matrix.Rows = append(matrix.Rows, htmlreport.Row{Cells: cells})
	}
	return []htmlreport.Table{acc, matrix}
}
