package nebula

import (
	"fmt"
	"io"
	"os"
	"path"
	"strings"
	"testing"
	"time"

	"github.com/loopwatch/loopwatch/replay/input"
	"github.com/loopwatch/loopwatch/replay/input/inputtest"
	"github.com/loopwatch/loopwatch/replay/join"
)

// readAllInto reads the named files (contents given, or from testdata when "") into one
// context, the way the engine does: in order, then Finish.
func readAllInto(t *testing.T, files map[string]string, order ...string) (*join.Context, []string) {
	t.Helper()
	jc := join.New()
	var probs []string
	for _, name := range order {
		content, ok := files[name]
		if !ok {
			b, err := os.ReadFile(path.Join("testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			content = string(b)
		}
		head := []byte(content)
		var read func(string, io.Reader, *join.Context) []input.Problem
		switch {
		case SniffManifest(name, head):
			read = ReadManifest
		case SniffState(name, head):
			read = ReadState
		case SniffPhase(name, head):
			read = ReadPhase
		case SniffConfig(name, head):
			read = ReadConfig
		default:
			t.Fatalf("%s: not recognised", name)
		}
		for _, p := range read(name, strings.NewReader(content), jc) {
			probs = append(probs, fmt.Sprintf("%s:%d:%s", p.File, p.Line, p.Kind))
			if p.Detail == "" {
				t.Errorf("problem without detail: %+v", p)
			}
		}
	}
	for _, p := range jc.Finish() {
		probs = append(probs, fmt.Sprintf("%s:%d:%s", p.File, p.Line, p.Kind))
	}
	return jc, probs
}

func TestReadNebula(t *testing.T) {
	jc, probs := readAllInto(t, nil, "shop/checkout.md", "shop/nebula.state.toml", "shop/nebula.toml")
	if len(probs) != 0 {
		t.Fatalf("problems %v", probs)
	}
	cart := jc.PhaseFor("q-cart", time.Time{})
	if cart == nil || cart.ID != "cart" || cart.Status != "done" || cart.Nebula.Name != "shop" || cart.Line != 6 {
		t.Fatalf("cart phase %+v", cart)
	}
	if !cart.CreatedAt.Equal(time.Date(2026, 2, 23, 16, 20, 45, 300454000, time.UTC)) || cart.CreatedAt.Location() != time.UTC {
		t.Errorf("created_at %v", cart.CreatedAt)
	}
	if r := cart.Report; r == nil || r.Satisfaction != "high" || r.Risk != "low" || r.NeedsHumanReview == nil || *r.NeedsHumanReview || r.Summary != "Cart works." || r.Source != "nebula_state" {
		t.Errorf("report %+v", cart.Report)
	}
	n := cart.Nebula
	if !n.HasCost || n.TotalCostUSD != 12.5 || n.MaxCycles != 5 || n.MaxBudgetUSD != 40 {
		t.Errorf("nebula %+v", n)
	}
	if l := jc.Limits(cart); l != (join.Limits{MaxCycles: 5, MaxBudgetUSD: 40, MaxCyclesSource: "nebula", MaxBudgetSource: "nebula"}) {
		t.Errorf("cart limits %+v", l)
	}
	co := jc.PhaseFor("q-checkout", time.Time{})
	if l := jc.Limits(co); l != (join.Limits{MaxCycles: 2, MaxBudgetUSD: 40, MaxCyclesSource: "phase", MaxBudgetSource: "nebula"}) {
		t.Errorf("checkout limits %+v (phase file front matter first)", l)
	}
}

func TestReadProblems(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		order []string
		want  []string
	}{
		{name: "legacy [tasks] state without nebula.toml and without total cost",
			files: map[string]string{"old/nebula.state.toml": mustRead(t, "legacy.state.toml")},
			order: []string{"old/nebula.state.toml"}, want: []string{"old/nebula.state.toml:0:unmatched"}},
		{name: "a nebula without state",
			files: map[string]string{"n/nebula.toml": "[nebula]\nname = 'n'\n[execution]\nmax_review_cycles = 5\n"},
			order: []string{"n/nebula.toml"}, want: []string{"n/nebula.toml:0:unmatched"}},
		{name: "unparseable TOML, with its line",
			files: map[string]string{"n/nebula.toml": "[nebula]\nname = 'n'\n[execution\nmax_review_cycles = 5\n",
				"n/nebula.state.toml": "nebula_name = 'n'\n[phases.a]\nbead_id = 'q-a'\nstatus = 'done\n"},
			order: []string{"n/nebula.state.toml", "n/nebula.toml"},
			want:  []string{"n/nebula.state.toml:4:malformed_line", "n/nebula.toml:3:malformed_line"}},
		{name: "wrong types, negative limits, unknown status, missing bead id",
			files: map[string]string{"n/nebula.toml": "[nebula]\nname = 'n'\n[execution]\nmax_review_cycles = -1\nmax_budget_usd = -3\n",
				"n/nebula.state.toml": "nebula_name = 'n'\ntotal_cost_usd = -1.0\n[phases.a]\nstatus = 'exploded'\ncreated_at = 'yesterday'\n"},
			order: []string{"n/nebula.state.toml", "n/nebula.toml"},
			want: []string{"n/nebula.state.toml:2:invalid_record", "n/nebula.state.toml:3:invalid_record", "n/nebula.state.toml:3:invalid_record",
				"n/nebula.state.toml:3:invalid_record", "n/nebula.toml:4:invalid_record", "n/nebula.toml:5:invalid_record"}},
		{name: "a type error stops the file and says where",
			files: map[string]string{"n/nebula.toml": "[nebula]\nname = 'n'\n[execution]\nmax_review_cycles = 'five'\n",
				"n/nebula.state.toml": "nebula_name = 'n'\n"},
			order: []string{"n/nebula.state.toml", "n/nebula.toml"}, want: []string{"n/nebula.toml:4:malformed_line"}},
		{name: "phase files: unclosed front matter, a bad value, unknown phase, a second file for one phase",
			files: map[string]string{"n/nebula.toml": "[nebula]\nname = 'n'\n", "n/nebula.state.toml": "[phases.a]\nbead_id = 'q-a'\nstatus = 'done'\n",
				"n/a.md": "+++\nid = 'a'\nmax_review_cycles = 4\n", "n/b.md": "+++\nid = 'b'\n+++\n", "n/c.md": "+++\nid = 'a'\nmax_budget_usd = 'x'\n+++\n",
				"n/d.md": "+++\nid = 'a'\n+++\n", "n/e.md": "+++\nid = 'a'\n+++\n"},
			order: []string{"n/a.md", "n/b.md", "n/c.md", "n/d.md", "n/e.md", "n/nebula.state.toml", "n/nebula.toml"},
			want:  []string{"n/a.md:1:malformed_line", "n/c.md:3:malformed_line", "n/e.md:1:duplicate_run", "n/b.md:0:unmatched"}},
		{name: "two configurations, a bad value",
			files: map[string]string{"a.yaml": "max_review_cycles: 4\nmax_budget_usd: lots # comment\n", "b.yaml": "max_review_cycles: 2\n"},
			order: []string{"a.yaml", "b.yaml"}, want: []string{"a.yaml:2:invalid_record", "b.yaml:0:duplicate_run"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, got := readAllInto(t, tt.files, tt.order...)
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("problems\n got %v\nwant %v", got, tt.want)
			}
		})
	}
}

