package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/loopwatch/loopwatch/datasets/synth"
)

// BenchmarkRunRuns is the whole replay of synthetic quasar runs as the replay command
// does it — reading the traces, the detectors and their comparisons, every table to
// zstd Parquet, the metrics with bootstrap intervals and the fix-loop simulation — over
// 2000 runs written to a temporary folder (LOOPWATCH_BENCH_RUNS overrides the count,
// for profiling at scale), with one worker and with two. It reports runs/s.
func BenchmarkRunRuns(b *testing.B) {
	n := 2000
	if v, err := strconv.Atoi(os.Getenv("LOOPWATCH_BENCH_RUNS")); err == nil && v > 0 {
		n = v
	}
	dir := b.TempDir()
	w, err := synth.WriteDataset(synth.DirDest(dir), synth.DatasetConfig{Runs: n, Seed: 7})
	if err != nil {
		b.Fatal(err)
	}
	in := filepath.Join(dir, synth.InputsDir)
	var labels []string
	for _, l := range w.Labels {
		labels = append(labels, filepath.Join(dir, filepath.FromSlash(l)))
	}
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			s := DefaultSettings()
			s.In, s.Labels, s.Out, s.Workers = in, labels, filepath.Join(dir, "out", "results.parquet"), workers
			if err := os.MkdirAll(filepath.Dir(s.Out), 0o755); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Run(context.Background(), s); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "runs/s")
		})
	}
}
