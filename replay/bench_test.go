package replay

import (
	"context"
	"testing"
	"testing/fstest"

	"github.com/loopwatch/loopwatch/analyze/struggle"
	"github.com/loopwatch/loopwatch/datasets/synth"
)

// BenchmarkReplay measures a whole replay — detection, parsing, struggle detection on
// every cycle — over 2000 synthetic runs held in memory; it reports runs/s and cycles/s.
func BenchmarkReplay(b *testing.B) {
	runs := synth.Generate(synth.Config{Runs: 2000, Seed: 1})
	fsys := fstest.MapFS{}
	size := 0
	for name, data := range synth.Files(runs) {
		fsys[name] = &fstest.MapFile{Data: data}
		size += len(data)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	cycles := 0
	for b.Loop() {
		cycles = 0
		_, err := Replay(context.Background(), fsys, Options{Struggle: struggle.DefaultStruggleConfig()},
			SinkFunc(func(r *RunResult) error { cycles += len(r.Cycles); return nil }))
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(runs)*b.N)/b.Elapsed().Seconds(), "runs/s")
	b.ReportMetric(float64(cycles*b.N)/b.Elapsed().Seconds(), "cycles/s")
}
