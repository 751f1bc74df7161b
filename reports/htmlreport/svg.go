package htmlreport

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// palette is the series colours (Okabe–Ito, distinguishable with the common colour
// vision deficiencies), used in order and then again.
var palette = []string{"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9"}

// colour returns the class suffix of the i-th series' colour.
func colour(i int) int { return i % len(palette) }

// SeriesColours returns the colours of the series, in the order series get them
// (#rrggbb): the first configuration of a chart gets the first.
func SeriesColours() []string { return slices.Clone(palette) }

// axis is a data range with its ticks.
type axis struct {
	lo, hi   float64
	ticks    []float64
	decimals int // of the tick labels
	label    string
}

// extent is the range of the finite values it has seen.
type extent struct {
	lo, hi float64
	n      int
}

func (e *extent) add(vs ...float64) {
	for _, v := range vs {
		if !drawable(v) {
			continue
		}
		if e.n == 0 || v < e.lo {
			e.lo = v
		}
		if e.n == 0 || v > e.hi {
			e.hi = v
		}
		e.n++
	}
}

// niceStep is the 1, 2 or 5 × 10ᵏ at or above raw, and its k.
func niceStep(raw float64) (float64, int) {
	k := int(math.Floor(math.Log10(raw)))
	f := raw / math.Pow(10, float64(k))
	var m float64
	switch {
	case f <= 1:
		m = 1
	case f <= 2:
		m = 2
	case f <= 5:
		m = 5
	default:
		m, k = 1, k+1
	}
	return m * math.Pow(10, float64(k)), k
}

// niceAxis covers the extent with about target ticks at round values, the ends on
// ticks. An empty extent is [0, 1]; a single value gets room on both sides. integer
// keeps the step at 1 or more (cycles, event numbers).
func niceAxis(e extent, target int, integer bool, label string) axis {
	lo, hi := e.lo, e.hi
	switch {
	case e.n == 0:
		lo, hi = 0, 1
	case lo == hi && integer:
		lo, hi = lo-1, hi+1
	case lo == hi && lo == 0:
		hi = 1
	case lo == hi:
		d := math.Abs(lo) / 10
		lo, hi = lo-d, hi+d
	}
	step, k := niceStep((hi - lo) / float64(max(target, 1)))
	if integer && step < 1 {
		step, k = 1, 0
	}
	a := axis{lo: math.Floor(lo/step) * step, hi: math.Ceil(hi/step) * step, decimals: max(0, -k), label: label}
	n := int(math.Round((a.hi - a.lo) / step))
	for i := 0; i <= n; i++ {
		a.ticks = append(a.ticks, roundTo(a.lo+float64(i)*step, a.decimals))
	}
	a.lo, a.hi = a.ticks[0], a.ticks[n]
	return a
}

// unitAxis is [0, 1] with ticks every 0.2: rates and probabilities.
func unitAxis(label string) axis {
	return axis{lo: 0, hi: 1, ticks: []float64{0, 0.2, 0.4, 0.6, 0.8, 1}, decimals: 1, label: label}
}

// valueAxis is unitAxis when every value is a rate in [0, 1], else niceAxis.
func valueAxis(e extent, label string) axis {
	if e.n == 0 || (e.lo >= 0 && e.hi <= 1) {
		return unitAxis(label)
	}
	return niceAxis(e, 5, false, label)
}

func roundTo(v float64, decimals int) float64 {
	p := math.Pow(10, float64(decimals))
	return math.Round(v*p) / p
}

// num formats a number for people with the given decimals; never "-0".
func num(v float64, decimals int) string {
	s := strconv.FormatFloat(v, 'f', decimals, 64)
	if strings.Trim(s, "-0.") == "" {
		s = strings.TrimPrefix(s, "-")
	}
	return s
}

// coord formats a pixel coordinate (a tenth of a pixel is enough).
func coord(v float64) string { return num(math.Round(v*10)/10, 1) }

