package tune

import (
	"encoding/json"
	"fmt"

	"github.com/loopwatch/loopwatch/analyze/assess"
	"github.com/loopwatch/loopwatch/analyze/assess/breaker"
	"github.com/loopwatch/loopwatch/analyze/assess/detect"
	"github.com/loopwatch/loopwatch/analyze/struggle"
	"github.com/loopwatch/loopwatch/pipeline"
)

// Role says what a configuration is in a sweep.
type Role string

// The roles.
const (
	// RoleDefault is the base configuration (the --struggle-config or
	// --assess-config of the sweep): the first candidate, and what a choice is
	// compared with.
	RoleDefault Role = "default"
	// RoleGrid is a point of the grid (or a sample of it): a candidate.
	RoleGrid Role = "grid"
	// RoleSeed is the seed preset, scored beside the candidates but never chosen.
	RoleSeed Role = "seed"
)

// Config is one configuration of a sweep.
type Config struct {
	// ID numbers the family's configurations: 0 is the default, then the grid's
	// points in grid order, then the seed preset.
	ID       int
	Family   Family
	Role     Role
	Struggle struggle.StruggleConfig // Family Struggle
	Assess   assess.Config           // Family Assess
	// Hash is the configuration's config_hash, as the replay's metrics table has it.
	Hash string
	// trace indexes what the configuration is rescored from: for struggle, the
	// run traces measured with its CaseFold (0 false, 1 true); for the assessment,
	// the session traces of its detection group.
	trace int
}

// Candidate reports whether the configuration may be chosen.
func (c *Config) Candidate() bool { return c.Role != RoleSeed }

// JSON returns the configuration as the file --struggle-config or --assess-config
// accepts.
func (c *Config) JSON() ([]byte, error) {
	var v any = c.Struggle
	if c.Family == Assess {
		v = c.Assess
	}
	b, err := json.MarshalIndent(v, "", "  ")
	return append(b, '\n'), err
}

// detection is a group of assessment configurations that read sessions the same way
// (they differ only in the EMA and the breaker): sessions are traced once per group.
type detection struct {
	cfg   assess.Config // the group's first configuration
	rules *detect.Rules
}

// configs returns the family's configurations — the default, the grid's points (all,
// or samples of them), the seed preset — and, for the assessment, the detection
// groups they fall in. A grid of more than maxConfigs points without samples is an
// error.
func (sp *Space) configs(f Family, samples, maxConfigs int, seed uint64) ([]*Config, []detection, error) {
	size, ok := sp.Size(f)
	if !ok || (samples <= 0 && size > uint64(maxConfigs)) {
		n := "too many"
		if ok {
			n = fmt.Sprint(size)
		}
		return nil, nil, fmt.Errorf("the %s grid has %s configurations, more than --max-configs %d: sample it with --samples N or narrow it", f, n, maxConfigs)
	}
	var out []*Config
	var groups []detection
	groupOf := map[string]int{}
	seen := map[string]bool{}
	add := func(role Role, cfg any) error {
		c := &Config{ID: len(out), Family: f, Role: role}
		switch f {
		case Struggle:
			c.Struggle = cfg.(struggle.StruggleConfig)
			c.Hash = pipeline.ConfigHash(c.Struggle)
			if c.Struggle.CaseFold {
				c.trace = 1
			}
		case Assess:
			c.Assess = cfg.(assess.Config)
			c.Hash = pipeline.ConfigHash(c.Assess)
			key := c.Assess
			key.Detect.EMA, key.Breaker = detect.EMAConfig{}, breaker.Config{}
			k := pipeline.ConfigHash(key)
			g, ok := groupOf[k]
			if !ok {
				rules, err := compileCheck(c.Assess)
				if err != nil {
					return err
				}
				g = len(groups)
				groupOf[k] = g
				groups = append(groups, detection{cfg: c.Assess, rules: rules})
			}
			c.trace = g
		}
		if role != RoleSeed {
			if seen[c.Hash] {
				return nil // a grid point equal to the default or to an earlier point
			}
			seen[c.Hash] = true
		}
		out = append(out, c)
		return nil
	}
	var base any = sp.BaseStruggle
	if f == Assess {
		base = sp.BaseAssess
	}
	if err := add(RoleDefault, base); err != nil {
		return nil, nil, err
	}
	if sp.Has(f) {
		points, err := sp.points(f, samples, seed)
		if err != nil {
			return nil, nil, err
		}
		var paths [][]string
		for _, p := range sp.Params {
			if p.Family == f {
				paths = append(paths, p.path)
			}
		}
		for _, pt := range points {
			patch, err := sp.patch(f, pt)
			if err != nil {
				return nil, nil, err
			}
			cfg, err := sp.decode(f, patch, paths...)
			if err != nil {
				return nil, nil, fmt.Errorf("the %s configuration %s: %w", f, patch, err)
			}
			if err := add(RoleGrid, cfg); err != nil {
				return nil, nil, err
			}
		}
	}
	var seedCfg any = struggle.SeedStruggleConfig()
	if f == Assess {
		seedCfg = assess.SeedConfig()
	}
	if err := add(RoleSeed, seedCfg); err != nil {
		return nil, nil, err
	}
	return out, groups, nil
}
