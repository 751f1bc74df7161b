package assess

import (
	"fmt"
	"slices"

	"github.com/loopwatch/loopwatch/analyze/assess/detect"
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

// SeedConfig returns the seed's literal assessment (assessment-logic.md): the seed's
// patterns alone, the seed's tool rules alone, no interrupt handling (the seed has no
// interrupt signal), unclassified tool errors not counted as failures, and Stop ending
// a session. Where the seed gives no value (the failure threshold, the cooldown, the
// EMA's weights, buffer and sampling limits), the preset keeps loopwatch's documented
// choices, since the seed's behaviour there is undefined rather than different.
func SeedConfig() Config {
	c := DefaultConfig()
	c.Detect.Patterns.ExtraFrustration = []string{}
	c.Detect.ExtraToolRules = []detect.ToolRule{}
	c.Detect.EMA.InterruptWeight = 0
	c.Breaker.InterruptIsCorrection = false
	c.Breaker.ToolErrorIsFailure = false
	c.EndHooks = session.SeedEndHooks()
	return c
}
