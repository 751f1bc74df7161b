package htmlreport

import (
	"bytes"
	"encoding/xml"
	"errors"
	"flag"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/loopwatch/loopwatch/eval"
	"github.com/loopwatch/loopwatch/internal/golden"
	"github.com/loopwatch/loopwatch/replay/input"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func render(t *testing.T, d *Data) string {
	t.Helper()
	var b bytes.Buffer
	if err := Render(&b, d); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestGolden pins the fixture's report byte for byte (go test -update rewrites it);
// open testdata/fixture.html in a browser to see it.
func TestGolden(t *testing.T) {
	got := render(t, fixture())
	if again := render(t, fixture()); again != got {
		t.Fatal("two renderings of the same data differ")
	}
	golden.Check(t, filepath.Join("testdata", "fixture.html"), []byte(got), *update)
}

// parsed is what a strict XML parse of a report found: element names, text and
// attribute values.
type parsed struct {
	elements map[string]int
	text     []string
	attrs    []xml.Attr
}

// parse reads the report as XML: the page is written well-formed, so a strict XML
// parser checks that nothing broke out of its element or attribute.
func parse(t *testing.T, page string) parsed {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(page))
	dec.Strict = true
	dec.AutoClose = nil
	p := parsed{elements: map[string]int{}}
	var stack []string
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed: %v", err)
		}
		switch x := tok.(type) {
		case xml.StartElement:
			p.elements[x.Name.Local]++
			p.attrs = append(p.attrs, x.Attr...)
			stack = append(stack, x.Name.Local)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 && stack[len(stack)-1] != "style" {
				p.text = append(p.text, string(x))
			}
		}
	}
	if len(stack) != 0 {
		t.Fatalf("unclosed elements %v", stack)
	}
	return p
}

var (
	geometry  = []string{"d", "x", "y", "x1", "x2", "y1", "y2", "cx", "cy", "r", "width", "height", "viewBox", "transform"}
	nonFinite = regexp.MustCompile(`(?i)nan|inf`)
)

// checkSafe checks what every report must be: well-formed, no script, nothing loaded
// from anywhere, no NaN or infinity drawn.
func checkSafe(t *testing.T, page string) parsed {
	t.Helper()
	p := parse(t, page)
	for _, el := range []string{"script", "img", "iframe", "object", "embed", "link", "image", "use", "foreignObject"} {
		if p.elements[el] > 0 {
			t.Errorf("%d <%s> elements", p.elements[el], el)
		}
	}
	for _, a := range p.attrs {
		switch {
		case a.Name.Local == "href" && !strings.HasPrefix(a.Value, "#"):
			t.Errorf("link out of the page: %s", a.Value)
		case a.Name.Local == "src", strings.HasPrefix(strings.ToLower(a.Name.Local), "on"):
			t.Errorf("attribute %s=%q", a.Name.Local, a.Value)
		case slices.Contains(geometry, a.Name.Local) && nonFinite.MatchString(a.Value):
			t.Errorf("%s=%q draws a non-finite value", a.Name.Local, a.Value)
		}
	}
	return p
}

func TestFixtureIsSafe(t *testing.T) {
	page := render(t, fixture())
	p := checkSafe(t, page)
	for _, want := range []string{"svg", "path", "table"} {
		if p.elements[want] == 0 {
			t.Errorf("no <%s> in the fixture's report", want)
		}
	}
	// 2 PR + 2 ROC + 1 sweep + 2 histograms + 4 runs + 2 sessions.
	if got := strings.Count(page, `<svg class="chart"`); got != 13 {
		t.Errorf("%d charts, want 13", got)
	}
	if !strings.Contains(page, `content="default-src 'none'; style-src 'unsafe-inline'"`) {
		t.Error("no Content-Security-Policy forbidding scripts and loads")
	}
}

// hostile is text that would break out of an element, an attribute or a comment, with
// invalid UTF-8, NUL, a bidi override and an ampersand entity.
const hostile = "<script>alert(1)</script>\"' onload=x <!-- ]]> &amp; \xff\x00 \u202Egnp.exe"