// chart draws one SVG chart: a plot area with two axes, written to b.
type chart struct {
	b            *strings.Builder
	w, h         float64
	l, r, t, btm float64 // margins
	x, y         axis
	plotW, plotH float64
}

func newChart(b *strings.Builder, w, h float64, x, y axis) *chart {
	c := &chart{b: b, w: w, h: h, l: 56, r: 16, t: 14, btm: 44, x: x, y: y}
	c.plotW, c.plotH = w-c.l-c.r, h-c.t-c.btm
	return c
}

// px and py map data to pixels.
func (c *chart) px(v float64) float64 {
	return c.l + (v-c.x.lo)/(c.x.hi-c.x.lo)*c.plotW
}

func (c *chart) py(v float64) float64 {
	return c.t + c.plotH - (v-c.y.lo)/(c.y.hi-c.y.lo)*c.plotH
}

func (c *chart) printf(format string, args ...any) { fmt.Fprintf(c.b, format, args...) }

// open starts the SVG with its accessible title and draws the grid, ticks and axis
// labels.
func (c *chart) open(title string) {
	c.printf(`<svg class="chart" viewBox="0 0 %s %s" width="%s" height="%s" role="img"><title>%s</title>`+"\n",
		coord(c.w), coord(c.h), coord(c.w), coord(c.h), esc(title))
	c.printf(`<rect class="plot" x="%s" y="%s" width="%s" height="%s"/>`+"\n", coord(c.l), coord(c.t), coord(c.plotW), coord(c.plotH))
	for _, v := range c.x.ticks {
		x := coord(c.px(v))
		c.printf(`<line class="grid" x1="%s" y1="%s" x2="%s" y2="%s"/>`, x, coord(c.t), x, coord(c.t+c.plotH))
		c.printf(`<text class="tick" x="%s" y="%s" text-anchor="middle">%s</text>`+"\n", x, coord(c.t+c.plotH+15), num(v, c.x.decimals))
	}
	for _, v := range c.y.ticks {
		y := coord(c.py(v))
		c.printf(`<line class="grid" x1="%s" y1="%s" x2="%s" y2="%s"/>`, coord(c.l), y, coord(c.l+c.plotW), y)
		c.printf(`<text class="tick" x="%s" y="%s" text-anchor="end">%s</text>`+"\n", coord(c.l-6), coord(c.py(v)+4), num(v, c.y.decimals))
	}
	c.printf(`<text class="axis" x="%s" y="%s" text-anchor="middle">%s</text>`+"\n", coord(c.l+c.plotW/2), coord(c.h-6), esc(c.x.label))
	c.printf(`<text class="axis" transform="translate(14 %s) rotate(-90)" text-anchor="middle">%s</text>`+"\n", coord(c.t+c.plotH/2), esc(c.y.label))
}

func (c *chart) close() { c.b.WriteString("</svg>\n") }

// path draws a line through the points in order; a non-finite point breaks it. A
// long line is thinned to what its pixels show: within one pixel column only the
// first, lowest, highest and last points are kept, so peaks survive.
func (c *chart) path(class string, pts []XY) {
	var d strings.Builder
	for _, run := range c.runs(pts) {
		last := ""
		for i, q := range run {
			xy := coord(q.X) + " " + coord(q.Y)
			switch {
			case i == 0:
				d.WriteString("M" + xy)
			case xy != last:
				d.WriteString(" L" + xy)
			}
			last = xy
		}
	}
	if d.Len() > 0 {
		c.printf(`<path class="%s" d="%s"/>`+"\n", class, d.String())
	}
}

// runs maps the points to pixels, split where a point is not finite, each run thinned.
func (c *chart) runs(pts []XY) [][]XY {
	var runs [][]XY
	var cur []XY
	for _, p := range pts {
		if !drawable(p.X) || !drawable(p.Y) {
			if len(cur) > 0 {
				runs = append(runs, thin(cur))
			}
			cur = nil
			continue
		}
		cur = append(cur, XY{c.px(p.X), c.py(p.Y)})
	}
	if len(cur) > 0 {
		runs = append(runs, thin(cur))
	}
	return runs
}

