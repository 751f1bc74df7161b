package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"

	flag "github.com/spf13/pflag"

	"github.com/loopwatch/loopwatch/analyze/fixloop/filter"
	"github.com/loopwatch/loopwatch/analyze/struggle"
	"github.com/loopwatch/loopwatch/datasets"
	"github.com/loopwatch/loopwatch/eval"
	"github.com/loopwatch/loopwatch/replay"
	"github.com/loopwatch/loopwatch/replay/fixsim"
	"github.com/loopwatch/loopwatch/reports"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// usageError is a problem with the command line or its files: exit status 2.
type usageError struct{ error }

type options struct {
	in, out, labels, struggleConfig string
	workers                         int
	strict, deriveLabels            bool
	seed                            uint64
	resamples                       int
	level, beta                     float64
	showProblems                    int
	fixPassProb                     string
	fixCostFraction                 float64
	fixDraws, fixTrials, maxFixes   int
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var o options
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.in, "in", "", "input folder or file (default: the built-in sample)")
	fs.StringVar(&o.out, "out", "results.parquet", "run table to write; sibling tables share its stem")
	fs.StringVar(&o.labels, "labels", "", "labels file, CSV or JSONL (default: none, or the sample's labels without --in)")
	fs.BoolVar(&o.deriveLabels, "derive-labels", false, "label quasar runs from their recorded outcomes (rules in the README); --labels overrides them per run")
	fs.StringVar(&o.struggleConfig, "struggle-config", "", "JSON file overriding struggle detection thresholds")
	fs.IntVar(&o.workers, "workers", 0, "files replayed at once (default: number of CPUs); never changes the output")
	fs.BoolVar(&o.strict, "strict", false, "exit with status 1 when the input has any problem")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the bootstrap confidence intervals")
	fs.IntVar(&o.resamples, "resamples", 2000, "bootstrap resamples of runs for confidence intervals (0 disables)")
	fs.Float64Var(&o.level, "ci-level", 0.95, "confidence level of the intervals")
	fs.Float64Var(&o.beta, "beta", 1, "β of the F-beta score reported beside F1")
	fs.IntVar(&o.showProblems, "show-problems", 20, "input problems printed on stderr (all are in the problems table)")
	fs.StringVar(&o.fixPassProb, "fix-pass-prob", "history", `fix-loop simulation: pass probability of one fix attempt: "history" (estimated per check from the replayed runs), a number for every check, or per check as build=0.8,test=0.5 (others from history)`)
	fs.Float64Var(&o.fixCostFraction, "fix-cost-fraction", 0.25, "fix-loop simulation: cost of a fix attempt as a fraction of the run's mean coder call")
	fs.IntVar(&o.fixDraws, "fix-draws", 100, "fix-loop simulation: draws of each check's pass probability (for intervals)")
	fs.IntVar(&o.fixTrials, "fix-trials", 20, "fix-loop simulation: trials per failure and draw")
	fs.IntVar(&o.maxFixes, "max-filter-fixes", 3, "fix-loop simulation: fix attempts per failure (the loop's MaxFilterFixes)")
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "replay: %v (see replay --help)\n", err)
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "replay: unexpected argument %q (inputs go in --in)\n", fs.Arg(0))
		return 2
	}
	if o.resamples == 0 {
		o.resamples = -1 // eval: < 0 disables; 0 would mean its default
	}
	err := replayJob(ctx, o, stdout, stderr)
	var ue usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "replay: %v\n", err)
		return 2
	default:
		fmt.Fprintf(stderr, "replay: %v\n", err)
		return 1
	}
}

const usage = `Usage: replay [--in PATH] [--out FILE.parquet] [--labels FILE] [flags]

Replays recorded coding-agent runs through loopwatch's detectors, writes every decision
to Parquet and scores the detectors against labels. Without --in it replays the
built-in sample dataset.

Examples:
  replay
  replay --in runs/ --out results.parquet
  replay --in runs/ --labels labels.csv --out results.parquet --workers 8
  replay --in runs/ --struggle-config struggle.json --strict
  replay --in quasar-history/ --derive-labels --out q.parquet

Flags:
`

