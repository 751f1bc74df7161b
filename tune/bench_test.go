package tune

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/loopwatch/loopwatch/datasets/synth"
	"github.com/loopwatch/loopwatch/pipeline"
)

// BenchmarkRescore measures the rescoring that makes tuning cheap: 1,000 struggle
// configurations over 10,000 synthetic runs and 1,000 assessment configurations over
// 1,000 synthetic sessions, each configuration scored on every unit and every one of
// five folds (the input is read once, outside the timer). It reports configurations
// per second for each:
//
//	go test -run '^$' -bench Rescore -benchtime 3x ./tune
func BenchmarkRescore(b *testing.B) {
	dir := b.TempDir()
	for name, data := range synth.DatasetFiles(synth.DatasetConfig{Runs: 10000, Sessions: 1000, Seed: 1}) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	s := pipeline.DefaultSettings()
	s.In = filepath.Join(dir, synth.InputsDir)
	s.Labels = []string{filepath.Join(dir, synth.RunLabelsFile), filepath.Join(dir, synth.SessionLabelsFile)}
	in, err := pipeline.Prepare(s)
	if err != nil {
		b.Fatal(err)
	}
	sp, err := NewSpace(in.Struggle, in.Assess)
	if err != nil {
		b.Fatal(err)
	}
	for _, g := range []string{
		"composite_threshold=0.05:0.95:0.1", "budget_burn_threshold=0.25:2.5:0.25", "weights.budget_burn=0:0.45:0.05",
		"frustration_threshold=0.1:1:0.1", "ema.alpha=0.1:1:0.1", "breaker.cooldown=0s:9m:1m",
	} {
		if err := sp.Add(g); err != nil {
			b.Fatal(err)
		}
	}
	sc, _, err := sp.configs(Struggle, 0, 10000, 1)
	if err != nil {
		b.Fatal(err)
	}
	ac, groups, err := sp.configs(Assess, 0, 10000, 1)
	if err != nil {
		b.Fatal(err)
	}
	d, err := load(context.Background(), in, [2]bool{true, true}, groups)
	if err != nil {
		b.Fatal(err)
	}
	opts := Options{Settings: s, Folds: 5}
	scr := &scorer{d: d, window: s.FrictionWindow}
	runs, _, _, err := scr.split(TargetStruggle, opts, nil)
	if err != nil {
		b.Fatal(err)
	}
	sessions, _, _, err := scr.split(TargetFriction, opts, nil)
	if err != nil {
		b.Fatal(err)
	}
	if len(runs.idx) < 10000 || len(sessions.idx) < 1000 || len(sc) < 1000 || len(ac) < 1000 {
		b.Fatalf("%d runs, %d sessions, %d and %d configurations: smaller than the benchmark claims", len(runs.idx), len(sessions.idx), len(sc), len(ac))
	}
	b.ResetTimer()
	var runSecs, sessionSecs float64
	for b.Loop() {
		start := b.Elapsed()
		scr.evaluateAll(runs, sc, 0)
		mid := b.Elapsed()
		scr.evaluateAll(sessions, ac, 0)
		runSecs += (mid - start).Seconds()
		sessionSecs += (b.Elapsed() - mid).Seconds()
	}
	b.ReportMetric(float64(len(sc)*b.N)/runSecs, "run-configs/s")
	b.ReportMetric(float64(len(ac)*b.N)/sessionSecs, "session-configs/s")
	b.ReportMetric(float64(len(runs.idx)), "runs")
	b.ReportMetric(float64(len(sessions.idx)), "sessions")
}
