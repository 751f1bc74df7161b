package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	flag "github.com/spf13/pflag"

	"github.com/loopwatch/loopwatch/datasets/registry"
	"github.com/loopwatch/loopwatch/pipeline"
	"github.com/loopwatch/loopwatch/regress"
	"github.com/loopwatch/loopwatch/reports/htmlreport"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

const usage = `Usage: regress [--registry FILE] [--out DIR] [--only NAME]... [--workers N] [--report FILE.html] [--strict] [--update-baseline]

Replays every dataset of the registry under each of its configurations, compares each
detector's metrics with the recorded baselines and exits 1 when one regressed: moved
in its bad direction by more than its tolerance with the baseline outside the new
interval. The counts they rest on are checked too (runs, sessions, problems, units
scored), so input or labels that go missing fail the run; so does a replay that fails.
With --strict, so does a metric with no baseline yet (a dataset or configuration
registered without its baselines would otherwise pass, unguarded). Writes DIR/regress.md, DIR/regress.json and each replay's tables under
DIR/<dataset>/<config>/; --report also writes the run as one HTML page.

Examples:
  regress
  regress --only sample
  regress --only sample --report regress-out/regress.html
  regress --registry my-registry.toml --out nightly
  regress --update-baseline
  regress --only sample --update-baseline
  regress --only sample --strict

Flags:
`

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("regress", flag.ContinueOnError)
	fs.SetOutput(stderr)
	regPath := fs.String("registry", "datasets/registry.toml", "the dataset registry")
	out := fs.String("out", "regress-out", "work folder: the replays' tables, regress.md and regress.json")
	only := fs.StringArray("only", nil, "run only this dataset (repeat for several)")
	workers := fs.Int("workers", 0, "files replayed at once (default: number of CPUs); never changes a figure")
	report := fs.String("report", "", "also write the run as one self-contained HTML file (verdicts, curves with the baselines marked, sweeps, lead times, trajectories); its folder is created like --out")
	strict := fs.Bool("strict", false, "a metric with no baseline yet fails the run too (a nightly run guards only what has a baseline)")
	update := fs.Bool("update-baseline", false, "record the figures measured now as the registry's baselines (keeps comments, layout and tolerances) and show the changes")
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "regress: %v (see regress --help)\n", err)
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "regress: unexpected argument %q (datasets are chosen with --only)\n", fs.Arg(0))
		return 2
	}
	if *workers < 0 {
		fmt.Fprintf(stderr, "regress: --workers %d: must be ≥ 0 (0: every CPU)\n", *workers)
		return 2
	}
	if *report != "" && !strings.HasSuffix(*report, ".html") {
		fmt.Fprintf(stderr, "regress: --report %s: must end in .html\n", *report)
		return 2
	}
	if fi, err := os.Stat(filepath.Dir(*report)); *report != "" && err == nil && !fi.IsDir() {
		fmt.Fprintf(stderr, "regress: --report %s: cannot write to %s: not a folder\n", *report, filepath.Dir(*report))
		return 2
	}
	if fi, err := os.Stat(*report); *report != "" && err == nil && fi.IsDir() {
		fmt.Fprintf(stderr, "regress: --report %s: is a folder\n", *report)
		return 2
	}
	reg, err := registry.Load(*regPath)
	if err != nil {
		fmt.Fprintf(stderr, "regress: the registry does not load:\n%v\n", err)
		return 2
	}
	rep, err := regress.Run(ctx, reg, regress.Options{Out: *out, Only: *only, Workers: *workers, Log: stderr, Report: *report != "", Strict: *strict})
	switch {
	case pipeline.Interrupted(ctx, err):
		fmt.Fprintln(stderr, "regress: interrupted (the datasets replayed before it keep their tables)")
		return pipeline.ExitInterrupted
	case regress.IsUsage(err):
		fmt.Fprintf(stderr, "regress: %v\n", err)
		return 2
	case err != nil:
		fmt.Fprintf(stderr, "regress: %v\n", err)
		return 1
	}
	files, err := rep.WriteFiles(*out)
	if err != nil {
		fmt.Fprintf(stderr, "regress: %v\n", err)
		return 1
	}
	if *report != "" {
		if err := os.MkdirAll(filepath.Dir(*report), 0o755); err != nil {
			fmt.Fprintf(stderr, "regress: --report %s: %v\n", *report, err)
			return 1
		}
		if err := htmlreport.WriteFile(*report, rep.HTML()); err != nil {
			fmt.Fprintf(stderr, "regress: --report %s: %v\n", *report, err)
			return 1
		}
		files = append(files, *report)
	}
	printSummary(stdout, rep)
	fmt.Fprintf(stdout, "wrote %s (replays took %.1fs)\n", strings.Join(files, ", "), rep.Elapsed().Seconds())
	if *update {
		return updateBaselines(stdout, stderr, reg, rep)
	}
	if rep.Failed() {
		return 1
	}
	return 0
}

