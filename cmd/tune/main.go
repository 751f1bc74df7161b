package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"text/tabwriter"

	flag "github.com/spf13/pflag"

	"github.com/loopwatch/loopwatch/eval"
	"github.com/loopwatch/loopwatch/internal/plural"
	"github.com/loopwatch/loopwatch/internal/printable"
	"github.com/loopwatch/loopwatch/pipeline"
	"github.com/loopwatch/loopwatch/reports"
	"github.com/loopwatch/loopwatch/reports/htmlreport"
	"github.com/loopwatch/loopwatch/tune"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	s := pipeline.DefaultSettings()
	opts := tune.Options{}
	var out, objective, holdout, printConfig, report string
	var targets []string
	var listParams, strict bool
	fs := flag.NewFlagSet("tune", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&s.In, "in", "", "input folder or file (default: the built-in sample)")
	fs.StringVar(&out, "out", "sweep.parquet", "sweep table to write; the Arrow file, the curves and the chosen configurations share its stem")
	fs.StringArrayVar(&s.Labels, "labels", nil, "labels file, CSV or JSONL (run or session labels); repeat for several (default: none, or the sample's labels without --in)")
	fs.BoolVar(&s.DeriveLabels, "derive-labels", false, "label quasar runs from their recorded outcomes; --labels overrides them per run")
	fs.StringVar(&s.StruggleConfig, "struggle-config", "", `the struggle configuration the grid varies and the tuned choice is compared with: a preset ("loopwatch", "seed") or a JSON file`)
	fs.StringVar(&s.AssessConfig, "assess-config", "", `the assessment configuration the grid varies and the tuned choice is compared with: a preset ("loopwatch", "seed") or a JSON file`)
	fs.StringArrayVar(&opts.Grid, "grid", nil, "a parameter and its values: name=lo:hi:step or name=a,b,c (repeat; default: a grid per target, see --help)")
	fs.StringArrayVar(&opts.GridFiles, "grid-file", nil, "a file of grid specifications, one name=values per line (# comments)")
	fs.BoolVar(&listParams, "list-params", false, "list every tunable parameter with its kind and default value, and exit")
	fs.StringSliceVar(&targets, "target", nil, "what to tune: struggle, breaker, friction (default: what the labels allow)")
	fs.StringVar(&objective, "objective", "f1", "how to choose: f1, fbeta=B, recall@precision>=P, recall@false_alarms<=R (per 100 human turns; friction), cost=FP:FN")
	fs.IntVar(&opts.Folds, "folds", 5, "k of the k-fold cross-validation (stratified by label, seeded; a task's runs and a project's sessions kept in one fold)")
	fs.BoolVar(&opts.Ungrouped, "ungrouped", false, "deal units into folds one by one, not a task's runs and a project's sessions (and a resumed session with the one it resumed) together")
	fs.StringVar(&holdout, "holdout", "", "a file of the run or session keys to score the choice on (one per line); the choice is made on the others")
	fs.IntVar(&opts.Samples, "samples", 0, "draw this many configurations of each grid at random (seeded) instead of sweeping it whole")
	fs.IntVar(&opts.MaxConfigs, "max-configs", 10000, "refuse a grid larger than this without --samples")
	fs.StringVar(&report, "report", "", "also write a self-contained HTML report of the sweep to this .html file")
	fs.StringVar(&printConfig, "print-config", "", `print the effective base configuration as JSON and exit: "struggle", "assess", or both when given no value`)
	fs.Lookup("print-config").NoOptDefVal = "both"
	fs.StringVar(&s.PositiveOutcomes, "positive-outcomes", s.PositiveOutcomes, "session outcomes that count as the positive (bad) class")
	fs.DurationVar(&s.FrictionWindow, "friction-window", s.FrictionWindow, "an intervention this long after a labelled friction moment catches it")
	fs.IntVar(&s.Workers, "workers", 0, "files replayed and configurations scored at once (default: number of CPUs); never changes the output")
	fs.BoolVar(&strict, "strict", false, "exit with status 1 when the input has any problem (bad rows of the labels files and --holdout keys that match nothing or repeat included) or a target's objective cannot be measured on the units a choice is made on (one class)")
	fs.Uint64Var(&s.Seed, "seed", s.Seed, "seed of the folds, the samples and the bootstrap")
	fs.IntVar(&s.Resamples, "resamples", s.Resamples, fmt.Sprintf("bootstrap resamples for intervals and the paired comparison (0 disables; at most %d)", pipeline.MaxResamples))
	fs.Float64Var(&s.Level, "ci-level", s.Level, "confidence level of the intervals, in (0, 1)")
	fs.Float64Var(&s.Beta, "beta", s.Beta, "β of the fbeta column of the sweep (> 0)")
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
		fmt.Fprint(stderr, defaultGrids())
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "tune: %v (see tune --help)\n", err)
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "tune: unexpected argument %q (inputs go in --in, parameters in --grid)\n", fs.Arg(0))
		return 2
	}
	fail := func(code int, err error) int {
		fmt.Fprintf(stderr, "tune: %v\n", err)
		return code
	}
	switch {
	case fs.Changed("in") && s.In == "": // an unset variable, say: not the built-in sample
		return fail(2, errors.New("--in is empty: name an input folder or file (leave --in out for the built-in sample)"))
	case opts.Folds == 0: // only given so: 0 would be tune.Options' default of 5
		return fail(2, errors.New("--folds 0: need at least 2"))
	case opts.MaxConfigs == 0: // likewise its default of 10,000
		return fail(2, errors.New("--max-configs 0: must be ≥ 1"))
	}
	if printConfig != "" {
		if err := pipeline.PrintConfig(stdout, s, printConfig); err != nil {
			return fail(2, err)
		}
		return 0
	}
	if listParams {
		return listTunable(stdout, stderr, s)
	}
	o, err := eval.ParseObjective(objective)
	if err != nil {
		return fail(2, fmt.Errorf("--objective: %w", err))
	}
	opts.Objective = o
	for _, t := range targets {
		tt, err := tune.ParseTarget(t)
		if err != nil {
			return fail(2, fmt.Errorf("--target: %w", err))
		}
		opts.Targets = append(opts.Targets, tt)
	}
	if holdout != "" {
		if opts.Holdout, err = readKeys(holdout); err != nil {
			return fail(2, fmt.Errorf("--holdout %s: %w", holdout, err))
		}
		opts.HoldoutName = holdout
	}
	if err := tune.CheckOut(out); err != nil {
		return fail(2, err)
	}
	if err := checkReportFlag(report); err != nil {
		return fail(2, err)
	}
	if err := s.Validate(); err != nil {
		return fail(2, err)
	}
	opts.Settings, opts.Out = s, out
	res, err := tune.Run(ctx, opts)
	switch {
	case pipeline.Interrupted(ctx, err):
		fmt.Fprintln(stderr, "tune: interrupted; nothing was written")
		return pipeline.ExitInterrupted
	case pipeline.IsUsage(err):
		return fail(2, err)
	case err != nil:
		return fail(1, err)
	}
	if ctx.Err() != nil { // interrupted after the sweep: nothing is written either
		fmt.Fprintln(stderr, "tune: interrupted; nothing was written")
		return pipeline.ExitInterrupted
	}
	written, err := tune.Write(res, out)
	if err != nil {
		return fail(1, err)
	}
	if err := printResult(stdout, stderr, res, written); err != nil {
		return fail(1, err)
	}
	if report != "" {
		if err := writeReport(report, res, s.In); err != nil {
			return fail(1, fmt.Errorf("report: %w", err))
		}
		fmt.Fprintf(stdout, "wrote the report %s\n", report)
	}
	if n := res.Summary.TotalProblems() + res.LabelProblems + res.UnscoredLabels; strict && n > 0 {
		return fail(1, fmt.Errorf("%s in the input or its labels and --strict is set", plural.Count(n, "problem")))
	}
	if strict && res.HoldoutProblems > 0 {
		return fail(1, fmt.Errorf("%s (a key that matches no run or session, or is given again: see above) and --strict is set", plural.Count(res.HoldoutProblems, "--holdout problem")))
	}
	if strict && res.Unmeasured > 0 {
		return fail(1, fmt.Errorf("the objective cannot be measured on the units a choice is made on (one class) for %s and --strict is set", plural.Count(res.Unmeasured, "target")))
	}
	return 0
}

