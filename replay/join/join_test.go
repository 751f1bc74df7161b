package join

import (
	"testing"
	"time"

	"github.com/loopwatch/loopwatch/replay/input"
)

func TestLimits(t *testing.T) {
	neb := &Nebula{Name: "n", MaxCycles: 5, MaxBudgetUSD: 40}
	bare := &Nebula{Name: "bare"}
	tests := []struct {
		name  string
		cfg   *Config
		phase *Phase
		want  Limits
	}{
		{name: "no nebula, no config: quasar's defaults", phase: nil,
			want: Limits{3, 5, input.LimitDefault, input.LimitDefault}},
		{name: "no nebula: the configuration", cfg: &Config{MaxCycles: 4, MaxBudgetUSD: 7}, phase: nil,
			want: Limits{4, 7, input.LimitConfig, input.LimitConfig}},
		{name: "the nebula's [execution] beats the configuration", cfg: &Config{MaxCycles: 4, MaxBudgetUSD: 7}, phase: &Phase{Nebula: neb},
			want: Limits{5, 40, input.LimitNebula, input.LimitNebula}},
		{name: "the phase file beats the nebula", phase: &Phase{Nebula: neb, MaxCycles: 2, MaxBudgetUSD: 9},
			want: Limits{2, 9, input.LimitPhase, input.LimitPhase}},
		{name: "each limit resolves on its own", cfg: &Config{MaxBudgetUSD: 7}, phase: &Phase{Nebula: &Nebula{MaxBudgetUSD: 25}, MaxCycles: 6},
			want: Limits{6, 25, input.LimitPhase, input.LimitNebula}},
		{name: "a nebula without [execution] limits falls through to the configuration", cfg: &Config{MaxCycles: 3}, phase: &Phase{Nebula: bare},
			want: Limits{3, 5, input.LimitConfig, input.LimitDefault}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New()
			if tt.cfg != nil {
				c.SetConfig(*tt.cfg)
			}
			c.Finish()
			if got := c.Limits(tt.phase); got != tt.want {
				t.Errorf("Limits = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func day(d, h int) time.Time { return time.Date(2026, 2, d, h, 0, 0, 0, time.UTC) }

func TestPhaseFor(t *testing.T) {
	c := New()
	a, b := c.Nebula("neb/a"), c.Nebula("neb/b")
	a.State, b.State, a.Manifest, b.Manifest = "neb/a/nebula.state.toml", "neb/b/nebula.state.toml", "x", "y"
	a.Phases = []*Phase{{Nebula: a, ID: "old", BeadID: "q-1", CreatedAt: day(16, 10)}, {Nebula: a, ID: "solo", BeadID: "q-2", CreatedAt: day(20, 0)}}
	b.Phases = []*Phase{{Nebula: b, ID: "new", BeadID: "q-1", CreatedAt: day(17, 22)}}
	if probs := c.Finish(); len(probs) != 0 {
		t.Fatalf("problems %v", probs)
	}
	tests := []struct {
		bead    string
		created time.Time
		want    string
	}{
		{"q-1", day(17, 22).Add(-time.Second), "new"}, // the phase recorded a moment after its bead
		{"q-1", day(17, 12), "old"},
		{"q-1", day(15, 0), "old"}, // every phase later: the earliest
		{"q-1", time.Time{}, "new"},
		{"q-2", day(1, 0), "solo"}, // one phase: it, whatever the times
		{"q-3", day(17, 0), ""},
	}
	for _, tt := range tests {
		got := ""
		if p := c.PhaseFor(tt.bead, tt.created); p != nil {
			got = p.ID
		}
		if got != tt.want {
			t.Errorf("PhaseFor(%s, %v) = %q, want %q", tt.bead, tt.created, got, tt.want)
		}
	}
	if phases, commits := c.Counts(); phases != 3 || commits != 0 {
		t.Errorf("Counts = %d, %d", phases, commits)
	}
}

func TestFinishReports(t *testing.T) {
	c := New()
	c.Nebula("a").Manifest = "a/nebula.toml"
	c.Nebula("b").State = "b/nebula.state.toml"
	c.AddPhaseSpec("c", PhaseSpec{ID: "p", File: "c/p.md", MaxCycles: 2})
	n := c.Nebula("c")
	n.Manifest, n.State = "c/nebula.toml", "c/nebula.state.toml"
	n.Phases = []*Phase{{Nebula: n, ID: "q", BeadID: "x"}}
	probs := c.Finish()
	var files []string
	for _, p := range probs {
		if p.Kind != input.ProblemUnmatched || p.Detail == "" {
			t.Errorf("problem %+v", p)
		}
		files = append(files, p.File)
	}
	want := []string{"a/nebula.toml", "b/nebula.state.toml", "c/p.md"}
	if len(files) != len(want) || files[0] != want[0] || files[1] != want[1] || files[2] != want[2] {
		t.Errorf("problems in %v, want %v", files, want)
	}
	if c.Nebulas()[0].Name != "a" {
		t.Errorf("a nebula without a name is named after its folder")
	}
}

func TestWriteAfterFinishPanics(t *testing.T) {
	c := New()
	c.Finish()
	defer func() {
		if recover() == nil {
			t.Error("no panic")
		}
	}()
	c.AddCommit(Commit{})
}
