package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"runtime/trace"
	"slices"
	"strings"
	"sync"
	"syscall"

	flag "github.com/spf13/pflag"

	"github.com/loopwatch/loopwatch/internal/plural"
	"github.com/loopwatch/loopwatch/pipeline"
	"github.com/loopwatch/loopwatch/replay"
	"github.com/loopwatch/loopwatch/reports/htmlreport"
)

// memoryLimit is the replay's soft memory limit unless GOMEMLIMIT sets one: near it the
// Go runtime collects garbage more often rather than let the heap grow to twice its
// live data. A replay of 100,000 runs or sessions peaks well below it; it holds back a
// larger one's heap. It is no cap: a replay whose live data needs more goes on,
// collecting more often.
const memoryLimit = 256 << 20

func main() {
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		debug.SetMemoryLimit(memoryLimit)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) (code int) {
	s := pipeline.DefaultSettings()
	var strict bool
	var showProblems int
	var printConfig, report string
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&s.In, "in", "", "input folder or file (default: the built-in sample)")
	fs.StringVar(&s.Out, "out", s.Out, "run table to write (sibling tables share its stem), or a folder (ending in /) to write every table in the hive layout, DIR/<table>/shard=i/part-0.parquet")
	var shard string
	fs.StringVar(&shard, "shard", "", "replay only shard i of n (`i/n`, counting from 0): the runs and sessions whose key hashes to i; --out must be a folder every shard writes into, and the metrics command (metrics DIR) computes the metrics once all n are written")
	fs.StringArrayVar(&s.Labels, "labels", nil, "labels file, CSV or JSONL: run labels (run_key, label) or session labels (session_id, outcome, friction_uuids); repeat for several (default: none, or the sample's labels without --in)")
	fs.BoolVar(&s.DeriveLabels, "derive-labels", false, "label quasar runs from their recorded outcomes (rules in the README); --labels overrides them per run")
	fs.StringVar(&s.StruggleConfig, "struggle-config", "", `struggle detection: a preset ("loopwatch", the default, or "seed") or a JSON file over the defaults (its "preset" field names another base)`)
	fs.StringVar(&s.AssessConfig, "assess-config", "", `the assessment (detector, breaker, checkpoints, sampling, offline analyzer): a preset ("loopwatch", the default, or "seed") or a JSON file over the defaults (its "preset" field names another base)`)
	fs.StringVar(&report, "report", "", "also write a self-contained HTML report (curves, sweeps, lead times, trajectories, problems) to this .html file")
	fs.StringVar(&printConfig, "print-config", "", `print the effective configuration as JSON and exit: "struggle" or "assess" (each a file --struggle-config/--assess-config accept as it is), or both when given no value`)
	fs.Lookup("print-config").NoOptDefVal = "both"
	fs.StringVar(&s.LLM, "llm", s.LLM, "session analyzer: offline (deterministic rules, no network) or claude (runs claude --print)")
	fs.StringVar(&s.ClaudePath, "claude-path", s.ClaudePath, "the claude executable for --llm claude")
	fs.DurationVar(&s.ClaudeTimeout, "claude-timeout", s.ClaudeTimeout, "--llm claude: a call that runs longer is killed (its whole process group) and the analysis fails")
	fs.DurationVar(&s.ClaudeProgress, "claude-progress", s.ClaudeProgress, "--llm claude: a call still running is reported on stderr this often")
	fs.StringVar(&s.PositiveOutcomes, "positive-outcomes", s.PositiveOutcomes, "session outcomes that count as the positive (bad) class")
	fs.DurationVar(&s.FrictionWindow, "friction-window", s.FrictionWindow, "an intervention this long after a labelled friction moment catches it")
	fs.IntVar(&s.Workers, "workers", 0, "files replayed at once (default: number of CPUs); never changes the output")
	fs.BoolVar(&strict, "strict", false, "exit with status 1 when the input has any problem (bad rows of the labels files and label keys that match nothing included) or holds no file in a recognised format")
	fs.Uint64Var(&s.Seed, "seed", s.Seed, "seed of the bootstrap confidence intervals")
	fs.IntVar(&s.Resamples, "resamples", s.Resamples, fmt.Sprintf("bootstrap resamples of runs for confidence intervals (0 disables; at most %d)", pipeline.MaxResamples))
	fs.Float64Var(&s.Level, "ci-level", s.Level, "confidence level of the intervals, in (0, 1)")
	fs.Float64Var(&s.Beta, "beta", s.Beta, "β of the F-beta score reported beside F1 (> 0)")
	fs.StringSliceVar(&s.Compare, "compare", s.Compare, `scored beside the configured detectors on the same input: presets ("seed") and "shipped-today" (what quasar and vibes run today); "none" for nothing`)
	fs.IntVar(&showProblems, "show-problems", 20, "input problems printed on stderr (all are in the problems table)")
	var showTimings bool
	fs.BoolVar(&showTimings, "timings", false, "print on stderr, at the end, each step's wall time, CPU time and busy cores (prepare, walk, recognise, context, replay, seal, derive, commit), and how long the replay step's delivery was busy")
	var prof profiles
	fs.StringVar(&prof.cpu, "cpuprofile", "", "write a CPU profile of the replay to this file (go tool pprof reads it)")
	fs.StringVar(&prof.mem, "memprofile", "", "write a memory profile to this file at the end: what was allocated (alloc_space) and what is still held (inuse_space)")
	fs.StringVar(&prof.trace, "trace", "", "write an execution trace of the replay to this file (go tool trace reads it: which goroutine ran, waited or blocked, when)")
	fs.StringVar(&s.Fix.PassProb, "fix-pass-prob", s.Fix.PassProb, `fix-loop simulation: pass probability of one fix attempt: "history" (estimated per check from the replayed runs: their recorded fix attempts where they have any, else their outer cycles), a number for every check, or per check as build=0.8,test=0.5 (others from history)`)
	fs.Float64Var(&s.Fix.CostFraction, "fix-cost-fraction", s.Fix.CostFraction, "fix-loop simulation: cost of a fix attempt as a fraction of the run's mean coder call (> 0; at most the loop's per-call budget)")
	fs.IntVar(&s.Fix.Draws, "fix-draws", s.Fix.Draws, "fix-loop simulation: draws of each check's pass probability (for intervals; ≥ 1)")
	fs.IntVar(&s.Fix.Trials, "fix-trials", s.Fix.Trials, "fix-loop simulation: trials per failure and draw (≥ 1)")
	fs.IntVar(&s.Fix.MaxFixes, "max-filter-fixes", s.Fix.MaxFixes, "fix-loop simulation: fix attempts per failure (the loop's MaxFilterFixes; 1 to 100)")
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
	if fs.Changed("in") && s.In == "" { // an unset variable, say: not the built-in sample
		fmt.Fprintln(stderr, "replay: --in is empty: name an input folder or file (leave --in out for the built-in sample)")
		return 2
	}
	if showProblems < 0 {
		fmt.Fprintf(stderr, "replay: --show-problems %d: must be ≥ 0\n", showProblems)
		return 2
	}
	if shard != "" {
		sh, err := replay.ParseShard(shard)
		if err != nil {
			fmt.Fprintf(stderr, "replay: --shard %v\n", err)
			return 2
		}
		s.Shard = sh
		if report != "" && sh.Split() {
			fmt.Fprintf(stderr, "replay: --report needs the whole replay, not shard %s: run it without --shard\n", sh)
			return 2
		}
	}
	if len(s.Compare) == 1 && s.Compare[0] == "none" {
		s.Compare = nil
	} else if slices.Contains(s.Compare, "none") {
		fmt.Fprintf(stderr, "replay: --compare %s: \"none\" compares nothing, and stands alone\n", strings.Join(s.Compare, ","))
		return 2
	}
	if printConfig != "" {
		if err := pipeline.PrintConfig(stdout, s, printConfig); err != nil {
			fmt.Fprintf(stderr, "replay: %v\n", err)
			return 2
		}
		return 0
	}
	if err := checkReportFlag(report); err != nil {
		fmt.Fprintf(stderr, "replay: %v\n", err)
		return 2
	}
	stopProfiles, err := prof.start()
	if err != nil {
		fmt.Fprintf(stderr, "replay: %v\n", err)
		return 2
	}
	defer func() {
		if err := stopProfiles(); err != nil { // a profile asked for and not written fails the command
			fmt.Fprintf(stderr, "replay: %v\n", err)
			code = max(code, 1)
		}
	}()
	var progress sync.Mutex // calls run on several workers at once
	s.Progress = func(msg string) {
		progress.Lock()
		defer progress.Unlock()
		fmt.Fprintf(stderr, "replay: %s\n", msg)
	}
	var clock *timings
	if showTimings {
		clock = newTimings()
		s.Phase, s.Delivered = clock.mark, clock.delivered
	}
	res, err := pipeline.Run(ctx, s)
	switch {
	case pipeline.Interrupted(ctx, err):
		var derived *pipeline.DerivedError
		if errors.As(err, &derived) {
			fmt.Fprintf(stderr, "replay: interrupted after the replay's tables were written into %s; its derived tables (metrics, curves, fixloop) were not: run metrics %s to derive them\n", derived.Dir, derived.Dir)
		} else {
			fmt.Fprintln(stderr, "replay: interrupted; no table was written")
		}
		return pipeline.ExitInterrupted
	case pipeline.IsUsage(err):
		fmt.Fprintf(stderr, "replay: %v\n", err)
		return 2
	case err != nil:
		fmt.Fprintf(stderr, "replay: %v\n", err)
		return 1
	}
	if err := pipeline.WriteResult(stdout, stderr, "replay", res, showProblems); err != nil {
		fmt.Fprintf(stderr, "replay: %v\n", err)
		return 1
	}
	if clock != nil {
		fmt.Fprintln(stderr, "replay: timings (wall and CPU time of each step; cores: CPU over wall)")
		if err := clock.write(stderr); err != nil {
			fmt.Fprintf(stderr, "replay: %v\n", err)
			return 1
		}
	}
	if report != "" {
		title := "loopwatch replay of " + s.In
		if s.In == "" {
			title = "loopwatch replay of the built-in sample"
		}
		if err := pipeline.WriteReport(res, title, report); err != nil {
			fmt.Fprintf(stderr, "replay: report: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "wrote the report %s\n", report)
	}
	if strict && res.Problems() > 0 {
		fmt.Fprintf(stderr, "replay: %s in the input or its labels and --strict is set (fix them or drop --strict)\n", plural.Count(res.Problems(), "problem"))
		return 1
	}
	if strict && res.Summary.Files == 0 && !res.Shard.Split() { // a shard may own no file
		fmt.Fprintln(stderr, "replay: no input file is in a recognised format and --strict is set (an empty --in?)")
		return 1
	}
	return 0
}

const usage = `Usage: replay [--in PATH] [--out FILE.parquet | --out DIR/ [--shard i/n]] [--labels FILE] [flags]

Replays recorded coding-agent runs (quasar traces, beads exports) and sessions (Claude
Code transcripts, vibes event logs) through loopwatch's detectors, writes every
decision to Parquet and scores the detectors against labels. Without --in it replays
the built-in sample dataset. --out DIR/ writes the tables in the hive layout; --shard
i/n replays one shard of n into it, and metrics DIR computes the metrics of the whole.
It runs under a soft memory limit of 256 MiB (the Go runtime collects garbage more
often near it; a replay that needs more goes on); GOMEMLIMIT overrides it (off: none).

Examples:
  replay
  replay --in runs/ --out results.parquet
  replay --in runs/ --labels labels.csv --out results.parquet --workers 8
  replay --in runs/ --struggle-config struggle.json --strict
  replay --in runs/ --out results.parquet --cpuprofile cpu.out --memprofile mem.out --trace trace.out
  replay --in runs/ --out results.parquet --workers 1 --timings
  replay --in sessions/ --labels labels.csv --assess-config seed --out seed.parquet
  replay --print-config=assess --assess-config seed
  replay --in sessions/ --labels labels.csv --out s.parquet --report s.html
  replay --in quasar-history/ --derive-labels --out q.parquet
  replay --in datasets/sample/inputs --labels datasets/sample/labels/runs.csv --labels datasets/sample/labels/sessions.csv --out all.parquet
  replay --in datasets/sample/inputs/sessions --labels datasets/sample/labels/sessions.csv --positive-outcomes failure --friction-window 2m --out s.parquet
  replay --in datasets/sample/inputs --labels datasets/sample/labels/runs.csv --out all/
  replay --in datasets/sample/inputs --labels datasets/sample/labels/runs.csv --shard 1/2 --out shards/

Flags:
`

// checkReportFlag checks a --report path, if one is given.
func checkReportFlag(path string) error {
	if path == "" {
		return nil
	}
	return htmlreport.CheckPath(path)
}

// profiles are the profiles a replay writes of itself: where its time goes, what it
// allocates, how its goroutines share the cores.
type profiles struct{ cpu, mem, trace string }

// start creates the profile files and starts the CPU profile and the trace; the
// function it returns stops them and writes the memory profile. A file that cannot be
// created is an error before the replay starts.
func (p profiles) start() (func() error, error) {
	var files []*os.File
	create := func(path string) (*os.File, error) {
		f, err := os.Create(path)
		if err != nil {
			closeAll(files)
			return nil, err
		}
		files = append(files, f)
		return f, nil
	}
	var cpu, mem, tr *os.File
	var err error
	if p.cpu != "" {
		if cpu, err = create(p.cpu); err != nil {
			return nil, fmt.Errorf("--cpuprofile: %w", err)
		}
	}
	if p.mem != "" {
		if mem, err = create(p.mem); err != nil {
			return nil, fmt.Errorf("--memprofile: %w", err)
		}
	}
	if p.trace != "" {
		if tr, err = create(p.trace); err != nil {
			return nil, fmt.Errorf("--trace: %w", err)
		}
	}
	if cpu != nil {
		if err := pprof.StartCPUProfile(cpu); err != nil {
			closeAll(files)
			return nil, fmt.Errorf("--cpuprofile: %w", err)
		}
	}
	if tr != nil {
		if err := trace.Start(tr); err != nil {
			if cpu != nil {
				pprof.StopCPUProfile()
			}
			closeAll(files)
			return nil, fmt.Errorf("--trace: %w", err)
		}
	}
	return func() error {
		var errs []error
		if cpu != nil {
			pprof.StopCPUProfile()
		}
		if tr != nil {
			trace.Stop()
		}
		if mem != nil {
			runtime.GC() // what is still held, up to date
			if err := pprof.Lookup("allocs").WriteTo(mem, 0); err != nil {
				errs = append(errs, fmt.Errorf("--memprofile: %w", err))
			}
		}
		for _, f := range files {
			if err := f.Close(); err != nil {
				errs = append(errs, err)
			}
		}
		return errors.Join(errs...)
	}, nil
}

func closeAll(files []*os.File) {
	for _, f := range files {
		f.Close()
	}
}
