package assess

import (
	"reflect"
	"slices"
	"testing"

	"github.com/loopwatch/loopwatch/analyze/assess/breaker"
	"github.com/loopwatch/loopwatch/analyze/assess/detect"
	"github.com/loopwatch/loopwatch/analyze/assess/llm"
	"github.com/loopwatch/loopwatch/analyze/assess/session"
)

// TestSeedPresetCoversEverySeedChoice checks, choice by choice, that the seed preset
// switches off every loopwatch departure from the seed (issue 10's list among them:
// status rules in tool classification, per-event failure counting, the EMA moving
// only on human turns, ’ read as an apostrophe, the checkpoint counting rules), and
// that the loopwatch preset has each of them on.
func TestSeedPresetCoversEverySeedChoice(t *testing.T) {
	seed, def := SeedConfig(), DefaultConfig()
	frictionOn := func(c Config) bool {
		f := c.Detect.Friction
		return f.NegationReply || f.StillProblem || f.Doubt || f.CorrectionPhrase || f.Exasperation || f.GiveUp ||
			f.Repeat.Enabled || f.Redirect.Enabled
	}
	for _, tt := range []struct {
		choice    string
		loopwatch func(Config) bool // true when the loopwatch reading is on
	}{
		{"the source's status rules in tool classification", func(c Config) bool { return c.Detect.Tools.StatusRules }},
		{"commands and exit codes", func(c Config) bool { return c.Detect.Tools.Commands }},
		{"toolchain rules beyond the seed's", func(c Config) bool { return len(c.Detect.ExtraToolRules) > 0 }},
		{"a bounded scan of tool output", func(c Config) bool { return c.Detect.Tools.ScanBytes > 0 }},
		{"failures counted per event", func(c Config) bool { return !c.Breaker.CountPerSignal }},
		{"failure streaks per kind of command", func(c Config) bool { return c.Breaker.FailureStreaks == breaker.StreaksTarget }},
		{"approach_pivot once per streak", func(c Config) bool { return c.Breaker.PivotOncePerStreak }},
		{"tool and lint errors as failures", func(c Config) bool { return c.Breaker.ToolErrorIsFailure || c.Breaker.LintErrorIsFailure }},
		{"the EMAs moving on human turns only", func(c Config) bool { return !c.Detect.EMA.EveryEvent }},
		{"’ read as an apostrophe", func(c Config) bool { return c.Detect.TypographicApostrophes }},
		{"a bounded window of human text", func(c Config) bool { return c.Detect.Window != detect.TextWindow{} }},
		{"loopwatch's extra frustration patterns", func(c Config) bool { return len(c.Detect.Patterns.ExtraFrustration) > 0 }},
		{"the friction signals", frictionOn},
		{"interrupts and friction signals weighing in the EMA", func(c Config) bool {
			return c.Detect.EMA.InterruptWeight > 0 || c.Detect.EMA.NegationWeight > 0 || c.Detect.EMA.GiveUpWeight > 0
		}},
		{"push-backs of every kind as corrections", func(c Config) bool { return len(c.Breaker.CorrectionKinds) > 1 }},
		{"edge-triggered interventions", func(c Config) bool { return c.Breaker.EdgeTriggered }},
		{"the check-in threshold below the seed's 0.70", func(c Config) bool { return c.Breaker.FrustrationThreshold != 0.70 }},
		{"a storm of two corrections", func(c Config) bool { return c.Breaker.CorrectionStorm != 3 }},
		{"the one-minute cooldown", func(c Config) bool { return c.Breaker.Cooldown != breaker.SeedCooldown() }},
		{"checkpoints counting messages only", func(c Config) bool { return !c.Checkpoint.CountEveryEvent }},
		{"no commit read in failed output", func(c Config) bool { return !c.Checkpoint.CommitOnError }},
		{"ASCII case folding of boundary phrases", func(c Config) bool { return !c.Checkpoint.UnicodeCase }},
		{"sessions ending on SessionEnd, not Stop", func(c Config) bool { return !slices.Equal(c.EndHooks, session.SeedEndHooks()) }},
		{"the offline analysis reading a session's end", func(c Config) bool { return c.Offline.EndReading }},
	} {
		if tt.loopwatch(seed) {
			t.Errorf("the seed preset keeps loopwatch's %s", tt.choice)
		}
		if !tt.loopwatch(def) {
			t.Errorf("the loopwatch preset lacks its %s", tt.choice)
		}
	}
	// The seed's own lists, verbatim.
	if !slices.Equal(seed.Detect.Patterns.Frustration, detect.SeedFrustrationPatterns()) ||
		!slices.Equal(seed.Detect.Patterns.Success, detect.SeedSuccessPatterns()) ||
		!reflect.DeepEqual(seed.Detect.ToolRules, detect.SeedToolRules()) ||
		!slices.Equal(seed.Breaker.CorrectionKinds, []detect.Kind{detect.UserCorrection}) ||
		!reflect.DeepEqual(seed.Offline, llm.LegacyOfflineConfig()) {
		t.Errorf("seed preset: %+v", seed)
	}
}
