package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/loopwatch/loopwatch/analyze/struggle"
	"github.com/loopwatch/loopwatch/reports"
)

func TestDecodeConfig(t *testing.T) {
	for _, tt := range []struct {
		in, want string // want: "" = ok, else in the error
	}{
		{`{"composite_threshold": 0.5}`, ""},
		{"{\"composite_threshold\": 0.5}\n\n", ""},
		{`{"composite_threshold": 0.5} {}`, "data after the JSON object"},
		{`{"composite_threshold": 0.5}}`, "data after the JSON object"},
		{`{"composite_threshhold": 0.5}`, `unknown field "composite_threshhold"`},
		{`{"weights": {"budget_burn": 0.1}}`, ""},
		{`[]`, "cannot unmarshal array"},
		{``, "the file is empty"},
		{" \n\t", "the file is empty"},
	} {
		cfg := struggle.DefaultStruggleConfig()
		err := DecodeConfig([]byte(tt.in), &cfg)
		if (err == nil) != (tt.want == "") || err != nil && !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v, want %q", tt.in, err, tt.want)
		}
	}
	cfg := struggle.DefaultStruggleConfig()
	if err := DecodeConfig([]byte(`{"weights": {"budget_burn": 0.1}}`), &cfg); err != nil || cfg.Weights.BudgetBurn != 0.1 || cfg.Weights.FilterRepeat != 0.35 {
		t.Errorf("a partial object decodes over the defaults: %+v %v", cfg.Weights, err)
	}
}