// listTunable prints every tunable parameter.
func listTunable(stdout, stderr io.Writer, s pipeline.Settings) int {
	sc, err := pipeline.LoadStruggleConfig(s.StruggleConfig)
	if err != nil {
		fmt.Fprintf(stderr, "tune: %v\n", err)
		return 2
	}
	ac, err := pipeline.LoadAssessConfig(s.AssessConfig)
	if err != nil {
		fmt.Fprintf(stderr, "tune: %v\n", err)
		return 2
	}
	sp, err := tune.NewSpace(sc, ac)
	if err != nil {
		fmt.Fprintf(stderr, "tune: %v\n", err)
		return 1
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PARAMETER\tKIND\tDEFAULT")
	for _, line := range sp.Tunable() {
		fmt.Fprintln(tw, line)
	}
	tw.Flush()
	return 0
}

// readKeys reads a holdout file: one key per line, blank lines and # comments
// skipped.
func readKeys(name string) ([]string, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	var keys []string
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(strings.TrimPrefix(line, "\ufeff"))
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		keys = append(keys, line)
	}
	if len(keys) == 0 {
		return nil, errors.New("no key in the file")
	}
	return keys, nil
}

// printResult prints the sweep: what was read, the side-by-side tables, the choices
// and the paired comparison, and what was written.
func printResult(stdout, stderr io.Writer, res *tune.Result, w *tune.Output) error {
	sum := res.Summary
	if sum.Files == 0 {
		fmt.Fprintln(stderr, "tune: no input file is in a recognised format")
	}
	reports.WriteProblems(stderr, sum, 20, "")
	for _, e := range res.Warnings { // of the input: one line each, safe for a terminal
		fmt.Fprintf(stderr, "tune: %s\n", printable.Line(e.Error()))
	}
	var dets []reports.DetectorReport
	var moments []reports.MomentResult
	for _, tr := range res.Targets {
		for _, r := range tr.Rows {
			if r.Report != nil {
				dets = append(dets, reports.DetectorReport{Detector: string(tr.Target), Config: r.Name, Report: r.Report})
			} else {
				moments = append(moments, reports.MomentResult{Detector: "breaker", Config: r.Name, Report: r.Moments})
			}
		}
	}
	if err := reports.WriteSummary(stdout, sum, pipeline.LabelsNote(res.LabelsNote, res.LabelProblems), dets); err != nil {
		return err
	}
	if err := reports.WriteMomentSummary(stdout, moments); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nscored by %s; objective %s; the rows above are on the held-out units\n", res.Scheme, res.Objective)
	for _, tr := range res.Targets {
		printTarget(stdout, res, tr)
	}
	files := []string{filepath.Base(w.Arrow), filepath.Base(w.Curves)}
	for _, t := range res.Targets {
		if p, ok := w.Configs[t.Target]; ok {
			files = append(files, filepath.Base(p))
		}
	}
	_, err := fmt.Fprintf(stdout, "\nwrote %s (%d rows: configuration × fold) and beside it: %s\n", w.Sweep, w.Rows, strings.Join(files, ", "))
	if len(w.Removed) > 0 && err == nil {
		var removed []string
		for _, p := range w.Removed {
			removed = append(removed, filepath.Base(p))
		}
		_, err = fmt.Fprintf(stdout, "removed the previous sweep's %s, which this one does not write\n", strings.Join(removed, ", "))
	}
	for _, p := range w.Kept {
		fmt.Fprintf(stderr, "tune: warning: left %s: changed since the sweep that wrote it (or unreadable now), it is not of this sweep (remove it if it is not yours to keep)\n", printable.Line(p))
	}
	return err
}