func replayJob(ctx context.Context, o options, stdout, stderr io.Writer) error {
	fsys, inputName, err := openInput(o.in)
	if err != nil {
		return usageError{err}
	}
	labels, labelsNote, labelsID, err := loadLabels(o, stderr)
	if err != nil {
		return usageError{err}
	}
	cfg, err := loadStruggleConfig(o.struggleConfig)
	if err != nil {
		return usageError{err}
	}
	givenP, err := parsePassProb(o.fixPassProb)
	if err != nil {
		return usageError{err}
	}
	fixCfg := fixsim.Config{Draws: o.fixDraws, TrialsPerDraw: o.fixTrials, Seed: o.seed, CostFraction: o.fixCostFraction,
		MaxFilterFixes: o.maxFixes, Level: o.level}
	fixJSON, _ := json.Marshal(map[string]any{"pass_prob": o.fixPassProb, "cost_fraction": o.fixCostFraction,
		"draws": o.fixDraws, "trials_per_draw": o.fixTrials, "max_filter_fixes": o.maxFixes, "seed": o.seed})
	cfgJSON, _ := json.Marshal(cfg)
	cfgHash := shortHash(cfgJSON)
	evalOpts := eval.Options{Seed: o.seed, Resamples: o.resamples, Level: o.level, Beta: o.beta}
	evalJSON, _ := json.Marshal(map[string]any{"seed": o.seed, "resamples": max(o.resamples, 0), "ci_level": o.level, "beta": o.beta})

	out, err := reports.NewOutput(o.out, map[string]string{
		"loopwatch.struggle_config": string(cfgJSON),
		"loopwatch.config_hash":     cfgHash,
		"loopwatch.labels":          labelsID,
		"loopwatch.eval":            string(evalJSON),
		"loopwatch.fixsim":          string(fixJSON),
	})
	if err != nil {
		return usageError{err}
	}
	defer out.Abort()
	runs, err := reports.NewTable[reports.RunRow](out, "")
	if err != nil {
		return err
	}
	cycles, err := reports.NewTable[reports.CycleRow](out, "cycles")
	if err != nil {
		return err
	}
	metrics, err := reports.NewTable[reports.MetricRow](out, "metrics")
	if err != nil {
		return err
	}
	problems, err := reports.NewTable[reports.ProblemRow](out, "problems")
	if err != nil {
		return err
	}
	fixFailures, err := reports.NewTable[reports.FixFailureRow](out, "fixloop")
	if err != nil {
		return err
	}
	fixRuns, err := reports.NewTable[reports.FixRunRow](out, "fixloop_runs")
	if err != nil {
		return err
	}

	var obs []eval.Observation
	var fixCases []*fixsim.Case
	derived := 0
	sink := replay.SinkFunc(func(res *replay.RunResult) error {
		rec, ok := labels.Get(res.Run.Key)
		if !ok && o.deriveLabels {
			r := res.Run
			rec, ok = eval.DeriveQuasar(eval.QuasarRun{Key: r.Key, Outcome: string(r.Outcome), Cycles: len(r.Cycles), CloseReason: r.CloseReason}), true
			derived++
		}
		runRow, cycleRows := reports.RunRows(res, rec, ok)
		if err := runs.Write(runRow); err != nil {
			return err
		}
		if err := cycles.Write(cycleRows...); err != nil {
			return err
		}
		obs = append(obs, eval.Observation{Key: res.Run.Key, Label: rec.Label, Predicted: res.Struggle.Triggered,
			Score: res.Struggle.MaxScore})
		if res.FixCase != nil {
			fixCases = append(fixCases, res.FixCase)
		}
		return nil
	})
	sum, err := replay.Replay(ctx, fsys, replay.Options{Workers: o.workers, Struggle: cfg}, sink)
	if err != nil {
		return fmt.Errorf("%s: %w", inputName, err)
	}
	rep := eval.Evaluate(obs, evalOpts)
	if err := metrics.Write(reports.MetricRows("struggle", "run", "struggled", cfgHash, rep)...); err != nil {
		return err
	}
	if err := problems.Write(reports.ProblemRows(sum.Problems)...); err != nil {
		return err
	}
	fixTotals, err := simulateFixLoop(ctx, fixCases, fixCfg, givenP, o.workers, fixRuns, fixFailures)
	if err != nil {
		return err
	}
	out.SetMetadata("loopwatch.input_fingerprint", sum.Fingerprint)
	if notes, err := json.Marshal(sum.Notes); err == nil && len(sum.Notes) > 0 {
		out.SetMetadata("loopwatch.input_notes", string(notes))
	}
	if o.deriveLabels {
		labelsID = "derived (quasar outcome rules); explicit: " + labelsID
		out.SetMetadata("loopwatch.labels", labelsID)
		labelsNote = fmt.Sprintf("%d runs labelled from their outcomes (label_source=derived); explicit labels: %s", derived, labelsNote)
	}
	if err := out.Commit(); err != nil {
		return err
	}

	if sum.Files == 0 {
		fmt.Fprintf(stderr, "replay: no input file under %s is in a recognised format (%s)\n", inputName, strings.Join(replay.FormatNames(), ", "))
	}
	reports.WriteProblems(stderr, sum, o.showProblems, " (all are in "+out.Path("problems")+")")
	if err := reports.WriteSummary(stdout, sum, labelsNote, []reports.DetectorReport{{Detector: "struggle", Report: rep}}); err != nil {
		return err
	}
	reports.WriteFixSummary(stdout, fixTotals)
	fmt.Fprintf(stdout, "\nwrote %s (%d runs), %s (%d cycles), %s, %s (%d filter failures), %s, %s\n", out.Path(""), runs.Rows(),
		out.Path("cycles"), cycles.Rows(), out.Path("metrics"), out.Path("fixloop"), fixFailures.Rows(), out.Path("fixloop_runs"), out.Path("problems"))
	if o.strict && sum.TotalProblems() > 0 {
		return fmt.Errorf("%d problems in the input and --strict is set (fix them or drop --strict)", sum.TotalProblems())
	}
	return nil
}

