package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/loopwatch/loopwatch/internal/benchcmp"
)

// runScale replays synthetic runs and sessions at each size with the current binary
// (merge: merges synthetic runs replayed in shards, with the current metrics) and
// compares every size with the smallest: whether time grows linearly and memory stays
// flat.
func runScale(ctx context.Context, s settings) error {
	if err := s.prepareOut("bench-scale"); err != nil {
		return err
	}
	tmp, cleanup, err := s.tempDir("bench-scale-")
	if err != nil {
		return err
	}
	defer cleanup()
	bin, datagen, err := s.currentBinaries(ctx, filepath.Join(tmp, "new"))
	if err != nil {
		return err
	}
	desc := s.newBin + " (given)"
	if s.newBin == "" {
		if desc, err = describeHead(ctx, s.repo); err != nil {
			return err
		}
		desc += ", built from the working tree"
	}
	rep := &benchcmp.Report{
		Title: "bench-scale: the replay's cost from the smallest size to each larger one",
		Setup: []string{
			"replay: " + desc,
			fmt.Sprintf("%d run(s) of each size after %d warm-up run(s), the sizes' order rotating every repetition; --workers %d; inputs from datagen --seed %d",
				s.reps, s.warmup, s.workers, s.seed),
		},
	}
	var metrics, assess, tune string // the merge's binary; the assess kind's; the tune kind's
	if slices.Contains(s.kinds, "merge") || slices.Contains(s.kinds, "shards") {
		if metrics, err = s.toolBinary(ctx, bin, filepath.Join(tmp, "new"), "metrics"); err != nil {
			return err
		}
	}
	if slices.Contains(s.kinds, "assess") {
		if assess, err = s.toolBinary(ctx, bin, filepath.Join(tmp, "new"), "assess"); err != nil {
			return err
		}
		rep.Setup = append(rep.Setup, fmt.Sprintf("assess: %s --results FILE %s over n synthetic sessions replayed into FILE (not measured), n in %v", assess, strings.Join(assessArgs, " "), s.sizes))
	}
	if slices.Contains(s.kinds, "tune") {
		if tune, err = s.toolBinary(ctx, bin, filepath.Join(tmp, "new"), "tune"); err != nil {
			return err
		}
		rep.Setup = append(rep.Setup, fmt.Sprintf("tune: %s --in DIR/inputs --labels DIR/labels/sessions.csv --out DIR/sweep.parquet --workers %d over n synthetic sessions and their labels (the default grids, 5 folds, 2,000 resamples), n in %v", tune, s.workers, s.sizes))
	}
	if slices.Contains(s.kinds, "merge") {
		rep.Setup = append(rep.Setup, fmt.Sprintf("merge: metrics (%s) over the runs replayed in %d shards (replay --shard i/%[2]d --out DIR/, not measured)", metrics, s.shards))
	}
	if slices.Contains(s.kinds, "shards") {
		rep.Setup = append(rep.Setup, fmt.Sprintf("shards: metrics (%s) over %d runs replayed in each of %v shards (not measured)", metrics, s.shardRuns, s.shardCounts))
	}
	for _, kind := range []string{"shard-replay", "shard-replay-runs", "shard-replay-vibes"} {
		if slices.Contains(s.kinds, kind) {
			rep.Setup = append(rep.Setup, fmt.Sprintf("%s: replay --shard 0/n --out DIR/ over the same %s, n in %v", kind, s.splitInput(kind), s.splitCounts))
		}
	}
	if slices.Contains(s.kinds, "datagen") {
		rep.Setup = append(rep.Setup, fmt.Sprintf("datagen: %s --runs n --sessions n --seed %d --out DIR, n in %v (the dataset the same in every repetition)", datagen, s.seed, s.sizes))
	}
	load := loadAverage()
	var failures []string
	for _, kind := range s.kinds {
		var vs []variant
		about := fmt.Sprintf("synthetic %s (datagen), sizes %v", kind, s.sizes)
		switch kind {
		case "shards":
			// One set of runs, replayed in each number of shards.
			fmt.Fprintf(s.log, "writing %d synthetic runs\n", s.shardRuns)
			dir := filepath.Join(tmp, "w-shards")
			w, err := generated(ctx, datagen, dir, "shards", fmt.Sprintf("%d synthetic runs", s.shardRuns), "--runs", strconv.Itoa(s.shardRuns), "--seed", strconv.FormatUint(s.seed, 10))
			if err != nil {
				return err
			}
			for _, n := range s.shardCounts {
				shards, err := s.replayShards(ctx, bin, w, filepath.Join(dir, fmt.Sprintf("shards-%d", n)), n, s.shardRuns)
				if err != nil {
					return err
				}
				vs = append(vs, variant{name: shardsName(n), command: s.mergeCommand(ctx, metrics, shards)})
			}
			about = fmt.Sprintf("metrics over %d synthetic runs (datagen) replayed in %v shards", s.shardRuns, s.shardCounts)
		case "shard-replay", "shard-replay-runs", "shard-replay-vibes":
			// One set of sessions, runs or vibes logs; of each split, the first shard.
			what := s.splitInput(kind)
			fmt.Fprintf(s.log, "writing %s\n", what)
			args := []string{"--runs", "0", "--sessions", strconv.Itoa(s.sessionsN), "--seed", strconv.FormatUint(s.seed, 10)}
			switch kind {
			case "shard-replay-runs":
				args = []string{"--runs", strconv.Itoa(s.runsN), "--seed", strconv.FormatUint(s.seed, 10)}
			case "shard-replay-vibes":
				args = []string{"--runs", "0", "--vibes", strconv.Itoa(s.vibesN), "--seed", strconv.FormatUint(s.seed, 10)}
			}
			w, err := generated(ctx, datagen, filepath.Join(tmp, "w-"+kind), kind, what, args...)
			if err != nil {
				return err
			}
			for _, n := range s.splitCounts {
				vs = append(vs, variant{name: shardOfName(n), command: shardCommand(ctx, bin, w, s.workers, n), outputs: true})
			}
			about = fmt.Sprintf("shard 0/n of %s (datagen), n in %v", what, s.splitCounts)
		default:
			for _, n := range s.sizes {
				args := []string{"--runs", strconv.Itoa(n), "--seed", strconv.FormatUint(s.seed, 10)}
				what := kind
				switch kind {
				case "sessions":
					args = []string{"--runs", "0", "--sessions", strconv.Itoa(n), "--seed", strconv.FormatUint(s.seed, 10)}
				case "merge":
					what = "runs"
				case "assess", "tune":
					args, what = []string{"--runs", "0", "--sessions", strconv.Itoa(n), "--seed", strconv.FormatUint(s.seed, 10)}, "sessions"
				case "datagen": // what is measured is the writing itself: runs and sessions, n of each
					args = []string{"--runs", strconv.Itoa(n), "--sessions", strconv.Itoa(n), "--seed", strconv.FormatUint(s.seed, 10)}
					vs = append(vs, variant{name: count(n), command: datagenCommand(ctx, datagen, args), outputs: true})
					continue
				}
				fmt.Fprintf(s.log, "writing %d synthetic %s\n", n, what)
				dir := filepath.Join(tmp, fmt.Sprintf("w-%s-%d", kind, n))
				w, err := generated(ctx, datagen, dir, kind+"-"+count(n), fmt.Sprintf("%d synthetic %s", n, what), args...)
				if err != nil {
					return err
				}
				switch kind {
				case "assess":
					results := filepath.Join(dir, "replayed", "results.parquet")
					fmt.Fprintf(s.log, "replaying %s into %s\n", w.name, results)
					if err := s.replayInto(ctx, bin, w, results); err != nil {
						return err
					}
					vs = append(vs, variant{name: count(n), command: assessCommand(ctx, assess, results)})
					continue
				case "tune":
					vs = append(vs, variant{name: count(n), command: tuneCommand(ctx, tune, w, s.workers), outputs: true})
					continue
				case "runs", "sessions":
					vs = append(vs, variant{name: count(n), command: replayCommand(ctx, bin, w, s.workers), outputs: true})
					continue
				}
				shards, err := s.replayShards(ctx, bin, w, filepath.Join(dir, "shards"), s.shards, n)
				if err != nil {
					return err
				}
				vs = append(vs, variant{name: count(n), command: s.mergeCommand(ctx, metrics, shards)})
			}
			switch kind {
			case "merge":
				about = fmt.Sprintf("metrics over synthetic runs (datagen) replayed in %d shards, sizes %v", s.shards, s.sizes)
			case "datagen":
				about = fmt.Sprintf("datagen writing n synthetic runs and n synthetic sessions, n in %v", s.sizes)
			case "assess":
				about = fmt.Sprintf("assess %s over n synthetic sessions (datagen) replayed, n in %v", strings.Join(assessArgs, " "), s.sizes)
			case "tune":
				about = fmt.Sprintf("tune with its default grids over n synthetic sessions (datagen) and their labels, n in %v", s.sizes)
			}
		}
		m, err := runWorkload(kind, vs, s.reps, s.warmup, nil, filepath.Join(tmp, "out"), s.log)
		if err != nil {
			return err
		}
		bw := benchcmp.Workload{Name: kind, About: about, Variants: m.variants}
		for i := 1; i < len(vs); i++ {
			c, err := benchcmp.Compare(vs[i].name+"/"+vs[0].name, m.variants[0], m.variants[i])
			if err != nil {
				return err
			}
			bw.Comparisons = append(bw.Comparisons, c)
			if i == len(vs)-1 && s.maxGrowth > 0 && c.RSS.Pairs > 0 && c.RSS.Median > s.maxGrowth {
				failures = append(failures, fmt.Sprintf("%s: peak RSS grew %.2f× from %s to %s (--max-rss-growth %g)", kind, c.RSS.Median, vs[0].name, vs[i].name, s.maxGrowth))
			}
		}
		rep.Workloads = append(rep.Workloads, bw)
		// The inputs of the larger sizes are large: free the disk before the next kind.
		for _, n := range s.sizes {
			os.RemoveAll(filepath.Join(tmp, fmt.Sprintf("w-%s-%d", kind, n)))
		}
		os.RemoveAll(filepath.Join(tmp, "w-shards"))
		os.RemoveAll(filepath.Join(tmp, "w-"+kind)) // the shard-replay kinds' input
	}
	rep.Setup = append(rep.Setup, fmt.Sprintf("machine: %s, load average %s at the start and %s at the end — on a shared machine the ratios carry over, not the times", machine(), load, loadAverage()),
		"ratio: larger size / smallest size (linear time: the size ratio; flat memory: rss ratio near 1); rss is the peak resident set size (wait4)")
	if slices.ContainsFunc(s.kinds, func(k string) bool { return slices.Contains(sizedKinds, k) }) {
		for i := 1; i < len(s.sizes); i++ {
			name := count(s.sizes[i]) + "/" + count(s.sizes[0])
			rep.Tables = append(rep.Tables, benchcmp.Table{Comparison: name, Caption: fmt.Sprintf("%s against %s (%.0f× the input)", count(s.sizes[i]), count(s.sizes[0]), float64(s.sizes[i])/float64(s.sizes[0]))})
		}
	}
	if slices.Contains(s.kinds, "shards") {
		for _, n := range s.shardCounts[1:] {
			rep.Tables = append(rep.Tables, benchcmp.Table{Comparison: shardsName(n) + "/" + shardsName(s.shardCounts[0]),
				Caption: fmt.Sprintf("the merge of %d shards against %d (the same %d runs)", n, s.shardCounts[0], s.shardRuns)})
		}
	}
	if slices.ContainsFunc(s.kinds, func(k string) bool { return strings.HasPrefix(k, "shard-replay") }) {
		for _, n := range s.splitCounts[1:] { // a row per kind: the comparison is named alike in each
			m := s.splitCounts[0]
			rep.Tables = append(rep.Tables, benchcmp.Table{Comparison: shardOfName(n) + "/" + shardOfName(m),
				Caption: fmt.Sprintf("one shard of %d against one of %d (the same input; were nothing paid per shard whatever its share, %d/%d = %.3g)",
					n, m, m, n, float64(m)/float64(n))})
		}
	}
	if err := s.writeReports(rep, "bench-scale"); err != nil {
		return err
	}
	if len(failures) > 0 {
		return fmt.Errorf("%v", failures)
	}
	return nil
}

