package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"

	flag "github.com/spf13/pflag"

	"github.com/loopwatch/loopwatch/internal/benchcmp"
	"github.com/loopwatch/loopwatch/internal/corpus"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code, hidden := hiddenCommand(ctx, os.Args[1:], os.Stdout, os.Stderr)
	if !hidden {
		code = run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	}
	stop()
	os.Exit(code)
}

// hiddenCommand runs one of the subcommands benchcompare runs itself as, in a child
// process — json-valid DIR, one-core N BIN ARG..., on-cores N BIN ARG... — and
// returns its exit status; hidden is false when args name none of them. one-core
// returns only on failure: on success the command runs in its place.
func hiddenCommand(ctx context.Context, args []string, stdout, stderr io.Writer) (code int, hidden bool) {
	if len(args) == 0 {
		return 0, false
	}
	var err error
	switch {
	case len(args) == 2 && args[0] == jsonValidCommand:
		err = jsonValid(args[1], stdout)
	case args[0] == oneCoreCommand:
		err = oneCore(args[1:])
	case args[0] == onCoresCommand:
		var self string
		if self, err = os.Executable(); err == nil {
			err = onCores(ctx, self, args[1:], stdout)
		}
	default:
		return 0, false
	}
	if err != nil {
		fmt.Fprintf(stderr, "benchcompare %s: %v\n", args[0], err)
		return 1, true
	}
	return 0, true
}

const usage = `Usage: benchcompare [--base REF | --old BIN] [--new BIN] [--workloads LIST] [--reps N] [flags]
       benchcompare scale [--kinds LIST] [--sizes LIST] [flags]

Compares the previous replay binary with the current one side by side: builds both
(the previous from a clean export of --base, by default where this branch left main;
the current from the working tree), prepares the workloads, runs old and new
alternating over paired repetitions, and reports per workload the median wall time,
the paired ratio new/old of wall and CPU time with an interval, and peak RSS; the
current binary with --workers 1 against --workers N, and --workers 1 pinned to one
core (Linux) against --workers N on every core; --workers 1 and N against the same
files split in N parts replayed at once by N processes, each pinned to a core of its
own (Linux); and anchors: a bare json.Valid pass over the same files on one core,
the same pass over the N parts on a core each, all at once (the control: what the
machine's cores give work that shares nothing, Linux), and DuckDB's read_json →
Parquet when interop/node_modules holds it. A failed build
or run, a replay whose outputs differ between repetitions or worker counts, or old
and new outputs that differ (unless --allow-output-change; then the table says so)
fail the command as soon as it is known: exit status 1, no figures.

"scale" replays synthetic runs and sessions at each size with the current binary and
reports wall time, CPU time and peak RSS, and their growth from the smallest size;
merge, the same of metrics over the runs replayed in shards; shards, of metrics over
the same runs replayed in more and more shards; shard-replay, shard-replay-runs and
shard-replay-vibes, of one shard of the same sessions (runs, vibes event logs) split
in more and more shards (what does not shrink with the split); datagen, of datagen
writing as many synthetic runs and sessions as each size.

Writes DIR/bench-compare.md and .json (scale: bench-scale.md and .json) and prints the
tables. Progress goes to stderr.

Examples:
  benchcompare --workloads sample --reps 3
  benchcompare --base HEAD~3 --workloads sample,runs --runs 2000
  benchcompare --workloads corpus --corpus-copies 2 --no-anchors
  benchcompare scale --kinds runs --sizes 1000,10000
  benchcompare scale --kinds merge --sizes 1000,4000 --shards 2
  benchcompare scale --kinds shards --shard-runs 200 --shard-counts 2,16
  benchcompare scale --kinds shard-replay --sessions 2000 --replay-shards 2,8
  benchcompare scale --kinds shard-replay-runs --runs 2000 --replay-shards 2,8
  benchcompare scale --kinds shard-replay-vibes --vibes 1000 --replay-shards 2,8
  benchcompare scale --kinds datagen --sizes 1000,10000 --reps 1
  benchcompare scale --kinds assess --sizes 1000,10000
  benchcompare scale --kinds tune --sizes 1000,10000

Flags:
`

