package baseline

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"strings"
	"testing"

	"github.com/loopwatch/loopwatch/analyze/struggle"
	"github.com/loopwatch/loopwatch/datasets"
	"github.com/loopwatch/loopwatch/internal/golden"
	"github.com/loopwatch/loopwatch/replay"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// replayBaselines replays every run and session under fsys through both baselines
// with their shipped settings, and hands each verdict to the functions given.
func replayBaselines(t testing.TB, fsys fs.FS, run func(*replay.RunResult, *QuasarResult), session func(*replay.SessionResult, *VibesResult)) *replay.Summary {
	t.Helper()
	sum, err := replay.Replay(context.Background(), fsys, replay.Options{Struggle: struggle.DefaultStruggleConfig()}, replay.Sinks{
		Runs: func(r *replay.RunResult) error {
			run(r, QuasarRun(r.Run, struggle.DefaultStruggleConfig()))
			return nil
		},
		Sessions: func(s *replay.SessionResult) error {
			v, err := VibesSession(s.Session.Events, DefaultVibesConfig())
			if err != nil {
				return err
			}
			session(s, v)
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// TestSampleGolden replays the built-in sample through both baselines and compares
// every decision — each run's evaluated cycles and verdict, each session's events
// with their signals, EMAs, breaker score and state — with testdata/sample.golden.
func TestSampleGolden(t *testing.T) {
	var runs, sessions strings.Builder
	replayBaselines(t, datasets.Sample(), func(r *replay.RunResult, q *QuasarResult) {
		fmt.Fprintf(&runs, "run %s (%s, %d cycles, %s): triggered=%v first=%d max=%.4f lead=%d cycles %.2f USD %.0f s\n",
			r.Run.Key, r.Run.Phase, len(r.Run.Cycles), r.Run.Outcome, q.Triggered, q.FirstCycle, q.MaxScore,
			q.LeadCycles, q.LeadCostUSD, q.LeadSeconds)
		for _, c := range q.Cycles {
			if c.Evaluated {
				fmt.Fprintf(&runs, "  cycle %d: score=%.4f overlap=%.2f burn=%.4f repeat=%d %s\n", c.Cycle, c.Signal.Score,
					c.Signal.FindingOverlap, c.Signal.BudgetBurnRate, c.Signal.FilterRepeat, c.Signal.Reason)
			}
		}
	}, func(s *replay.SessionResult, v *VibesResult) {
		fmt.Fprintf(&sessions, "session %s (%s, %d events): relevant=%d interventions=%v reopens=%v checkpoints=%v peak_frustration=%.4f peak_score=%.2f\n",
			s.Session.Key, s.Session.Source, len(s.Session.Events), v.Relevant, v.Interventions, v.Reopens, v.Checkpoints,
			v.PeakFrustration, v.PeakScore)
		for i, st := range v.Steps {
			if !st.Buffered {
				fmt.Fprintf(&sessions, "  %3d %-17s -\n", i, s.Session.Events[i].Kind)
				continue
			}
			fmt.Fprintf(&sessions, "  %3d %-17s rel=%d neg=%d pos=%d err=%d fail=%d  F=%.4f S=%.4f score=%.2f %s %s %s\n",
				i, s.Session.Events[i].Kind, b2i(st.Relevant), st.Negative, st.Positive, b2i(st.ErrorEvent), b2i(st.ToolFailure),
				st.FrustrationEMA, st.SuccessEMA, st.Score, st.State, orDash(st.Transition.String()), orDash(st.Checkpoint.String()))
		}
	})
	golden.Check(t, "testdata/sample.golden", []byte(runs.String()+sessions.String()), *update)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
