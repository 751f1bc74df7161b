package eval

import (
	"context"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopwatch/loopwatch/analyze/assess"
	"github.com/loopwatch/loopwatch/analyze/assess/llm"
	"github.com/loopwatch/loopwatch/analyze/assess/session"
	"github.com/loopwatch/loopwatch/internal/corpus"
	"github.com/loopwatch/loopwatch/replay/claudecode"
)

// lastTranscript is an AssessmentLLM that keeps the transcript of the last session
// analysis it is asked for and answers with the wrapped analyzer.
type lastTranscript struct {
	*llm.OfflineAnalyzer
	last session.Transcript
}

func (l *lastTranscript) AnalyzeSession(ctx context.Context, t session.Transcript) (llm.SessionAnalysis, error) {
	l.last = t
	return l.OfflineAnalyzer.AnalyzeSession(ctx, t)
}

// outcomeCandidates are the offline analyzer configurations the cross-validation
// chooses among: the earlier rules, the default, and the default with each of its
// extensions switched off or its friction threshold moved. They were fixed before
// the folds were scored.
func outcomeCandidates() []struct {
	name string
	cfg  llm.OfflineConfig
} {
	def := llm.DefaultOfflineConfig
	with := func(f func(*llm.OfflineConfig)) llm.OfflineConfig { c := def(); f(&c); return c }
	return []struct {
		name string
		cfg  llm.OfflineConfig
	}{
		{"legacy", llm.LegacyOfflineConfig()},
		{"default", def()},
		{"no agent claims", with(func(c *llm.OfflineConfig) { c.AgentClaims = false })},
		{"no acceptance", with(func(c *llm.OfflineConfig) { c.Acceptance = nil })},
		{"friction share 0", with(func(c *llm.OfflineConfig) { c.PartialFrictionShare = 0 })},
		{"friction share 0.25", with(func(c *llm.OfflineConfig) { c.PartialFrictionShare = 0.25 })},
		{"interventions counted", with(func(c *llm.OfflineConfig) { c.CountInterventions = true })},
	}
}

// TestOutcomeCrossValidationCorpus replays the labelled Claude Code sessions once,
// keeps each session's final transcript, classifies it with every candidate, and
// scores the candidate chosen on four folds against the fifth (folds by a stable
// hash of the session id). The held-out accuracy must beat the earlier rules'.
func TestOutcomeCrossValidationCorpus(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("replays the corpus: skipped under -short and -race")
	}
	dir, err := corpus.Dir("claude-code")
	if err != nil {
		t.Skip(err)
	}
	f, err := os.Open(filepath.Join(dir, "labels.csv"))
	if err != nil {
		t.Skip(err)
	}
	labels, _, err := ReadLabels(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	fsys := os.DirFS(dir)
	var files []string
	fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") && !claudecode.IsSubagentFile(p) {
			files = append(files, p)
		}
		return nil
	})
	cands := outcomeCandidates()
	preds := make([][]OutcomePrediction, len(cands))
	ctx := context.Background()
	for _, file := range files {
		s, _ := claudecode.Read(fsys, file)
		if s == nil || len(s.Events) == 0 {
			continue
		}
		rec, ok := labels.Get(s.Key)
		if !ok {
			continue
		}
		rec2 := &lastTranscript{OfflineAnalyzer: llm.NewOfflineAnalyzer(llm.DefaultOfflineConfig())}
		p, err := assess.New(assess.DefaultConfig(), assess.Options{LLM: rec2})
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range s.Events {
			if _, err := p.Process(ctx, ev); err != nil {
				t.Fatal(err)
			}
		}
		p.EndSession(ctx, s.Key, s.End)
		for c, cand := range cands {
			pr := OutcomePrediction{Key: s.Key, Label: rec.Outcome, Confidence: math.NaN()}
			if rec2.last.SessionID != "" {
				a, err := llm.NewOfflineAnalyzer(cand.cfg).AnalyzeSession(ctx, rec2.last)
				if err != nil {
					t.Fatal(err)
				}
				pr.Predicted, pr.Confidence = string(a.Outcome), a.Confidence
			}
			preds[c] = append(preds[c], pr)
		}
	}
	if len(preds[0]) < 50 {
		t.Skipf("only %d labelled sessions found", len(preds[0]))
	}
	opts := Options{Resamples: 1000, Seed: 7}
	for c, cand := range cands {
		r := EvaluateOutcomes(preds[c], opts)
		t.Logf("%-22s accuracy %.3f (%d/%d), balanced %.3f, macro F1 %.3f, mean confidence %.2f, Brier %.3f, matrix %v",
			cand.name, r.Accuracy.Value, r.Correct, r.Scored, r.BalancedAccuracy, r.MacroF1, r.MeanConfidence, r.Brier, r.Matrix)
	}
	held, chosen := CrossValidateOutcomes(preds, 5)
	names := make([]string, len(chosen))
	for i, c := range chosen {
		names[i] = cands[c].name
	}
	h := EvaluateOutcomes(held, opts)
	legacy := EvaluateOutcomes(preds[0], opts)
	t.Logf("held-out (5 folds, chosen %s): accuracy %.3f [%.2f, %.2f] (%d/%d), majority %.3f, balanced %.3f, macro F1 %.3f, Brier %.3f",
		strings.Join(names, ", "), h.Accuracy.Value, h.Accuracy.Low, h.Accuracy.High, h.Correct, h.Scored, h.Majority,
		h.BalancedAccuracy, h.MacroF1, h.Brier)
	t.Logf("held-out matrix (rows labelled, columns predicted: %s): %v", strings.Join(OutcomeOrder(), " "), h.Matrix)
	if !(h.Accuracy.Value > legacy.Accuracy.Value) || !(h.BalancedAccuracy > legacy.BalancedAccuracy) {
		t.Errorf("held-out accuracy %.3f / balanced %.3f does not beat the earlier rules' %.3f / %.3f",
			h.Accuracy.Value, h.BalancedAccuracy, legacy.Accuracy.Value, legacy.BalancedAccuracy)
	}
	if fmt.Sprint(h.Scored) != fmt.Sprint(legacy.Scored) {
		t.Errorf("held-out scored %d sessions, the candidates %d", h.Scored, legacy.Scored)
	}
}