// thin keeps, of consecutive pixel points in the same pixel column, the first, the
// lowest, the highest and the last, in their order.
func thin(px []XY) []XY {
	out := px[:0:0]
	for i := 0; i < len(px); {
		j, col := i, math.Floor(px[i].X)
		lo, hi := i, i
		for ; j < len(px) && math.Floor(px[j].X) == col; j++ {
			if px[j].Y < px[lo].Y {
				lo = j
			}
			if px[j].Y > px[hi].Y {
				hi = j
			}
		}
		keep := []int{i, lo, hi, j - 1}
		slices.Sort(keep)
		keep = slices.Compact(keep)
		for _, k := range keep {
			out = append(out, px[k])
		}
		i = j
	}
	return out
}

// markers draws a small circle at every finite point.
func (c *chart) markers(class string, r float64, pts []XY) {
	for _, p := range pts {
		if drawable(p.X) && drawable(p.Y) {
			c.printf(`<circle class="%s" cx="%s" cy="%s" r="%s"/>`+"\n", class, coord(c.px(p.X)), coord(c.py(p.Y)), coord(r))
		}
	}
}

// point draws one circle at p with title as its tooltip, if p is drawable.
func (c *chart) point(class string, r float64, p XY, title string) {
	if drawable(p.X) && drawable(p.Y) {
		c.printf(`<circle class="%s" cx="%s" cy="%s" r="%s"><title>%s</title></circle>`+"\n",
			class, coord(c.px(p.X)), coord(c.py(p.Y)), coord(r), esc(title))
	}
}

// hline draws a horizontal reference line at y with a label at its right end.
func (c *chart) hline(class string, y float64, label string) {
	if !drawable(y) {
		return
	}
	py := coord(c.py(y))
	c.printf(`<line class="%s" x1="%s" y1="%s" x2="%s" y2="%s"/>`, class, coord(c.l), py, coord(c.l+c.plotW), py)
	if label != "" {
		c.printf(`<text class="ref" x="%s" y="%s" text-anchor="end">%s</text>`, coord(c.l+c.plotW-4), coord(c.py(y)-4), esc(label))
	}
	c.b.WriteString("\n")
}

// vline draws a vertical line at x over the plot, labelled at the top when label is
// set, with title as its tooltip.
func (c *chart) vline(class string, x float64, label, title string) {
	if !drawable(x) {
		return
	}
	px := coord(c.px(x))
	c.printf(`<line class="%s" x1="%s" y1="%s" x2="%s" y2="%s">`, class, px, coord(c.t), px, coord(c.t+c.plotH))
	if title != "" {
		c.printf(`<title>%s</title>`, esc(title))
	}
	c.b.WriteString("</line>")
	if label != "" {
		// Right of the line, or left of it where the label would leave the plot
		// (about 6.5 pixels a character at the label's size).
		lx, anchor := c.px(x)+3, "start"
		if lx+6.5*float64(utf8.RuneCountInString(label)) > c.l+c.plotW {
			lx, anchor = c.px(x)-3, "end"
		}
		c.printf(`<text class="ref" x="%s" y="%s" text-anchor="%s">%s</text>`, coord(lx), coord(c.t+11), anchor, esc(label))
	}
	c.b.WriteString("\n")
}

// maxMagnitude bounds what a chart draws: nothing real that loopwatch plots comes
// near it, and beyond it a chart's arithmetic (spans, ticks) overflows.
const maxMagnitude = 1e15

// drawable reports whether v can be drawn: not NaN, not infinite, within
// ±maxMagnitude. Other values break lines and are counted as left out.
func drawable(v float64) bool { return !math.IsNaN(v) && math.Abs(v) <= maxMagnitude }