// setStrings sets every string in v, however deep, to s.
func setStrings(v reflect.Value, s string) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(s)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Field(i).CanSet() {
				setStrings(v.Field(i), s)
			}
		}
	case reflect.Slice:
		for i := range v.Len() {
			setStrings(v.Index(i), s)
		}
	case reflect.Pointer:
		if !v.IsNil() {
			setStrings(v.Elem(), s)
		}
	}
}

// TestEscaping fills every text field of a full report with hostile text: the page
// stays well-formed, no element or attribute appears from the text, and the text is
// shown as text.
func TestEscaping(t *testing.T) {
	d := fixture()
	setStrings(reflect.ValueOf(d), hostile)
	page := render(t, d)
	p := checkSafe(t, page)
	if strings.Contains(page, "<script") || strings.Contains(page, "\xff") || strings.Contains(page, "\x00") || strings.Contains(page, "\u202E") {
		t.Error("hostile text reached the page unescaped")
	}
	shown := clean(hostile)
	n := 0
	for _, s := range p.text {
		n += strings.Count(s, shown)
	}
	for _, a := range p.attrs {
		if strings.Contains(a.Value, "alert") && a.Name.Local != "content" {
			t.Errorf("hostile text in attribute %s=%q", a.Name.Local, a.Value)
		}
	}
	// Every text field of the fixture appears at least once as text.
	if n < 40 {
		t.Errorf("the hostile text is shown %d times, want every field (≥ 40)", n)
	}
}