func TestJSONFields(t *testing.T) {
	type inner struct {
		A int `json:"a"`
		B int `json:"b,omitempty"`
	}
	type Promoted struct {
		P int `json:"p"`
	}
	type hidden struct {
		H int `json:"h"`
	}
	type Gone struct {
		G int `json:"g"`
	}
	type cfg struct {
		X  int           `json:"x"`
		In inner         `json:"in"`
		D  time.Duration `json:"d"`
		Promoted
		hidden
		Tagged Promoted `json:"tagged"`
		skip   int
		Dash   int `json:"-"`
		Gone   `json:"-"`
	}
	if got := strings.Join(jsonFields(cfg{}), " "); got != "x in.a in.b d p h tagged.p" {
		t.Errorf("fields %q", got)
	}
	// Each is a field encoding/json decodes.
	var c cfg
	if err := json.Unmarshal([]byte(`{"p":1,"h":2,"tagged":{"p":3}}`), &c); err != nil || c.P != 1 || c.H != 2 || c.Tagged.P != 3 {
		t.Errorf("decoded %+v, %v", c, err)
	}
	// The breaker's failure-side settings, embedded, are named by an error.
	file := filepath.Join(t.TempDir(), "assess.json")
	if err := os.WriteFile(file, []byte(`{"breaker":{"failure_treshold":8}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := LoadAssessConfig(file)
	if err == nil || !strings.Contains(err.Error(), `unknown field "failure_treshold"; did you mean breaker.failure_threshold? (fields: `) {
		t.Errorf("a misspelt breaker.failure_threshold: %v, want it named, and the fields listed with it", err)
	}
	// A field's name out of its section is named with its section.
	if err := os.WriteFile(file, []byte(`{"failure_threshold":8}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadAssessConfig(file); err == nil || !strings.Contains(err.Error(), `unknown field "failure_threshold"; did you mean breaker.failure_threshold?`) {
		t.Errorf("breaker.failure_threshold at the top: %v, want its path named", err)
	}
}

func TestSettingsValidate(t *testing.T) {
	if err := DefaultSettings().Validate(); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		set  func(*Settings)
		want string // "" valid
	}{
		{"level 1", func(s *Settings) { s.Level = 1 }, "--ci-level 1"},
		{"no resamples", func(s *Settings) { s.Resamples = 0 }, ""},
		{"the most resamples", func(s *Settings) { s.Resamples = MaxResamples }, ""},
		{"resamples past the bound", func(s *Settings) { s.Resamples = MaxResamples + 1 }, "--resamples 100001: must be between 0 (no bootstrap) and 100000"},
		{"negative resamples", func(s *Settings) { s.Resamples = -1 }, "--resamples -1"},
	} {
		s := DefaultSettings()
		tt.set(&s)
		err := s.Validate()
		if tt.want == "" && err != nil || tt.want != "" && (!IsUsage(err) || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
}

// TestFileAndCompanions: one transcript with its subagent folder, nothing else of
// the folder around it.
func TestFileAndCompanions(t *testing.T) {
	dir := fstest.MapFS{
		"s1.jsonl":                        {Data: []byte("{}")},
		"s1/subagents/agent-a.jsonl":      {Data: []byte("{}")},
		"s1/subagents/agent-b.jsonl":      {Data: []byte("{}")},
		"s1/other/x.jsonl":                {Data: []byte("{}")},
		"s2.jsonl":                        {Data: []byte("{}")},
		"s2/subagents/agent-c.jsonl":      {Data: []byte("{}")},
		"trace.jsonl.d/subagents/x.jsonl": {Data: []byte("{}")},
		"notes.md":                        {Data: []byte("#")},
	}
	for _, tt := range []struct {
		name string
		want []string
	}{
		{"s1.jsonl", []string{"s1/subagents/agent-a.jsonl", "s1/subagents/agent-b.jsonl", "s1.jsonl"}},
		{"s2.jsonl", []string{"s2/subagents/agent-c.jsonl", "s2.jsonl"}},
		{"notes.md", []string{"notes.md"}},
	} {
		var got []string
		err := fs.WalkDir(newFileAndCompanions(dir, tt.name), ".", func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				got = append(got, p)
			}
			return err
		})
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("%s: %v %v, want %v", tt.name, got, err, tt.want)
		}
		if _, err := newFileAndCompanions(dir, tt.name).Open("s1/other/x.jsonl"); err == nil {
			t.Errorf("%s: opened a file it does not hold", tt.name)
		}
	}
}

// TestConfigFileWithAByteOrderMark: an editor's byte order mark at the top of a
// configuration file changes nothing.
func TestConfigFileWithAByteOrderMark(t *testing.T) {
	path := t.TempDir() + "/bom.json"
	if err := os.WriteFile(path, []byte("\xef\xbb\xbf{\"composite_threshold\": 0.7, \"preset\": \"seed\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := LoadStruggleConfig(path)
	if err != nil || s.CompositeThreshold != 0.7 {
		t.Errorf("struggle: %v, composite threshold %v", err, s.CompositeThreshold)
	}
	if err := os.WriteFile(path, []byte("\xef\xbb\xbf{\"poll_max\": 3}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if a, err := LoadAssessConfig(path); err != nil || a.PollMax != 3 {
		t.Errorf("assess: %v, poll_max %v", err, a.PollMax)
	}
}

// TestInterruptedWhileDeriving: a context cancelled once the metrics are derived (the
// scoring reads no context) and before the commit commits nothing: the run reports
// the interruption, and no file output appears; a folder replay interrupted in its
// merge says its own tables were written and its derived tables were not.
func TestInterruptedWhileDeriving(t *testing.T) {
	for _, folder := range []bool{false, true} {
		dir := t.TempDir()
		ctx, cancel := context.WithCancel(context.Background())
		s := DefaultSettings()
		s.Out = filepath.Join(dir, "results.parquet")
		if folder {
			s.Out = dir + string(filepath.Separator)
		}
		at := "derive" // the derivation is done, the commit not begun: a file output's
		if folder {
			at = "commit" // the replay's own tables are written: the merge begins
		}
		s.Phase = func(name string) {
			if name == at {
				cancel()
			}
		}
		_, runErr := Run(ctx, s)
		cancel()
		if !Interrupted(ctx, runErr) {
			t.Fatalf("folder %v: %v, want an interruption", folder, runErr)
		}
		left, _ := filepath.Glob(filepath.Join(dir, "*"))
		if !folder && len(left) > 0 {
			t.Errorf("an interrupted replay left %v", left)
		}
		var derived *DerivedError
		if _, err := os.Stat(reports.FolderManifestPath(dir, reports.MergedSet)); folder && err == nil {
			t.Error("an interrupted folder replay wrote derived tables")
		} else if folder && !errors.As(runErr, &derived) {
			t.Errorf("an interrupted merge: %v, want a DerivedError", runErr)
		}
	}
}