// toolBinary returns the command name (metrics, assess, tune) that a kind measures: beside
// the replay binary when --new names one that has it, else built from the working
// tree into dir.
func (s settings) toolBinary(ctx context.Context, replay, dir, name string) (string, error) {
	beside := filepath.Join(filepath.Dir(replay), name)
	if _, err := os.Stat(beside); err == nil {
		return beside, nil
	}
	fmt.Fprintf(s.log, "building ./cmd/%s from the working tree\n", name)
	bins, err := goBuild(ctx, s.repo, dir, "./cmd/"+name)
	if err != nil {
		return "", err
	}
	return bins[name], nil
}

// sizedKinds are the kinds measured at each of --sizes.
var sizedKinds = []string{"runs", "sessions", "merge", "datagen", "assess", "tune"}

// assessArgs is the screen the assess kind measures: a page of the history, which reads
// every session's key and start twice (the list, the short ids) and the page's rows.
var assessArgs = []string{"history", "--days", "0", "--limit", "20"}

// assessCommand shows the assess kind's screen of the run table results.
func assessCommand(ctx context.Context, assess, results string) func(string) *exec.Cmd {
	return func(string) *exec.Cmd {
		cmd := exec.CommandContext(ctx, assess, append([]string{"--results", results}, assessArgs...)...)
		cmd.Stdout = nil
		return cmd
	}
}

