package registry

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopwatch/loopwatch/analyze/assess"
	"github.com/loopwatch/loopwatch/analyze/struggle"
	"github.com/loopwatch/loopwatch/internal/corpus"
)

// fixture writes a registry and the files it names into a fresh folder and returns
// the registry's path.
func fixture(t *testing.T, src string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range map[string]string{
		"configs/strict.json": `{"composite_threshold": 0.9}`,
		"labels/runs.csv":     "run_key,label\nx,positive\n",
		"inputs/run.jsonl":    "",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := filepath.Join(dir, "registry.toml")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const good = `# a registry
version = 1
corpora = "corpora"

[eval]
resamples = 100

[configs.strict]
description = "a higher threshold"
struggle = "configs/strict.json"
assess = "seed"

[[datasets]]
name = "sample"
input = "builtin:sample"
detectors = ["struggle", "friction"]
configs = ["default", "strict"]

[datasets.baselines.default.struggle]
recall = { value = 0.5, tolerance = 0.02 } # kept
precision = { value = nan, tolerance = 0.1 }

[datasets.baselines.strict]
friction.false_alarms_per_100_turns = { value = 2.0, tolerance = 0.5 }

[[datasets]]
name = "runs"
input = "inputs/run.jsonl"
labels = ["labels/runs.csv", "corpus:q/labels.csv"]
detectors = ["struggle"]
friction_window = "2m"

[[datasets]]
name = "gen"
input = "synth:runs=3,seed=9"
detectors = ["struggle"]
configs = ["seed"]
`

func TestParse(t *testing.T) {
	t.Setenv(corpus.EnvVar, "")
	path := fixture(t, good)
	r, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Datasets) != 3 || *r.Eval.Resamples != 100 || r.Eval.Seed != nil {
		t.Fatalf("datasets %d, eval %+v", len(r.Datasets), r.Eval)
	}
	s := r.Datasets[0]
	if s.Input.Kind != InputBuiltin || len(s.Configs) != 2 || s.Configs[1].Struggle != filepath.Join(r.Dir, "configs", "strict.json") || s.Configs[1].Assess != "seed" {
		t.Errorf("sample: %+v", s)
	}
	if b := s.Baselines[Key{"default", "struggle", "recall"}]; b.Value != 0.5 || b.Tolerance != 0.02 || b.Line != 20 {
		t.Errorf("recall baseline %+v", b)
	}
	if b := s.Baselines[Key{"default", "struggle", "precision"}]; !math.IsNaN(b.Value) {
		t.Errorf("an undefined baseline reads as NaN: %+v", b)
	}
	if b := s.Baselines[Key{"strict", "friction", "false_alarms_per_100_turns"}]; b.Value != 2 || b.Line != 24 {
		t.Errorf("dotted baseline %+v", b)
	}
	runs := r.Datasets[1]
	if runs.Input.Kind != InputPath || runs.Configs[0].Name != DefaultConfig || runs.FrictionWindow.Minutes() != 2 || runs.Labels[1] != "corpus:q/labels.csv" {
		t.Errorf("runs: %+v", runs)
	}
	if g := r.Datasets[2]; g.Input.Synth != (SynthSpec{Runs: 3, Seed: 9}) || g.Configs[0].Struggle != "seed" {
		t.Errorf("gen: %+v", g)
	}
	if r.Corpora != filepath.Join(r.Dir, "corpora") {
		t.Errorf("corpora %q", r.Corpora)
	}
	if sel, err := r.Select([]string{"gen", "sample"}); err != nil || len(sel) != 2 || sel[0].Name != "sample" {
		t.Errorf("select: %v %v", sel, err)
	}
	if _, err := r.Select([]string{"nope"}); err == nil || !strings.Contains(err.Error(), "datasets: sample, runs, gen") {
		t.Errorf("select an unknown dataset: %v", err)
	}
}

// TestParseErrors: every problem names its line.
func TestParseErrors(t *testing.T) {
	head := "version = 1\n[[datasets]]\nname = \"s\"\ninput = \"builtin:sample\"\ndetectors = [\"struggle\"]\n"
	for _, tt := range []struct {
		name, src, want string
	}{
		{"syntax", "version = \n", "registry.toml:1: "},
		{"unknown key", head + "detector = [\"x\"]\n", "registry.toml:6: unknown key datasets.detector"},
		{"wrong type", head + "derive_labels = \"yes\"\n", "registry.toml:6:"},
		{"version", "version = 2\n" + head[len("version = 1\n"):], "registry.toml:1: version = 2"},
		{"no datasets", "version = 1\n", "no [[datasets]]"},
		{"unknown detector", strings.Replace(head, `["struggle"]`, `["strugle"]`, 1), `registry.toml:5: dataset s: unknown detector "strugle" (detectors: struggle, breaker, outcome, friction, outcome_class)`},
		{"no detector", strings.Replace(head, `["struggle"]`, `[]`, 1), "registry.toml:2: dataset s: detectors: name at least one"},
		{"unknown config", head + "configs = [\"tuned\"]\n", `registry.toml:6: dataset s: unknown configuration "tuned"`},
		{"missing config file", head + "[configs.t]\nstruggle = \"nope.json\"\n", `registry.toml:7: configs.t.struggle = "nope.json": neither a preset (loopwatch, seed) nor a JSON file`},
		{"config shadows a preset", head + "[configs.seed]\nassess = \"seed\"\n", "registry.toml:6: configs.seed: \"seed\" is a built-in configuration"},
		{"bad config name", head + "[configs.\"a b\"]\nassess = \"seed\"\n", "a configuration name is letters"},
		{"duplicate dataset", head + head[len("version = 1\n"):], `registry.toml:7: dataset "s" is registered twice (also at line 3)`},
		{"bad name", strings.Replace(head, `"s"`, `"a/b"`, 1), `registry.toml:3: dataset name "a/b"`},
		{"no input", strings.Replace(head, "input = \"builtin:sample\"\n", "", 1), "registry.toml:2: dataset: input is required"},
		{"unknown builtin", strings.Replace(head, "builtin:sample", "builtin:big", 1), `registry.toml:4: input "builtin:big": the only built-in dataset is builtin:sample`},
		{"missing path", strings.Replace(head, "builtin:sample", "nope/", 1), `registry.toml:4: input "nope/": no such file or directory`},
		{"bad corpus", strings.Replace(head, "builtin:sample", "corpus:../x", 1), "registry.toml:4: input \"corpus:../x\": a corpus reference"},
		{"synth without seed", strings.Replace(head, "builtin:sample", "synth:runs=5", 1), "registry.toml:4: input \"synth:runs=5\": seed is required"},
		{"labels of the sample", head + "labels = [\"labels/runs.csv\"]\n", "registry.toml:6: dataset s: builtin:sample brings its own ground-truth labels"},
		{"missing labels", strings.Replace(head, "builtin:sample", "inputs", 1) + "labels = [\"x.csv\"]\n", `registry.toml:6: dataset s: labels "x.csv": no such file`},
		{"friction window", head + "friction_window = \"soon\"\n", `registry.toml:6: dataset s: friction_window "soon"`},
		{"duplicate detector", strings.Replace(head, `["struggle"]`, `["struggle", "struggle"]`, 1), `detector "struggle" listed twice`},
		{"baseline of another config", head + "[datasets.baselines.seed.struggle]\nrecall = { value = 1.0, tolerance = 0.1 }\n", `registry.toml:6: dataset s: baselines for configuration "seed", which the dataset does not replay`},
		{"baseline of another detector", head + "[datasets.baselines.default.breaker]\nrecall = { value = 1.0, tolerance = 0.1 }\n", `registry.toml:6: dataset s: baselines for detector "breaker", which the dataset does not score`},
		{"unknown metric", head + "[datasets.baselines.default.struggle]\nrecal = { value = 1.0, tolerance = 0.1 }\n", `registry.toml:7: dataset s: struggle has no metric "recal" (metrics: precision, recall, f1, average_precision, roc_auc, scored)`},
		{"friction metric on struggle", head + "[datasets.baselines.default.struggle]\nfalse_alarms_per_100_turns = { value = 1.0, tolerance = 0.1 }\n", `struggle has no metric "false_alarms_per_100_turns"`},
		{"no tolerance", head + "[datasets.baselines.default.struggle]\nrecall = { value = 1.0 }\n", "registry.toml:7: dataset s: baseline default/struggle/recall needs both value and tolerance"},
		{"negative tolerance", head + "[datasets.baselines.default.struggle]\nrecall = { value = 1.0, tolerance = -0.1 }\n", "registry.toml:7: dataset s: baseline default/struggle/recall: tolerance -0.1 must be a number ≥ 0"},
		{"infinite value", head + "[datasets.baselines.default.struggle]\nrecall = { value = inf, tolerance = 0.1 }\n", "value +Inf is not a figure"},
		{"negative recall", head + "[datasets.baselines.default.struggle]\nrecall = { value = -0.5, tolerance = 0.02 }\n", "registry.toml:7: dataset s: baseline default/struggle/recall: value -0.5 is outside [0, 1], the range of recall"},
		{"precision above one", head + "[datasets.baselines.default.struggle]\nprecision = { value = 1.7, tolerance = 0.02 }\n", "value 1.7 is outside [0, 1]"},
		{"fractional count", head + "[datasets.baselines.default.struggle]\nscored = { value = 1.5, tolerance = 0.0 }\n", "value 1.5 is not a whole number; scored is a count"},
		{"negative count", head + "[datasets.baselines.default.input]\nproblems = { value = -1.0, tolerance = 0.0 }\n", "value -1 is negative, which problems never is"},
		{"input listed", strings.Replace(head, `detectors = ["struggle"]`, `detectors = ["struggle", "input"]`, 1), `"input" is checked for every dataset; leave it out of detectors`},
		{"not inline", head + "[datasets.baselines.default.struggle.recall]\nvalue = 1.0\ntolerance = 0.1\n", "registry.toml:6: dataset s: baseline default/struggle/recall: write it as recall = { value = V, tolerance = T }"},
		{"eval level", head + "[eval]\nci_level = 1.5\n", "registry.toml:7: eval.ci_level = 1.5"},
		{"eval resamples", head + "[eval]\nresamples = -1\n", "registry.toml:7: eval.resamples = -1"},
		{"eval resamples past the bound", head + "[eval]\nresamples = 100001\n", "registry.toml:7: eval.resamples = 100001: must be between 0 (no bootstrap) and 100000"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(fixture(t, tt.src))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v\nwant it to contain %q", err, tt.want)
			}
		})
	}
}

