package replay

import (
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
	"testing/fstest"
	"time"

	"github.com/loopwatch/loopwatch/analyze/assess"
	"github.com/loopwatch/loopwatch/analyze/assess/breaker"
	"github.com/loopwatch/loopwatch/analyze/assess/detect"
	"github.com/loopwatch/loopwatch/analyze/assess/duration"
	"github.com/loopwatch/loopwatch/analyze/assess/session"
	"github.com/loopwatch/loopwatch/analyze/struggle"
	"github.com/loopwatch/loopwatch/datasets"
	"github.com/loopwatch/loopwatch/datasets/synth"
	"github.com/loopwatch/loopwatch/internal/corpus"
	"github.com/loopwatch/loopwatch/replay/input"
)

// rescoreInputs returns the runs and sessions the rescoring tests replay: the
// built-in sample, a small synthetic dataset and, outside -short, the real corpora
// when present.
func rescoreInputs(t *testing.T) ([]*input.Run, []*input.Session) {
	t.Helper()
	gen := fstest.MapFS{}
	for name, b := range synth.DatasetFiles(synth.DatasetConfig{Runs: 150, Sessions: 120, VibesLogs: 2, Seed: 11, RerunEvery: 7}) {
		gen[name] = &fstest.MapFile{Data: b}
	}
	inputs := []fs.FS{datasets.Sample(), gen}
	for _, name := range []string{"quasar", "claude-code"} {
		if dir, err := corpus.Dir(name); err == nil {
			inputs = append(inputs, os.DirFS(dir))
		} else {
			t.Logf("not rescored: %v", err)
		}
	}
	var runs []*input.Run
	var sessions []*input.Session
	for _, in := range inputs {
		_, err := Replay(context.Background(), in, Options{Workers: 2}, Sinks{
			Runs:     func(r *RunResult) error { runs = append(runs, r.Run); return nil },
			Sessions: func(s *SessionResult) error { sessions = append(sessions, s.Session); return nil },
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return runs, sessions
}

// randomStruggle draws a struggle configuration around the presets.
func randomStruggle(rng *rand.Rand) struggle.StruggleConfig {
	cfg := struggle.DefaultStruggleConfig()
	if rng.IntN(3) == 0 {
		cfg = struggle.SeedStruggleConfig()
	}
	pick := func(xs ...float64) float64 { return xs[rng.IntN(len(xs))] }
	cfg.Enabled = rng.IntN(10) > 0
	cfg.MinCyclesBeforeCheck = rng.IntN(4)
	cfg.FilterRepeatThreshold = rng.IntN(4)
	cfg.FindingOverlapThreshold = pick(0, 0.2, 0.4, 0.6, 1)
	cfg.BudgetBurnThreshold = pick(0, 0.3, 1, 1.5, 3)
	cfg.CompositeThreshold = pick(0, 0.2, 0.4, 0.6, 0.8, 1)
	cfg.Weights = struggle.Weights{FilterRepeat: pick(0, 0.2, 0.35, 0.6), FindingOverlap: pick(0, 0.4, 0.7), BudgetBurn: pick(0, 0.1, 0.25)}
	cfg.FindingSimilarity = pick(0, 0.3, 0.5, 0.8, 1)
	cfg.CaseFold = rng.IntN(2) == 0
	return cfg
}

// TestRescoreCorpusAndSynthetic checks, on the sample, a synthetic dataset and (outside
// -short) the real corpora, that rescoring traces gives what replaying gives, for
// random configurations.
func TestRescoreCorpusAndSynthetic(t *testing.T) {
	runs, sessions := rescoreInputs(t)
	t.Run("runs", func(t *testing.T) { testRunTraces(t, runs) })
	t.Run("sessions", func(t *testing.T) { testSessionTraces(t, sessions) })
}

// testRunTraces checks that scoring a run's trace under a configuration gives what
// replaying the run under it gives.
func testRunTraces(t *testing.T, runs []*input.Run) {
	if len(runs) < 100 {
		t.Fatalf("only %d runs to rescore", len(runs))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	configs := 30
	if testing.Short() {
		configs = 10
	}
	triggered := 0
	for range configs {
		cfg := randomStruggle(rng)
		traces := map[bool][]*RunTrace{}
		for _, fold := range []bool{false, true} {
			for _, r := range runs {
				traces[fold] = append(traces[fold], TraceRun(r, fold))
			}
		}
		for i, r := range runs {
			want := ReplayRun(r, cfg).Struggle
			got := traces[cfg.CaseFold][i].Outcome(cfg)
			if got != want {
				t.Fatalf("run %s under %+v: trace gives %+v, replay %+v", r.Key, cfg, got, want)
			}
			if got.Triggered {
				triggered++
			}
		}
	}
	if triggered == 0 {
		t.Fatal("no configuration triggered on any run: the test compares nothing")
	}
}

// randomAssess draws an assessment configuration around the presets, varying what
// the trace's decision reads (EMA, breaker) and what the trace itself reads
// (detection, session ends, inactivity).
func randomAssess(rng *rand.Rand) assess.Config {
	cfg := assess.DefaultConfig()
	if rng.IntN(3) == 0 {
		cfg = assess.SeedConfig()
	}
	pick := func(xs ...float64) float64 { return xs[rng.IntN(len(xs))] }
	minutes := func(xs ...int) duration.Duration {
		return duration.Duration(time.Duration(xs[rng.IntN(len(xs))]) * time.Minute)
	}
	e := &cfg.Detect.EMA
	e.Alpha = pick(0.3, 0.5, 1)
	e.EveryEvent = rng.IntN(2) == 0
	for _, w := range []*float64{&e.FrustrationWeight, &e.CorrectionWeight, &e.InterruptWeight, &e.RepeatWeight,
		&e.RedirectWeight, &e.NegationWeight, &e.StillWeight, &e.DoubtWeight, &e.CorrectionPhraseWeight, &e.ExasperationWeight} {
		*w = pick(0, 0.25, 0.5, 1)
	}
	b := &cfg.Breaker
	b.FrustrationThreshold = pick(0.1, 0.2, 0.45, 0.7)
	b.CorrectionStorm = 1 + rng.IntN(3)
	b.CorrectionWindow = minutes(1, 5)
	b.Cooldown = minutes(0, 1, 5)
	b.EdgeTriggered = rng.IntN(2) == 0
	b.InterruptIsCorrection = rng.IntN(2) == 0
	b.FailureThreshold = 2 + rng.IntN(5)
	b.ToolErrorIsFailure = rng.IntN(2) == 0
	b.PivotOncePerStreak = rng.IntN(2) == 0
	b.FailureStreaks = []string{breaker.StreaksSession, breaker.StreaksTarget}[rng.IntN(2)]
	b.CountPerSignal = b.FailureStreaks == breaker.StreaksSession && rng.IntN(2) == 0
	cfg.InactivityTimeout = minutes(3, 30)
	if rng.IntN(3) == 0 {
		cfg.EndHooks = session.SeedEndHooks()
	}
	f := &cfg.Detect.Friction
	f.SkipFirstMessage = rng.IntN(2) == 0
	f.IgnoreSelfInterrupts = rng.IntN(2) == 0
	return cfg
}

// testSessionTraces checks that deciding a session's trace under a configuration
// gives the interventions and peak frustration the processor gives under it.
func testSessionTraces(t *testing.T, sessions []*input.Session) {
	if len(sessions) < 100 {
		t.Fatalf("only %d sessions to rescore", len(sessions))
	}
	rng := rand.New(rand.NewPCG(3, 4))
	configs := 10
	if testing.Short() {
		configs = 6
	}
	interventions := 0
	for c := range configs {
		cfg := randomAssess(rng)
		rules := detect.MustCompile(cfg.Detect)
		replayer := NewSessionReplayer(SessionOptions{Assess: &cfg}) // compiled once a configuration
		var d assess.Decision
		for _, s := range sessions {
			tr, err := assess.TraceSession(s.Events, cfg, rules)
			if err != nil {
				t.Fatal(err)
			}
			tr.Decide(cfg.Detect.EMA, cfg.Breaker, &d)
			sr, err := replayer.Replay(context.Background(), s)
			if err != nil {
				t.Fatal(err)
			}
			o := sr.Outcome()
			if tr.Len() != len(sr.Steps) {
				t.Fatalf("config %d, session %s: %d steps in the trace, %d in the processor's", c, s.Key, tr.Len(), len(sr.Steps))
			}
			for i, st := range tr.Steps() { // each step's signals and time, decoded
				if got, want := st.Signals, sr.Steps[i].Signals; !slices.Equal(got, want) || (got == nil) != (len(want) == 0) {
					t.Fatalf("config %d, session %s, event %d: trace's signals %v, processor's %v", c, s.Key, i, got, want)
				}
				if !st.Time.Equal(s.Events[i].Time) {
					t.Fatalf("config %d, session %s, event %d: trace's time %v, the event's %v", c, s.Key, i, st.Time, s.Events[i].Time)
				}
			}
			for k, i := range d.Interventions {
				if !d.Times[k].Equal(s.Events[i].Time) {
					t.Fatalf("config %d, session %s: intervention at event %d has time %v, the event %v", c, s.Key, i, d.Times[k], s.Events[i].Time)
				}
			}
			for i, f := range tr.Frustration(cfg.Detect.EMA) {
				if f != sr.Steps[i].FrustrationEMA {
					t.Fatalf("config %d, session %s, event %d: trace's frustration %v, processor's %v", c, s.Key, i, f, sr.Steps[i].FrustrationEMA)
				}
			}
			if !slices.Equal(d.Interventions, o.Interventions) || d.PeakFrustration != o.PeakFrustration {
				t.Fatalf("config %d, session %s: trace gives interventions %v (peak %v), processor %v (peak %v)\nconfig: %s",
					c, s.Key, d.Interventions, d.PeakFrustration, o.Interventions, o.PeakFrustration, fmt.Sprintf("%+v", cfg.Breaker))
			}
			interventions += len(d.Interventions)
		}
	}
	if interventions == 0 {
		t.Fatal("no configuration intervened in any session: the test compares nothing")
	}
}