// settings are the flags both modes share.
type settings struct {
	repo, out, tmp   string
	newBin, datagen  string
	reps, warmup     int
	workers          int
	seed             uint64
	keep             bool
	log, stdout      io.Writer
	runsN, sessionsN int
	vibesN           int
	corpusCopies     int
	anchors          bool
	base, oldBin     string
	allowChange      bool
	workloads        []string
	kinds            []string
	sizes            []int
	maxGrowth        float64
	shards           int
	shardCounts      []int
	shardRuns        int
	splitCounts      []int
}

// scaleKinds are what scale measures, in its --kinds.
var scaleKinds = []string{"runs", "sessions", "merge", "shards", "shard-replay", "shard-replay-runs", "shard-replay-vibes", "datagen", "assess", "tune"}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	scale := len(args) > 0 && args[0] == "scale"
	if scale {
		args = args[1:]
	}
	s := settings{log: stderr, stdout: stdout}
	var noAnchors bool
	fs := flag.NewFlagSet("benchcompare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&s.out, "out", "bench-out", "folder for the reports (bench-compare.md/.json, bench-scale.md/.json)")
	fs.StringVar(&s.tmp, "tmp", "", "folder for builds, workloads and outputs, removed at the end (default: the system's temporary folder)")
	fs.BoolVar(&s.keep, "keep", false, "keep the temporary folder (its path is printed)")
	fs.StringVar(&s.newBin, "new", "", "the current replay binary (default: built from the working tree)")
	fs.StringVar(&s.datagen, "datagen", "", "the datagen binary that writes the synthetic workloads (default: built from the working tree)")
	reps, warmup := 5, 1
	if scale {
		reps, warmup = 1, 0
	}
	fs.IntVar(&s.reps, "reps", reps, "paired repetitions per workload (scale: runs of each size)")
	fs.IntVar(&s.warmup, "warmup", warmup, "warm-up runs of each variant before the repetitions, not counted")
	fs.IntVar(&s.workers, "workers", 2, "--workers of the replays (the workers table runs the current binary with 1 and with this)")
	fs.Uint64Var(&s.seed, "seed", 1, "datagen's seed for the synthetic workloads")
	fs.IntVar(&s.runsN, "runs", 10000, "synthetic runs in the runs workload (scale: in the shard-replay-runs kind)")
	fs.IntVar(&s.sessionsN, "sessions", 10000, "synthetic sessions in the sessions workload (scale: in the shard-replay kind)")
	if !scale {
		fs.StringVar(&s.base, "base", "", "git ref of the previous build (default: the merge-base of HEAD and main; on main, HEAD^1)")
		fs.StringVar(&s.oldBin, "old", "", "the previous replay binary, instead of building --base")
		fs.StringSliceVar(&s.workloads, "workloads", []string{"sample", "runs", "sessions", "corpus"}, "workloads: sample (the built-in sample), runs, sessions (synthetic, datagen), corpus (the Claude Code corpus × --corpus-copies; skipped when absent)")
		fs.IntVar(&s.corpusCopies, "corpus-copies", 10, "copies of the Claude Code corpus in the corpus workload")
		fs.BoolVar(&s.allowChange, "allow-output-change", false, "report, instead of failing on, outputs of old and new that differ (a change of behaviour meant to be there)")
		fs.BoolVar(&noAnchors, "no-anchors", false, "leave out the json.Valid and DuckDB anchors")
	} else {
		fs.StringSliceVar(&s.kinds, "kinds", scaleKinds, "what to scale: runs, sessions (synthetic, datagen), merge (metrics over synthetic runs replayed in --shards shards), shards (metrics over --shard-runs synthetic runs replayed in each of --shard-counts shards), shard-replay (one shard of each of --replay-shards over --sessions synthetic sessions), shard-replay-runs (the same over --runs synthetic runs), shard-replay-vibes (over --vibes synthetic vibes event logs), datagen (datagen writing as many runs and sessions as each size), assess (a page of assess history over as many synthetic sessions, replayed), tune (tune with its default grids over as many synthetic sessions and their labels); metrics, assess and tune are the binaries beside --new, or built from the working tree")
		fs.IntVar(&s.shards, "shards", 4, "merge: the shards the runs are replayed in before metrics merges them")
		fs.IntSliceVar(&s.shardCounts, "shard-counts", []int{4, 64, 512}, "shards: the numbers of shards the same runs are replayed in, smallest first")
		fs.IntVar(&s.shardRuns, "shard-runs", 2000, "shards: the synthetic runs replayed in every number of shards")
		fs.IntSliceVar(&s.splitCounts, "replay-shards", []int{2, 8, 32}, "shard-replay, shard-replay-runs, shard-replay-vibes: for each n ≥ 2, shard 0/n replays the same --sessions synthetic sessions (--runs runs, --vibes logs); smallest first")
		fs.IntVar(&s.vibesN, "vibes", 5000, "shard-replay-vibes: the synthetic vibes event logs, two sessions each")
		fs.IntSliceVar(&s.sizes, "sizes", []int{10000, 100000}, "sizes to replay, smallest first")
		fs.Float64Var(&s.maxGrowth, "max-rss-growth", 0, "fail when peak RSS at the largest size exceeds this multiple of the smallest's (0: report only)")
	}
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "benchcompare: %v (see benchcompare --help)\n", err)
		return 2
	}
	s.anchors = !scale && !noAnchors
	if err := s.check(scale, fs.NArg()); err != nil {
		fmt.Fprintf(stderr, "benchcompare: %v (see benchcompare --help)\n", err)
		return 2
	}
	var err error
	if scale {
		err = runScale(ctx, s)
	} else {
		err = runCompare(ctx, s)
	}
	if err != nil {
		fmt.Fprintf(stderr, "benchcompare: FAILED: %v\n", err)
		return 1
	}
	return 0
}

