package regress

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/loopwatch/loopwatch/datasets/registry"
	"github.com/loopwatch/loopwatch/pipeline"
	"github.com/loopwatch/loopwatch/reports/htmlreport"
)

// Options configure a regression run.
type Options struct {
	// Out is the work folder: each replay writes <Out>/<dataset>/<config>/results.parquet
	// and its sibling tables, kept as artifacts.
	Out string
	// Only names the datasets to run (all when empty).
	Only []string
	// Workers is the replay's worker count (≤ 0: every CPU); it never changes a figure.
	Workers int
	// Log receives one progress line per replay (nil: none).
	Log io.Writer
	// Report makes each replay keep what [Report.HTML] draws of it beyond the
	// comparisons: its curves, sweeps, lead times, a few trajectories, its problems.
	Report bool
	// Strict makes a metric with no baseline (new) fail the run too: what a nightly
	// run guards is what has a baseline, and a dataset or configuration registered
	// without its baselines would pass unguarded night after night.
	Strict bool
}

// Report is the outcome of a regression run: what ran and every comparison.
type Report struct {
	Registry string
	// Strict is Options.Strict: a new metric fails the run.
	Strict   bool
	Datasets []DatasetReport
	// Results holds one comparison per dataset × configuration × detector × metric,
	// in registry order.
	Results []Result
}

// DatasetReport is one dataset of a run.
type DatasetReport struct {
	Name, Description string
	// Input is the input as registered; Source says what it resolved to.
	Input, Source string
	// Status is "ran", "skipped" (a corpus is absent) or "failed" (its input could not
	// be prepared); Notice says why.
	Status, Notice string
	Configs        []ConfigRun
}

// ConfigRun is one replay: a dataset under one configuration.
type ConfigRun struct {
	Name, Description string
	// Out is the run table written (siblings share its stem); "" when the replay failed.
	Out string
	// Input and Labels summarise what the replay read; Error is its failure.
	Input, Labels, Error string
	// Warnings are the replay's warnings and its count of input problems.
	Warnings []string
	Elapsed  time.Duration

	page *htmlreport.Data // the replay's own report (Options.Report)
}

// Result is the comparison of one metric with its baseline.
type Result struct {
	Dataset, Config, Detector, Metric string
	// LowerIsBetter says the bad direction is up (false alarms); else it is down.
	LowerIsBetter bool
	// Count says the metric is a count (runs, sessions, problems, units scored).
	Count bool
	// HasBaseline says a baseline is recorded: Baseline (NaN: recorded undefined)
	// with Tolerance.
	HasBaseline         bool
	Baseline, Tolerance float64
	// Measured says the replay produced the metric: Now (NaN: undefined on the data),
	// its Interval and N.
	Measured bool
	Now      float64
	Interval Interval
	N        int
	Verdict  Verdict
	Note     string
}

// Delta is Now − Baseline (NaN when either is missing or undefined).
func (r Result) Delta() float64 {
	if !r.HasBaseline || !r.Measured {
		return math.NaN()
	}
	return r.Now - r.Baseline
}

// Counts returns how many results have each verdict.
func (rep *Report) Counts() map[Verdict]int {
	c := map[Verdict]int{}
	for _, r := range rep.Results {
		c[r.Verdict]++
	}
	return c
}

// Failed reports whether any metric regressed or is missing, or a dataset or a
// replay failed — also one with no baseline yet, which leaves no metric to say so.
func (rep *Report) Failed() bool {
	return slices.ContainsFunc(rep.Datasets, DatasetReport.Failed) ||
		slices.ContainsFunc(rep.Results, func(r Result) bool { return rep.Fails(r.Verdict) })
}

// Fails reports whether a verdict fails this run: [Verdict.Fails], and new in a strict
// run.
func (rep *Report) Fails(v Verdict) bool { return v.Fails() || rep.Strict && v == New }

// Failed reports whether the dataset could not be prepared or one of its replays
// failed.
func (d DatasetReport) Failed() bool { return d.Status == "failed" || d.replaysFailed() > 0 }

// replaysFailed counts the dataset's replays that failed.
func (d DatasetReport) replaysFailed() int {
	n := 0
	for _, c := range d.Configs {
		if c.Error != "" {
			n++
		}
	}
	return n
}

