package tune

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/loopwatch/loopwatch"
	"github.com/loopwatch/loopwatch/analyze/assess"
	"github.com/loopwatch/loopwatch/analyze/struggle"
	"github.com/loopwatch/loopwatch/eval"
	"github.com/loopwatch/loopwatch/reports"
	"github.com/loopwatch/loopwatch/reports/htmlreport"
)

// Trajectories is how many runs' and sessions' trajectories a report draws.
const Trajectories = 6

// Report builds the sweep's HTML report: per target the side-by-side table (seed
// preset, shipped today, default, tuned — held out), the paired comparison and the
// choices; the PR and ROC curves of those four; a sweep chart per swept parameter
// (the best objective among configurations with each value, with the default and the
// chosen value marked); lead-time and delay histograms and the trajectories of the
// top runs and sessions under the configuration to ship; problems and notes.
func Report(res *Result, title string) *htmlreport.Data {
	sum := res.Summary
	d := &htmlreport.Data{Title: title}
	var grid []string
	for _, p := range res.Space.Params {
		grid = append(grid, p.Name+"="+p.Spec)
	}
	d.Facts = []htmlreport.Fact{
		{Name: "input", Value: fmt.Sprintf("%s: %d runs, %d sessions (%d events), %d problems",
			reports.FilesRead(sum), sum.Runs, sum.Sessions, sum.Events, sum.TotalProblems())},
		{Name: "labels", Value: res.LabelsNote},
		{Name: "grid", Value: strings.Join(grid, "; ")},
		{Name: "scoring", Value: res.Scheme},
		{Name: "objective", Value: res.Objective.String()},
		{Name: "input fingerprint", Value: sum.Fingerprint},
		{Name: "loopwatch", Value: loopwatch.Version},
	}
	for _, tr := range res.Targets {
		res.reportTarget(d, tr)
	}
	d.Problems, d.ProblemsTotal = sum.Problems, sum.TotalProblems()
	for _, what := range slices.Sorted(maps.Keys(sum.Notes)) {
		d.Notes = append(d.Notes, fmt.Sprintf("%s: %d", what, sum.Notes[what]))
	}
	for _, w := range res.Warnings {
		d.Notes = append(d.Notes, w.Error())
	}
	return d
}

// reportTarget adds one target's sections.
func (res *Result) reportTarget(d *htmlreport.Data, tr *TargetResult) {
	name := string(tr.Target)
	if tr.Target == TargetFriction {
		t := htmlreport.Table{Title: name + ": interventions at labelled friction moments, held out",
			Columns: []string{"config", "sessions", "moments", "interventions", "recall", "precision", "false alarms /100 turns", "median delay"}}
		for _, r := range tr.Rows {
			m := r.Moments
			delay := "—"
			if !math.IsNaN(m.MedianDelaySeconds) {
				delay = fmt.Sprintf("%.0f s", m.MedianDelaySeconds)
			}
			t.Rows = append(t.Rows, htmlreport.Row{Cells: []string{r.Name, fmt.Sprint(m.Sessions), fmt.Sprint(m.Moments),
				fmt.Sprint(m.Interventions), reports.FormatEstimate(m.Recall), reports.FormatEstimate(m.Precision),
				reports.FormatRate(m.FalseAlarmsPer100), delay}})
		}
		d.Tables = append(d.Tables, t)
	} else {
		var dets []reports.DetectorReport
		for _, r := range tr.Rows {
			dets = append(dets, reports.DetectorReport{Detector: name, Config: r.Name, Report: r.Report})
		}
		d.Tables = append(d.Tables, htmlreport.MetricsTable(name+": side by side, held out", dets))
	}
	d.Tables = append(d.Tables, res.choiceTable(tr))
	if len(tr.Curves) > 0 {
		set := htmlreport.CurveSet{Detector: tr.Curves[0].Detector, Note: curveNote(tr.Target)}
		for _, c := range tr.Curves {
			set.Series = append(set.Series, htmlreport.CurveSeries{Name: c.Config, Curve: c.Curve, Dashed: c.Config != RowTuned && c.Config != RowDefault})
		}
		d.Curves = append(d.Curves, set)
	}
	d.Sweeps = append(d.Sweeps, res.sweeps(tr)...)
	if tr.Final < 0 {
		return
	}
	ship := tr.Configs[tr.Final]
	switch tr.Target {
	case TargetStruggle:
		res.struggleTrajectories(d, tr, ship)
	default:
		res.sessionTrajectories(d, tr, ship)
	}
}