func TestClean(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"tab\tand\nnewline", "tab\tand\nnewline"},
		{"nul\x00bell\x07", "nul\uFFFDbell\uFFFD"},
		{"bad \xff utf8", "bad \uFFFD utf8"},
		{"rlo \u202E and isolate \u2066", "rlo \uFFFD and isolate \uFFFD"},
		{"ünïcödé ✓", "ünïcödé ✓"},
	}
	for _, tt := range tests {
		if got := clean(tt.in); got != tt.want {
			t.Errorf("clean(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := esc(`<a href="x">&'`); got != "&lt;a href=&#34;x&#34;&gt;&amp;&#39;" {
		t.Errorf("esc = %q", got)
	}
}

// TestEmptySections: a report of nothing has every section, each with its note.
func TestEmptySections(t *testing.T) {
	for _, d := range []*Data{nil, {}} {
		page := render(t, d)
		checkSafe(t, page)
		for _, s := range sections(&Data{}) {
			if !strings.Contains(page, `<section id="`+s.id+`">`) || !strings.Contains(page, esc(s.none)) {
				t.Errorf("section %s or its note %q missing", s.id, s.none)
			}
		}
		if !strings.Contains(page, "<title>loopwatch report</title>") {
			t.Error("no default title")
		}
		if strings.Contains(page, "<svg") {
			t.Error("an empty report draws a chart")
		}
	}
}

// TestDegenerate renders data with nothing to draw a line through: single points,
// NaN everywhere, one class, one value, markers outside the data.
func TestDegenerate(t *testing.T) {
	nan := math.NaN()
	one := eval.Curves([]eval.Observation{{Label: eval.Positive, Score: 0.5}, {Label: eval.Negative, Score: 0.5}})
	d := &Data{
		Tables: []Table{{Title: "no rows", Columns: []string{"a"}}, {Rows: []Row{{Cells: []string{"1", "2", "3"}, Status: "odd"}}}},
		Curves: []CurveSet{
			{Detector: "one point", Series: []CurveSeries{{Name: "tied", Curve: one}}},
			{Detector: "positives only", Series: []CurveSeries{{Name: "p", Curve: eval.Curves([]eval.Observation{{Label: eval.Positive, Score: nan}})}}},
			{Detector: "negatives only", Series: []CurveSeries{{Name: "n", Curve: eval.Curves([]eval.Observation{{Label: eval.Negative, Score: 1}})}}},
			{Detector: "nothing", Series: []CurveSeries{{Name: "empty"}}},
			{Detector: "no series"},
		},
		Sweeps: []Sweep{
			{Title: "one point", Series: []Series{{Name: "s", Points: []XY{{0.5, 0.5}}}}},
			{Title: "all NaN", Series: []Series{{Name: "s", Points: []XY{{nan, 1}, {1, nan}}}}},
			{Title: "flat, large", Series: []Series{{Name: "s", Points: []XY{{1e6, 7}, {2e6, 7}, {math.Inf(1), 7}}}}, Marks: []Mark{{X: nan}, {X: 3e6, Label: "m"}}},
		},
		LeadTimes: []Histogram{{Title: "empty"}, {Title: "one value", Values: []float64{3}}, {Title: "one integer", Values: []float64{2}, Integer: true},
			{Title: "NaN only", Values: []float64{nan, math.Inf(1)}}, {Title: "wide integers", Values: []float64{0, 1000}, Integer: true}},
		Runs: []RunTrajectory{{Key: "no cycles"}, {Key: "one cycle", Threshold: nan, Cycles: []CycleScore{{Cycle: 1, Score: nan}}},
			{Key: "above one", Threshold: 0.6, Cycles: []CycleScore{{1, 0.2, false}, {2, 1.4, true}}}},
		Sessions: []SessionTrajectory{{Key: "no events"}, {Key: "one event", EMA: []float64{nan}, Interventions: []Marker{{Index: 5, Label: "late"}}, Friction: []int{-1}},
			{Key: "flat", EMA: []float64{0, 0, 0}, Threshold: -1}},
		ProblemsTotal: 5,
	}
	page := render(t, d)
	checkSafe(t, page)
	for _, want := range []string{
		"No rows.", "Precision–recall undefined: no positive observation.", "ROC undefined: the observations are all of one class.",
		"No scored observations with labels", "all NaN: no finite points.", "empty: no values.", "NaN only: no values.",
		"2 values not finite (or beyond ±1e15), left out", "No cycles.", "No events.", "5 problems in the input; none is listed here",
	} {
		if !strings.Contains(page, esc(want)) {
			t.Errorf("missing %q", want)
		}
	}
	if !strings.Contains(page, `<tr class="plain">`) {
		t.Error("an unknown status is not plain")
	}
	if !strings.Contains(page, `text-anchor="end">m</text>`) {
		t.Error("a mark's label at the plot's right edge is not drawn left of its line")
	}
}

// TestLongSessionIsThinned: a session of 100,000 events draws a path bounded by the
// chart's width, and its peak survives.
func TestLongSessionIsThinned(t *testing.T) {
	ema := make([]float64, 100000)
	for i := range ema {
		ema[i] = float64(i%100) / 1000
	}
	ema[54321] = 0.95
	page := render(t, &Data{Sessions: []SessionTrajectory{{Key: "long", EMA: ema}}})
	checkSafe(t, page)
	if len(page) > 200_000 {
		t.Errorf("%d bytes for one long session", len(page))
	}
	d := regexp.MustCompile(`<path class="line s0" d="([^"]*)"`).FindStringSubmatch(page)
	if d == nil {
		t.Fatal("no EMA line")
	}
	c := newChart(new(strings.Builder), 1100, 240, niceAxis(extent{1, 100000, 2}, 12, true, ""), unitAxis(""))
	if peak := coord(c.py(0.95)); !strings.Contains(d[1], " "+peak) {
		t.Errorf("the peak (y %s) was thinned away", peak)
	}
}

func TestThin(t *testing.T) {
	in := []XY{{0.1, 5}, {0.5, 9}, {0.7, 1}, {0.9, 4}, {0.95, 6}, {1.2, 3}, {2.5, 2}}
	want := []XY{{0.1, 5}, {0.5, 9}, {0.7, 1}, {0.95, 6}, {1.2, 3}, {2.5, 2}}
	if got := thin(in); !slices.Equal(got, want) {
		t.Errorf("thin = %v, want %v", got, want)
	}
}

func TestNiceAxis(t *testing.T) {
	tests := []struct {
		e        extent
		target   int
		integer  bool
		ticks    []float64
		decimals int
	}{
		{extent{0, 1, 2}, 5, false, []float64{0, 0.2, 0.4, 0.6, 0.8, 1}, 1},
		{extent{0.13, 0.87, 2}, 5, false, []float64{0, 0.2, 0.4, 0.6, 0.8, 1}, 1},
		{extent{3, 97, 2}, 5, false, []float64{0, 20, 40, 60, 80, 100}, 0},
		{extent{1, 4, 2}, 6, true, []float64{1, 2, 3, 4}, 0},
		{extent{1, 1, 1}, 6, true, []float64{0, 1, 2}, 0},
		{extent{0, 0, 1}, 5, false, []float64{0, 0.2, 0.4, 0.6, 0.8, 1}, 1},
		{extent{5, 5, 1}, 5, false, []float64{4.4, 4.6, 4.8, 5, 5.2, 5.4, 5.6}, 1},
		{extent{}, 5, false, []float64{0, 0.2, 0.4, 0.6, 0.8, 1}, 1},
		{extent{-0.3, 0.1, 2}, 4, false, []float64{-0.3, -0.2, -0.1, 0, 0.1}, 1},
		{extent{1, 100000, 2}, 12, true, []float64{0, 10000, 20000, 30000, 40000, 50000, 60000, 70000, 80000, 90000, 100000}, 0},
		{extent{0.001, 0.004, 2}, 3, false, []float64{0.001, 0.002, 0.003, 0.004}, 3},
	}
	for _, tt := range tests {
		a := niceAxis(tt.e, tt.target, tt.integer, "")
		if !slices.Equal(a.ticks, tt.ticks) || a.decimals != tt.decimals || a.lo != tt.ticks[0] || a.hi != tt.ticks[len(tt.ticks)-1] {
			t.Errorf("niceAxis(%+v, %d, %v) = %v (%d decimals, %v..%v), want %v (%d)", tt.e, tt.target, tt.integer,
				a.ticks, a.decimals, a.lo, a.hi, tt.ticks, tt.decimals)
		}
	}
	if got := num(-0.0001, 2); got != "0.00" {
		t.Errorf("num(-0.0001, 2) = %q", got)
	}
}

func TestHistogramBins(t *testing.T) {
	type b struct {
		lo, hi float64
		n      int
	}
	tests := []struct {
		name    string
		values  []float64
		integer bool
		bins    []b
		left    int
	}{
		{"integers", []float64{1, 1, 2, 4, math.NaN()}, true, []b{{0.5, 1.5, 2}, {1.5, 2.5, 1}, {2.5, 3.5, 0}, {3.5, 4.5, 1}}, 1},
		{"one integer", []float64{3}, true, []b{{2.5, 3.5, 1}}, 0},
		{"fractions asked as integers", []float64{0.5, 1}, true, []b{{0.5, 0.6, 1}, {0.6, 0.7, 0}, {0.7, 0.8, 0}, {0.8, 0.9, 0}, {0.9, 1, 0}, {1, 1.1, 1}}, 0},
		{"reals", []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9.5}, false, []b{{0, 2, 2}, {2, 4, 2}, {4, 6, 2}, {6, 8, 2}, {8, 10, 2}}, 0},
		{"one real", []float64{2.5}, false, []b{{2.5, 3, 1}}, 0},
		{"zero", []float64{0, 0}, false, []b{{0, 0.2, 2}}, 0},
		{"nothing finite", []float64{math.Inf(-1)}, false, nil, 1},
	}
	for _, tt := range tests {
		bins, _, left := histogram(tt.values, tt.integer)
		var got []b
		for _, x := range bins {
			got = append(got, b{roundTo(x.lo, 9), roundTo(x.hi, 9), x.n})
		}
		if !slices.Equal(got, tt.bins) || left != tt.left {
			t.Errorf("%s: bins %v left %d, want %v %d", tt.name, got, left, tt.bins, tt.left)
		}
	}
}