// tuneCommand tunes over w with the default grids, writing the sweep and what goes
// beside it into the folder it is given.
func tuneCommand(ctx context.Context, tune string, w workload, workers int) func(string) *exec.Cmd {
	return func(out string) *exec.Cmd {
		cmd := exec.CommandContext(ctx, tune, w.replayTo(filepath.Join(out, "sweep.parquet"), workers)...)
		cmd.Stdout = nil
		return cmd
	}
}

// replayInto replays w into out, a run table or a folder, with more arguments (not
// measured).
func (s settings) replayInto(ctx context.Context, bin string, w workload, out string, more ...string) error {
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	if _, err := benchcmp.Run(exec.CommandContext(ctx, bin, w.replayTo(out, s.workers, more...)...)); err != nil {
		return fmt.Errorf("workload %s: %w", w.name, err)
	}
	return nil
}

// splitInput describes what the shard-replay kind (sessions), shard-replay-runs or
// shard-replay-vibes splits.
func (s settings) splitInput(kind string) string {
	switch kind {
	case "shard-replay-runs":
		return fmt.Sprintf("%d synthetic runs", s.runsN)
	case "shard-replay-vibes":
		return fmt.Sprintf("%d synthetic vibes event logs (%d sessions)", s.vibesN, 2*s.vibesN)
	}
	return fmt.Sprintf("%d synthetic sessions", s.sessionsN)
}

