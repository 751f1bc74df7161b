package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	flag "github.com/spf13/pflag"
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
	in, out, struggleConfig       string
	labels                        []string
	assessConfig, llm, claudePath string
	positiveOutcomes              string
	frictionWindow                time.Duration
	workers                       int
	strict, deriveLabels          bool
	seed                          uint64
	resamples                     int
	level, beta                   float64
	showProblems                  int
	fixPassProb                   string
	fixCostFraction               float64
	fixDraws, fixTrials, maxFixes int
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var o options
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.in, "in", "", "input folder or file (default: the built-in sample)")
	fs.StringVar(&o.out, "out", "results.parquet", "run table to write; sibling tables share its stem")
	fs.StringArrayVar(&o.labels, "labels", nil, "labels file, CSV or JSONL: run labels (run_key, label) or session labels (session_id, outcome, friction_uuids); repeat for several (default: none, or the sample's labels without --in)")
	fs.BoolVar(&o.deriveLabels, "derive-labels", false, "label quasar runs from their recorded outcomes (rules in the README); --labels overrides them per run")
	fs.StringVar(&o.struggleConfig, "struggle-config", "", "JSON file overriding struggle detection thresholds")
	fs.StringVar(&o.assessConfig, "assess-config", "", "JSON file overriding the assessment configuration (detector, breaker, checkpoints, sampling, offline analyzer)")
	fs.StringVar(&o.llm, "llm", "offline", "session analyzer: offline (deterministic rules, no network) or claude (runs claude --print)")
	fs.StringVar(&o.claudePath, "claude-path", "claude", "the claude executable for --llm claude")
	fs.StringVar(&o.positiveOutcomes, "positive-outcomes", "failure,abandoned", "session outcomes that count as the positive (bad) class")
	fs.DurationVar(&o.frictionWindow, "friction-window", 5*time.Minute, "an intervention this long after a labelled friction moment is a hit")
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

Replays recorded coding-agent runs (quasar traces, beads exports) and sessions (Claude
Code transcripts, vibes event logs) through loopwatch's detectors, writes every
decision to Parquet and scores the detectors against labels. Without --in it replays
the built-in sample dataset.

Examples:
  replay
  replay --in runs/ --out results.parquet
  replay --in runs/ --labels labels.csv --out results.parquet --workers 8
  replay --in runs/ --struggle-config struggle.json --strict
  replay --in quasar-history/ --derive-labels --out q.parquet
  replay --in sample/inputs --labels sample/labels/runs.csv --labels sample/labels/sessions.csv --out all.parquet
  replay --in sample/inputs/sessions --labels sample/labels/sessions.csv --positive-outcomes failure --friction-window 2m --out s.parquet

Flags:
`
