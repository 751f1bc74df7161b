package assess

import (
	"fmt"
	"slices"

	"github.com/loopwatch/loopwatch/analyze/assess/breaker"
	"github.com/loopwatch/loopwatch/analyze/assess/checkpoint"
	"github.com/loopwatch/loopwatch/analyze/assess/detect"
	"github.com/loopwatch/loopwatch/analyze/assess/llm"
	"github.com/loopwatch/loopwatch/analyze/assess/session"
)

// The named presets of the whole assessment configuration.
const (
	// PresetLoopwatch is loopwatch's detector, the default ([DefaultConfig]).
	PresetLoopwatch = "loopwatch"
	// PresetSeed is the seed's literal behaviour ([SeedConfig]): every loopwatch
	// extension switched off.
	PresetSeed = "seed"
)

// PresetNames lists the presets, the default first.
func PresetNames() []string { return []string{PresetLoopwatch, PresetSeed} }

// Preset returns the named preset's configuration.
func Preset(name string) (Config, error) {
	switch name {
	case PresetLoopwatch:
		return DefaultConfig(), nil
	case PresetSeed:
		return SeedConfig(), nil
	}
	return Config{}, fmt.Errorf("assess: unknown preset %q (presets: %v)", name, PresetNames())
}

// IsPreset reports whether name names a preset.
func IsPreset(name string) bool { return slices.Contains(PresetNames(), name) }

// SeedConfig returns the seed's literal assessment (assessment-logic.md): human
// messages read as the seed reads them — its patterns alone, ’ as itself, every
// message whole, EMAs moving on every event, no interrupt weight and no friction
// signal (detect.WithSeedHumanText); tool output read by its text alone with the
// seed's rules (detect.WithSeedTools); the seed's storm of 3 user corrections and
// 0.70 threshold, fired whenever their condition holds, interrupts counting for
// nothing (breaker.WithSeedCorrections); the seed's single failure count, per signal,
// reset by any build or test success (breaker.WithSeedFailures); the seed's
// checkpoint counting — every event counts, a commit is read in any tool output,
// Unicode lower-casing (checkpoint.SeedConfig); Stop ending a session. The seed has
// no offline analyzer: the preset keeps the one loopwatch had before it read a
// session's end (llm.LegacyOfflineConfig). Where the seed gives no value (the failure
// threshold, the cooldown, the EMA's weights, the checkpoint thresholds, buffer and
// sampling limits), the preset keeps loopwatch's documented choices from before the
// friction signals (detect.SeedEMAConfig, breaker.SeedCooldown), since the seed's
// behaviour there is undefined rather than different.
func SeedConfig() Config {
	c := DefaultConfig()
	c.Detect = detect.WithSeedTools(detect.WithSeedHumanText(c.Detect))
	c.Breaker = breaker.WithSeedFailures(breaker.WithSeedCorrections(c.Breaker))
	c.Checkpoint = checkpoint.SeedConfig()
	c.EndHooks = session.SeedEndHooks()
	c.Offline = llm.LegacyOfflineConfig()
	return c
}