// printTarget prints one target's choices, paired comparison and verdict.
func printTarget(w io.Writer, res *tune.Result, tr *tune.TargetResult) {
	unit := map[tune.Target]string{tune.TargetStruggle: "positive", tune.TargetBreaker: "positive", tune.TargetFriction: "friction moments"}[tr.Target]
	fmt.Fprintf(w, "\n%s: %d configurations on %d %s (%d %s)\n", tr.Target, tr.Candidates(), tr.Units, tr.Target.Unit(), tr.Positives, unit)
	var folds []string
	for f, c := range tr.FoldChoice {
		switch {
		case !tr.FoldHeldOut[f]:
		case c < 0:
			folds = append(folds, "none")
		default:
			folds = append(folds, fmt.Sprintf("#%d", tr.Configs[c].ID))
		}
	}
	fmt.Fprintf(w, "  chosen per fold: %s\n", strings.Join(folds, " "))
	if tr.Final >= 0 {
		c := tr.Configs[tr.Final]
		fmt.Fprintf(w, "  to ship: #%d (config_hash %s)%s\n", c.ID, c.Hash, describe(res, tr, c))
	} else if tr.FinalUnmeasured != "" {
		fmt.Fprintf(w, "  to ship: nothing — %s cannot be measured on the %s it is chosen on (they hold %s): keep the default\n",
			res.Objective, tr.Target.Unit(), tr.FinalUnmeasured)
	} else {
		fmt.Fprintf(w, "  to ship: nothing — no configuration meets %s\n", res.Objective)
	}
	for _, p := range tr.Paired {
		fmt.Fprintf(w, "  tuned − default, %s: %s\n", p.Metric, formatPaired(p, res.Settings.Resamples))
	}
	fmt.Fprintf(w, "  verdict: %s\n", tr.Verdict)
	for _, e := range tr.Warnings { // the folds' and what was left out: one line each
		fmt.Fprintf(w, "  note: %s\n", printable.Line(e.Error()))
	}
}