// UsageError is a problem with the registry or what it names (a configuration file
// that does not load, a labels file with no usable row, an unknown --only): the
// command's exit status 2.
type UsageError struct{ Err error }

func (e UsageError) Error() string { return e.Err.Error() }
func (e UsageError) Unwrap() error { return e.Err }

// IsUsage reports whether err is a UsageError.
func IsUsage(err error) bool {
	var ue UsageError
	return errors.As(err, &ue)
}

// Run replays every selected dataset of the registry under each of its
// configurations through the pipeline and compares every metric with its baseline.
// Every configuration is loaded before anything is replayed. A UsageError means the
// registry must be fixed; a replay that fails is reported (its baselines are
// missing), and the run goes on.
func Run(ctx context.Context, reg *registry.Registry, opts Options) (*Report, error) {
	datasets, err := reg.Select(opts.Only)
	if err != nil {
		return nil, UsageError{err}
	}
	if err := reg.CheckCorpora(datasets); err != nil {
		return nil, UsageError{err}
	}
	for _, ds := range datasets {
		for _, c := range ds.Configs {
			if err := checkConfig(reg, ds, c); err != nil {
				return nil, UsageError{err}
			}
		}
	}
	rep := &Report{Registry: reg.Path, Strict: opts.Strict}
	for _, ds := range datasets {
		if err := runDataset(ctx, reg, ds, opts, rep); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

// checkConfig loads a configuration's files the way the replay will.
func checkConfig(reg *registry.Registry, ds registry.Dataset, c registry.Config) error {
	where := fmt.Sprintf("%s:%d", reg.Path, ds.Line)
	if c.Line > 0 {
		where = fmt.Sprintf("%s:%d", reg.Path, c.Line)
	}
	if _, err := pipeline.LoadStruggleConfig(c.Struggle); err != nil {
		return fmt.Errorf("%s: configuration %s: %w", where, c.Name, err)
	}
	if _, err := pipeline.LoadAssessConfig(c.Assess); err != nil {
		return fmt.Errorf("%s: configuration %s: %w", where, c.Name, err)
	}
	return nil
}

func runDataset(ctx context.Context, reg *registry.Registry, ds registry.Dataset, opts Options, rep *Report) error {
	dr := DatasetReport{Name: ds.Name, Description: ds.Description, Input: ds.Input.Spec, Status: "ran"}
	scratch, err := os.MkdirTemp("", "loopwatch-regress-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(scratch)
	start := time.Now()
	src, err := reg.Resolve(ds, scratch)
	if err == nil && ds.Input.Kind == registry.InputSynth {
		logf(opts.Log, "regress: %s: generated %s (%.1fs)\n", ds.Name, ds.Input.Synth, time.Since(start).Seconds())
	}
	var skip *registry.SkipError
	switch {
	case errors.As(err, &skip):
		dr.Status, dr.Notice = "skipped", skip.Reason
		logf(opts.Log, "regress: %s: skipped: %s\n", ds.Name, skip.Reason)
	case err != nil:
		dr.Status, dr.Notice = "failed", err.Error()
		logf(opts.Log, "regress: %s: %v\n", ds.Name, err)
	}
	dr.Source = src.Note
	if dr.Status != "ran" {
		verdict, note := Skipped, "dataset skipped: "+dr.Notice
		if dr.Status == "failed" {
			verdict, note = Missing, "dataset failed: "+dr.Notice
		}
		for _, c := range ds.Configs {
			rep.Results = append(rep.Results, unmeasured(ds, c.Name, verdict, note)...)
		}
		rep.Datasets = append(rep.Datasets, dr)
		return nil
	}
	for _, c := range ds.Configs {
		run, measured, err := replay(ctx, reg, ds, c, src, opts)
		run.Labels = reg.Shorten(run.Labels, scratch)
		for i, w := range run.Warnings {
			run.Warnings[i] = reg.Shorten(w, scratch)
		}
		run.Error = reg.Shorten(run.Error, scratch)
		if err != nil {
			return err
		}
		dr.Configs = append(dr.Configs, run)
		if run.Error != "" {
			rep.Results = append(rep.Results, unmeasured(ds, c.Name, Missing, "replay failed: "+run.Error)...)
			continue
		}
		rep.Results = append(rep.Results, compare(ds, c.Name, measured)...)
	}
	rep.Datasets = append(rep.Datasets, dr)
	return nil
}

// replay runs one dataset under one configuration.
func replay(ctx context.Context, reg *registry.Registry, ds registry.Dataset, c registry.Config, src registry.Source, opts Options) (ConfigRun, map[string]map[string]*Measurement, error) {
	run := ConfigRun{Name: c.Name, Description: c.Description}
	s := settings(reg, ds, c, src, opts)
	if err := os.MkdirAll(filepath.Dir(s.Out), 0o755); err != nil {
		return run, nil, UsageError{fmt.Errorf("--out %s: %w", opts.Out, err)}
	}
	start := time.Now()
	res, err := pipeline.Run(ctx, s)
	run.Elapsed = time.Since(start)
	switch {
	case ctx.Err() != nil:
		return run, nil, ctx.Err()
	case pipeline.IsUsage(err):
		return run, nil, UsageError{fmt.Errorf("%s:%d: dataset %s, configuration %s: %w", reg.Path, ds.Line, ds.Name, c.Name, err)}
	case err != nil:
		run.Error = err.Error()
		logf(opts.Log, "regress: %s/%s: replay failed: %v\n", ds.Name, c.Name, err)
		return run, nil, nil
	}
	run.Out = res.Out.Path("")
	run.Input = inputLine(res)
	run.Labels = res.LabelsNote
	if n := res.Summary.TotalProblems(); n > 0 { // the labels' problems are among the warnings below
		run.Warnings = append(run.Warnings, fmt.Sprintf("%d input problems (see %s)", n, res.Out.Path("problems")))
	}
	for _, w := range res.Warnings {
		run.Warnings = append(run.Warnings, w.Error())
	}
	if opts.Report {
		if run.page, err = pipeline.Report(res, ds.Name+"/"+c.Name); err != nil {
			return run, nil, fmt.Errorf("%s/%s: report: %w", ds.Name, c.Name, err)
		}
	}
	logf(opts.Log, "regress: %s/%s: %s (%.1fs)\n", ds.Name, c.Name, run.Input, run.Elapsed.Seconds())
	return run, Measure(res, ds.Detectors), nil
}

// settings are the pipeline settings of one replay.
func settings(reg *registry.Registry, ds registry.Dataset, c registry.Config, src registry.Source, opts Options) pipeline.Settings {
	s := pipeline.DefaultSettings()
	s.In, s.Labels, s.DeriveLabels = src.In, src.Labels, ds.DeriveLabels
	if ds.PositiveOutcomes != "" {
		s.PositiveOutcomes = ds.PositiveOutcomes
	}
	if ds.FrictionWindow > 0 {
		s.FrictionWindow = ds.FrictionWindow
	}
	s.StruggleConfig, s.AssessConfig = c.Struggle, c.Assess
	s.Compare = nil // each registered configuration is a replay of its own
	s.Workers = opts.Workers
	if e := reg.Eval; e.Seed != nil {
		s.Seed = *e.Seed
	}
	if e := reg.Eval; e.Resamples != nil {
		s.Resamples = *e.Resamples
	}
	if e := reg.Eval; e.Level != nil {
		s.Level = *e.Level
	}
	s.Out = filepath.Join(opts.Out, ds.Name, c.Name, "results.parquet")
	return s
}

// inputLine summarises what a replay read.
func inputLine(res *pipeline.Result) string {
	sum := res.Summary
	var parts []string
	if sum.Runs > 0 || sum.Sessions == 0 {
		parts = append(parts, fmt.Sprintf("%d runs", sum.Runs))
	}
	if sum.Sessions > 0 {
		parts = append(parts, fmt.Sprintf("%d sessions (%d events)", sum.Sessions, sum.Events))
	}
	parts = append(parts, fmt.Sprintf("%d problems", sum.TotalProblems()))
	return fmt.Sprintf("%d files, %s", sum.Files, strings.Join(parts, ", "))
}

// compare judges every metric of the dataset's detectors under one configuration.
func compare(ds registry.Dataset, config string, measured map[string]map[string]*Measurement) []Result {
	var out []Result
	for _, name := range ds.Detectors {
		det, _ := registry.LookupDetector(name)
		for _, m := range det.Metrics {
			r := Result{Dataset: ds.Name, Config: config, Detector: name, Metric: m.Name, LowerIsBetter: m.LowerIsBetter,
				Count: m.Scale == registry.Count, Baseline: math.NaN(), Tolerance: math.NaN(), Now: math.NaN(), Interval: Interval{Low: math.NaN(), High: math.NaN()}}
			var base *registry.Baseline
			if b, ok := ds.Baselines[registry.Key{Config: config, Detector: name, Metric: m.Name}]; ok {
				base = &b
				r.HasBaseline, r.Baseline, r.Tolerance = true, b.Value, b.Tolerance
			}
			now := measured[name][m.Name]
			if now != nil {
				r.Measured, r.Now, r.Interval, r.N = true, now.Value, now.Interval, now.N
			}
			r.Verdict, r.Note = Judge(m, base, now)
			if now == nil && measured[name] == nil {
				r.Note = "the replay gave no figure for " + name + " on this dataset (remove it from the dataset's detectors if that is expected)"
			}
			out = append(out, r)
		}
	}
	return out
}

// unmeasured gives every baseline of a configuration the verdict of a dataset or
// replay that produced nothing.
func unmeasured(ds registry.Dataset, config string, v Verdict, note string) []Result {
	var out []Result
	for _, name := range ds.Detectors {
		det, _ := registry.LookupDetector(name)
		for _, m := range det.Metrics {
			b, ok := ds.Baselines[registry.Key{Config: config, Detector: name, Metric: m.Name}]
			if !ok {
				continue
			}
			out = append(out, Result{Dataset: ds.Name, Config: config, Detector: name, Metric: m.Name, LowerIsBetter: m.LowerIsBetter,
				Count: m.Scale == registry.Count, HasBaseline: true, Baseline: b.Value, Tolerance: b.Tolerance, Now: math.NaN(),
				Interval: Interval{Low: math.NaN(), High: math.NaN()}, Verdict: v, Note: note})
		}
	}
	return out
}

// Updates are the baseline changes --update-baseline records from a run: every
// figure measured now (undefined ones as nan), and the removal of baselines whose
// metric the replay no longer produces. Datasets skipped or failed, and replays that
// failed, keep their baselines.
func (rep *Report) Updates() []registry.Update {
	failed := map[[2]string]bool{} // dataset and configuration; "" for the whole dataset
	for _, d := range rep.Datasets {
		if d.Status != "ran" {
			failed[[2]string{d.Name, ""}] = true
		}
		for _, c := range d.Configs {
			if c.Error != "" {
				failed[[2]string{d.Name, c.Name}] = true
			}
		}
	}
	var out []registry.Update
	for _, r := range rep.Results {
		if failed[[2]string{r.Dataset, ""}] || failed[[2]string{r.Dataset, r.Config}] {
			continue
		}
		k := registry.Key{Config: r.Config, Detector: r.Detector, Metric: r.Metric}
		switch {
		case r.Measured:
			out = append(out, registry.Update{Dataset: r.Dataset, Key: k, Value: r.Now})
		case r.HasBaseline:
			out = append(out, registry.Update{Dataset: r.Dataset, Key: k, Remove: true})
		}
	}
	return out
}

// Elapsed is the total replay time of the run.
func (rep *Report) Elapsed() time.Duration {
	var t time.Duration
	for _, d := range rep.Datasets {
		for _, c := range d.Configs {
			t += c.Elapsed
		}
	}
	return t
}

// verdictOrder lists the verdicts in the order reports count them.
var verdictOrder = []Verdict{OK, Improved, Regressed, New, Missing, Skipped}

// countLine is "60 ok, 2 improved, 0 regressed, …".
func countLine(c map[Verdict]int) string {
	var parts []string
	for _, v := range verdictOrder {
		parts = append(parts, fmt.Sprintf("%d %s", c[v], v))
	}
	return strings.Join(parts, ", ")
}

func logf(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, format, args...)
	}
}