// check validates the flags and finds the repository.
func (s *settings) check(scale bool, nargs int) error {
	if nargs > 0 {
		return errors.New("unexpected argument")
	}
	if s.reps < 1 || s.warmup < 0 || s.workers < 1 || s.runsN < 1 || s.sessionsN < 1 {
		return errors.New("--reps, --workers, --runs and --sessions must be ≥ 1, --warmup ≥ 0")
	}
	if scale {
		if len(s.sizes) == 0 || !slices.IsSorted(s.sizes) || s.sizes[0] < 1 {
			return errors.New("--sizes: give sizes ≥ 1, smallest first")
		}
		if err := checkList("--kinds", "kind", s.kinds, scaleKinds); err != nil {
			return err
		}
		if !(s.maxGrowth >= 0) || math.IsInf(s.maxGrowth, 0) {
			return fmt.Errorf("--max-rss-growth %v: a multiple ≥ 0 (0: report only)", s.maxGrowth)
		}
		if s.maxGrowth > 0 && len(s.sizes) < 2 {
			return errors.New("--max-rss-growth compares the largest size with the smallest: give two --sizes or more")
		}
		if s.vibesN < 1 {
			return errors.New("--vibes must be ≥ 1")
		}
		if s.shards < 1 {
			return errors.New("--shards must be ≥ 1")
		}
		if len(s.shardCounts) == 0 || !slices.IsSorted(s.shardCounts) || s.shardCounts[0] < 1 || s.shardRuns < 1 {
			return errors.New("--shard-counts: give numbers of shards ≥ 1, smallest first; --shard-runs ≥ 1")
		}
		if len(s.splitCounts) == 0 || !slices.IsSorted(s.splitCounts) || s.splitCounts[0] < 2 {
			return errors.New("--replay-shards: give numbers of shards ≥ 2, smallest first (a replay in 1 shard is not split: it reads every file and merges)")
		}
	} else {
		if s.corpusCopies < 1 {
			return errors.New("--corpus-copies must be ≥ 1")
		}
		if err := checkList("--workloads", "workload", s.workloads, []string{"sample", "runs", "sessions", "corpus"}); err != nil {
			return err
		}
		if s.base != "" && s.oldBin != "" {
			return errors.New("--base and --old exclude each other")
		}
	}
	root, err := corpus.ModuleRoot()
	if err != nil {
		return err
	}
	s.repo = root
	return nil
}

