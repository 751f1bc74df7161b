// Package join holds the side tables that context files contribute to a replay and
// that run sources join against: quasar nebulas and their phases (by bead id), cycle
// commits (by bead), and quasar's global configuration.
//
// The replay engine reads every context file first, in path order, into one
// [Context]; calls [Context.Finish]; and only then reads the run files, which look
// things up in the finished Context from many goroutines at once. Finish is the
// boundary: before it the Context is written by one goroutine, after it it is only
// read.
//
// The package holds data and the rules that combine it (which phase a bead is, in
// which order limits resolve); it parses no file and detects nothing.
package join

import (
	"cmp"
	"fmt"
	"maps"
	"path"
	"slices"
	"time"

	"github.com/loopwatch/loopwatch/replay/input"
)

// quasar's built-in limits, used when nothing else sets them.
const (
	DefaultMaxCycles    = 3
	DefaultMaxBudgetUSD = 5.0
)

// Context is everything the context files of an input tell about the runs in its
// other files. The zero value is not usable; call [New].
type Context struct {
	nebulas  map[string]*Nebula // by folder
	byBead   map[string][]*Phase
	commits  map[string][]Commit // by bead id, in time order after Finish
	nCommits int
	config   *Config
	finished bool
}

// New returns an empty Context.
func New() *Context {
	return &Context{nebulas: map[string]*Nebula{}, byBead: map[string][]*Phase{}, commits: map[string][]Commit{}}
}

// Config is quasar's global configuration as far as limits go.
type Config struct {
	File         string  // where it was read
	MaxCycles    int     // max_review_cycles; 0 when the file does not set it
	MaxBudgetUSD float64 // max_budget_usd; 0 when the file does not set it
}

// Nebula is one nebula: a folder with a nebula.toml and (once it ran) a
// nebula.state.toml, and optionally one phase file per phase.
type Nebula struct {
	Dir      string // slash-separated folder relative to the input root
	Name     string // [nebula] name, else the state's nebula_name, else the folder's name
	Manifest string // path of nebula.toml; "" when none was read
	State    string // path of nebula.state.toml; "" when none was read

	// [execution] limits of nebula.toml; 0 when not set.
	MaxCycles    int
	MaxBudgetUSD float64

	// TotalCostUSD is the state's total_cost_usd: what the whole nebula cost. HasCost
	// is false when the state does not record it.
	TotalCostUSD float64
	HasCost      bool

	Phases []*Phase // from the state, sorted by phase id

	specs map[string]PhaseSpec // phase files by phase id
}

// Phase is one phase of a nebula as its state records it, with the limits its phase
// file sets.
type Phase struct {
	Nebula    *Nebula
	ID        string // the phase id ([phases.<id>] or legacy [tasks.<id>])
	BeadID    string
	Status    string // pending | created | in_progress | done | failed | skipped | decomposed
	CreatedAt time.Time
	UpdatedAt time.Time
	Report    *input.Report // the phase's report, when the state records one
	Line      int           // line of the phase's table in the state file

	// Phase file front matter; 0 when not set (or no phase file was read).
	MaxCycles    int
	MaxBudgetUSD float64
}

// PhaseSpec is what a phase file's front matter says about limits.
type PhaseSpec struct {
	ID           string
	File         string
	MaxCycles    int
	MaxBudgetUSD float64
}

// Commit is one cycle commit of quasar: `<bead>/cycle-N: <summary>`, with the suffix
// " (lint fix)" for a lint-fix coder call.
type Commit struct {
	SHA     string
	Time    time.Time // UTC
	BeadID  string
	Cycle   int
	LintFix bool
	Subject string
	File    string // where it was read
	Line    int
}

// Nebula returns the nebula of folder dir, creating it when it is new.
func (c *Context) Nebula(dir string) *Nebula {
	c.mustWrite()
	n := c.nebulas[dir]
	if n == nil {
		n = &Nebula{Dir: dir, specs: map[string]PhaseSpec{}}
		c.nebulas[dir] = n
	}
	return n
}