// simulateFixLoop runs the inner fix-loop simulation over the runs with recorded
// filter failures, in parallel, and writes its rows in run order.
func simulateFixLoop(ctx context.Context, cases []*fixsim.Case, cfg fixsim.Config, given map[string]float64, workers int,
	runs *reports.Table[reports.FixRunRow], failures *reports.Table[reports.FixFailureRow]) (*fixsim.Totals, error) {
	history := fixsim.NewHistory()
	for _, c := range cases {
		history.Add(c)
	}
	plan := fixsim.NewPlan(cfg, history.Rates(given))
	totals := plan.NewTotals()
	type result struct {
		run      fixsim.RunResult
		failures []fixsim.FailureResult
		err      error
	}
	results := make([]result, len(cases))
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				r := &results[i]
				r.run, r.failures, r.err = plan.Simulate(ctx, cases[i])
			}
		}()
	}
	for i := range cases {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, r := range results {
		if r.err != nil {
			return nil, r.err
		}
		totals.Add(r.run)
		runRow, failureRows := reports.FixRows(r.run, r.failures)
		if err := runs.Write(runRow); err != nil {
			return nil, err
		}
		if err := failures.Write(failureRows...); err != nil {
			return nil, err
		}
	}
	return totals, nil
}

// parsePassProb reads --fix-pass-prob: "history", one probability for every check, or
// check=probability pairs.
func parsePassProb(s string) (map[string]float64, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "history" {
		return nil, nil
	}
	bad := func(v string) error {
		return fmt.Errorf(`--fix-pass-prob %q: %q is not a probability in [0, 1] (use "history", 0.6, or build=0.8,test=0.5)`, s, v)
	}
	given := map[string]float64{}
	if !strings.Contains(s, "=") {
		p, err := strconv.ParseFloat(s, 64)
		if err != nil || !(p >= 0 && p <= 1) {
			return nil, bad(s)
		}
		for _, c := range []string{filter.CheckBuild, filter.CheckVet, filter.CheckLint, filter.CheckTest, filter.CheckClaims} {
			given[c] = p
		}
		return given, nil
	}
	for _, pair := range strings.Split(s, ",") {
		check, v, _ := strings.Cut(pair, "=")
		p, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || !(p >= 0 && p <= 1) || strings.TrimSpace(check) == "" {
			return nil, bad(pair)
		}
		given[strings.TrimSpace(check)] = p
	}
	return given, nil
}

