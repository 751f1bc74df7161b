package benchcmp

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
)

// Report is a side-by-side benchmark: variants of commands measured over workloads,
// and the comparisons between them.
type Report struct {
	Title string `json:"title"`
	// Setup lines say what was compared and how (builds, repetitions, machine).
	Setup []string `json:"setup"`
	// Notices say what was skipped and why.
	Notices   []string   `json:"notices,omitempty"`
	Workloads []Workload `json:"workloads"`
	// Tables lists the comparisons to print, each a table with a row per workload
	// that has it.
	Tables []Table `json:"tables"`
}

// Table names a comparison printed across workloads.
type Table struct {
	Comparison string `json:"comparison"` // a Comparison.Name
	Caption    string `json:"caption"`
}

// Workload is one input and every variant measured on it.
type Workload struct {
	Name        string       `json:"name"`
	About       string       `json:"about"`
	Variants    []Variant    `json:"variants"`
	Comparisons []Comparison `json:"comparisons"`
}

// Variant is one command measured repeatedly on a workload.
type Variant struct {
	Name    string        `json:"name"`
	Command string        `json:"command"`
	Samples []Measurement `json:"samples"` // in repetition order, warm-ups left out
}

// Seconds returns the wall (or, cpu true, the CPU) seconds of each sample.
func (v Variant) Seconds(cpu bool) []float64 {
	xs := make([]float64, len(v.Samples))
	for i, m := range v.Samples {
		d := m.Wall
		if cpu {
			d = m.CPU()
		}
		xs[i] = d.Seconds()
	}
	return xs
}

// Cores returns the cores each sample kept busy on average: its CPU time over its wall
// time.
func (v Variant) Cores() []float64 {
	xs := make([]float64, len(v.Samples))
	for i, m := range v.Samples {
		xs[i] = float64(m.User+m.System) / float64(m.Wall)
	}
	return xs
}

// RSS returns the peak RSS of each sample, in bytes.
func (v Variant) RSS() []float64 {
	xs := make([]float64, len(v.Samples))
	for i, m := range v.Samples {
		xs[i] = float64(m.MaxRSS)
	}
	return xs
}

// Comparison is Other against Base on one workload: ratios Other/Base over the
// repetitions (pairs measured in the same repetition).
type Comparison struct {
	Name  string `json:"name"`
	Base  string `json:"base"`  // a Variant.Name
	Other string `json:"other"` // a Variant.Name
	// BaseWall and OtherWall are median wall seconds; BaseRSS and OtherRSS median peak
	// RSS in bytes.
	BaseWall  float64 `json:"base_wall_s"`
	OtherWall float64 `json:"other_wall_s"`
	BaseRSS   float64 `json:"base_rss_bytes"`
	OtherRSS  float64 `json:"other_rss_bytes"`
	// BaseCores and OtherCores are the median cores each kept busy (CPU over wall time).
	BaseCores  float64 `json:"base_cores"`
	OtherCores float64 `json:"other_cores"`
	Wall       Ratio   `json:"wall_ratio"`
	CPU        Ratio   `json:"cpu_ratio"`
	// RSS is the ratio of peak RSS; zero (no pairs) where RSS is not reported.
	RSS Ratio `json:"rss_ratio"`
	// Floor, set by SetFloor, is the lowest wall ratio Other could reach on the cores it
	// was given, paired: its CPU time spread over every one of them, against Base's wall
	// time. A wall ratio near its floor means Other kept the cores busy, and only less
	// CPU would make it faster; zero (no pairs) where not set.
	Floor Ratio `json:"floor_ratio"`
	// Outputs says how the two variants' outputs compare ("identical", "differ: …"),
	// or is empty where they are not comparable.
	Outputs string `json:"outputs,omitempty"`
}

// Compare builds the comparison of other against base, which must have the same
// number of samples (one per repetition) and at least one.
func Compare(name string, base, other Variant) (Comparison, error) {
	c := Comparison{Name: name, Base: base.Name, Other: other.Name}
	var err error
	if c.Wall, err = PairedRatio(base.Seconds(false), other.Seconds(false)); err != nil {
		return c, fmt.Errorf("%s (%s vs %s), wall time: %w", name, other.Name, base.Name, err)
	}
	if c.CPU, err = PairedRatio(base.Seconds(true), other.Seconds(true)); err != nil {
		return c, fmt.Errorf("%s (%s vs %s), CPU time: %w", name, other.Name, base.Name, err)
	}
	if base.Samples[0].MaxRSS > 0 {
		if c.RSS, err = PairedRatio(base.RSS(), other.RSS()); err != nil {
			return c, fmt.Errorf("%s (%s vs %s), peak RSS: %w", name, other.Name, base.Name, err)
		}
	}
	c.BaseWall, c.OtherWall = Median(base.Seconds(false)), Median(other.Seconds(false))
	c.BaseRSS, c.OtherRSS = Median(base.RSS()), Median(other.RSS())
	c.BaseCores, c.OtherCores = Median(base.Cores()), Median(other.Cores())
	return c, nil
}

