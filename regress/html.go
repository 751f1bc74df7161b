package regress

import (
	"fmt"
	"math"
	"strings"

	"github.com/loopwatch/loopwatch/reports/htmlreport"
)

// reportTrajectories is how many runs and sessions of each dataset the HTML report
// draws (of its first configuration): a regression page covers every dataset, so
// fewer than a replay's own report.
const reportTrajectories = 3

// HTML is the run as one self-contained page ([htmlreport]): the verdict and the rule,
// the failures and improvements, each dataset's table of comparisons (rows coloured by
// verdict), each detector's PR and ROC curves with every configuration of the dataset
// overlaid and, on the PR chart, each configuration's baseline operating point (a
// ring) beside the one measured now (a dot); then, from each dataset's first
// configuration, the threshold sweeps, lead-time histograms, the struggle and
// frustration trajectories of a few runs and sessions, and its input problems. The
// figures beyond the comparisons are there only for replays run with
// Options.Report.
func (rep *Report) HTML() *htmlreport.Data {
	d := &htmlreport.Data{Title: "loopwatch regression: " + rep.status()}
	d.Facts = []htmlreport.Fact{
		{Name: "verdict", Value: rep.Headline()},
		{Name: "registry", Value: rep.Registry},
		{Name: "rule", Value: capitalize(Rule) + " A metric that is missing (its replay failed, its detector gave no figure, or it became undefined) fails the run too" + rep.strictRule() + "."},
	}
	columns := []string{"dataset", "config", "detector", "metric", "n", "baseline", "now", "Δ", "interval", "tolerance", "verdict", "note"}
	for _, sec := range []struct {
		title string
		pick  func(Verdict) bool
	}{
		{"Failures", rep.Fails},
		{rep.improvedTitle("regress --update-baseline"), rep.improved},
	} {
		t := htmlreport.Table{Title: sec.title, Columns: columns}
		for _, r := range rep.Results {
			if sec.pick(r.Verdict) {
				t.Rows = append(t.Rows, rep.resultRow(r))
			}
		}
		if len(t.Rows) > 0 {
			d.Tables = append(d.Tables, t)
		}
	}
	problemsLeft := htmlreport.MaxProblemRows
	for _, ds := range rep.Datasets {
		t := htmlreport.Table{Title: fmt.Sprintf("%s (%s)", ds.Name, ds.Input), Columns: columns[1 : len(columns)-1]}
		if ds.Description != "" {
			t.Notes = append(t.Notes, ds.Description)
		}
		if ds.Status != "ran" {
			t.Notes = append(t.Notes, ds.Status+": "+ds.Notice)
		}
		for _, c := range ds.Configs {
			if c.Error != "" {
				t.Notes = append(t.Notes, fmt.Sprintf("%s: replay failed: %s", c.Name, c.Error))
				continue
			}
			t.Notes = append(t.Notes, fmt.Sprintf("%s: %s; labels: %s; tables beside %s", c.Name, c.Input, c.Labels, c.Out))
			for _, w := range c.Warnings {
				d.Notes = append(d.Notes, fmt.Sprintf("%s/%s: %s", ds.Name, c.Name, w))
			}
		}
		for _, r := range rep.Results {
			if r.Dataset == ds.Name {
				row := rep.resultRow(r)
				row.Cells = row.Cells[1 : len(row.Cells)-1] // the dataset is the table's; notes are in the failures table and regress.md
				t.Rows = append(t.Rows, row)
			}
		}
		d.Tables = append(d.Tables, t)
		d.Curves = append(d.Curves, rep.curves(ds)...)

		var first *ConfigRun
		for i := range ds.Configs {
			if ds.Configs[i].page != nil {
				first = &ds.Configs[i]
				break
			}
		}
		if first == nil {
			continue
		}
		prefix := ds.Name + "/" + first.Name + " · "
		for _, sw := range first.page.Sweeps {
			sw.Title = prefix + sw.Title
			d.Sweeps = append(d.Sweeps, sw)
		}
		for _, h := range first.page.LeadTimes {
			h.Title = prefix + h.Title
			d.LeadTimes = append(d.LeadTimes, h)
		}
		for _, r := range first.page.Runs[:min(len(first.page.Runs), reportTrajectories)] {
			r.Key = prefix + r.Key
			d.Runs = append(d.Runs, r)
		}
		for _, s := range first.page.Sessions[:min(len(first.page.Sessions), reportTrajectories)] {
			s.Key = prefix + s.Key
			d.Sessions = append(d.Sessions, s)
		}
		total := first.page.ProblemsTotal
		if total == 0 {
			total = len(first.page.Problems)
		}
		d.ProblemsTotal += total
		for _, p := range first.page.Problems[:min(len(first.page.Problems), problemsLeft)] {
			p.File = ds.Name + ": " + p.File
			d.Problems = append(d.Problems, p)
		}
		problemsLeft -= min(len(first.page.Problems), problemsLeft)
	}
	if len(d.Problems) == d.ProblemsTotal {
		d.ProblemsTotal = 0
	}
	return d
}