// describe lists the chosen configuration's parameter values that differ from the
// default's.
func describe(res *tune.Result, tr *tune.TargetResult, c *tune.Config) string {
	diff := tr.Differences(res.Space, c)
	if len(diff) == 0 {
		return ": the default"
	}
	return ": " + strings.Join(diff, ", ")
}

func formatPaired(p tune.Paired, resamples int) string {
	d := p.PairedDifference
	switch {
	case math.IsNaN(d.Diff):
		return fmt.Sprintf("undefined (default %s, tuned %s)", undefined(d.A), undefined(d.B))
	case math.IsNaN(d.Low) && resamples <= 0:
		return fmt.Sprintf("%+.3f (%.3f → %.3f; no interval: --resamples 0)", d.Diff, d.A, d.B)
	case math.IsNaN(d.Low):
		return fmt.Sprintf("%+.3f (%.3f → %.3f; no interval: undefined in %d of %d resamples)", d.Diff, d.A, d.B, resamples-d.Resamples, resamples)
	}
	return fmt.Sprintf("%+.3f [%+.3f, %+.3f] (%.3f → %.3f, paired bootstrap of %d resamples)", d.Diff, d.Low, d.High, d.A, d.B, d.Resamples)
}

// undefined formats a figure that may be undefined.
func undefined(v float64) string {
	if math.IsNaN(v) {
		return "undefined"
	}
	return fmt.Sprintf("%.3f", v)
}

// defaultGrids lists the grids used when none is given.
func defaultGrids() string {
	var b strings.Builder
	b.WriteString("\nDefault grids (used for a target when --grid varies none of its parameters):\n")
	for _, f := range []tune.Family{tune.Struggle, tune.Assess} {
		for _, g := range tune.DefaultGrid(f) {
			fmt.Fprintf(&b, "  --grid %s\n", g)
		}
	}
	return b.String()
}

const usage = `Usage: tune [--in PATH] [--labels FILE] [--grid name=values ...] [flags]

Chooses detector thresholds offline. Replays the input once, keeps what each detector
read, rescores every configuration of the grid with the real detectors, chooses one
per target by the objective on some units and scores it on others (k folds, or a
holdout), and compares it with the default, the seed preset and what quasar and
vibes ship today on the same held-out units, with a paired bootstrap interval of the
difference. Writes the sweep (Parquet and Arrow), the PR/ROC curves and each chosen
configuration as a file replay's --struggle-config / --assess-config accepts.

Parameters are named by their path in the configuration file, or by a suffix of it
that only one has: composite_threshold, weights.budget_burn, breaker.cooldown,
ema.alpha. tune --list-params lists them. A section (an object or a list, such as
assess.detect.friction) takes preset names: seed, loopwatch.

Examples:
  tune
  tune --list-params
  tune --grid composite_threshold=0.3:0.8:0.1 --grid weights.budget_burn=0,0.1,0.25 --out sweep.parquet
  tune --in sessions/ --labels session-labels.csv --grid frustration_threshold=0.2,0.3,0.45 --grid ema.alpha=0.5,1 --objective recall@false_alarms<=10
  tune --in quasar-history/ --derive-labels --target struggle --objective fbeta=2 --folds 2
  tune --in runs/ --labels labels.csv --grid-file grid.txt --samples 500 --seed 7
  tune --in sessions/ --labels session-labels.csv --holdout heldout.txt --objective recall@precision>=0.5
  tune --print-config=struggle

Flags:
`

// checkReportFlag checks a --report path, if one is given.
func checkReportFlag(path string) error {
	if path == "" {
		return nil
	}
	return htmlreport.CheckPath(path)
}