// printSummary prints the verdict line and every metric that is not ok.
func printSummary(w io.Writer, rep *regress.Report) {
	fmt.Fprintf(w, "regress: %s\n", rep.Headline())
	for _, d := range rep.Datasets {
		if d.Status != "ran" {
			fmt.Fprintf(w, "  %-9s %s: %s\n", d.Status, d.Name, d.Notice)
		}
	}
	for _, r := range rep.Results {
		if r.Verdict == regress.OK || r.Verdict == regress.Skipped {
			continue
		}
		fmt.Fprintf(w, "  %-9s %s/%s/%s/%s: %s", r.Verdict, r.Dataset, r.Config, r.Detector, r.Metric, figure(r.HasBaseline, r.Baseline))
		fmt.Fprintf(w, " → %s", figure(r.Measured, r.Now))
		if r.HasBaseline && r.Measured {
			fmt.Fprintf(w, " (tolerance %s, interval %s)", registry.FormatFloat(r.Tolerance), r.Interval)
		}
		if r.Note != "" {
			fmt.Fprintf(w, ": %s", r.Note)
		}
		fmt.Fprintln(w)
	}
}

func figure(known bool, v float64) string {
	if !known {
		return "none"
	}
	return registry.FormatFloat(v)
}

// updateBaselines rewrites the registry's baselines with the figures of the run and
// prints each change.
func updateBaselines(stdout, stderr io.Writer, reg *registry.Registry, rep *regress.Report) int {
	changes, err := reg.Rewrite(rep.Updates())
	if err != nil {
		fmt.Fprintf(stderr, "regress: --update-baseline: %v\n", err)
		return 1
	}
	var changed, added, removed int
	for _, c := range changes {
		switch {
		case c.Old == nil:
			added++
		case c.New == nil:
			removed++
		default:
			changed++
		}
	}
	if len(changes) == 0 {
		fmt.Fprintf(stdout, "--update-baseline: %s already holds every figure measured now; nothing to change\n", reg.Path)
	} else {
		fmt.Fprintf(stdout, "--update-baseline: rewrote %s: %d baselines changed, %d recorded for the first time, %d removed (comments, layout and tolerances kept)\n",
			reg.Path, changed, added, removed)
	}
	for _, c := range changes {
		name := c.Dataset + "/" + c.Key.String()
		switch {
		case c.Old == nil:
			fmt.Fprintf(stdout, "  %s: new %s (tolerance %s)\n", name, registry.FormatFloat(c.New.Value), registry.FormatFloat(c.New.Tolerance))
		case c.New == nil:
			fmt.Fprintf(stdout, "  %s: removed (was %s; no longer measured)\n", name, registry.FormatFloat(c.Old.Value))
		default:
			fmt.Fprintf(stdout, "  %s: %s → %s\n", name, registry.FormatFloat(c.Old.Value), registry.FormatFloat(c.New.Value))
		}
	}
	for _, d := range rep.Datasets {
		if d.Status == "skipped" {
			fmt.Fprintf(stdout, "  %s: skipped, its baselines kept: %s\n", d.Name, d.Notice)
		}
	}
	for _, d := range rep.Datasets {
		if d.Failed() {
			fmt.Fprintf(stderr, "regress: %s failed; its baselines were kept\n", d.Name)
			return 1
		}
	}
	return 0
}
