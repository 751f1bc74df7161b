// Command datagen writes synthetic quasar run traces with ground-truth labels.
//
// Usage:
//
//	datagen --out DIR [--runs N] [--seed S] [--rerun-every K]
//	datagen --sample --out DIR
//
// It writes DIR/runs/<task>.jsonl (run traces in loopwatch's lossless trace format)
// and DIR/labels.csv (run_key, label, outcome, label_source, rule). The same flags
// always write the same bytes. --sample writes loopwatch's built-in sample dataset,
// the one committed under datasets/sample and replayed by `make demo`.
//
// Examples:
//
//	datagen --sample --out datasets/sample
//	datagen --runs 10000 --seed 7 --out /tmp/synth10k
package main

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"

	flag "github.com/spf13/pflag"

	"github.com/loopwatch/loopwatch/datasets/synth"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	fs := flag.NewFlagSet("datagen", flag.ContinueOnError)
	out := fs.String("out", "", "folder to write runs/ and labels.csv into (required)")
	runs := fs.Int("runs", 100, "number of runs, scenarios drawn uniformly")
	seed := fs.Uint64("seed", 1, "random seed")
	rerun := fs.Int("rerun-every", 0, "make every k-th run a re-run (second epoch) of the previous task; 0 disables")
	sample := fs.Bool("sample", false, "write the built-in sample dataset (ignores --runs, --seed, --rerun-every)")
	fs.Usage = func() {
		fmt.Fprintf(os.Stderr, "Usage: datagen --out DIR [--runs N] [--seed S] [--rerun-every K]\n       datagen --sample --out DIR\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *out == "" {
		fmt.Fprintln(os.Stderr, "datagen: --out is required")
		return 2
	}
	cfg := synth.Config{Runs: *runs, Seed: *seed, RerunEvery: *rerun}
	if *sample {
		cfg = synth.SampleConfig()
	}
	generated := synth.Generate(cfg)
	files := synth.Files(generated)
	dir := filepath.Join(*out, "runs")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintf(os.Stderr, "datagen: %v\n", err)
		return 1
	}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		if err := os.WriteFile(filepath.Join(dir, name), files[name], 0o644); err != nil {
			fmt.Fprintf(os.Stderr, "datagen: %v\n", err)
			return 1
		}
	}
	if err := os.WriteFile(filepath.Join(*out, "labels.csv"), synth.Labels(generated), 0o644); err != nil {
		fmt.Fprintf(os.Stderr, "datagen: %v\n", err)
		return 1
	}
	fmt.Printf("wrote %d runs in %d files to %s, labels to %s\n", len(generated), len(files), dir, filepath.Join(*out, "labels.csv"))
	return 0
}