// choiceTable lists the paired comparison, the verdict and each fold's choice.
func (res *Result) choiceTable(tr *TargetResult) htmlreport.Table {
	t := htmlreport.Table{Title: string(tr.Target) + ": tuned − default on the held-out units (paired bootstrap)",
		Columns: []string{"metric", "default", "tuned", "difference", "interval"}}
	for _, p := range tr.Paired {
		status := htmlreport.StatusWarn
		if !p.IncludesZero() {
			status = htmlreport.StatusOK
			if (p.Diff > 0) != p.HigherIsBetter {
				status = htmlreport.StatusBad
			}
		}
		t.Rows = append(t.Rows, htmlreport.Row{Cells: []string{p.Metric, fnum(p.A), fnum(p.B), signed(p.Diff),
			"[" + fnum(p.Low) + ", " + fnum(p.High) + "]"}, Status: status})
	}
	t.Notes = append(t.Notes, "verdict: "+tr.Verdict)
	for f, c := range tr.FoldChoice {
		if !tr.FoldHeldOut[f] {
			continue
		}
		what := "nothing (no configuration meets the objective on the other folds)"
		if w := tr.FoldUnmeasured[f]; w != "" {
			what = "nothing (the objective cannot be measured on the other folds: they hold " + w + ")"
		}
		if c >= 0 {
			what = fmt.Sprintf("#%d %s", tr.Configs[c].ID, strings.Join(tr.Differences(res.Space, tr.Configs[c]), ", "))
		}
		t.Notes = append(t.Notes, fmt.Sprintf("fold %d: chose %s", f, what))
	}
	if tr.Final >= 0 {
		c := tr.Configs[tr.Final]
		t.Notes = append(t.Notes, fmt.Sprintf("to ship: #%d (config_hash %s) %s", c.ID, c.Hash, strings.Join(tr.Differences(res.Space, c), ", ")))
	} else if tr.FinalUnmeasured != "" {
		t.Notes = append(t.Notes, fmt.Sprintf("to ship: nothing — the objective cannot be measured on the %s it is chosen on (they hold %s): keep the default",
			tr.Target.Unit(), tr.FinalUnmeasured))
	}
	for _, w := range tr.Warnings {
		t.Notes = append(t.Notes, w.Error())
	}
	return t
}

// sweeps draws, for each numeric parameter of the target's family, the best objective
// and its precision and recall among the configurations with each value, on every
// unit (in-sample: a profile of the grid, not an estimate), with the default and the
// configuration to ship marked.
func (res *Result) sweeps(tr *TargetResult) []htmlreport.Sweep {
	var out []htmlreport.Sweep
	values := make([][]any, len(tr.Configs))
	for i, c := range tr.Configs {
		values[i] = res.Space.Values(c)
	}
	for pi, p := range res.Space.Params {
		if p.Family != tr.Target.Family() || (p.Kind != Number && p.Kind != Integer && p.Kind != Duration) {
			continue
		}
		type best struct {
			x  float64
			sc eval.Score
		}
		byX := map[float64]best{}
		for i, c := range tr.Configs {
			if !c.Candidate() {
				continue
			}
			x, ok := asFloat(values[i][pi])
			if !ok {
				continue
			}
			sc := tr.Evals[i].all.score(tr.Target)
			if b, seen := byX[x]; !seen || res.Objective.Compare(sc, b.sc) < 0 {
				byX[x] = best{x, sc}
			}
		}
		xs := slices.Sorted(maps.Keys(byX))
		sw := htmlreport.Sweep{Title: fmt.Sprintf("%s: the best configuration at each %s (all units, in-sample)", tr.Target, p.Name),
			XLabel: p.Column(), YLabel: "metric",
			Series: []htmlreport.Series{{Name: res.Objective.Metric()}, {Name: "precision", Dashed: true}, {Name: "recall", Dashed: true}},
			Note:   "Each point is the configuration the objective prefers among those with this value, scored on every unit: a profile of the grid. The held-out estimate of the choice is in the table above."}
		for _, x := range xs {
			sc := byX[x].sc
			sw.Series[0].Points = append(sw.Series[0].Points, htmlreport.XY{X: x, Y: objectiveValue(res.Objective, sc)})
			sw.Series[1].Points = append(sw.Series[1].Points, htmlreport.XY{X: x, Y: sc.Precision})
			sw.Series[2].Points = append(sw.Series[2].Points, htmlreport.XY{X: x, Y: sc.Recall})
		}
		def, defOK := asFloat(values[0][pi])
		chosen, chosenOK := 0.0, false
		if tr.Final >= 0 {
			chosen, chosenOK = asFloat(values[tr.Final][pi])
		}
		switch {
		case defOK && chosenOK && def == chosen:
			sw.Marks = append(sw.Marks, htmlreport.Mark{X: def, Label: "default = chosen"})
		default:
			if defOK {
				sw.Marks = append(sw.Marks, htmlreport.Mark{X: def, Label: "default"})
			}
			if chosenOK {
				sw.Marks = append(sw.Marks, htmlreport.Mark{X: chosen, Label: "chosen"})
			}
		}
		out = append(out, sw)
	}
	return out
}

// objectiveValue is the objective's figure a sweep chart draws (a cost is drawn as
// it is, on the chart's own scale).
func objectiveValue(o eval.Objective, sc eval.Score) float64 {
	if o.Kind == eval.ObjectiveFBeta {
		return sc.FBeta(o.Beta)
	}
	return o.Value(sc)
}

func asFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int64:
		return float64(x), true
	}
	return 0, false
}

// struggleTrajectories draws the score per cycle of the top runs under the
// configuration to ship, and the lead times of its detections — over every unit,
// those the configuration was chosen on included, which their titles say.
func (res *Result) struggleTrajectories(d *htmlreport.Data, tr *TargetResult, ship *Config) {
	type ranked struct {
		u     int
		score float64
	}
	var lead []float64
	var runs []ranked
	dt := tr.units
	for _, u := range dt.idx {
		r := &res.data.runs[u]
		out := r.traces[ship.trace].Outcome(ship.Struggle)
		runs = append(runs, ranked{u, out.MaxScore})
		if out.Triggered {
			lead = append(lead, float64(out.LeadCycles))
		}
	}
	slices.SortStableFunc(runs, func(a, b ranked) int {
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(res.data.runs[a.u].key, res.data.runs[b.u].key))
	})
	for _, rk := range runs[:min(Trajectories, len(runs))] {
		r := &res.data.runs[rk.u]
		t := r.traces[ship.trace]
		rt := htmlreport.RunTrajectory{Key: r.key, Label: string(r.label), Threshold: ship.Struggle.CompositeThreshold,
			Caption: "under the configuration to ship (every unit, those it was chosen on included: in-sample)"}
		for i := range t.Cycles {
			c := &t.Cycles[i]
			sig := struggle.Score(&c.Measures, ship.Struggle)
			rt.Cycles = append(rt.Cycles, htmlreport.CycleScore{Cycle: c.Cycle, Score: sig.Score,
				Triggered: sig.Triggered && !c.Approved})
		}
		d.Runs = append(d.Runs, rt)
	}
	d.LeadTimes = append(d.LeadTimes, htmlreport.Histogram{Title: "struggle: cycles left after the first trigger (configuration to ship, every unit, those it was chosen on included: in-sample)",
		XLabel: "cycles", Values: lead, Integer: true})
}

// sessionTrajectories draws the frustration EMA per event of selected sessions under
// the configuration to ship — the labelled sessions with friction moments first, then
// those with the most interventions — with its interventions and the moments marked,
// and the delays from moments to the interventions that caught them.
func (res *Result) sessionTrajectories(d *htmlreport.Data, tr *TargetResult, ship *Config) {
	type ranked struct {
		u             int
		moments, ivs  int
		interventions []int
		kinds         []string
	}
	var all []ranked
	var dec assess.Decision
	for _, u := range tr.units.idx {
		su := &res.data.sessions[u]
		su.traces[ship.trace].Decide(ship.Assess.Detect.EMA, ship.Assess.Breaker, &dec)
		rk := ranked{u: u, moments: len(su.moments), ivs: len(dec.Interventions), interventions: slices.Clone(dec.Interventions)}
		for _, k := range dec.Kinds {
			rk.kinds = append(rk.kinds, k.String())
		}
		all = append(all, rk)
	}
	slices.SortStableFunc(all, func(a, b ranked) int {
		return cmp.Or(cmp.Compare(b.moments, a.moments), cmp.Compare(b.ivs, a.ivs),
			cmp.Compare(res.data.sessions[a.u].key, res.data.sessions[b.u].key))
	})
	for _, rk := range all[:min(Trajectories, len(all))] {
		su := &res.data.sessions[rk.u]
		st := htmlreport.SessionTrajectory{Key: su.key, Label: string(su.label), Threshold: ship.Assess.Breaker.FrustrationThreshold,
			EMA: su.traces[ship.trace].Frustration(ship.Assess.Detect.EMA), Caption: "under the configuration to ship (every unit, those it was chosen on included: in-sample)"}
		for k, i := range rk.interventions {
			st.Interventions = append(st.Interventions, htmlreport.Marker{Index: i + 1, Label: rk.kinds[k]})
		}
		for _, m := range su.moments {
			st.Friction = append(st.Friction, m.Index+1)
		}
		d.Sessions = append(d.Sessions, st)
	}
	for _, r := range tr.Rows {
		if r.Name == RowTuned && r.Moments != nil {
			d.LeadTimes = append(d.LeadTimes, htmlreport.Histogram{Title: "friction: seconds from a moment to the intervention that caught it (tuned, held out)",
				XLabel: "seconds", Values: r.Moments.DelaysSeconds})
		}
	}
}

// curveNote says what a target's curve ranks by.
func curveNote(t Target) string {
	switch t {
	case TargetStruggle:
		return "Runs ranked by their peak struggle score; positive: a run labelled struggling. Held-out units; the tuned curve pools each fold's choice."
	case TargetFriction:
		return "The breaker's ranking of the held-out sessions with an outcome label by their peak frustration EMA, under each configuration (tuned for friction: each fold's choice); positive: a bad outcome."
	}
	return "Sessions ranked by their peak frustration EMA; positive: a bad outcome. Held-out units; the tuned curve pools each fold's choice."
}