// AddPhaseSpec records the limits a phase file of nebula folder dir sets. A second file
// for the same phase id replaces the first and is reported by the caller.
func (c *Context) AddPhaseSpec(dir string, s PhaseSpec) (replaced string) {
	n := c.Nebula(dir)
	if prev, ok := n.specs[s.ID]; ok {
		replaced = prev.File
	}
	n.specs[s.ID] = s
	return replaced
}

// AddCommit records a cycle commit.
func (c *Context) AddCommit(cm Commit) {
	c.mustWrite()
	c.commits[cm.BeadID] = append(c.commits[cm.BeadID], cm)
	c.nCommits++
}

// SetConfig records quasar's global configuration; the first one set is kept and
// SetConfig reports false for later ones.
func (c *Context) SetConfig(cfg Config) bool {
	c.mustWrite()
	if c.config != nil {
		return false
	}
	c.config = &cfg
	return true
}

// Config returns the global configuration read, or nil.
func (c *Context) Config() *Config { return c.config }

func (c *Context) mustWrite() {
	if c.finished {
		panic("join: Context written after Finish")
	}
}

// Finish joins what was read — phase files to the phases of their nebula's state,
// phases to their beads — and reports what cannot be joined: a nebula.toml without a
// state beside it (its phases' beads are unknown), a state without a nebula.toml (its
// limits fall back to the configuration and defaults), a phase file whose id no phase of
// the state has. Finish is called once, after the last context file.
func (c *Context) Finish() []input.Problem {
	c.mustWrite()
	c.finished = true
	var probs []input.Problem
	for _, dir := range slices.Sorted(maps.Keys(c.nebulas)) {
		n := c.nebulas[dir]
		if n.Name == "" {
			n.Name = path.Base(dir)
		}
		switch {
		case n.State == "" && n.Manifest != "":
			probs = append(probs, input.Problem{File: n.Manifest, Kind: input.ProblemUnmatched,
				Detail: fmt.Sprintf("nebula %s has no nebula.state.toml beside it: which beads are its phases is unknown, so its limits and cost join no run (add the state file to the input to join them)", n.Name)})
		case n.State != "" && n.Manifest == "":
			probs = append(probs, input.Problem{File: n.State, Kind: input.ProblemUnmatched,
				Detail: fmt.Sprintf("nebula %s has no nebula.toml beside its state: its runs' limits fall back to quasar's configuration and defaults (add nebula.toml to the input)", n.Name)})
		}
		slices.SortFunc(n.Phases, func(a, b *Phase) int { return cmp.Compare(a.ID, b.ID) })
		ids := map[string]*Phase{}
		for _, p := range n.Phases {
			ids[p.ID] = p
		}
		for _, id := range slices.Sorted(maps.Keys(n.specs)) {
			s := n.specs[id]
			p := ids[id]
			if p == nil {
				if n.State != "" {
					probs = append(probs, input.Problem{File: s.File, Kind: input.ProblemUnmatched,
						Detail: fmt.Sprintf("phase %q is not in %s: its limits join no run", id, n.State)})
				}
				continue
			}
			p.MaxCycles, p.MaxBudgetUSD = s.MaxCycles, s.MaxBudgetUSD
		}
		for _, p := range n.Phases {
			if p.BeadID != "" {
				c.byBead[p.BeadID] = append(c.byBead[p.BeadID], p)
			}
		}
	}
	for id, ps := range c.byBead {
		slices.SortStableFunc(ps, func(a, b *Phase) int { return a.CreatedAt.Compare(b.CreatedAt) })
		c.byBead[id] = ps
	}
	for id, cs := range c.commits {
		slices.SortStableFunc(cs, func(a, b Commit) int {
			return cmp.Or(a.Time.Compare(b.Time), cmp.Compare(a.Cycle, b.Cycle), cmp.Compare(a.SHA, b.SHA))
		})
		c.commits[id] = cs
	}
	return probs
}

