package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/loopwatch/loopwatch/datasets/synth"
	"github.com/loopwatch/loopwatch/eval"
	"github.com/loopwatch/loopwatch/reports"
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

// BenchmarkDeriveTarget is one derivation task — a configuration's predictions read
// back from the scratch file and one target gathered and evaluated, as derivation.run
// does it — over 30,000 synthetic units (predictionRows: a third runs, the rest
// sessions, half of them with event-level scores). Beside the time it reports what
// the task holds per unit it gathers (live-B/unit: the heap after gathering, collected,
// less before) and what the evaluation allocates on top (eval-B/unit: an upper bound
// of its transient memory): together, what a task running at once costs per unit.
func BenchmarkDeriveTarget(b *testing.B) {
	rows := predictionRows(30000)
	out, err := reports.NewOutput(filepath.Join(b.TempDir(), "r.parquet"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer out.Abort()
	spill, err := newPredSpill(out, 3)
	if err != nil {
		b.Fatal(err)
	}
	for i := range rows {
		if err := spill.write(&rows[i]); err != nil {
			b.Fatal(err)
		}
	}
	if err := spill.flush(); err != nil {
		b.Fatal(err)
	}
	rows = nil
	opts := eval.Options{Seed: 1, Resamples: 200}
	for tg := range numTargets {
		b.Run(fmt.Sprint("target=", []string{"struggle", "breaker", "outcome", "outcome-accuracy", "moments"}[tg]), func(b *testing.B) {
			n := spill.counts(0)
			units := map[target]int{targetStruggle: n.runs, targetMoments: n.moments}[tg]
			if units == 0 {
				units = n.sessions
			}
			heap := func() (live, total uint64) {
				runtime.GC()
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				return ms.HeapAlloc, ms.TotalAlloc
			}
			var held, evalAlloc float64
			for b.Loop() {
				b.StopTimer()
				live0, _ := heap()
				b.StartTimer()
				c := &scoring{configSpec: configSpec{Configured: true}}
				c.reserve(tg, n)
				if err := spill.each(0, func(p *keptPrediction, sm *eval.SessionMoments) { c.add(p, sm, tg) }); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				live1, total1 := heap()
				b.StartTimer()
				var res Result
				c.evaluateTarget(tg, &res, opts, 5*time.Minute, "bad", true)
				b.StopTimer()
				_, total2 := heap()
				runtime.KeepAlive(c)
				held, evalAlloc = float64(int64(live1)-int64(live0)), float64(total2-total1)
				b.StartTimer()
			}
			b.ReportMetric(held/float64(units), "live-B/unit")
			b.ReportMetric(evalAlloc/float64(units), "eval-B/unit")
		})
	}
}
