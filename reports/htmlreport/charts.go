package htmlreport

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/loopwatch/loopwatch/eval"
)

// maxListed is the most interventions a session's caption lists.
const maxListed = 20

// maxMarkers is the most points a line shows as dots; longer lines are lines only.
const maxMarkers = 40

// lineClass is the CSS class of the i-th series' line.
func lineClass(i int, dashed bool) string {
	c := fmt.Sprintf("line s%d", colour(i))
	if dashed {
		c += " dash"
	}
	return c
}

// legendItem is one entry of a legend: a swatch and its text.
type legendItem struct {
	swatch string // SVG content of a 28×12 swatch
	name   string
	stat   string
}

func lineSwatch(class string) string {
	return fmt.Sprintf(`<line class="%s" x1="2" y1="6" x2="26" y2="6"/>`, class)
}

func (p *page) legend(items []legendItem) {
	p.printf("<ul class=\"legend\">\n")
	for _, it := range items {
		p.printf(`<li><svg viewBox="0 0 28 12" width="28" height="12" aria-hidden="true">%s</svg><span>%s</span>`, it.swatch, esc(it.name))
		if it.stat != "" {
			p.printf(` <span class="stat">%s</span>`, esc(it.stat))
		}
		p.printf("</li>\n")
	}
	p.printf("</ul>\n")
}

// rate formats a metric for a legend; "—" when undefined.
func rate(v float64) string {
	if !drawable(v) {
		return "—"
	}
	return num(v, 3)
}

func (p *page) curves(sets []CurveSet) {
	for _, set := range sets {
		p.printf("<div class=\"block\">\n<h3>%s</h3>\n", esc(set.Detector))
		if !slices.ContainsFunc(set.Series, func(s CurveSeries) bool { return len(s.Curve.Points) > 0 }) {
			p.printf("<p class=\"none\">No scored observations with labels: no curve to draw.</p>\n")
			p.note(set.Note)
			p.printf("</div>\n")
			continue
		}
		p.printf("<div class=\"charts\">\n")
		p.prChart(set)
		p.rocChart(set)
		p.printf("</div>\n")
		var items []legendItem
		for i, s := range set.Series {
			c := s.Curve
			stat := "no scored observations"
			if len(c.Points) > 0 {
				stat = fmt.Sprintf("AP %s · ROC AUC %s · %d positive, %d negative · %d threshold%s",
					rate(c.AP()), rate(c.AUC()), c.Positives, c.Negatives, len(c.Points), plural(len(c.Points)))
				if n := unscored(c); n > 0 {
					stat += fmt.Sprintf(" · the curve ranks last %d unscored observation%s, which the metrics' AP and AUC leave out", n, plural(n))
				}
			}
			for _, op := range s.Points {
				mark := "●"
				if op.Hollow {
					mark = "○"
				}
				stat += fmt.Sprintf(" · %s %s precision %s, recall %s", mark, op.Label, rate(op.Precision), rate(op.Recall))
			}
			items = append(items, legendItem{lineSwatch(lineClass(i, s.Dashed)), s.Name, stat})
		}
		p.legend(items)
		p.note(set.Note)
		p.printf("</div>\n")
	}
}

// unscored counts the observations a curve ranks at −Inf: those the detector gave no
// score, which the curve flags only at its last point and [eval.Evaluate]'s AP and ROC
// AUC leave out — so the curve's own figures differ from the metrics'.
func unscored(c eval.Curve) int {
	n := len(c.Points)
	if n == 0 || !math.IsInf(c.Points[n-1].Threshold, -1) {
		return 0
	}
	last, before := c.Points[n-1], 0
	if n > 1 {
		before = c.Points[n-2].TP + c.Points[n-2].FP
	}
	return last.TP + last.FP - before
}

// prSteps is the PR curve as scikit-learn's average precision integrates it: at each
// point's precision from the previous point's recall (0 for the first) to its own, so
// the area under the drawn line is the AP.
func prSteps(c eval.Curve) []XY {
	if c.Positives == 0 || len(c.Points) == 0 {
		return nil
	}
	pts := make([]XY, 0, 2*len(c.Points))
	prev := 0.0
	for _, pt := range c.Points {
		pts = append(pts, XY{prev, pt.Precision}, XY{pt.Recall, pt.Precision})
		prev = pt.Recall
	}
	return pts
}

