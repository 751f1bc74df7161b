package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/loopwatch/loopwatch/internal/benchcmp"
	"github.com/loopwatch/loopwatch/internal/corpus"
)

// The variants of a workload, in this order.
const (
	varOld = iota
	varNew
	varNewW1
)

// onOneCore returns cmd run by self's one-core subcommand: pinned to one core, the
// n-th CPU this process may run on (counting round).
func onOneCore(ctx context.Context, self string, n int, cmd *exec.Cmd) *exec.Cmd {
	pinned := exec.CommandContext(ctx, self, append([]string{oneCoreCommand, strconv.Itoa(n)}, cmd.Args...)...)
	pinned.Args[3] = cmd.Path // the resolved path, not the name it was given as
	pinned.Env, pinned.Dir = cmd.Env, cmd.Dir
	return pinned
}

// onCoresEach returns bin args... run by self's on-cores subcommand: n processes at
// once, each on a CPU of its own, every "{i}" of args replaced by the process's number.
func onCoresEach(ctx context.Context, self string, n int, bin string, args ...string) *exec.Cmd {
	return exec.CommandContext(ctx, self, append([]string{onCoresCommand, strconv.Itoa(n), bin}, args...)...)
}

// pinnedRound returns command's commands run on one core each, on the next CPU this
// process may run on at each call, round: the CPUs of a shared machine are not equally
// fast from one minute to the next.
func pinnedRound(ctx context.Context, self string, command func(out string) *exec.Cmd) func(out string) *exec.Cmd {
	runs := 0
	return func(out string) *exec.Cmd {
		runs++
		return onOneCore(ctx, self, runs-1, command(out))
	}
}