func TestPRSteps(t *testing.T) {
	c := eval.Curves([]eval.Observation{{Label: eval.Negative, Score: 0.1}, {Label: eval.Negative, Score: 0.4},
		{Label: eval.Positive, Score: 0.35}, {Label: eval.Positive, Score: 0.8}})
	pts := prSteps(c)
	// The area under the steps is the AP.
	area := 0.0
	for i := 1; i < len(pts); i++ {
		area += (pts[i].X - pts[i-1].X) * pts[i].Y
	}
	if math.Abs(area-c.AP()) > 1e-12 {
		t.Errorf("area under the steps %v, AP %v (%v)", area, c.AP(), pts)
	}
}

func TestThresholdSweep(t *testing.T) {
	c := eval.Curves([]eval.Observation{{Label: eval.Negative, Score: 0.1}, {Label: eval.Negative, Score: 0.4},
		{Label: eval.Positive, Score: 0.35}, {Label: eval.Positive, Score: 0.8}, {Label: eval.Positive, Score: math.NaN()}})
	sw := ThresholdSweep("t", "score", c, 0.6)
	if len(sw.Series) != 3 || len(sw.Series[2].Points) != 5 || len(sw.Marks) != 1 || sw.Marks[0].X != 0.6 {
		t.Fatalf("%+v", sw)
	}
	// At 0.35: TP 2, FP 1, FN 1 → precision 2/3, recall 2/3, F1 2/3.
	if p := sw.Series[2].Points[2]; p.X != 0.35 || math.Abs(p.Y-2.0/3) > 1e-12 {
		t.Errorf("F1 point %v", p)
	}
	if p := sw.Series[0].Points[4]; !math.IsInf(p.X, -1) {
		t.Errorf("last point %v: the unscored observations' threshold is −Inf (not drawn)", p)
	}
	if sw := ThresholdSweep("t", "score", c, math.NaN()); len(sw.Marks) != 0 {
		t.Errorf("a NaN mark is drawn: %v", sw.Marks)
	}
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "report.html")
	if err := WriteFile(path, fixture()); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if want := render(t, fixture()); string(got) != want {
		t.Error("the file differs from Render's output")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("left %v", entries)
	}
	if err := WriteFile(filepath.Join(dir, "missing", "r.html"), &Data{}); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("writing into a missing folder: %v", err)
	}
}