func (p *page) prChart(set CurveSet) {
	p.printf("<figure>\n")
	prevalence := math.NaN()
	drawn := false
	for _, s := range set.Series {
		if s.Curve.Positives > 0 {
			drawn = true
			if math.IsNaN(prevalence) {
				prevalence = float64(s.Curve.Positives) / float64(s.Curve.Positives+s.Curve.Negatives)
			}
		}
	}
	if !drawn {
		p.printf("<p class=\"none\">Precision–recall undefined: no positive observation.</p>\n</figure>\n")
		return
	}
	c := newChart(&p.b, 420, 340, unitAxis("recall"), unitAxis("precision"))
	c.open(set.Detector + ": precision–recall")
	if prevalence < 1 {
		c.hline("refline", prevalence, "no skill "+num(prevalence, 2))
	}
	for i, s := range set.Series {
		c.path(lineClass(i, s.Dashed), prSteps(s.Curve))
		if len(s.Curve.Points) <= maxMarkers && s.Curve.Positives > 0 {
			var pts []XY
			for _, pt := range s.Curve.Points {
				pts = append(pts, XY{pt.Recall, pt.Precision})
			}
			c.markers(fmt.Sprintf("pt f%d", colour(i)), 3, pts)
		}
	}
	for i, s := range set.Series {
		for _, op := range s.Points {
			class := fmt.Sprintf("op f%d", colour(i))
			if op.Hollow {
				class = fmt.Sprintf("op ring s%d", colour(i))
			}
			c.point(class, 6, XY{op.Recall, op.Precision}, fmt.Sprintf("%s %s: precision %s, recall %s", s.Name, op.Label, rate(op.Precision), rate(op.Recall)))
		}
	}
	c.close()
	p.printf("<figcaption>Precision–recall, one step per threshold (the area under the steps is the AP)</figcaption>\n</figure>\n")
}

func (p *page) rocChart(set CurveSet) {
	p.printf("<figure>\n")
	if !slices.ContainsFunc(set.Series, func(s CurveSeries) bool { return s.Curve.Positives > 0 && s.Curve.Negatives > 0 }) {
		p.printf("<p class=\"none\">ROC undefined: the observations are all of one class.</p>\n</figure>\n")
		return
	}
	c := newChart(&p.b, 420, 340, unitAxis("false positive rate"), unitAxis("true positive rate (recall)"))
	c.open(set.Detector + ": ROC")
	c.path("refline", []XY{{0, 0}, {1, 1}})
	for i, s := range set.Series {
		fpr, tpr := s.Curve.ROC()
		pts := make([]XY, len(fpr))
		for k := range fpr {
			pts[k] = XY{fpr[k], tpr[k]}
		}
		c.path(lineClass(i, s.Dashed), pts)
		if len(pts) > 1 && len(pts) <= maxMarkers+1 {
			c.markers(fmt.Sprintf("pt f%d", colour(i)), 3, pts[1:])
		}
	}
	c.close()
	p.printf("<figcaption>ROC, from nothing flagged (0, 0) to everything flagged (1, 1); dashed grey: chance</figcaption>\n</figure>\n")
}

func (p *page) sweeps(sweeps []Sweep) {
	for _, sw := range sweeps {
		p.printf("<div class=\"block\">\n<figure>\n")
		var ex, ey extent
		for _, s := range sw.Series {
			for _, pt := range s.Points {
				if drawable(pt.X) && drawable(pt.Y) {
					ex.add(pt.X)
					ey.add(pt.Y)
				}
			}
		}
		for _, m := range sw.Marks {
			ex.add(m.X)
		}
		if ey.n == 0 {
			p.printf("<p class=\"none\">%s: no finite points.</p>\n</figure>\n", esc(sw.Title))
			p.note(sw.Note)
			p.printf("</div>\n")
			continue
		}
		c := newChart(&p.b, 760, 300, niceAxis(ex, 10, false, sw.XLabel), valueAxis(ey, sw.YLabel))
		c.open(sw.Title)
		for _, m := range sw.Marks {
			c.vline("mark", m.X, m.Label, m.Label)
		}
		var items []legendItem
		for i, s := range sw.Series {
			cls := lineClass(i, s.Dashed)
			c.path(cls, s.Points)
			if len(s.Points) <= maxMarkers {
				c.markers(fmt.Sprintf("pt f%d", colour(i)), 2.5, s.Points)
			}
			items = append(items, legendItem{lineSwatch(cls), s.Name, ""})
		}
		c.close()
		p.printf("<figcaption><b>%s</b></figcaption>\n</figure>\n", esc(sw.Title))
		p.legend(items)
		p.note(sw.Note)
		p.printf("</div>\n")
	}
}

// bin is one histogram bar: values in [lo, hi).
type bin struct {
	lo, hi float64
	n      int
}

// maxIntegerBins is the widest range of whole numbers that gets one bin each.
const maxIntegerBins = 40

