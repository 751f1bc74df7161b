// Command datagen writes synthetic agent activity with ground-truth labels: quasar
// run traces, Claude Code session transcripts and vibes event logs.
//
// Usage:
//
//	datagen --out DIR [--runs N] [--sessions N] [--vibes N] [--seed S] [--rerun-every K]
//	datagen --sample --out DIR
//
// It writes a dataset laid out like loopwatch's built-in sample:
//
//	DIR/inputs/runs/<task>.jsonl                             run traces (lossless trace format)
//	DIR/inputs/sessions/<project-dir>/<session-id>.jsonl     Claude Code transcripts,
//	DIR/inputs/sessions/<project-dir>/<session-id>/subagents/agent-<id>.jsonl   with their subagents
//	DIR/inputs/vibes/vibes-events[-NNNN].jsonl               vibes event logs, two sessions each
//	DIR/labels/runs.csv                                      run_key, label, outcome, label_source, rule
//	DIR/labels/sessions.csv                                  session_id, file, outcome, confidence,
//	                                                         human_msgs, friction_uuids, notes
//
// Replay DIR/inputs; the session labels' file column is relative to it. Parts with
// nothing to write (--runs 0, no sessions or logs) are left out. The same flags
// always write the same bytes. DIR may exist, but not its inputs/ or labels/: datagen
// refuses to write beside an earlier dataset, whose files it would leave among the new
// ones (ten runs of an earlier call beside the labels of two). --sample writes
// loopwatch's built-in sample dataset, the one committed under datasets/sample and
// replayed by `make demo`; it writes its fixed set of files over an earlier sample's,
// which is how that folder is regenerated.
//
// Examples:
//
//	datagen --sample --out /tmp/sample
//	datagen --runs 10000 --seed 7 --out /tmp/synth10k
//	datagen --runs 0 --sessions 500 --vibes 50 --out /tmp/sessions
package main

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	flag "github.com/spf13/pflag"

	"github.com/loopwatch/loopwatch/datasets/synth"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("datagen", flag.ContinueOnError)
	out := fs.String("out", "", "folder to write inputs/ and labels/ into (required)")
	runs := fs.Int("runs", 100, "number of quasar runs, scenarios drawn uniformly")
	sessions := fs.Int("sessions", 0, "number of Claude Code sessions, scenarios drawn uniformly")
	vibes := fs.Int("vibes", 0, "number of vibes event logs (two sessions each)")
	seed := fs.Uint64("seed", 1, "random seed")
	rerun := fs.Int("rerun-every", 0, "make every k-th run a re-run (the next epoch) of the previous run's task; 0 disables")
	sample := fs.Bool("sample", false, "write the built-in sample dataset (ignores the other flags but --out)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: datagen --out DIR [--runs N] [--sessions N] [--vibes N] [--seed S] [--rerun-every K]\n       datagen --sample --out DIR\n\n")
		fs.PrintDefaults()
	}
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "datagen: unexpected argument %q (every setting is a flag; see datagen --help)\n", fs.Arg(0))
		return 2
	}
	if *out == "" {
		fmt.Fprintln(stderr, "datagen: --out is required")
		return 2
	}
	if *runs < 0 || *sessions < 0 || *vibes < 0 || *rerun < 0 {
		fmt.Fprintln(stderr, "datagen: --runs, --sessions, --vibes and --rerun-every must not be negative")
		return 2
	}
	if !*sample && *runs+*sessions+*vibes == 0 {
		fmt.Fprintln(stderr, "datagen: nothing to generate: give --runs, --sessions or --vibes a count above 0")
		return 2
	}
	// --sample writes its fixed files over an earlier sample's: how datasets/sample is
	// regenerated.
	p, err := earlierDataset(*out)
	switch {
	case err != nil:
		fmt.Fprintf(stderr, "datagen: --out %s: %v\n", *out, err)
		return 2
	case p != "" && !*sample:
		fmt.Fprintf(stderr, "datagen: %s already exists: write into a folder without %s/ and %s/ (remove them, or choose another --out)\n",
			p, synth.InputsDir, labelsDir)
		return 2
	}
	var w synth.Written
	if *sample {
		files := synth.SampleFiles()
		for _, name := range slices.Sorted(maps.Keys(files)) {
			if err := writeFile(*out, name, files[name]); err != nil {
				fmt.Fprintf(stderr, "datagen: %v\n", err)
				return 1
			}
			if part, _, ok := strings.Cut(strings.TrimPrefix(name, synth.InputsDir+"/"), "/"); ok && strings.HasPrefix(name, synth.InputsDir+"/") {
				switch part {
				case "runs":
					w.Runs++
				case "sessions":
					w.Sessions++
				case "vibes":
					w.Vibes++
				}
			}
		}
	} else {
		// Streamed: each run, session and log is written as it is generated.
		w, err = synth.WriteDataset(synth.DirDest(*out), synth.DatasetConfig{Runs: *runs, Sessions: *sessions, VibesLogs: *vibes, Seed: *seed, RerunEvery: *rerun})
		if err != nil {
			fmt.Fprintf(stderr, "datagen: %v\n", err)
			return 1
		}
	}
	fmt.Fprintf(stdout, "wrote %d run files, %d session files, %d vibes logs and their labels to %s\n",
		w.Runs, w.Sessions, w.Vibes, *out)
	return 0
}

// labelsDir is the folder of a dataset's labels.
var labelsDir = path.Dir(synth.RunLabelsFile)

// earlierDataset returns the path of an earlier dataset's inputs/ or labels/ in dir,
// "" when there is neither, or why dir cannot hold a dataset (a file, say).
func earlierDataset(dir string) (string, error) {
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return "", errors.New("is a file, not a folder")
	}
	for _, part := range []string{synth.InputsDir, labelsDir} {
		p := filepath.Join(dir, filepath.FromSlash(part))
		switch _, err := os.Lstat(p); {
		case err == nil:
			return p, nil
		case !errors.Is(err, os.ErrNotExist):
			return "", err
		}
	}
	return "", nil
}

func writeFile(dir, name string, data []byte) error {
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, data, 0o644)
}
