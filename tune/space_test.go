package tune

import (
	"slices"
	"strings"
	"testing"

	"github.com/loopwatch/loopwatch/analyze/assess"
	"github.com/loopwatch/loopwatch/analyze/struggle"
)

func newSpace(t *testing.T) *Space {
	t.Helper()
	sp, err := NewSpace(struggle.DefaultStruggleConfig(), assess.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

func texts(vs []Value) string {
	var out []string
	for _, v := range vs {
		out = append(out, v.Text)
	}
	return strings.Join(out, " ")
}

func TestAdd(t *testing.T) {
	tests := []struct {
		spec        string
		name        string
		kind        Kind
		values, err string
	}{
		{spec: "composite_threshold=0.3:0.8:0.1", name: "struggle.composite_threshold", kind: Number, values: "0.3 0.4 0.5 0.6 0.7 0.8"},
		{spec: "struggle.composite_threshold=0.6", name: "struggle.composite_threshold", kind: Number, values: "0.6"},
		{spec: "weights.budget_burn=0,0.1,0.25", name: "struggle.weights.budget_burn", kind: Number, values: "0 0.1 0.25"},
		{spec: "filter_repeat_threshold=1:4:1", name: "struggle.filter_repeat_threshold", kind: Integer, values: "1 2 3 4"},
		{spec: "min_cycles_before_check=2,3", name: "struggle.min_cycles_before_check", kind: Integer, values: "2 3"},
		{spec: "case_fold=true,false", name: "struggle.case_fold", kind: Bool, values: "true false"},
		{spec: "breaker.cooldown=0s:10m:5m", name: "assess.breaker.cooldown", kind: Duration, values: "0s 5m0s 10m0s"},
		{spec: "cooldown=1m,5m", name: "assess.breaker.cooldown", kind: Duration, values: "1m0s 5m0s"},
		{spec: "ema.alpha=0.5,1", name: "assess.detect.ema.alpha", kind: Number, values: "0.5 1"},
		{spec: "frustration_threshold=0.2:0.6:0.2", name: "assess.breaker.frustration_threshold", kind: Number, values: "0.2 0.4 0.6"},
		{spec: "failure_streaks=session,target", name: "assess.breaker.failure_streaks", kind: String, values: "session target"},
		{spec: "detect.friction=seed,loopwatch", name: "assess.detect.friction", kind: Section, values: "seed loopwatch"},
		{spec: "inactivity_timeout=10m,30m", name: "assess.inactivity_timeout", kind: Duration, values: "10m0s 30m0s"},
		{spec: "end_hooks=seed,loopwatch", name: "assess.end_hooks", kind: Section, values: "seed loopwatch"},
		{spec: "composite_threshold=seed,0.4", name: "struggle.composite_threshold", kind: Number, values: "seed 0.4"},

		{spec: "composite_threshold", err: "write name=lo:hi:step"},
		{spec: "composite_threshold=", err: "write name=lo:hi:step"},
		{spec: "no_such_thing=1", err: `unknown parameter "no_such_thing"`},
		{spec: "treshold=1", err: "unknown parameter"},
		{spec: "composite_treshold=0.3", err: `unknown parameter "composite_treshold": did you mean struggle.composite_threshold?`},
		{spec: "breaker.cooldwon=1m", err: `did you mean assess.breaker.cooldown?`},
		{spec: "enabled=true", err: "ambiguous"},
		{spec: "doubt=true", err: "ambiguous"},
		{spec: "alpha=0.5", name: "assess.detect.ema.alpha", kind: Number, values: "0.5"},
		{spec: "composite_threshold=0.8:0.3:0.1", err: "empty range"},
		{spec: "composite_threshold=0.3:0.8:0", err: "step must be positive"},
		{spec: "composite_threshold=0.3:0.8:0.15", err: "does not divide"},
		{spec: "filter_repeat_threshold=1:4:0.5", err: "whole numbers"},
		{spec: "composite_threshold=0:2:0.5", err: "composite_threshold 1.5 must be in [0, 1]"},
		{spec: "ema.alpha=0,0.5", err: "alpha"},
		{spec: "composite_threshold=0.5,0.5", err: "listed twice"},
		{spec: "composite_threshold=0.5,,0.6", err: "empty value"},
		{spec: "composite_threshold=x", err: "not a number"},
		{spec: "case_fold=maybe", err: "not true or false"},
		{spec: "cooldown=5", err: "not a duration"},
		{spec: "detect.friction=off", err: "a section's values are presets"},
		{spec: "case_fold=0:1:1", err: "takes a list"},
		{spec: "composite_threshold=0:1e9:0.0001", err: "a parameter takes at most 10000, whatever --samples and --max-configs"},
	}
	for _, tt := range tests {
		sp := newSpace(t)
		err := sp.Add(tt.spec)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Add(%q) = %v, want an error with %q", tt.spec, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("Add(%q): %v", tt.spec, err)
			continue
		}
		p := sp.Params[0]
		if p.Name != tt.name || p.Kind != tt.kind || texts(p.Values) != tt.values {
			t.Errorf("Add(%q) = %s (%s) %q, want %s (%s) %q", tt.spec, p.Name, p.Kind, texts(p.Values), tt.name, tt.kind, tt.values)
		}
	}
}

func TestAddRefusesRepeatsAndOverlaps(t *testing.T) {
	sp := newSpace(t)
	if err := sp.Add("detect.friction.repeat_request.threshold=0.7,0.8"); err != nil {
		t.Fatal(err)
	}
	if err := sp.Add("repeat_request.threshold=0.6"); err == nil || !strings.Contains(err.Error(), "already in the grid") {
		t.Errorf("the same parameter twice: %v", err)
	}
	if err := sp.Add("detect.friction=seed,loopwatch"); err == nil || !strings.Contains(err.Error(), "overlaps") {
		t.Errorf("a section and one of its fields: %v", err)
	}
}

func TestAddFile(t *testing.T) {
	sp := newSpace(t)
	grid := "# the struggle grid\ncomposite_threshold=0.4:0.6:0.1\n\n  weights.budget_burn=0,0.25  \n"
	if err := sp.AddFile("grid.txt", strings.NewReader(grid)); err != nil {
		t.Fatal(err)
	}
	if len(sp.Params) != 2 {
		t.Fatalf("%d parameters", len(sp.Params))
	}
	err := newSpace(t).AddFile("bad.txt", strings.NewReader("composite_threshold=0.5\n\nnope=1\n"))
	if err == nil || !strings.HasPrefix(err.Error(), "bad.txt:3: ") {
		t.Errorf("an error on line 3: %v", err)
	}
	// A byte order mark at the start is skipped, before a specification or a comment.
	for _, tt := range []struct {
		name, grid string
		params     int
	}{
		{"a mark before a specification", "\ufeffcomposite_threshold=0.4:0.6:0.1\r\nweights.budget_burn=0,0.25\r\n", 2},
		{"a mark before a comment", "\ufeff# grid\ncomposite_threshold=0.4,0.5\n", 1},
	} {
		sp := newSpace(t)
		if err := sp.AddFile("bom.txt", strings.NewReader(tt.grid)); err != nil || len(sp.Params) != tt.params {
			t.Errorf("%s: %v, %d parameters, want %d", tt.name, err, len(sp.Params), tt.params)
		}
	}
	for _, empty := range []string{"", "\n\n", "# only a comment\n   \n", "\ufeff\n"} {
		if err := newSpace(t).AddFile("empty.txt", strings.NewReader(empty)); err == nil || !strings.Contains(err.Error(), "empty.txt: no grid specification") {
			t.Errorf("%q: %v", empty, err)
		}
	}
}

func TestPoints(t *testing.T) {
	sp := newSpace(t)
	for _, g := range []string{"composite_threshold=0.2:0.8:0.1", "weights.budget_burn=0,0.1,0.25", "case_fold=true,false", "cooldown=1m,5m"} {
		if err := sp.Add(g); err != nil {
			t.Fatal(err)
		}
	}
	if n, _ := sp.Size(Struggle); n != 42 {
		t.Errorf("struggle grid size %d, want 42", n)
	}
	if n, _ := sp.Size(Assess); n != 2 {
		t.Errorf("assess grid size %d, want 2", n)
	}
	all, err := sp.points(Struggle, 0, 1)
	if err != nil || len(all) != 42 {
		t.Fatal(len(all), err)
	}
	if !slices.Equal(all[0], Point{0, 0, 0}) || !slices.Equal(all[1], Point{0, 0, 1}) || !slices.Equal(all[41], Point{6, 2, 1}) {
		t.Errorf("grid order: %v %v … %v", all[0], all[1], all[41])
	}
	sample, _ := sp.points(Struggle, 10, 7)
	again, _ := sp.points(Struggle, 10, 7)
	other, _ := sp.points(Struggle, 10, 8)
	if len(sample) != 10 || !slices.EqualFunc(sample, again, slices.Equal) || slices.EqualFunc(sample, other, slices.Equal) {
		t.Errorf("samples: %v / %v / %v", sample, again, other)
	}
	seen := map[string]bool{}
	for _, p := range sample {
		key := ""
		for _, i := range p {
			key += string(rune('a' + i))
		}
		if seen[key] {
			t.Errorf("sample %v drawn twice", p)
		}
		seen[key] = true
	}
	if big, _ := sp.points(Struggle, 100, 7); len(big) != 42 {
		t.Errorf("more samples than points: %d points, want the whole grid", len(big))
	}
}

func TestConfigs(t *testing.T) {
	sp := newSpace(t)
	// 0.6 is the default's composite threshold: that grid point is the default.
	for _, g := range []string{"composite_threshold=0.5,0.6", "case_fold=true,false", "frustration_threshold=0.2,0.3", "friction.skip_first_message=false,true"} {
		if err := sp.Add(g); err != nil {
			t.Fatal(err)
		}
	}
	cs, _, err := sp.configs(Struggle, 0, 100, 1)
	if err != nil {
		t.Fatal(err)
	}
	var roles []string
	for _, c := range cs {
		roles = append(roles, string(c.Role))
	}
	// default, then 4 points of which (0.6, true) is the default, then the seed.
	if strings.Join(roles, " ") != "default grid grid grid seed" {
		t.Errorf("roles %v", roles)
	}
	if cs[0].Struggle != sp.BaseStruggle || cs[0].trace != 1 || cs[len(cs)-1].Struggle != struggle.SeedStruggleConfig() {
		t.Error("the default or the seed preset is not what it says")
	}
	as, groups, err := sp.configs(Assess, 0, 100, 1)
	if err != nil {
		t.Fatal(err)
	}
	// default (skip false, 0.2), 3 more grid points, the seed: the detection groups
	// are skip_first_message false, true, and the seed's detector.
	if len(as) != 5 || len(groups) != 3 {
		t.Errorf("%d assessment configurations in %d detection groups, want 5 in 3", len(as), len(groups))
	}
	if _, _, err := sp.configs(Struggle, 0, 3, 1); err == nil || !strings.Contains(err.Error(), "--max-configs 3") {
		t.Errorf("a grid over --max-configs: %v", err)
	}
	if cs, _, err := sp.configs(Struggle, 2, 3, 1); err != nil || len(cs) > 4 {
		t.Errorf("a sampled grid over --max-configs: %d configurations, %v", len(cs), err)
	}
}

func struggleDefault() struggle.StruggleConfig { return struggle.DefaultStruggleConfig() }
func assessDefault() assess.Config             { return assess.DefaultConfig() }
