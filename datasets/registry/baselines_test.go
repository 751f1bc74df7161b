package registry

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopwatch/loopwatch/internal/corpus"
)

// TestEdit: values move in place; comments, order and tolerances stay; new
// baselines join their group, written the way it is written, or a new table at the
// end of their dataset; removed ones take their line with them.
func TestEdit(t *testing.T) {
	t.Setenv(corpus.EnvVar, "")
	src := good[:strings.LastIndex(good, "\n")] // no newline at the end of the file
	r, err := Load(fixture(t, src))
	if err != nil {
		t.Fatal(err)
	}
	out, changes, err := r.Edit([]Update{
		{Dataset: "sample", Key: Key{"default", "struggle", "recall"}, Value: 0.25},
		{Dataset: "sample", Key: Key{"default", "struggle", "precision"}, Remove: true},
		{Dataset: "sample", Key: Key{"default", "struggle", "f1"}, Value: math.NaN()},
		{Dataset: "sample", Key: Key{"strict", "friction", "false_alarms_per_100_turns"}, Value: 2},
		{Dataset: "sample", Key: Key{"strict", "friction", "recall"}, Value: 1},
		{Dataset: "sample", Key: Key{"strict", "struggle", "recall"}, Value: 0.5},
		{Dataset: "runs", Key: Key{"default", "struggle", "roc_auc"}, Value: 0.75},
		{Dataset: "gen", Key: Key{"seed", "struggle", "recall"}, Value: 1e-7},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := strings.NewReplacer(
		"recall = { value = 0.5, tolerance = 0.02 } # kept\nprecision = { value = nan, tolerance = 0.1 }\n",
		"recall = { value = 0.25, tolerance = 0.02 } # kept\nf1 = { value = nan, tolerance = 0.02 }\n",
		"friction.false_alarms_per_100_turns = { value = 2.0, tolerance = 0.5 }\n",
		"friction.false_alarms_per_100_turns = { value = 2.0, tolerance = 0.5 }\nfriction.recall = { value = 1.0, tolerance = 0.02 }\n\n"+
			"[datasets.baselines.strict.struggle]\nrecall = { value = 0.5, tolerance = 0.02 }\n",
		"friction_window = \"2m\"\n",
		"friction_window = \"2m\"\n\n[datasets.baselines.default.struggle]\nroc_auc = { value = 0.75, tolerance = 0.02 }\n",
		"configs = [\"seed\"]",
		"configs = [\"seed\"]\n\n[datasets.baselines.seed.struggle]\nrecall = { value = 1e-07, tolerance = 0.02 }\n",
	).Replace(src)
	if string(out) != want {
		t.Errorf("edited registry:\n%s\nwant:\n%s", out, want)
	}
	var summary []string
	for _, c := range changes {
		s := c.Dataset + "/" + c.Key.String() + ":"
		if c.Old != nil {
			s += " " + FormatFloat(c.Old.Value)
		}
		if c.New != nil {
			s += " → " + FormatFloat(c.New.Value)
		}
		summary = append(summary, s)
	}
	if got := strings.Join(summary, "; "); got != "sample/default/struggle/recall: 0.5 → 0.25; sample/default/struggle/precision: nan; "+
		"sample/default/struggle/f1: → nan; sample/strict/friction/recall: → 1.0; sample/strict/struggle/recall: → 0.5; "+
		"runs/default/struggle/roc_auc: → 0.75; gen/seed/struggle/recall: → 1e-07" {
		t.Errorf("changes: %s", got)
	}
	// Written, the file reads back with the new baselines, and a second edit with the
	// same figures changes nothing.
	if err := os.WriteFile(r.Path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	r2, err := Load(r.Path)
	if err != nil {
		t.Fatal(err)
	}
	if b := r2.Datasets[0].Baselines[Key{"default", "struggle", "recall"}]; b.Value != 0.25 || b.Tolerance != 0.02 {
		t.Errorf("read back %+v", b)
	}
	again, changes, err := r2.Edit([]Update{{Dataset: "sample", Key: Key{"default", "struggle", "recall"}, Value: 0.25},
		{Dataset: "sample", Key: Key{"default", "struggle", "f1"}, Value: math.NaN()}})
	if err != nil || len(changes) != 0 || string(again) != string(out) {
		t.Errorf("same figures: %d changes, %v", len(changes), err)
	}
	if _, _, err := r2.Edit([]Update{{Dataset: "nope"}}); err == nil {
		t.Error("an update of an unknown dataset is an error")
	}
}

// TestRewrite: the file is replaced, its mode kept.
func TestRewrite(t *testing.T) {
	t.Setenv(corpus.EnvVar, "")
	path := fixture(t, good)
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	changes, err := r.Rewrite([]Update{{Dataset: "sample", Key: Key{"default", "struggle", "recall"}, Value: 0.125}})
	if err != nil || len(changes) != 1 {
		t.Fatalf("%v %v", changes, err)
	}
	b, _ := os.ReadFile(path)
	if !strings.Contains(string(b), "recall = { value = 0.125, tolerance = 0.02 } # kept\n") {
		t.Errorf("rewritten:\n%s", b)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode())
	}
	entries, _ := os.ReadDir(r.Dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".registry.toml.tmp") {
			t.Errorf("left %s behind", e.Name())
		}
	}
}

func TestFormatFloat(t *testing.T) {
	for v, want := range map[float64]string{0: "0.0", 1: "1.0", 0.5: "0.5", 1.0 / 3: "0.3333333333333333", 12.5: "12.5", 1e21: "1e+21", 1e-7: "1e-07", math.NaN(): "nan"} {
		if got := FormatFloat(v); got != want {
			t.Errorf("%v: %q, want %q", v, got, want)
		}
	}
}

// TestEditBeforeAnotherTable: a new baseline table of a dataset followed by a
// top-level table lands inside the dataset, before that table.
func TestEditBeforeAnotherTable(t *testing.T) {
	t.Setenv(corpus.EnvVar, "")
	src := "version = 1\n\n[[datasets]]\nname = \"a\"\ninput = \"builtin:sample\"\ndetectors = [\"struggle\"]\n# about b\n\n" +
		"[configs.x]\nassess = \"seed\"\n\n[[datasets]]\nname = \"b\"\ninput = \"builtin:sample\"\ndetectors = [\"struggle\"]\n"
	r, err := Load(fixture(t, src))
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := r.Edit([]Update{{Dataset: "a", Key: Key{"default", "struggle", "recall"}, Value: 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(src, "detectors = [\"struggle\"]\n# about b", "detectors = [\"struggle\"]\n\n[datasets.baselines.default.struggle]\nrecall = { value = 0.5, tolerance = 0.02 }\n# about b", 1)
	if string(out) != want {
		t.Errorf("edited:\n%s\nwant:\n%s", out, want)
	}
}

// FuzzParse: no registry text crashes the reader, and a registry that loads takes
// its own baselines back unchanged.
func FuzzParse(f *testing.F) {
	f.Add([]byte(good))
	if b, err := os.ReadFile("../registry.toml"); err == nil {
		f.Add(b)
	}
	f.Add([]byte("version = 1\n[[datasets]]\nname = \"s\"\ninput = \"builtin:sample\"\ndetectors = [\"friction\"]\n[datasets.baselines.default]\nfriction.recall = { value = nan, tolerance = 0.0 }"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, src []byte) {
		r, err := Parse(dir+"/registry.toml", src)
		if err != nil {
			return
		}
		var updates []Update
		for _, d := range r.Datasets {
			for k, b := range d.Baselines {
				updates = append(updates, Update{Dataset: d.Name, Key: k, Value: b.Value})
			}
		}
		out, changes, err := r.Edit(updates)
		if err != nil || len(changes) != 0 || string(out) != string(src) {
			t.Errorf("the same baselines changed the registry: %d changes, %v", len(changes), err)
		}
	})
}

// TestEditIntoEmptiedTable: removing a table's last baseline leaves its header;
// recording one again writes it under that header, not as a second table of the same
// name (which would not load).
func TestEditIntoEmptiedTable(t *testing.T) {
	t.Setenv(corpus.EnvVar, "")
	src := "version = 1\n\n[[datasets]]\nname = \"a\"\ninput = \"builtin:sample\"\ndetectors = [\"struggle\", \"friction\"]\n\n" +
		"[datasets.baselines.default.friction]\nrecall = { value = 0.5, tolerance = 0.02 }\n\n[datasets.baselines.default.struggle]\nf1 = { value = 0.5, tolerance = 0.02 }\n"
	path := fixture(t, src)
	r, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	recall := Key{"default", "friction", "recall"}
	if _, err := r.Rewrite([]Update{{Dataset: "a", Key: recall, Remove: true}}); err != nil {
		t.Fatal(err)
	}
	if r, err = Load(path); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Rewrite([]Update{{Dataset: "a", Key: recall, Value: 0.25}}); err != nil {
		t.Fatalf("recording into the emptied table: %v", err)
	}
	b, _ := os.ReadFile(path)
	want := strings.Replace(src, "recall = { value = 0.5,", "recall = { value = 0.25,", 1)
	if string(b) != want {
		t.Errorf("edited:\n%s\nwant:\n%s", b, want)
	}
}

// TestRewriteKeepsTheFile: a registry reached through a symbolic link is rewritten
// where it is (the link stays); one written with a byte order mark and CRLF keeps
// both, new lines too; one edited since it was read is not rewritten.
func TestRewriteKeepsTheFile(t *testing.T) {
	t.Setenv(corpus.EnvVar, "")
	update := []Update{{Dataset: "sample", Key: Key{"default", "struggle", "recall"}, Value: 0.125},
		{Dataset: "sample", Key: Key{"strict", "friction", "recall"}, Value: 1}}

	real := fixture(t, good)
	link := filepath.Join(filepath.Dir(real), "link.toml")
	if err := os.Symlink(filepath.Base(real), link); err != nil {
		t.Fatal(err)
	}
	r, err := Load(link)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Rewrite(update); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced by a file (%v)", err)
	}
	if b, _ := os.ReadFile(real); !strings.Contains(string(b), "value = 0.125") {
		t.Errorf("the file the link names was not rewritten:\n%s", b)
	}

	crlf := fixture(t, "\xef\xbb\xbf"+strings.ReplaceAll(good, "\n", "\r\n"))
	if r, err = Load(crlf); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Rewrite(update); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(crlf)
	if !bytes.HasPrefix(b, []byte("\xef\xbb\xbf")) || bytes.Count(b, []byte("\n")) != bytes.Count(b, []byte("\r\n")) || !strings.Contains(string(b), "value = 0.125") {
		t.Errorf("a BOM and CRLF registry rewritten as:\n%q", b)
	}
	if r2, err := Load(crlf); err != nil || r2.Datasets[0].Baselines[Key{"strict", "friction", "recall"}].Value != 1 {
		t.Errorf("read back: %v", err)
	}

	edited := fixture(t, good)
	if r, err = Load(edited); err != nil {
		t.Fatal(err)
	}
	hand := strings.Replace(good, "# kept", "# kept, edited by hand", 1)
	if err := os.WriteFile(edited, []byte(hand), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Rewrite(update); err == nil || !strings.Contains(err.Error(), "changed since it was read") {
		t.Errorf("a registry edited meanwhile: %v, want it refused", err)
	}
	if b, _ := os.ReadFile(edited); string(b) != hand {
		t.Error("the hand edit was overwritten")
	}
}