// histogram bins the finite values: one bin per whole number when integer and the
// range allows, else about √n bins (5 to 30) of a round width. It returns the bins,
// the finite values sorted, and the number of values left out.
func histogram(values []float64, integer bool) ([]bin, []float64, int) {
	var vs []float64
	for _, v := range values {
		if drawable(v) {
			vs = append(vs, v)
		}
	}
	left := len(values) - len(vs)
	if len(vs) == 0 {
		return nil, nil, left
	}
	slices.Sort(vs)
	lo, hi := vs[0], vs[len(vs)-1]
	var start, step float64
	var n int
	if integer && hi-lo < maxIntegerBins && lo == math.Trunc(lo) && hi == math.Trunc(hi) {
		start, step, n = lo-0.5, 1, int(hi-lo)+1
	} else {
		k := min(max(int(math.Ceil(math.Sqrt(float64(len(vs))))), 5), 30)
		span := hi - lo
		if span == 0 {
			span = math.Max(math.Abs(lo), 1)
		}
		step, _ = niceStep(span / float64(k))
		start = math.Floor(lo/step) * step
		n = int(math.Floor((hi-start)/step)) + 1
	}
	bins := make([]bin, n)
	for i := range bins {
		bins[i] = bin{lo: start + float64(i)*step, hi: start + float64(i+1)*step}
	}
	for _, v := range vs {
		i := min(max(int(math.Floor((v-start)/step)), 0), n-1)
		bins[i].n++
	}
	return bins, vs, left
}

// short formats a statistic with decimals suited to its size.
func short(v float64) string {
	switch a := math.Abs(v); {
	case a >= 100:
		return num(v, 0)
	case a >= 10:
		return num(v, 1)
	}
	return num(v, 2)
}

func (p *page) histograms(hs []Histogram) {
	p.printf("<div class=\"charts\">\n")
	for _, h := range hs {
		p.printf("<figure>\n")
		bins, vs, left := histogram(h.Values, h.Integer)
		if len(bins) == 0 {
			p.printf("<p class=\"none\">%s: no values.</p>\n", esc(h.Title))
		} else {
			var ex, ey extent
			ex.add(bins[0].lo, bins[len(bins)-1].hi)
			ey.add(0)
			for _, b := range bins {
				ey.add(float64(b.n))
			}
			c := newChart(&p.b, 420, 260, niceAxis(ex, 8, h.Integer, h.XLabel), niceAxis(ey, 5, true, "count"))
			c.open(h.Title)
			for _, b := range bins {
				if b.n == 0 {
					continue
				}
				x0, x1, y := c.px(b.lo), c.px(b.hi), c.py(float64(b.n))
				c.printf(`<rect class="bar" x="%s" y="%s" width="%s" height="%s"><title>%s–%s: %d</title></rect>`+"\n",
					coord(x0), coord(y), coord(x1-x0), coord(c.py(0)-y), short(b.lo), short(b.hi), b.n)
			}
			c.close()
		}
		p.printf("<figcaption><b>%s</b>", esc(h.Title))
		if len(vs) > 0 {
			mean := 0.0
			for _, v := range vs {
				mean += v
			}
			mean /= float64(len(vs))
			p.printf("<br/>n %d · median %s · mean %s · range %s to %s", len(vs), short(median(vs)), short(mean), short(vs[0]), short(vs[len(vs)-1]))
		}
		if left > 0 {
			p.printf("<br/>%d value%s not finite (or beyond ±1e15), left out", left, plural(left))
		}
		if h.Note != "" {
			p.printf("<br/>%s", esc(h.Note))
		}
		p.printf("</figcaption>\n</figure>\n")
	}
	p.printf("</div>\n")
}

// median of sorted values.
func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// hasThreshold reports whether a threshold is to be drawn.
func hasThreshold(t float64) bool { return drawable(t) && t > 0 }

// threshold draws a detector's threshold as a labelled dashed line, if it has one.
func (c *chart) threshold(t float64) {
	if hasThreshold(t) {
		c.hline("threshold", t, "threshold "+num(t, 2))
	}
}

