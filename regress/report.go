package regress

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/loopwatch/loopwatch/datasets/registry"
	"github.com/loopwatch/loopwatch/internal/atomicfile"
	"github.com/loopwatch/loopwatch/internal/plural"
)

// The files a run writes into its work folder.
const (
	MarkdownFile = "regress.md"
	JSONFile     = "regress.json"
)

// WriteFiles writes regress.md and regress.json into dir, each atomically (written
// aside, then renamed). Neither holds a time or a duration: the same registry and
// replays give the same bytes.
func (rep *Report) WriteFiles(dir string) ([]string, error) {
	var md, js bytes.Buffer
	if err := rep.WriteMarkdown(&md); err != nil {
		return nil, err
	}
	if err := rep.WriteJSON(&js); err != nil {
		return nil, err
	}
	var paths []string
	for _, f := range []struct {
		name string
		b    []byte
	}{{MarkdownFile, md.Bytes()}, {JSONFile, js.Bytes()}} {
		p := filepath.Join(dir, f.name)
		if err := writeAtomic(p, f.b); err != nil {
			return nil, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}

func writeAtomic(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, b, 0o644)
}

// strictRule says what a strict run fails on besides.
func (rep *Report) strictRule() string {
	if rep.Strict {
		return ", and so does one with no baseline (--strict)"
	}
	return ""
}

// improved picks the verdicts listed as improvements: improved, and new where it does
// not fail the run.
func (rep *Report) improved(v Verdict) bool { return v == Improved || v == New && !rep.Strict }

// improvedTitle is the heading of the improvements, naming how to record them (cmd).
func (rep *Report) improvedTitle(cmd string) string {
	if rep.Strict {
		return "Improvements (record them with " + cmd + ")"
	}
	return "Improvements and new metrics (record them with " + cmd + ")"
}

// status is "PASS" or "FAIL".
func (rep *Report) status() string {
	if rep.Failed() {
		return "FAIL"
	}
	return "PASS"
}

// Headline is the one-line verdict of the run.
func (rep *Report) Headline() string {
	ran, skipped, failed, replays := 0, 0, 0, 0
	for _, d := range rep.Datasets {
		switch d.Status {
		case "ran":
			ran++
		case "skipped":
			skipped++
		default:
			failed++
		}
		replays += d.replaysFailed()
	}
	ds := plural.Count(ran, "dataset") + " replayed"
	if skipped > 0 {
		ds += fmt.Sprintf(", %d skipped", skipped)
	}
	if failed > 0 {
		ds += fmt.Sprintf(", %d failed", failed)
	}
	if replays > 0 {
		ds += fmt.Sprintf(", %s failed", plural.Count(replays, "replay"))
	}
	return fmt.Sprintf("%s: %s; %s: %s", rep.status(), ds, plural.Count(len(rep.Results), "metric"), countLine(rep.Counts()))
}

// WriteMarkdown writes the human-readable report: the verdict, the rule, what failed
// and what improved, then one table per dataset.
func (rep *Report) WriteMarkdown(w io.Writer) error {
	b := &strings.Builder{}
	fmt.Fprintf(b, "# loopwatch regression: %s\n\n", rep.status())
	fmt.Fprintf(b, "Registry `%s`. %s.\n\n", rep.Registry, strings.TrimPrefix(rep.Headline(), rep.status()+": "))
	fmt.Fprintf(b, "**Rule.** %s A metric that is missing (its replay failed, its detector gave no figure, or it became undefined) fails the run too%s.\n\n", capitalize(Rule), rep.strictRule())
	for _, sec := range []struct {
		title string
		pick  func(Verdict) bool
	}{
		{"Failures", rep.Fails},
		{rep.improvedTitle("`regress --update-baseline`"), rep.improved},
	} {
		var rows []Result
		for _, r := range rep.Results {
			if sec.pick(r.Verdict) {
				rows = append(rows, r)
			}
		}
		if len(rows) == 0 {
			continue
		}
		fmt.Fprintf(b, "## %s\n\n", sec.title)
		b.WriteString("| dataset | config | detector | metric | baseline | now | Δ | interval | tolerance | verdict | note |\n")
		b.WriteString("|---|---|---|---|---:|---:|---:|---|---:|---|---|\n")
		for _, r := range rows {
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.Dataset, r.Config, r.Detector, metricName(r),
				baselineCell(r), nowCell(r), deltaCell(r), r.Interval, tolCell(r), rep.verdictCell(r.Verdict), escape(r.Note))
		}
		b.WriteString("\n")
	}
	for _, d := range rep.Datasets {
		fmt.Fprintf(b, "## %s\n\n", d.Name)
		if d.Description != "" {
			fmt.Fprintf(b, "%s\n\n", escape(d.Description))
		}
		fmt.Fprintf(b, "Input `%s`", d.Input)
		if d.Source != "" && d.Source != d.Input {
			fmt.Fprintf(b, ": %s", escape(d.Source))
		}
		b.WriteString(".\n\n")
		if d.Status != "ran" {
			fmt.Fprintf(b, "**%s**: %s\n\n", d.Status, escape(d.Notice))
		}
		for _, c := range d.Configs {
			fmt.Fprintf(b, "- `%s` (%s): ", c.Name, escape(c.Description))
			if c.Error != "" {
				fmt.Fprintf(b, "**replay failed**: %s\n", escape(c.Error))
				continue
			}
			fmt.Fprintf(b, "%s; labels: %s; tables beside `%s`\n", c.Input, escape(c.Labels), c.Out)
			for _, w := range c.Warnings {
				fmt.Fprintf(b, "  - %s\n", escape(w))
			}
		}
		var rows []Result
		for _, r := range rep.Results {
			if r.Dataset == d.Name {
				rows = append(rows, r)
			}
		}
		if len(rows) > 0 {
			b.WriteString("\n| config | detector | metric | n | baseline | now | Δ | interval | tolerance | verdict |\n")
			b.WriteString("|---|---|---|---:|---:|---:|---:|---|---:|---|\n")
			for _, r := range rows {
				n := "—"
				if r.Measured {
					n = fmt.Sprint(r.N)
				}
				fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.Config, r.Detector, metricName(r), n,
					baselineCell(r), nowCell(r), deltaCell(r), r.Interval, tolCell(r), rep.verdictCell(r.Verdict))
			}
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func capitalize(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

// metricName marks the metrics whose bad direction is up.
func metricName(r Result) string {
	if r.LowerIsBetter {
		return r.Metric + " (↓ better)"
	}
	return r.Metric
}

// num writes a figure: a count whole, any other to four places.
func num(v float64, count bool) string {
	switch {
	case math.IsNaN(v):
		return "undefined"
	case count:
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.4f", v)
}

func baselineCell(r Result) string {
	if !r.HasBaseline {
		return "—"
	}
	return num(r.Baseline, r.Count)
}

func nowCell(r Result) string {
	if !r.Measured {
		return "—"
	}
	return num(r.Now, r.Count)
}

func deltaCell(r Result) string {
	d := r.Delta()
	if math.IsNaN(d) {
		return "—"
	}
	if r.Count {
		return fmt.Sprintf("%+.0f", d)
	}
	return fmt.Sprintf("%+.4f", d)
}

func tolCell(r Result) string {
	if !r.HasBaseline {
		return "—"
	}
	return registry.FormatFloat(r.Tolerance)
}

func (rep *Report) verdictCell(v Verdict) string {
	if rep.Fails(v) {
		return "**" + string(v) + "**"
	}
	return string(v)
}

// escape keeps text from breaking a Markdown table.
func escape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

// jsonReport is regress.json.
type jsonReport struct {
	Registry string          `json:"registry"`
	Status   string          `json:"status"`
	Rule     string          `json:"rule"`
	Strict   bool            `json:"strict"` // a new metric fails the run
	Counts   map[Verdict]int `json:"counts"`
	Datasets []jsonDataset   `json:"datasets"`
	Results  []jsonResult    `json:"results"`
}

type jsonDataset struct {
	Name        string       `json:"name"`
	Description string       `json:"description,omitempty"`
	Input       string       `json:"input"`
	Source      string       `json:"source,omitempty"`
	Status      string       `json:"status"`
	Notice      string       `json:"notice,omitempty"`
	Configs     []jsonConfig `json:"configs,omitempty"`
}

type jsonConfig struct {
	Name        string   `json:"name"`
	Description string   `json:"description,omitempty"`
	Out         string   `json:"out,omitempty"`
	Input       string   `json:"input,omitempty"`
	Labels      string   `json:"labels,omitempty"`
	Warnings    []string `json:"warnings,omitempty"`
	Error       string   `json:"error,omitempty"`
}

type jsonResult struct {
	Dataset   string        `json:"dataset"`
	Config    string        `json:"config"`
	Detector  string        `json:"detector"`
	Metric    string        `json:"metric"`
	Better    string        `json:"better"`
	Baseline  *float64      `json:"baseline"`
	Tolerance *float64      `json:"tolerance"`
	Now       *float64      `json:"now"`
	Delta     *float64      `json:"delta"`
	Interval  *jsonInterval `json:"interval"`
	N         *int          `json:"n"`
	Verdict   Verdict       `json:"verdict"`
	Note      string        `json:"note,omitempty"`
}

type jsonInterval struct {
	Kind string  `json:"kind"`
	Low  float64 `json:"low"`
	High float64 `json:"high"`
}

// ptr is nil for NaN (JSON has no NaN: an undefined figure is null).
func ptr(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// WriteJSON writes regress.json: the verdict, the rule, the counts, the datasets and
// one record per dataset × configuration × detector × metric. Undefined figures are
// null; "baseline" is null both when none is recorded and when it was recorded
// undefined (the verdict and note tell which).
func (rep *Report) WriteJSON(w io.Writer) error {
	out := jsonReport{Registry: rep.Registry, Status: strings.ToLower(rep.status()), Rule: Rule, Strict: rep.Strict, Counts: rep.Counts(),
		Datasets: []jsonDataset{}, Results: []jsonResult{}}
	for _, v := range verdictOrder {
		out.Counts[v] += 0
	}
	for _, d := range rep.Datasets {
		jd := jsonDataset{Name: d.Name, Description: d.Description, Input: d.Input, Source: d.Source, Status: d.Status, Notice: d.Notice}
		for _, c := range d.Configs {
			jd.Configs = append(jd.Configs, jsonConfig{Name: c.Name, Description: c.Description, Out: c.Out, Input: c.Input,
				Labels: c.Labels, Warnings: c.Warnings, Error: c.Error})
		}
		out.Datasets = append(out.Datasets, jd)
	}
	for _, r := range rep.Results {
		jr := jsonResult{Dataset: r.Dataset, Config: r.Config, Detector: r.Detector, Metric: r.Metric, Better: "higher",
			Verdict: r.Verdict, Note: r.Note, Delta: ptr(r.Delta())}
		if r.LowerIsBetter {
			jr.Better = "lower"
		}
		if r.HasBaseline {
			jr.Baseline, jr.Tolerance = ptr(r.Baseline), ptr(r.Tolerance)
		}
		if r.Measured {
			n := r.N
			jr.Now, jr.N = ptr(r.Now), &n
			if r.Interval.Known() {
				jr.Interval = &jsonInterval{Kind: r.Interval.Kind, Low: r.Interval.Low, High: r.Interval.High}
			}
		}
		out.Results = append(out.Results, jr)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}