// datagenCommand runs datagen with args into a folder of out: the datagen kind's
// variant, whose output — the dataset — must be the same in every repetition.
func datagenCommand(ctx context.Context, datagen string, args []string) func(string) *exec.Cmd {
	return func(out string) *exec.Cmd {
		cmd := exec.CommandContext(ctx, datagen, append(slices.Clone(args), "--out", filepath.Join(out, "dataset"))...)
		cmd.Stdout = nil
		return cmd
	}
}

// shardOfName names the shard-replay kinds' variant of n shards.
func shardOfName(n int) string { return "shard-of-" + strconv.Itoa(n) }

// shardCommand replays shard 0/n of w into the folder it is given.
func shardCommand(ctx context.Context, bin string, w workload, workers, n int) func(string) *exec.Cmd {
	return func(out string) *exec.Cmd {
		return exec.CommandContext(ctx, bin, w.replayTo(out+string(filepath.Separator), workers, "--shard", fmt.Sprintf("0/%d", n))...)
	}
}

// shardsName names the shards kind's variant of n shards.
func shardsName(n int) string { return strconv.Itoa(n) + "-shards" }

// replayShards replays w in n shards into the folder dir (not measured) and returns
// the folder as metrics takes it.
func (s settings) replayShards(ctx context.Context, bin string, w workload, dir string, n, runs int) (string, error) {
	shards := dir + string(filepath.Separator)
	for i := range n {
		fmt.Fprintf(s.log, "replaying shard %d/%d of %d runs\n", i, n, runs)
		if err := s.replayInto(ctx, bin, w, shards, "--shard", fmt.Sprintf("%d/%d", i, n)); err != nil {
			return "", fmt.Errorf("shard %d/%d: %w", i, n, err)
		}
	}
	return shards, nil
}

// mergeCommand runs metrics over the shards in dir; it writes the merged tables beside
// the shards'.
func (s settings) mergeCommand(ctx context.Context, metrics, dir string) func(string) *exec.Cmd {
	return func(string) *exec.Cmd {
		return exec.CommandContext(ctx, metrics, "--workers", strconv.Itoa(s.workers), dir)
	}
}