// PhaseSlack is how much later than its bead a phase may have been recorded and still
// be the bead's phase when a bead id has several phases.
const PhaseSlack = time.Minute

// PhaseFor returns the nebula phase of the bead with this id created at created, or
// nil. A bead id that several phases name (quasar reused an id) joins the phase
// recorded last at or before the bead's creation (+[PhaseSlack]); when every such
// phase was recorded later, the earliest. A zero created joins the latest phase.
func (c *Context) PhaseFor(beadID string, created time.Time) *Phase {
	ps := c.byBead[beadID]
	switch {
	case len(ps) == 0:
		return nil
	case len(ps) == 1:
		return ps[0]
	case created.IsZero():
		return ps[len(ps)-1]
	}
	var best *Phase
	for _, p := range ps {
		if !p.CreatedAt.After(created.Add(PhaseSlack)) {
			best = p
		}
	}
	if best == nil {
		best = ps[0]
	}
	return best
}

// Limits are a run's cycle and budget limits and where each comes from (one of the
// input.Limit* constants).
type Limits struct {
	MaxCycles       int
	MaxBudgetUSD    float64
	MaxCyclesSource string
	MaxBudgetSource string
}

// Limits resolves the limits of a run of phase p (nil: a run outside any nebula) in
// quasar's order — the phase file's front matter, the nebula's [execution], the global
// configuration, the built-in 3 cycles and 5.0 USD — each limit separately.
func (c *Context) Limits(p *Phase) Limits {
	var l Limits
	if p != nil {
		if p.MaxCycles > 0 {
			l.MaxCycles, l.MaxCyclesSource = p.MaxCycles, input.LimitPhase
		}
		if p.MaxBudgetUSD > 0 {
			l.MaxBudgetUSD, l.MaxBudgetSource = p.MaxBudgetUSD, input.LimitPhase
		}
		if n := p.Nebula; n != nil {
			if l.MaxCycles == 0 && n.MaxCycles > 0 {
				l.MaxCycles, l.MaxCyclesSource = n.MaxCycles, input.LimitNebula
			}
			if l.MaxBudgetUSD == 0 && n.MaxBudgetUSD > 0 {
				l.MaxBudgetUSD, l.MaxBudgetSource = n.MaxBudgetUSD, input.LimitNebula
			}
		}
	}
	if cfg := c.config; cfg != nil {
		if l.MaxCycles == 0 && cfg.MaxCycles > 0 {
			l.MaxCycles, l.MaxCyclesSource = cfg.MaxCycles, input.LimitConfig
		}
		if l.MaxBudgetUSD == 0 && cfg.MaxBudgetUSD > 0 {
			l.MaxBudgetUSD, l.MaxBudgetSource = cfg.MaxBudgetUSD, input.LimitConfig
		}
	}
	if l.MaxCycles == 0 {
		l.MaxCycles, l.MaxCyclesSource = DefaultMaxCycles, input.LimitDefault
	}
	if l.MaxBudgetUSD == 0 {
		l.MaxBudgetUSD, l.MaxBudgetSource = DefaultMaxBudgetUSD, input.LimitDefault
	}
	return l
}

// HasCommits reports whether any cycle-commit list was read, so that a cycle without
// a lint-fix commit is known to have had no lint-fix call.
func (c *Context) HasCommits() bool { return c.nCommits > 0 }

// CommitsFor returns the cycle commits of a bead, in time order. The slice is shared:
// do not modify it.
func (c *Context) CommitsFor(beadID string) []Commit { return c.commits[beadID] }

// Counts returns how many nebula phases (with a bead) and cycle commits were read.
func (c *Context) Counts() (phases, commits int) {
	for _, ps := range c.byBead {
		phases += len(ps)
	}
	return phases, c.nCommits
}

// Nebulas returns the nebulas read, by folder.
func (c *Context) Nebulas() []*Nebula {
	out := make([]*Nebula, 0, len(c.nebulas))
	for _, dir := range slices.Sorted(maps.Keys(c.nebulas)) {
		out = append(out, c.nebulas[dir])
	}
	return out
}