func mustRead(t *testing.T, name string) string {
	b, err := os.ReadFile(path.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestLegacyTasks(t *testing.T) {
	jc, _ := readAllInto(t, map[string]string{"old/nebula.state.toml": mustRead(t, "legacy.state.toml")}, "old/nebula.state.toml")
	p := jc.PhaseFor("q-old", time.Time{})
	if p == nil || p.ID != "fix-it" || p.Status != "failed" || p.Nebula.HasCost || p.Nebula.Name != "old" {
		t.Fatalf("legacy phase %+v", p)
	}
	if l := jc.Limits(p); l.MaxCycles != 3 || l.MaxBudgetUSD != 5 || l.MaxCyclesSource != "default" {
		t.Errorf("limits %+v", l)
	}
}

func TestConfig(t *testing.T) {
	jc, probs := readAllInto(t, map[string]string{"default.yaml": "# quasar\nclaude_path: claude\nmax_review_cycles: 4\nmax_budget_usd: \"7.5\"\nlint_commands:\n  - \"go vet ./...\"\n  max_review_cycles: 99\n"}, "default.yaml")
	if len(probs) != 0 {
		t.Fatal(probs)
	}
	if c := jc.Config(); c == nil || c.MaxCycles != 4 || c.MaxBudgetUSD != 7.5 {
		t.Errorf("config %+v", c)
	}
}

func TestSniff(t *testing.T) {
	tests := []struct {
		name, head                     string
		manifest, state, phase, config bool
	}{
		{name: "x/nebula.toml", head: "[nebula]\nname = 'x'\n", manifest: true},
		{name: "x/nebula.toml", head: "title = 'not a nebula'\n", manifest: true}, // the name decides: the reader reports what is wrong
		{name: "x/other.toml", head: "[nebula]\nname = 'x'\n"},
		{name: "x/nebula.state.toml", head: "version = 1\nnebula_name = 'x'\n", state: true},
		{name: "x/nebula.state.toml", head: "[tasks]\n", state: true},
		{name: "x/01-a.md", head: "+++\nid = \"a\"\n+++\nbody", phase: true},
		{name: "README.md", head: "# readme\n"},
		{name: "x/a.md", head: "+++\ntitle = 'no id'\n+++\n"},
		{name: "default.yaml", head: "# c\nmax_review_cycles: 3\n", config: true},
		{name: "other.yaml", head: "name: x\n"},
	}
	for _, tt := range tests {
		h := []byte(tt.head)
		if SniffManifest(tt.name, h) != tt.manifest || SniffState(tt.name, h) != tt.state || SniffPhase(tt.name, h) != tt.phase || SniffConfig(tt.name, h) != tt.config {
			t.Errorf("sniff %s %.20q: manifest %v state %v phase %v config %v", tt.name, tt.head,
				SniffManifest(tt.name, h), SniffState(tt.name, h), SniffPhase(tt.name, h), SniffConfig(tt.name, h))
		}
	}
}

// FuzzReadState checks that no state file panics the reader and that every phase it
// records belongs to its nebula.
func FuzzReadState(f *testing.F) {
	f.Add([]byte(mustReadF(f, "shop/nebula.state.toml")))
	f.Add([]byte(mustReadF(f, "legacy.state.toml")))
	f.Add([]byte("[phases.a]\nbead_id = 1\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		jc := join.New()
		ReadState("n/nebula.state.toml", strings.NewReader(string(in)), jc)
		ReadManifest("n/nebula.toml", strings.NewReader(string(in)), jc)
		ReadPhase("n/a.md", strings.NewReader("+++\n"+string(in)+"\n+++\n"), jc)
		jc.Finish()
		for _, n := range jc.Nebulas() {
			for _, p := range n.Phases {
				if p.Nebula != n {
					t.Fatalf("phase %s not in its nebula", p.ID)
				}
			}
		}
	})
}

func mustReadF(f *testing.F, name string) string {
	b, err := os.ReadFile(path.Join("testdata", name))
	if err != nil {
		f.Fatal(err)
	}
	return string(b)
}

// FuzzReadConfig checks that no quasar config file panics the reader and that the
// limits it reads are never negative or NaN.
func FuzzReadConfig(f *testing.F) {
	f.Add([]byte("max_review_cycles: 5\nmax_budget_usd: 12.5\n"))
	f.Add([]byte("# comment\nmax_review_cycles: \"x\"\nlint_commands:\n  - go vet ./...\n"))
	f.Add([]byte("max_budget_usd: -1\nmax_review_cycles: 1e99\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		jc := join.New()
		ReadConfig(".quasar.yaml", strings.NewReader(string(in)), jc)
		jc.Finish()
		l := jc.Limits(nil)
		if l.MaxCycles <= 0 || !(l.MaxBudgetUSD > 0) {
			t.Fatalf("limits %+v from %q", l, in)
		}
	})
}

// TestReadZeroTimeAndOutOfRange: a phase time that is Go's zero time (which stands for
// no time in the join) is reported and left unknown, not lost silently; one more than
// a year from the median of the nebula's phase times is reported and kept; a
// max_review_cycles outside the range of a 32-bit integer (the tables' column, where it
// would wrap) is reported and ignored, in the manifest, a phase file and the
// configuration. The largest 32-bit number and an ordinary time are read as they are.
func TestReadZeroTimeAndOutOfRange(t *testing.T) {
	const state = "nebula_name = 'n'\n[phases.a]\nbead_id = 'q-a'\nstatus = 'done'\n"
	tests := []struct {
		name      string
		files     map[string]string
		maxCycles int       // the limit phase a resolves to
		created   time.Time // phase a's created_at
		want      []string  // "file:line:kind" then a substring of the detail, after a space
	}{
		{name: "in range",
			files: map[string]string{"n/nebula.toml": "[execution]\nmax_review_cycles = 2147483647\n",
				"n/nebula.state.toml": state + "created_at = 2026-02-23T16:20:45Z\n"},
			maxCycles: 2147483647, created: time.Date(2026, 2, 23, 16, 20, 45, 0, time.UTC)},
		{name: "a TOML date-time at the zero time",
			files:     map[string]string{"n/nebula.toml": "", "n/nebula.state.toml": state + "created_at = 0001-01-01T00:00:00Z\nupdated_at = 0001-01-01T02:00:00+02:00\n"},
			maxCycles: 3, want: []string{`n/nebula.state.toml:2:invalid_record phase "a" created_at 0001-01-01T00:00:00Z is Go's zero time`,
				`n/nebula.state.toml:2:invalid_record phase "a" updated_at 0001-01-01T02:00:00+02:00 is Go's zero time`}},
		{name: "a string and a local date-time at the zero time",
			files:     map[string]string{"n/nebula.toml": "", "n/nebula.state.toml": state + "created_at = '0001-01-01T00:00:00.000Z'\nupdated_at = 0001-01-01T00:00:00\n"},
			maxCycles: 3, want: []string{`n/nebula.state.toml:2:invalid_record phase "a" created_at "0001-01-01T00:00:00.000Z" is Go's zero time`,
				`n/nebula.state.toml:2:invalid_record phase "a" updated_at 0001-01-01T00:00:00Z is Go's zero time`}},
		{name: "a second after the zero time is a time",
			files:     map[string]string{"n/nebula.toml": "", "n/nebula.state.toml": state + "created_at = 0001-01-01T00:00:01Z\n"},
			maxCycles: 3, created: time.Date(1, 1, 1, 0, 0, 1, 0, time.UTC)},
		{name: "a phase time more than a year from the others' is reported and kept",
			files: map[string]string{"n/nebula.toml": "", "n/nebula.state.toml": state + "created_at = 0001-01-01T00:00:01Z\nupdated_at = 2026-02-23T17:00:00Z\n" +
				"[phases.b]\nbead_id = 'q-b'\nstatus = 'done'\ncreated_at = 2026-02-23T18:00:00Z\nupdated_at = 2099-01-01T00:00:00Z\n" +
				"[phases.c]\nbead_id = 'q-c'\nstatus = 'done'\ncreated_at = 2025-03-01T00:00:00Z\n"},
			maxCycles: 3, created: time.Date(1, 1, 1, 0, 0, 1, 0, time.UTC),
			want: []string{`n/nebula.state.toml:2:invalid_record phase "a" created_at 0001-01-01T00:00:01Z is more than a year from the median of the nebula's phase times (a clock fault); kept as written`,
				`n/nebula.state.toml:7:invalid_record phase "b" updated_at 2099-01-01T00:00:00Z is more than a year`}},
		{name: "phase times within a year of their median are not",
			files: map[string]string{"n/nebula.toml": "", "n/nebula.state.toml": state + "created_at = 2025-03-01T00:00:00Z\n" +
				"[phases.b]\nbead_id = 'q-b'\nstatus = 'done'\ncreated_at = 2025-12-01T00:00:00Z\nupdated_at = 2026-02-28T00:00:00Z\n"},
			maxCycles: 3, created: time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)},
		{name: "manifest max_review_cycles past int32",
			files: map[string]string{"n/nebula.toml": "[execution]\nmax_review_cycles = 2147483648\n", "n/nebula.state.toml": state,
				"quasar.yaml": "max_review_cycles: 6\n"},
			maxCycles: 6, want: []string{"n/nebula.toml:2:invalid_record max_review_cycles 2147483648 is outside the range of a 32-bit integer; ignored"}},
		{name: "phase file max_review_cycles past int32",
			files: map[string]string{"n/nebula.toml": "[execution]\nmax_review_cycles = 4\n", "n/nebula.state.toml": state,
				"n/a.md": "+++\nid = 'a'\nmax_review_cycles = 9223372036854775807\n+++\n"},
			maxCycles: 4, want: []string{"n/a.md:3:invalid_record max_review_cycles 9223372036854775807 is outside the range of a 32-bit integer"}},
		{name: "configuration max_review_cycles past int32 and past int64",
			files: map[string]string{"n/nebula.toml": "", "n/nebula.state.toml": state,
				"quasar.yaml": "max_review_cycles: 4294967297\nmax_review_cycles: 99999999999999999999\n"},
			maxCycles: 3, want: []string{"quasar.yaml:1:invalid_record max_review_cycles 4294967297 is outside the range of a 32-bit integer",
				"quasar.yaml:2:invalid_record max_review_cycles 99999999999999999999 is outside"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			jc := join.New()
			var probs []input.Problem
			for _, name := range []string{"n/a.md", "n/nebula.state.toml", "n/nebula.toml", "quasar.yaml"} {
				content, ok := tt.files[name]
				if !ok {
					continue
				}
				read := map[string]func(string, io.Reader, *join.Context) []input.Problem{
					"n/a.md": ReadPhase, "n/nebula.state.toml": ReadState, "n/nebula.toml": ReadManifest, "quasar.yaml": ReadConfig}[name]
				probs = append(probs, read(name, strings.NewReader(content), jc)...)
			}
			probs = append(probs, jc.Finish()...)
			p := jc.PhaseFor("q-a", time.Time{})
			if p == nil {
				t.Fatalf("no phase (problems %v)", probs)
			}
			if l := jc.Limits(p); l.MaxCycles != tt.maxCycles || !p.CreatedAt.Equal(tt.created) {
				t.Errorf("max cycles %d created %v, want %d %v", l.MaxCycles, p.CreatedAt, tt.maxCycles, tt.created)
			}
			inputtest.ProblemsInFiles(t, probs, tt.want)
		})
	}
}