func TestParseSynth(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want SynthSpec
		err  string
	}{
		{"runs=10,sessions=5,vibes=2,seed=7,rerun-every=3", SynthSpec{10, 5, 2, 7, 3, 0}, ""},
		{"runs=10,seed=7,fix-loop-every=2", SynthSpec{Runs: 10, Seed: 7, FixLoopEvery: 2}, ""},
		{" runs = 10 , seed = 0 ", SynthSpec{Runs: 10}, ""},
		{"runs=10", SynthSpec{}, "seed is required"},
		{"seed=1", SynthSpec{}, "nothing to generate"},
		{"runs=-1,seed=1", SynthSpec{}, "runs=-1: not a whole number"},
		{"runs=x,seed=1", SynthSpec{}, "runs=x"},
		{"seed=-1,runs=1", SynthSpec{}, "seed=-1"},
		{"run=1,seed=1", SynthSpec{}, `unknown parameter "run"`},
		{"runs=1,runs=2,seed=1", SynthSpec{}, "runs given twice"},
		{"runs,seed=1", SynthSpec{}, "key=value"},
	} {
		got, err := ParseSynth(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q: %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%q: %+v %v, want %+v", tt.in, got, err, tt.want)
		}
	}
}

func TestResolve(t *testing.T) {
	t.Setenv(corpus.EnvVar, "")
	r, err := Load(fixture(t, good))
	if err != nil {
		t.Fatal(err)
	}
	// The runs dataset names a corpus labels file. Without the corpora folder: skipped.
	_, err = r.Resolve(r.Datasets[1], t.TempDir())
	var skip *SkipError
	if !errors.As(err, &skip) || !strings.Contains(skip.Reason, "no corpora folder at "+filepath.Join(r.Dir, "corpora")) {
		t.Fatalf("absent corpora folder: %v", err)
	}
	// With the folder but not the corpus, or the corpus but not the file: an error
	// (a misspelt name), which names what the folder holds.
	if err := os.MkdirAll(filepath.Join(r.Dir, "corpora", "quasar"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err = r.Resolve(r.Datasets[1], t.TempDir())
	if err == nil || errors.As(err, &skip) || !strings.Contains(err.Error(), `holds no corpus "q" (it holds: quasar)`) {
		t.Fatalf("absent corpus: %v", err)
	}
	if err := os.MkdirAll(filepath.Join(r.Dir, "corpora", "q"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err = r.Resolve(r.Datasets[1], t.TempDir())
	if err == nil || errors.As(err, &skip) || !strings.Contains(err.Error(), "corpus:q/labels.csv: not in corpus q") {
		t.Fatalf("absent file in a corpus: %v", err)
	}
	// Once it is there, it resolves under the corpora folder.
	if err := os.WriteFile(filepath.Join(r.Dir, "corpora", "q", "labels.csv"), []byte("run_key,label\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := r.Resolve(r.Datasets[1], t.TempDir())
	if err != nil || src.In != filepath.Join(r.Dir, "inputs", "run.jsonl") || src.Labels[1] != filepath.Join(r.Dir, "corpora", "q", "labels.csv") {
		t.Errorf("resolved %+v %v", src, err)
	}
	if got := r.Shorten("read "+src.Labels[1], ""); got != "read corpus:q/labels.csv" {
		t.Errorf("shorten: %q", got)
	}
	// $LOOPWATCH_CORPORA wins over the registry's corpora; a folder it names that is
	// not there is an error, never a skip.
	absent := filepath.Join(t.TempDir(), "absent")
	t.Setenv(corpus.EnvVar, absent)
	r2, err := Load(r.Path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r2.Resolve(r2.Datasets[1], t.TempDir()); err == nil || errors.As(err, &skip) ||
		!strings.Contains(err.Error(), "corpus:q/labels.csv: "+corpus.EnvVar+"="+absent+" names no corpora folder") {
		t.Errorf("corpora from the environment: %v", err)
	}
	// The synthetic dataset is generated into the scratch folder with its labels.
	scratch := t.TempDir()
	src, err = r.Resolve(r.Datasets[2], scratch)
	if err != nil || src.In != filepath.Join(scratch, "inputs") || len(src.Labels) != 1 {
		t.Fatalf("synth: %+v %v", src, err)
	}
	runs, err := os.ReadDir(filepath.Join(scratch, "inputs", "runs"))
	if err != nil || len(runs) != 3 {
		t.Errorf("synth wrote %d run files: %v", len(runs), err)
	}
	if got := r.Shorten(src.Labels[0]+": 3 labelled", scratch); got != "synth:labels/runs.csv: 3 labelled" {
		t.Errorf("shorten: %q", got)
	}
}

// TestCheckCorpora: a corpora folder $LOOPWATCH_CORPORA names is checked before
// anything is replayed, when a dataset reads a corpus: a folder that is not there
// fails (a typo must not turn the nightly run into a pass that skipped the corpora);
// the registry's own corpora folder missing is a machine without the corpora.
func TestCheckCorpora(t *testing.T) {
	dir := t.TempDir()
	afile := filepath.Join(dir, "afile")
	if err := os.WriteFile(afile, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, env string
		only      []string
		want      string // "" no error
	}{
		{"unset, the registry's folder absent", "", nil, ""},
		{"a folder that is not there", filepath.Join(dir, "corpra"), nil,
			corpus.EnvVar + "=" + filepath.Join(dir, "corpra") + " names no corpora folder: no such file or directory (fix it, or unset it to skip the corpus datasets on a machine without the corpora); the dataset runs reads it"},
		{"a file", afile, nil, corpus.EnvVar + "=" + afile + " names no corpora folder: not a folder"},
		{"a folder", dir, nil, ""},
		{"no dataset selected reads a corpus", filepath.Join(dir, "corpra"), []string{"sample", "gen"}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(corpus.EnvVar, tt.env)
			r, err := Load(fixture(t, good))
			if err != nil {
				t.Fatal(err)
			}
			datasets, err := r.Select(tt.only)
			if err != nil {
				t.Fatal(err)
			}
			err = r.CheckCorpora(datasets)
			if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
				t.Errorf("%v, want %q", err, tt.want)
			}
		})
	}
}

// TestPresets: every preset the registry accepts is a preset of both configuration
// flags.
func TestPresets(t *testing.T) {
	for _, p := range Presets {
		if _, err := struggle.Preset(p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
		if _, err := assess.Preset(p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}

// TestCommittedRegistry: the registry `make regress` reads loads.
func TestCommittedRegistry(t *testing.T) {
	r, err := Load("../registry.toml")
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, d := range r.Datasets {
		names[d.Name] = true
		if len(d.Baselines) == 0 {
			t.Errorf("%s: no baselines recorded (bin/regress --update-baseline)", d.Name)
		}
	}
	for _, n := range []string{"sample", "synth", "quasar", "claude-code"} {
		if !names[n] {
			t.Errorf("no dataset %s", n)
		}
	}
}

// TestParseByteOrderMark: a byte order mark at the top of the registry changes nothing
// (an editor's; the TOML parser refuses it), and a rewrite keeps the file valid.
func TestParseByteOrderMark(t *testing.T) {
	t.Setenv(corpus.EnvVar, "")
	path := fixture(t, "\xef\xbb\xbf"+good)
	r, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if b := r.Datasets[0].Baselines[Key{"default", "struggle", "recall"}]; len(r.Datasets) != 3 || b.Value != 0.5 || b.Line != 20 {
		t.Fatalf("datasets %d, recall baseline %+v", len(r.Datasets), b)
	}
	if _, err := r.Rewrite([]Update{{Dataset: "sample", Key: Key{"default", "struggle", "recall"}, Value: 0.25}}); err != nil {
		t.Fatal(err)
	}
	again, err := Load(path)
	if err != nil || again.Datasets[0].Baselines[Key{"default", "struggle", "recall"}].Value != 0.25 {
		t.Errorf("after the rewrite: %v", err)
	}
}

// TestSynthSpecString: a synthetic dataset says what it holds, its re-runs and runs
// recorded with the fix loop on included.
func TestSynthSpecString(t *testing.T) {
	for _, tt := range []struct {
		spec SynthSpec
		want string
	}{
		{SynthSpec{Runs: 10, Sessions: 5, Vibes: 2, Seed: 7}, "10 runs, 5 sessions and 2 vibes logs (seed 7)"},
		{SynthSpec{Runs: 10, Seed: 7, RerunEvery: 1, FixLoopEvery: 2}, "10 runs, 0 sessions and 0 vibes logs (seed 7, every run a re-run, every 2nd run recorded with the inner fix loop on)"},
		{SynthSpec{Runs: 10, Seed: 7, RerunEvery: 11, FixLoopEvery: 23}, "10 runs, 0 sessions and 0 vibes logs (seed 7, every 11th run a re-run, every 23rd run recorded with the inner fix loop on)"},
		{SynthSpec{Runs: 10, Seed: 7, FixLoopEvery: 112}, "10 runs, 0 sessions and 0 vibes logs (seed 7, every 112th run recorded with the inner fix loop on)"},
	} {
		if got := tt.spec.String(); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.spec, got, tt.want)
		}
	}
}