func (p *page) runs(runs []RunTrajectory) {
	p.printf("<div class=\"charts\">\n")
	for _, r := range runs {
		p.printf("<figure>\n")
		var ex, ey extent
		pts := make([]XY, len(r.Cycles))
		var trig []XY
		for i, cs := range r.Cycles {
			pts[i] = XY{float64(cs.Cycle), cs.Score}
			ex.add(pts[i].X)
			ey.add(cs.Score)
			if cs.Triggered {
				trig = append(trig, pts[i])
			}
		}
		if hasThreshold(r.Threshold) {
			ey.add(r.Threshold)
		}
		if len(r.Cycles) == 0 {
			p.printf("<p class=\"none\">No cycles.</p>\n")
		} else {
			c := newChart(&p.b, 380, 210, niceAxis(ex, 6, true, "cycle"), valueAxis(ey, "struggle score"))
			c.open(r.Key + ": struggle score per cycle")
			c.threshold(r.Threshold)
			c.path(lineClass(0, false), pts)
			c.markers("pt f0", 3, pts)
			c.markers("trig", 4.5, trig)
			c.close()
		}
		p.printf("<figcaption><b>%s</b>", esc(r.Key))
		if r.Label != "" {
			p.printf(" · %s", esc(r.Label))
		}
		if r.Caption != "" {
			p.printf("<br/>%s", esc(r.Caption))
		}
		p.printf("</figcaption>\n</figure>\n")
	}
	p.printf("</div>\n")
	p.legend([]legendItem{
		{lineSwatch(lineClass(0, false)), "struggle score", ""},
		{`<circle class="trig" cx="14" cy="6" r="4.5"/>`, "struggle detected", ""},
		{lineSwatch("threshold"), "composite threshold", ""},
	})
}

func (p *page) sessions(sessions []SessionTrajectory) {
	for _, s := range sessions {
		p.printf("<div class=\"block\">\n<figure>\n")
		var ex, ey extent
		pts := make([]XY, len(s.EMA))
		for i, v := range s.EMA {
			pts[i] = XY{float64(i + 1), v}
			ex.add(pts[i].X)
			ey.add(v)
		}
		for _, m := range s.Interventions {
			ex.add(float64(m.Index))
		}
		for _, f := range s.Friction {
			ex.add(float64(f))
		}
		if hasThreshold(s.Threshold) {
			ey.add(s.Threshold)
		}
		if ex.n == 0 {
			p.printf("<p class=\"none\">No events.</p>\n")
		} else {
			c := newChart(&p.b, 1100, 240, niceAxis(ex, 12, true, "event"), valueAxis(ey, "frustration EMA"))
			c.open(s.Key + ": frustration per event")
			c.threshold(s.Threshold)
			for _, f := range s.Friction {
				x := float64(f)
				c.vline("fline", x, "", fmt.Sprintf("labelled friction at event %d", f))
				px, py := c.px(x), c.t+c.plotH
				c.printf(`<path class="friction" d="M%s %s L%s %s L%s %s L%s %s Z"><title>labelled friction at event %d</title></path>`+"\n",
					coord(px), coord(py-12), coord(px+5), coord(py-6), coord(px), coord(py), coord(px-5), coord(py-6), f)
			}
			c.path(lineClass(0, false), pts)
			for _, m := range s.Interventions {
				x := float64(m.Index)
				title := fmt.Sprintf("%s at event %d", m.Label, m.Index)
				c.vline("iv", x, "", title)
				px := c.px(x)
				c.printf(`<path class="ivmark" d="M%s %s L%s %s L%s %s Z"><title>%s</title></path>`+"\n",
					coord(px-5), coord(c.t), coord(px+5), coord(c.t), coord(px), coord(c.t+8), esc(title))
			}
			c.close()
		}
		p.printf("<figcaption><b>%s</b>", esc(s.Key))
		if s.Label != "" {
			p.printf(" · %s", esc(s.Label))
		}
		p.printf(" · %d event%s, %d intervention%s, %d labelled friction moment%s",
			len(s.EMA), plural(len(s.EMA)), len(s.Interventions), plural(len(s.Interventions)), len(s.Friction), plural(len(s.Friction)))
		if s.Caption != "" {
			p.printf("<br/>%s", esc(s.Caption))
		}
		if len(s.Interventions) > 0 {
			var ivs []string
			for i, m := range s.Interventions {
				if i == maxListed {
					ivs = append(ivs, fmt.Sprintf("… %d more", len(s.Interventions)-maxListed))
					break
				}
				ivs = append(ivs, fmt.Sprintf("%s at %d", m.Label, m.Index))
			}
			p.printf("<br/>interventions: %s", esc(strings.Join(ivs, ", ")))
		}
		p.printf("</figcaption>\n</figure>\n</div>\n")
	}
	p.legend([]legendItem{
		{lineSwatch(lineClass(0, false)), "frustration EMA", ""},
		{`<line class="iv" x1="14" y1="0" x2="14" y2="12"/><path class="ivmark" d="M9 0 L19 0 L14 7 Z"/>`, "intervention", ""},
		{`<path class="friction" d="M14 0 L19 6 L14 12 L9 6 Z"/>`, "labelled friction moment", ""},
		{lineSwatch("threshold"), "frustration threshold", ""},
	})
}
