package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	flag "github.com/spf13/pflag"

	"github.com/loopwatch/loopwatch/internal/plural"
	"github.com/loopwatch/loopwatch/pipeline"
	"github.com/loopwatch/loopwatch/reports"
	"github.com/loopwatch/loopwatch/reports/htmlreport"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var strict bool
	var workers, showProblems int
	var report string
	fs := flag.NewFlagSet("metrics", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&workers, "workers", 0, "runs simulated at once (default: number of CPUs); never changes the output")
	fs.BoolVar(&strict, "strict", false, "exit with status 1 when the input had any problem (bad rows of the labels files and label keys that match nothing included) or held no file in a recognised format")
	fs.IntVar(&showProblems, "show-problems", 20, "input problems printed on stderr (all are in DIR/problems/)")
	fs.StringVar(&report, "report", "", "also write a self-contained HTML report (curves, sweeps, lead times, trajectories, problems) of the whole replay to this .html file, read from every shard")
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "metrics: %v (see metrics --help)\n", err)
		return 2
	}
	switch {
	case fs.NArg() != 1:
		fmt.Fprintf(stderr, "metrics: give one folder of shards, written by replay --shard i/n --out DIR/ (see metrics --help)\n")
		return 2
	case workers < 0 || showProblems < 0:
		fmt.Fprintf(stderr, "metrics: --workers and --show-problems must be ≥ 0\n")
		return 2
	}
	// A folder that is not there, or a file, is the command line's mistake, as a missing
	// --in is replay's; a folder that holds no complete set of shards is the data's.
	if err := reports.Folder(fs.Arg(0)); errors.Is(err, reports.ErrNoSuchFolder) || errors.Is(err, reports.ErrNotAFolder) {
		fmt.Fprintf(stderr, "metrics: %s: %v (give the folder replay --shard i/n --out DIR/ wrote)\n", fs.Arg(0), err)
		return 2
	}
	if report != "" {
		if err := htmlreport.CheckPath(report); err != nil {
			fmt.Fprintf(stderr, "metrics: %v\n", err)
			return 2
		}
	}
	res, err := pipeline.Merge(ctx, fs.Arg(0), workers)
	if pipeline.Interrupted(ctx, err) {
		fmt.Fprintln(stderr, "metrics: interrupted; no table was written")
		return pipeline.ExitInterrupted
	}
	if err != nil {
		fmt.Fprintf(stderr, "metrics: %v\n", err)
		return 1
	}
	if err := pipeline.WriteResult(stdout, stderr, "metrics", res, showProblems); err != nil {
		fmt.Fprintf(stderr, "metrics: %v\n", err)
		return 1
	}
	if report != "" {
		if err := pipeline.WriteReport(res, "loopwatch replay in shards: "+fs.Arg(0), report); err != nil {
			fmt.Fprintf(stderr, "metrics: report: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "wrote the report %s\n", report)
	}
	if strict && res.Problems() > 0 {
		fmt.Fprintf(stderr, "metrics: %s in the input or its labels and --strict is set (fix them or drop --strict)\n", plural.Count(res.Problems(), "problem"))
		return 1
	}
	if strict && res.Summary.Files == 0 {
		fmt.Fprintln(stderr, "metrics: no shard read an input file in a recognised format and --strict is set")
		return 1
	}
	return 0
}

const usage = `Usage: metrics [flags] DIR

Computes the metrics of a replay split in shards (replay --shard i/n --out DIR/) from
the union of its shards, exactly as the whole replay computes them, writes them into
DIR (metrics, curves, fixloop, fixloop_runs) and prints the replay's summary; with
--report, also the whole replay's HTML report, its tables read from every shard.
Refuses a folder that is not one complete set of shards of one replay.

Examples:
  metrics out/
  metrics --workers 2 --show-problems 5 out/
  metrics --strict out/
  metrics --report out.html out/

Flags:
`
