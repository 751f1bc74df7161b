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

const usage = `Usage: datagen --out DIR [--runs N] [--sessions N] [--vibes N] [--seed S] [--rerun-every K] [--fix-loop-every K]
       datagen --sample --out DIR

Writes synthetic quasar run traces, Claude Code transcripts and vibes event logs with
their ground-truth labels into DIR/inputs and DIR/labels, and prints the command that
replays them (DIR/inputs with --labels DIR/labels/runs.csv and DIR/labels/sessions.csv,
those it wrote). The same flags always write the same bytes. --sample writes the
built-in sample that make demo replays.

Examples:
  datagen --sample --out sample
  datagen --runs 1000 --seed 7 --out synth
  datagen --runs 0 --sessions 50 --vibes 5 --out sessions
  datagen --runs 200 --rerun-every 5 --seed 3 --out reruns
  datagen --runs 200 --fix-loop-every 2 --out fixloop

Flags:
`

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("datagen", flag.ContinueOnError)
	out := fs.String("out", "", "folder to write inputs/ and labels/ into (required)")
	runs := fs.Int("runs", 100, "number of quasar runs, scenarios drawn uniformly")
	sessions := fs.Int("sessions", 0, "number of Claude Code sessions, scenarios drawn uniformly")
	vibes := fs.Int("vibes", 0, "number of vibes event logs (two sessions each)")
	seed := fs.Uint64("seed", 1, "random seed")
	rerun := fs.Int("rerun-every", 0, "make every k-th run a re-run (the next epoch) of the previous run's task; 0 disables")
	fixLoop := fs.Int("fix-loop-every", 0, "record every k-th run with quasar's inner filter fix loop on (its fix attempts and verdicts); 0 disables")
	sample := fs.Bool("sample", false, "write the built-in sample dataset (ignores the other flags but --out)")
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
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
	if *runs < 0 || *sessions < 0 || *vibes < 0 || *rerun < 0 || *fixLoop < 0 {
		fmt.Fprintln(stderr, "datagen: --runs, --sessions, --vibes, --rerun-every and --fix-loop-every must not be negative")
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
			if name == synth.RunLabelsFile || name == synth.SessionLabelsFile {
				w.Labels = append(w.Labels, name) // in sorted order: runs, then sessions, as WriteDataset lists them
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
		w, err = synth.WriteDataset(synth.DirDest(*out), synth.DatasetConfig{Runs: *runs, Sessions: *sessions, VibesLogs: *vibes, Seed: *seed, RerunEvery: *rerun,
			FixLoopEvery: *fixLoop})
		if err != nil {
			fmt.Fprintf(stderr, "datagen: %v\n", err)
			return 1
		}
	}
	fmt.Fprintf(stdout, "wrote %d run files, %d session files, %d vibes logs and their labels to %s\n",
		w.Runs, w.Sessions, w.Vibes, *out)
	// The replay of what was written, with the label files written.
	replayCmd := "replay --in " + filepath.Join(*out, synth.InputsDir)
	for _, l := range w.Labels {
		replayCmd += " --labels " + filepath.Join(*out, filepath.FromSlash(l))
	}
	fmt.Fprintf(stdout, "replay it: %s --out %s\n", replayCmd, filepath.Join(*out, "results.parquet"))
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