// openInput returns the file system to replay and a name for messages.
func openInput(in string) (fs.FS, string, error) {
	if in == "" {
		return datasets.Sample(), datasets.SampleName, nil
	}
	fi, err := os.Stat(in)
	if err != nil {
		return nil, "", fmt.Errorf("--in %s: %w", in, unwrap(err))
	}
	if fi.IsDir() {
		return os.DirFS(in), in, nil
	}
	return singleFile{dir: os.DirFS(filepath.Dir(in)), name: filepath.Base(in)}, in, nil
}

// loadLabels reads --labels, or the sample's labels when replaying the sample.
func loadLabels(o options, stderr io.Writer) (*eval.Labels, string, string, error) {
	var data []byte
	name := o.labels
	switch {
	case o.labels != "":
		b, err := os.ReadFile(o.labels)
		if err != nil {
			return nil, "", "", fmt.Errorf("--labels %s: %w", o.labels, unwrap(err))
		}
		data = b
	case o.in == "":
		data, name = datasets.SampleLabels(), datasets.SampleName+" labels"
	default:
		note := "none (pass --labels or --derive-labels to score the detectors)"
		if o.deriveLabels {
			note = "none"
		}
		return eval.NewLabels(), note, "none", nil
	}
	ls, probs, err := eval.ReadLabels(bytes.NewReader(data))
	if err != nil {
		return nil, "", "", fmt.Errorf("--labels %s: %w", name, err)
	}
	for _, p := range probs {
		fmt.Fprintf(stderr, "%s:%d: label: %s\n", name, p.Line, p.Detail)
	}
	return ls, fmt.Sprintf("%s: %d runs labelled", name, ls.Len()), filepath.Base(name) + " sha256:" + shortHash(data), nil
}

// loadStruggleConfig reads --struggle-config over the defaults.
func loadStruggleConfig(path string) (struggle.StruggleConfig, error) {
	cfg := struggle.DefaultStruggleConfig()
	if path == "" {
		return cfg, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return cfg, fmt.Errorf("--struggle-config %s: %w", path, unwrap(err))
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cfg); err != nil {
		return cfg, fmt.Errorf("--struggle-config %s: %w (fields: enabled, min_cycles_before_check, filter_repeat_threshold, finding_overlap_threshold, budget_burn_threshold, composite_threshold)", path, err)
	}
	return cfg, nil
}

func shortHash(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

func unwrap(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// singleFile is a file system holding one file of dir, so that a single input file is
// replayed exactly like a folder holding only it.
type singleFile struct {
	dir  fs.FS
	name string
}

func (s singleFile) Open(name string) (fs.File, error) {
	if name == "." {
		return &rootDir{s}, nil
	}
	if name != s.name {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return s.dir.Open(name)
}

type rootDir struct{ s singleFile }

func (d *rootDir) Stat() (fs.FileInfo, error) { return fs.Stat(d.s.dir, ".") }
func (d *rootDir) Read([]byte) (int, error)   { return 0, errors.New("is a directory") }
func (d *rootDir) Close() error               { return nil }
func (d *rootDir) ReadDir(n int) ([]fs.DirEntry, error) {
	fi, err := fs.Stat(d.s.dir, d.s.name)
	if err != nil {
		return nil, err
	}
	return []fs.DirEntry{fs.FileInfoToDirEntry(fi)}, nil
}