// curves are a dataset's PR and ROC curves, one set per detector with a curve, every
// configuration overlaid (the first solid, the others dashed), each with its baseline
// and measured operating points.
func (rep *Report) curves(ds DatasetReport) []htmlreport.CurveSet {
	var sets []htmlreport.CurveSet
	index := map[string]int{}
	for _, c := range ds.Configs {
		if c.page == nil {
			continue
		}
		for _, cs := range c.page.Curves {
			if len(cs.Series) == 0 {
				continue
			}
			i, ok := index[cs.Detector]
			if !ok {
				i = len(sets)
				index[cs.Detector] = i
				sets = append(sets, htmlreport.CurveSet{Detector: ds.Name + " · " + cs.Detector, Note: cs.Note})
			}
			s := cs.Series[0] // the configured detector's: a regression replay compares nothing beside it
			s.Name, s.Dashed = c.Name, len(sets[i].Series) > 0
			s.Points = rep.operatingPoints(ds.Name, c.Name, cs.Detector)
			sets[i].Series = append(sets[i].Series, s)
		}
	}
	for i := range sets {
		sets[i].Note = strings.TrimSpace(sets[i].Note + " Rings: the precision and recall recorded as the baseline; dots: measured now.")
	}
	return sets
}

// operatingPoints are the baseline and measured (recall, precision) of one detector
// under one configuration, as far as the comparisons hold them.
func (rep *Report) operatingPoints(dataset, config, detector string) []htmlreport.OperatingPoint {
	base := htmlreport.OperatingPoint{Label: "baseline", Recall: math.NaN(), Precision: math.NaN(), Hollow: true}
	now := htmlreport.OperatingPoint{Label: "now", Recall: math.NaN(), Precision: math.NaN()}
	var hasBase, hasNow bool
	for _, r := range rep.Results {
		if r.Dataset != dataset || r.Config != config || r.Detector != detector {
			continue
		}
		var b, n *float64
		switch r.Metric {
		case "precision":
			b, n = &base.Precision, &now.Precision
		case "recall":
			b, n = &base.Recall, &now.Recall
		default:
			continue
		}
		if r.HasBaseline {
			*b, hasBase = r.Baseline, true
		}
		if r.Measured {
			*n, hasNow = r.Now, true
		}
	}
	var out []htmlreport.OperatingPoint
	if hasBase {
		out = append(out, base)
	}
	if hasNow {
		out = append(out, now)
	}
	return out
}

// resultRow is one comparison as a table row, coloured by its verdict.
func (rep *Report) resultRow(r Result) htmlreport.Row {
	n := "—"
	if r.Measured {
		n = fmt.Sprint(r.N)
	}
	status := htmlreport.StatusOK
	switch {
	case rep.Fails(r.Verdict):
		status = htmlreport.StatusBad
	case r.Verdict == Improved || r.Verdict == New:
		status = htmlreport.StatusWarn
	case r.Verdict == Skipped:
		status = ""
	}
	return htmlreport.Row{Status: status, Cells: []string{r.Dataset, r.Config, r.Detector, metricName(r), n, baselineCell(r),
		nowCell(r), deltaCell(r), r.Interval.String(), tolCell(r), string(r.Verdict), r.Note}}
}