// runCompare is the default mode: old against new over the workloads.
func runCompare(ctx context.Context, s settings) error {
	if err := s.prepareOut("bench-compare"); err != nil {
		return err
	}
	tmp, cleanup, err := s.tempDir("bench-compare-")
	if err != nil {
		return err
	}
	defer cleanup()

	rep := &benchcmp.Report{Title: "bench-compare: the previous and the current replay, side by side"}
	oldBin, oldDesc := s.oldBin, "old: "+s.oldBin+" (given)"
	if oldBin == "" {
		commit, how, err := baseRef(ctx, s.repo, s.base)
		if err != nil {
			return err
		}
		src := filepath.Join(tmp, "old-src")
		fmt.Fprintf(s.log, "building the previous replay from %s (%s)\n", commit[:12], how)
		if err := exportTree(ctx, s.repo, commit, src); err != nil {
			return err
		}
		bins, err := goBuild(ctx, src, filepath.Join(tmp, "old"), "./cmd/replay")
		if err != nil {
			return fmt.Errorf("the previous build (%s): %w", commit[:12], err)
		}
		oldBin, oldDesc = bins["replay"], fmt.Sprintf("old: %s (%s), built from a clean export", commit[:12], how)
	}
	newBin, datagen, err := s.currentBinaries(ctx, filepath.Join(tmp, "new"))
	if err != nil {
		return err
	}
	newDesc := "new: " + s.newBin + " (given)"
	if s.newBin == "" {
		head, err := describeHead(ctx, s.repo)
		if err != nil {
			return err
		}
		newDesc = "new: " + head + ", built from the working tree"
	}
	rep.Setup = append(rep.Setup, oldDesc, newDesc,
		fmt.Sprintf("each workload: %d paired repetitions after %d warm-up run(s) of each variant, the variants' order rotating every repetition; replays with --workers %d, new-w1 with --workers 1",
			s.reps, s.warmup, s.workers))
	load := loadAverage()

	var workloads []workload
	for _, name := range s.workloads {
		dir := filepath.Join(tmp, "w-"+name)
		var w workload
		var err error
		switch name {
		case "sample":
			w, err = generated(ctx, datagen, dir, "sample", "the built-in sample", "--sample")
		case "runs":
			w, err = generated(ctx, datagen, dir, "runs-"+count(s.runsN), fmt.Sprintf("%d synthetic quasar runs", s.runsN),
				"--runs", strconv.Itoa(s.runsN), "--seed", strconv.FormatUint(s.seed, 10))
		case "sessions":
			w, err = generated(ctx, datagen, dir, "sessions-"+count(s.sessionsN), fmt.Sprintf("%d synthetic Claude Code sessions", s.sessionsN),
				"--runs", "0", "--sessions", strconv.Itoa(s.sessionsN), "--seed", strconv.FormatUint(s.seed, 10))
		case "corpus":
			src, cerr := corpus.Dir("claude-code")
			if cerr != nil {
				rep.Notices = append(rep.Notices, fmt.Sprintf("workload corpus skipped: %v", cerr))
				fmt.Fprintf(s.log, "skipping the corpus workload: %v\n", cerr)
				continue
			}
			fmt.Fprintf(s.log, "writing %d copies of %s\n", s.corpusCopies, src)
			w, err = corpusCopies(src, dir, s.corpusCopies)
		}
		if err != nil {
			return err
		}
		workloads = append(workloads, w)
	}
	if len(workloads) == 0 {
		return fmt.Errorf("no workload to measure (%s)", strings.Join(rep.Notices, "; "))
	}

	duckScript, duckOK := duckDB(s.repo)
	self, selfErr := os.Executable()
	if s.anchors {
		if !duckOK {
			rep.Notices = append(rep.Notices, "DuckDB anchor skipped: interop/node_modules/@duckdb/node-api is not installed (make interop-deps)")
		} else if _, err := exec.LookPath("node"); err != nil {
			duckOK = false
			rep.Notices = append(rep.Notices, "DuckDB anchor skipped: node is not on PATH")
		}
		if selfErr != nil {
			return fmt.Errorf("json.Valid anchor: %w", selfErr)
		}
	}

	// On one core: the current replay with --workers 1 and the json.Valid anchor run
	// pinned to one CPU, as on a one-core machine; where they cannot be, the anchor is
	// held to --workers 1 on the machine's cores, which run more than its one worker.
	oneCoreIndex := -1
	if !canPinOneCore {
		rep.Notices = append(rep.Notices, "one core: a command cannot be pinned to one core here (Linux only): no cores table, and the json.Valid anchor is held to --workers 1 on every core")
	} else if selfErr != nil {
		return fmt.Errorf("one core: %w", selfErr)
	}
	nParts := partCount(s.workers)
	for _, w := range workloads {
		vs := []variant{
			varOld:   {name: "old", command: replayCommand(ctx, oldBin, w, s.workers), outputs: true},
			varNew:   {name: "new", command: replayCommand(ctx, newBin, w, s.workers), outputs: true},
			varNewW1: {name: "new-w1", command: replayCommand(ctx, newBin, w, 1), outputs: true},
		}
		same := []mustMatch{{varNewW1, varNew, fmt.Sprintf("the worker count (1, %d) changed the output", s.workers)}}
		if canPinOneCore {
			oneCoreIndex = len(vs)
			vs = append(vs, variant{name: "new-1core", outputs: true, command: pinnedRound(ctx, self, replayCommand(ctx, newBin, w, 1))})
			same = append(same, mustMatch{oneCoreIndex, varNew, "the replay on one core changed the output"})
		}
		partsIndex, pattern := -1, ""
		if canPinOneCore {
			// The same input split in parts, each replayed at once by a process of its
			// own on a core of its own: the cores given work that shares nothing.
			var err error
			pattern, err = splitInput(w.in, filepath.Join(tmp, "parts-"+w.name), nParts)
			if err != nil {
				return fmt.Errorf("workload %s: splitting it in %d: %w", w.name, nParts, err)
			}
			parts := w
			parts.in = pattern
			partsIndex = len(vs)
			vs = append(vs, variant{name: "new-parts", outputs: true, rssSum: true, command: func(out string) *exec.Cmd {
				return onCoresEach(ctx, self, nParts, newBin, parts.replayTo(filepath.Join(out, "part-"+partPlaceholder+".parquet"), 1)...)
			}})
		}
		anchors, jsonValidIndex, controlIndex := len(vs), -1, -1
		if s.anchors {
			in := w.in
			jsonValid := func(string) *exec.Cmd { return exec.CommandContext(ctx, self, jsonValidCommand, in) }
			if canPinOneCore {
				jsonValid = pinnedRound(ctx, self, jsonValid)
			}
			jsonValidIndex = len(vs)
			vs = append(vs, variant{name: "json.Valid", command: jsonValid})
			if pattern != "" {
				// The control: the same bare pass over the parts, each on a core of its
				// own, all at once — what the machine's cores give work that shares
				// nothing and is little but reading and parsing.
				controlIndex = len(vs)
				vs = append(vs, variant{name: "json.Valid-parts", rssSum: true, command: func(string) *exec.Cmd {
					return onCoresEach(ctx, self, nParts, self, jsonValidCommand, pattern)
				}})
			}
			if duckOK {
				threads := s.workers
				vs = append(vs, variant{name: "duckdb", command: func(out string) *exec.Cmd {
					return exec.CommandContext(ctx, "node", duckDBArgs(duckScript, in, filepath.Join(out, "duckdb.parquet"), threads)...)
				}})
			}
		}
		if !s.allowChange {
			same = append(same, mustMatch{varOld, varNew, "pass --allow-output-change if the change of behaviour is meant"})
		}
		m, err := runWorkload(w.name, vs, s.reps, s.warmup, same, filepath.Join(tmp, "out"), s.log)
		if err != nil {
			return err
		}
		bw := benchcmp.Workload{Name: w.name, About: w.about, Variants: m.variants}
		add := func(name string, base, other int, outputs string) error {
			c, err := benchcmp.Compare(name, m.variants[base], m.variants[other])
			if err != nil {
				return err
			}
			c.Outputs = outputs
			bw.Comparisons = append(bw.Comparisons, c)
			return nil
		}
		oldNew, _ := m.digests[varOld].diff(m.digests[varNew])
		w1, _ := m.digests[varNewW1].diff(m.digests[varNew])
		if err := errors.Join(add("new/old", varOld, varNew, oldNew), add("workers", varNewW1, varNew, w1)); err != nil {
			return err
		}
		workers := &bw.Comparisons[len(bw.Comparisons)-1]
		if err := workers.SetFloor(m.variants[varNewW1], m.variants[varNew], min(s.workers, runtime.NumCPU())); err != nil {
			return err
		}
		if oneCoreIndex >= 0 {
			one, _ := m.digests[oneCoreIndex].diff(m.digests[varNew])
			if err := add("cores", oneCoreIndex, varNew, one); err != nil {
				return err
			}
		}
		if partsIndex >= 0 {
			if err := errors.Join(add("split", varNewW1, partsIndex, ""), add("workers/split", partsIndex, varNew, "")); err != nil {
				return err
			}
		}
		for i := anchors; i < len(vs); i++ {
			name, base, other := "anchor "+vs[i].name, i, varNew
			switch i {
			case jsonValidIndex:
				// json.Valid runs on one core: the replay it is held to is --workers 1
				// on one core, where it can be pinned.
				other = varNewW1
				if oneCoreIndex >= 0 {
					other = oneCoreIndex
				}
			case controlIndex:
				// The control is held to the pass on one core, not to a replay.
				name, base, other = "control", jsonValidIndex, i
			}
			if err := add(name, base, other, ""); err != nil {
				return err
			}
		}
		rep.Workloads = append(rep.Workloads, bw)
	}
	if end := loadAverage(); load != "" {
		rep.Setup = append(rep.Setup, fmt.Sprintf("machine: %s, load average %s at the start and %s at the end — on a shared machine compare the ratios, not the times", machine(), load, end))
	} else {
		rep.Setup = append(rep.Setup, fmt.Sprintf("machine: %s — on a shared machine compare the ratios, not the times", machine()))
	}
	rep.Setup = append(rep.Setup, "intervals: order statistics of the paired ratios (the sign test's interval for their median); cpu is user + system time, rss the peak resident set size (wait4)")
	jsonValidCaption := "New with --workers 1 against a bare json.Valid pass over the same files, both pinned to one core (how many times that floor)"
	if !canPinOneCore {
		jsonValidCaption = "New with --workers 1 on every core against a bare json.Valid pass over the same files on one (how many times that floor)"
	}
	rep.Tables = []benchcmp.Table{
		{Comparison: "new/old", Caption: "New against old (< 1: new is faster or smaller)"},
		{Comparison: "workers", Caption: fmt.Sprintf("New with --workers %d against --workers 1 (wall < 1: the workers help; floor: the wall ratio if the CPU of --workers %[1]d were spread evenly over its cores — a wall ratio at its floor can only come down with less CPU; cores: CPU over wall time, what --workers 1 keeps busy beside its one worker)", s.workers)},
		{Comparison: "cores", Caption: fmt.Sprintf("What the cores buy: new with --workers %d on the machine's cores against --workers 1 pinned to one core, as on a one-core machine (wall < 1: faster with the cores)", s.workers)},
		{Comparison: "split", Caption: fmt.Sprintf("Split between processes that share nothing: new with --workers 1 against the same files split in %d parts of equal bytes (a session's files together), each part replayed with --workers 1 by a process pinned to a core of its own, all at once — no runtime, heap or delivery in common (wall < 1: faster)", nParts)},
		{Comparison: "workers/split", Caption: fmt.Sprintf("New with --workers %d, one process, against those %d processes (wall ≤ 1: the workers lose nothing to sharing a process — they share out the files as they go, where a split is fixed beforehand)", s.workers, nParts)},
		{Comparison: "control", Caption: fmt.Sprintf("The control — what the machine's cores give work that shares nothing: the bare json.Valid pass split in the same %d parts, each part a process pinned to a core of its own, all at once, against the whole pass on one core (wall: 1/%[1]d if the cores were %[1]d whole cores to themselves; read the split and workers tables against it)", nParts)},
		{Comparison: "anchor json.Valid", Caption: jsonValidCaption},
		{Comparison: "anchor duckdb", Caption: fmt.Sprintf("New against DuckDB's read_json → COPY … TO parquet on %d threads", s.workers)},
	}
	return s.writeReports(rep, "bench-compare")
}

// partCount is how many processes the split runs for workers workers: one a
// core, on at most the machine's cores.
func partCount(workers int) int { return max(1, min(workers, runtime.NumCPU())) }

// count renders a workload size: 10000 → "10k".
func count(n int) string {
	if n >= 1000 && n%1000 == 0 {
		return strconv.Itoa(n/1000) + "k"
	}
	return strconv.Itoa(n)
}