// checkList checks a list flag: at least one name, each known and named once (a
// workload named twice would be written into one folder twice).
func checkList(flagName, noun string, got, known []string) error {
	if len(got) == 0 {
		return fmt.Errorf("%s: name at least one %s (%s)", flagName, noun, strings.Join(known, ", "))
	}
	for i, w := range got {
		switch {
		case !slices.Contains(known, w):
			return fmt.Errorf("%s: unknown %s %q (%s)", flagName, noun, w, strings.Join(known, ", "))
		case slices.Contains(got[:i], w):
			return fmt.Errorf("%s: %s %q named twice", flagName, noun, w)
		}
	}
	return nil
}

// machine describes the machine and its load.
func machine() string {
	return fmt.Sprintf("%s/%s, %d CPUs", runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
}

// loadAverage is the one-minute load average, or "" where unknown.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

// tempDir makes the run's temporary folder; cleanup removes it unless --keep.
func (s settings) tempDir(prefix string) (dir string, cleanup func(), err error) {
	dir, err = os.MkdirTemp(s.tmp, prefix)
	if err != nil {
		return "", nil, err
	}
	return dir, func() {
		if s.keep {
			fmt.Fprintf(s.log, "kept %s\n", dir)
			return
		}
		os.RemoveAll(dir)
	}, nil
}

// currentBinaries returns the current replay and datagen: given, or built from the
// working tree into dir.
func (s settings) currentBinaries(ctx context.Context, dir string) (replay, datagen string, err error) {
	var pkgs []string
	if s.newBin == "" {
		pkgs = append(pkgs, "./cmd/replay")
	}
	if s.datagen == "" {
		pkgs = append(pkgs, "./cmd/datagen")
	}
	replay, datagen = s.newBin, s.datagen
	if len(pkgs) > 0 {
		fmt.Fprintf(s.log, "building %s from the working tree\n", strings.Join(pkgs, " "))
		bins, err := goBuild(ctx, s.repo, dir, pkgs...)
		if err != nil {
			return "", "", err
		}
		if replay == "" {
			replay = bins["replay"]
		}
		if datagen == "" {
			datagen = bins["datagen"]
		}
	}
	for _, b := range []string{replay, datagen} {
		if _, err := os.Stat(b); err != nil {
			return "", "", err
		}
	}
	return replay, datagen, nil
}

// writeReports writes name.md and name.json into s.out and the text tables to stdout.
func (s settings) writeReports(rep *benchcmp.Report, name string) error {
	if err := rep.WriteText(s.stdout); err != nil {
		return err
	}
	for _, f := range []struct {
		ext   string
		write func(io.Writer) error
	}{{".md", rep.WriteMarkdown}, {".json", rep.WriteJSON}} {
		var b strings.Builder
		if err := f.write(&b); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(s.out, name+f.ext), []byte(b.String()), 0o644); err != nil {
			return err
		}
	}
	fmt.Fprintf(s.log, "wrote %s.md and %s.json\n", filepath.Join(s.out, name), filepath.Join(s.out, name))
	return nil
}

// prepareOut makes the report folder and removes an earlier run's reports, so a
// failed run never leaves a stale report looking current.
func (s settings) prepareOut(name string) error {
	if err := os.MkdirAll(s.out, 0o755); err != nil {
		return err
	}
	for _, ext := range []string{".md", ".json"} {
		if err := os.Remove(filepath.Join(s.out, name+ext)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

// replayCommand is bin replaying w into out with workers workers.
func replayCommand(ctx context.Context, bin string, w workload, workers int) func(string) *exec.Cmd {
	return func(out string) *exec.Cmd {
		cmd := exec.CommandContext(ctx, bin, w.replayArgs(out, workers)...)
		return cmd
	}
}
