package frictioncv

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopwatch/loopwatch/analyze/assess"
	"github.com/loopwatch/loopwatch/eval"
	"github.com/loopwatch/loopwatch/internal/corpus"
	"github.com/loopwatch/loopwatch/replay"
	"github.com/loopwatch/loopwatch/reports"
)

var update = flag.Bool("update", false, "rewrite the README's preset table")

// The README's preset table sits between these lines.
const (
	tableStart = "<!-- preset table: written by `go test ./internal/frictioncv -run TestCorpusPresetTable -update`; `make test` checks it -->\n"
	tableEnd   = "<!-- end of the preset table -->\n"
)

// presetTable replays the shared Claude Code corpus as `replay --in
// ../shared/corpora/claude-code --labels ../shared/corpora/claude-code/labels.csv`
// does — the loopwatch preset configured, the seed preset beside it on every session
// — and scores both: the breaker's interventions against the labelled friction moments
// (event level, window 5m), the breaker per session (positive: a failure or abandoned
// outcome; predicted: any intervention) and the offline analysis's outcome by class.
func presetTable(t *testing.T) string {
	t.Helper()
	dir, f := corpusLabels(t)
	labels, _, err := eval.ReadLabels(f)
	if err != nil {
		t.Fatal(err)
	}
	presets := []string{assess.PresetSeed, assess.PresetLoopwatch}
	cfgs := make([]assess.Config, len(presets))
	for i, p := range presets {
		if cfgs[i], err = assess.Preset(p); err != nil {
			t.Fatal(err)
		}
	}
	type scored struct {
		moments  []eval.MomentSession
		sessions []eval.Observation
		outcomes []eval.OutcomePrediction
	}
	sc := make([]scored, len(presets))
	opts := replay.Options{Sessions: replay.SessionOptions{Assess: &cfgs[1]},
		Variants: []replay.Variant{{Name: presets[0], Assess: &cfgs[0]}}}
	_, err = replay.Replay(context.Background(), os.DirFS(dir), opts, replay.Sinks{Sessions: func(sr *replay.SessionResult) error {
		rec, ok := labels.Get(sr.Session.Key)
		if !ok {
			return nil
		}
		outs := []replay.SessionOutcome{sr.Variants[0], sr.Outcome()}
		for i, o := range outs {
			ms := eval.MomentSession{Key: sr.Session.Key, HumanTurns: sr.HumanMessages}
			for _, m := range rec.Moments {
				if j := m.Find(sr.Session.Events); j >= 0 {
					ms.Moments = append(ms.Moments, eval.Point{Time: sr.Session.Events[j].Time, Index: j})
				}
			}
			for _, j := range o.Interventions {
				ms.Interventions = append(ms.Interventions, eval.Point{Time: sr.Session.Events[j].Time, Index: j})
			}
			sc[i].moments = append(sc[i].moments, ms)
			sc[i].sessions = append(sc[i].sessions, eval.Observation{Key: sr.Session.Key, Label: rec.Label,
				Predicted: len(o.Interventions) > 0, Score: o.PeakFrustration})
			p := eval.OutcomePrediction{Key: sr.Session.Key, Label: rec.Outcome, Confidence: math.NaN()}
			if o.Analysis != nil {
				p.Predicted, p.Confidence = string(o.Analysis.Outcome), o.Analysis.Confidence
			}
			sc[i].outcomes = append(sc[i].outcomes, p)
		}
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	eo := eval.Options{Seed: 1, Unit: "sessions"}
	var b strings.Builder
	b.WriteString("| preset | friction recall | friction precision | false alarms / 100 human turns | interventions | session precision | session recall | outcome accuracy |\n")
	b.WriteString("|---|---|---|---|---:|---|---|---|\n")
	for i, p := range presets {
		m := eval.EvaluateMoments(sc[i].moments, window, eo)
		s := eval.Evaluate(sc[i].sessions, eo)
		o := eval.EvaluateOutcomes(sc[i].outcomes, eo)
		fmt.Fprintf(&b, "| %s | %s (%d/%d) | %s (%d/%d) | %s | %d | %s (%d/%d) | %s (%d/%d) | %s (%d/%d) |\n", p,
			reports.FormatEstimate(m.Recall), m.Caught, m.Moments, reports.FormatEstimate(m.Precision), m.Caught, m.Caught+m.FalseAlarms,
			reports.FormatRate(m.FalseAlarmsPer100), m.Interventions,
			reports.FormatEstimate(s.Precision), s.TP, s.TP+s.FP, reports.FormatEstimate(s.Recall), s.TP, s.TP+s.FN,
			reports.FormatEstimate(o.Accuracy), o.Correct, o.Scored)
	}
	return b.String()
}

// TestCorpusPresetTable checks the README's table of the seed preset beside the
// loopwatch preset on the shared labelled corpus against what the replay computes
// now; -update rewrites it.
func TestCorpusPresetTable(t *testing.T) {
	table := presetTable(t)
	root, err := corpus.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, "README.md")
	readme, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	before, rest, ok := strings.Cut(string(readme), tableStart)
	_, after, ok2 := strings.Cut(rest, tableEnd)
	if !ok || !ok2 {
		t.Fatalf("README has no preset table between %q and %q", tableStart, tableEnd)
	}
	got := before + tableStart + table + tableEnd + after
	if got == string(readme) {
		return
	}
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("README's preset table is stale (go test ./internal/frictioncv -run TestCorpusPresetTable -update rewrites it); now:\n%s", table)
}