// SetFloor sets c.Floor for other given cores cores, from the same variants c was
// built from: the paired ratios other's CPU time / (cores × base's wall time).
func (c *Comparison) SetFloor(base, other Variant, cores int) error {
	if cores < 1 {
		return fmt.Errorf("%s: floor on %d cores", c.Name, cores)
	}
	spread := other.Seconds(true)
	for i := range spread {
		spread[i] /= float64(cores)
	}
	f, err := PairedRatio(base.Seconds(false), spread)
	if err != nil {
		return fmt.Errorf("%s (%s vs %s), floor: %w", c.Name, other.Name, base.Name, err)
	}
	c.Floor = f
	return nil
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// row is one workload's line of a comparison table; floor adds the wall ratio's floor
// after the wall ratio.
func row(name string, c Comparison, floor bool) []string {
	r := []string{name, Seconds(c.BaseWall), Seconds(c.OtherWall), c.Wall.String()}
	if floor {
		r = append(r, c.Floor.String())
	}
	return append(r, c.CPU.String(), Cores(c.BaseCores), Cores(c.OtherCores),
		Bytes(c.BaseRSS), Bytes(c.OtherRSS), c.RSS.String(), orDash(c.Outputs))
}

func header(c Comparison, floor bool) []string {
	ratio := c.Other + "/" + c.Base
	h := []string{"workload", "wall " + c.Base, "wall " + c.Other, "wall " + ratio}
	if floor {
		h = append(h, "floor "+ratio)
	}
	return append(h, "cpu "+ratio, "cores "+c.Base, "cores "+c.Other,
		"rss "+c.Base, "rss "+c.Other, "rss "+ratio, "outputs")
}

// table is one of the report's tables, laid out.
type table struct {
	caption string
	level   float64 // the wall-time interval's coverage
	pairs   int
	header  []string
	rows    [][]string
}

// note says what the ratios are: "median of 5 paired ratios [94% interval]".
func (t table) note() string {
	return fmt.Sprintf("median of %d paired ratios [%s interval]", t.pairs, Percent(t.level))
}

// tables lays out the report's tables, leaving out those no workload has.
func (r *Report) tables() []table {
	var out []table
	for _, t := range r.Tables {
		tab := table{caption: t.Caption}
		floor := false // a column for the floor where a workload has one
		for _, w := range r.Workloads {
			for _, c := range w.Comparisons {
				floor = floor || c.Name == t.Comparison && c.Floor.Pairs > 0
			}
		}
		for _, w := range r.Workloads {
			for _, c := range w.Comparisons {
				if c.Name != t.Comparison {
					continue
				}
				if tab.header == nil {
					tab.header, tab.level, tab.pairs = header(c, floor), c.Wall.Level, c.Wall.Pairs
				}
				tab.rows = append(tab.rows, row(w.Name, c, floor))
			}
		}
		if tab.rows != nil {
			out = append(out, tab)
		}
	}
	return out
}

// WriteText writes the report as aligned tables for a terminal.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	b.WriteString(r.Title + "\n")
	for _, s := range r.Setup {
		b.WriteString(s + "\n")
	}
	for _, t := range r.tables() {
		fmt.Fprintf(&b, "\n%s; %s\n", t.caption, t.note())
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, strings.ToUpper(strings.Join(t.header, "\t")))
		for _, row := range t.rows {
			fmt.Fprintln(tw, strings.Join(row, "\t"))
		}
		tw.Flush()
	}
	if len(r.Notices) > 0 {
		b.WriteString("\n")
		for _, n := range r.Notices {
			b.WriteString("note: " + n + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteMarkdown writes the report as Markdown: the setup as a list, a table per
// comparison, and the workloads' descriptions.
func (r *Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", r.Title)
	for _, s := range r.Setup {
		fmt.Fprintf(&b, "- %s\n", s)
	}
	for _, t := range r.tables() {
		fmt.Fprintf(&b, "\n## %s\n\nRatios: the %s.\n\n", t.caption, t.note())
		fmt.Fprintf(&b, "| %s |\n|%s\n", strings.Join(t.header, " | "), strings.Repeat(" --- |", len(t.header)))
		for _, row := range t.rows {
			fmt.Fprintf(&b, "| %s |\n", strings.Join(row, " | "))
		}
	}
	b.WriteString("\n## Workloads\n\n")
	for _, wl := range r.Workloads {
		fmt.Fprintf(&b, "- `%s`: %s\n", wl.Name, wl.About)
	}
	if len(r.Notices) > 0 {
		b.WriteString("\n## Notices\n\n")
		for _, n := range r.Notices {
			fmt.Fprintf(&b, "- %s\n", n)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Seconds renders seconds with three significant digits (whole seconds from 100 s).
func Seconds(s float64) string {
	switch {
	case s != s:
		return "—"
	case s < 1:
		return fmt.Sprintf("%.3f s", s)
	case s < 10:
		return fmt.Sprintf("%.2f s", s)
	case s < 100:
		return fmt.Sprintf("%.1f s", s)
	}
	return fmt.Sprintf("%.0f s", s)
}

// Bytes renders a size in MiB (KiB below one MiB); "—" when unknown (≤ 0).
func Bytes(n float64) string {
	switch {
	case !(n > 0):
		return "—"
	case n < 1<<20:
		return fmt.Sprintf("%.0f KiB", n/(1<<10))
	}
	return fmt.Sprintf("%.0f MiB", n/(1<<20))
}

// Cores renders a number of busy cores: "1.26"; "—" when unknown.
func Cores(n float64) string {
	if !(n > 0) || math.IsInf(n, 0) {
		return "—"
	}
	return fmt.Sprintf("%.2f", n)
}

// Percent renders a coverage level: "94%".
func Percent(level float64) string { return fmt.Sprintf("%.0f%%", 100*level) }

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}