func TestMetricsTable(t *testing.T) {
	d := fixture()
	tb := d.Tables[0]
	if len(tb.Rows) != 2 || tb.Rows[0].Cells[0] != "struggle" || tb.Rows[1].Cells[1] != "loopwatch" || tb.Rows[1].Cells[2] != "sessions" || len(tb.Rows[0].Cells) != len(tb.Columns) {
		t.Fatalf("%+v", tb)
	}
	if !slices.ContainsFunc(tb.Notes, func(s string) bool { return strings.HasPrefix(s, "breaker: only 24 scored sessions") }) {
		t.Errorf("the warnings are not notes: %v", tb.Notes)
	}
}

func TestNumeric(t *testing.T) {
	for s, want := range map[string]bool{"0.833 [0.50, 1.00]": true, "—": true, "$1.74": true, "−0.143": true, "-3": true,
		"struggle": false, "": false, "[0.1, 0.2]": false} {
		if numeric(s) != want {
			t.Errorf("numeric(%q) = %v", s, !want)
		}
	}
}

// problemsOf makes n problems.
func problemsOf(n int) []input.Problem {
	ps := make([]input.Problem, n)
	for i := range ps {
		ps[i] = input.Problem{File: "f", Line: i + 1, Kind: input.ProblemMalformed, Detail: "d"}
	}
	return ps
}

func TestProblemsAreCapped(t *testing.T) {
	page := render(t, &Data{Problems: problemsOf(MaxProblemRows + 5), ProblemsTotal: 1000})
	if got := strings.Count(page, `<td class="file">`); got != MaxProblemRows {
		t.Errorf("%d problems listed, want %d", got, MaxProblemRows)
	}
	for _, want := range []string{"1000 problems in the input; the first 200 are listed here", "By kind (of the first 205): <b>malformed_line</b> 205"} {
		if !strings.Contains(page, want) {
			t.Errorf("missing %q", want)
		}
	}
}

func TestInterventionListIsCapped(t *testing.T) {
	s := SessionTrajectory{Key: "k", EMA: make([]float64, 50)}
	for i := range maxListed + 5 {
		s.Interventions = append(s.Interventions, Marker{Index: i + 1, Label: "approach_pivot"})
	}
	page := render(t, &Data{Sessions: []SessionTrajectory{s}})
	if !strings.Contains(page, "approach_pivot at 20, … 5 more") || strings.Contains(page, "approach_pivot at 21,") {
		t.Error("the caption does not stop at 20 interventions")
	}
	if got := strings.Count(page, `<path class="ivmark"`) - 1; got != maxListed+5 { // less the legend's
		t.Errorf("%d intervention marks drawn, want all %d", got, maxListed+5)
	}
}

// FuzzRender: whatever the text and numbers, the page is well-formed, loads nothing
// and draws no non-finite coordinate.
func FuzzRender(f *testing.F) {
	f.Add("fixture-key", 0.5, 1.0, 3)
	f.Add(hostile, math.NaN(), math.Inf(1), 0)
	f.Add("\xff\x00", -1e308, 1e308, 1000)
	f.Fuzz(func(t *testing.T, text string, a, b float64, n int) {
		n = min(max(n, 0), 200)
		vals := make([]float64, n)
		ema := make([]float64, n)
		var pts []XY
		for i := range vals {
			vals[i] = a + float64(i)*b
			ema[i] = math.Mod(vals[i], 1.5)
			pts = append(pts, XY{vals[i], b - float64(i)})
		}
		obs := []eval.Observation{{Label: eval.Positive, Score: a}, {Label: eval.Negative, Score: b}, {Label: eval.Positive, Score: b}}
		d := &Data{
			Title: text, Facts: []Fact{{text, text}}, Notes: []string{text},
			Tables:    []Table{{Title: text, Columns: []string{text}, Rows: []Row{{Cells: []string{text, text}, Status: Status(text)}}, Notes: []string{text}}},
			Curves:    []CurveSet{{Detector: text, Series: []CurveSeries{{Name: text, Curve: eval.Curves(obs)}}, Note: text}},
			Sweeps:    []Sweep{{Title: text, XLabel: text, YLabel: text, Series: []Series{{Name: text, Points: pts}}, Marks: []Mark{{X: a, Label: text}}}},
			LeadTimes: []Histogram{{Title: text, XLabel: text, Values: vals, Integer: n%2 == 0}, {Title: text, Values: vals}},
			Runs:      []RunTrajectory{{Key: text, Label: text, Caption: text, Threshold: a, Cycles: []CycleScore{{Cycle: n, Score: a}, {Cycle: n + 1, Score: b, Triggered: true}}}},
			Sessions:  []SessionTrajectory{{Key: text, Label: text, Caption: text, Threshold: b, EMA: ema, Interventions: []Marker{{Index: n, Label: text}}, Friction: []int{-n, n}}},
			Problems:  []input.Problem{{File: text, Line: n, Kind: input.ProblemKind(text), Detail: text}},
		}
		checkSafe(t, render(t, d))
	})
}

// TestUnscored: a curve's last point at −Inf holds the observations the detector gave
// no score, which the legend counts; a curve without one has none.
func TestUnscored(t *testing.T) {
	obs := []eval.Observation{{Label: eval.Positive, Score: 0.9}, {Label: eval.Negative, Score: 0.2},
		{Label: eval.Positive, Score: math.NaN()}, {Label: eval.Negative, Score: math.NaN()}}
	if n := unscored(eval.Curves(obs)); n != 2 {
		t.Errorf("%d unscored, want 2", n)
	}
	if n := unscored(eval.Curves(obs[:2])); n != 0 {
		t.Errorf("%d unscored without NaN scores, want 0", n)
	}
}
