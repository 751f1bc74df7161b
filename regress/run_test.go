package regress

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopwatch/loopwatch/datasets/registry"
	"github.com/loopwatch/loopwatch/datasets/synth"
	"github.com/loopwatch/loopwatch/internal/corpus"
)

// testRegistry is the sample under the defaults, and a corpus that is never there.
const testRegistry = `version = 1
corpora = "nowhere"   # no such folder beside it: the corpus dataset is skipped

[eval]
resamples = 50

[[datasets]]
name = "sample"
input = "builtin:sample"
detectors = ["struggle", "breaker", "outcome", "friction"]

[[datasets]]
name = "elsewhere"
input = "corpus:nowhere"
detectors = ["struggle"]

[datasets.baselines.default.struggle]
recall = { value = 0.5, tolerance = 0.02 }
`

func load(t *testing.T, path string) *registry.Registry {
	t.Helper()
	reg, err := registry.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// TestRunUpdateRun: with no baselines every metric is new; recorded with the
// updates, the next run finds every metric ok; the absent corpus is skipped and its
// baseline kept; the reports are the same bytes whatever the worker count.
func TestRunUpdateRun(t *testing.T) {
	t.Setenv(corpus.EnvVar, "") // the registry's corpora folder, which is not there: the corpus dataset is skipped
	dir := t.TempDir()
	path := filepath.Join(dir, "registry.toml")
	if err := os.WriteFile(path, []byte(testRegistry), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	rep, err := Run(context.Background(), load(t, path), Options{Out: out, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	c := rep.Counts()
	if c[New] != 25 || c[Skipped] != 1 || len(rep.Results) != 26 || rep.Failed() {
		t.Fatalf("first run: %v", c)
	}
	if rep.Datasets[1].Status != "skipped" || !strings.Contains(rep.Datasets[1].Notice, "corpus:nowhere: no corpora folder at") {
		t.Errorf("elsewhere: %+v", rep.Datasets[1])
	}
	for _, f := range []string{"sample/default/results.parquet", "sample/default/results.metrics.parquet"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("replay output: %v", err)
		}
	}
	updates := rep.Updates()
	if len(updates) != 25 {
		t.Fatalf("%d updates, want the 25 figures of the sample (the input's 3 and 22 of its detectors)", len(updates))
	}
	changes, err := load(t, path).Rewrite(updates)
	if err != nil || len(changes) != 25 {
		t.Fatalf("%d changes: %v", len(changes), err)
	}
	reg := load(t, path)
	if b := reg.Datasets[1].Baselines[registry.Key{Config: "default", Detector: "struggle", Metric: "recall"}]; b.Value != 0.5 {
		t.Errorf("the skipped dataset's baseline moved: %+v", b)
	}
	var js [2][]byte
	for i, workers := range []int{1, 3} {
		rep, err = Run(context.Background(), reg, Options{Out: out, Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		if c := rep.Counts(); c[OK] != 25 || c[Skipped] != 1 || rep.Failed() {
			t.Errorf("after the update: %v", c)
		}
		if _, err := rep.WriteFiles(out); err != nil {
			t.Fatal(err)
		}
		js[i], _ = os.ReadFile(filepath.Join(out, JSONFile))
	}
	if !bytes.Equal(js[0], js[1]) {
		t.Error("regress.json differs between worker counts")
	}
	var doc struct {
		Status  string
		Results []struct {
			Dataset, Metric, Verdict string
			Baseline, Now            *float64
		}
	}
	if err := json.Unmarshal(js[0], &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Status != "pass" || len(doc.Results) != 26 {
		t.Errorf("regress.json: %s, %d results", doc.Status, len(doc.Results))
	}
	if r := doc.Results[25]; r.Dataset != "elsewhere" || r.Verdict != "skipped" || r.Baseline == nil || r.Now != nil {
		t.Errorf("skipped result: %+v", r)
	}
	md, _ := os.ReadFile(filepath.Join(out, MarkdownFile))
	for _, want := range []string{"# loopwatch regression: PASS", "**skipped**: corpus:nowhere: no corpora folder at",
		"| default | friction | false_alarms_per_100_turns (↓ better) | 24 |"} {
		if !bytes.Contains(md, []byte(want)) {
			t.Errorf("regress.md lacks %q", want)
		}
	}
}

// TestRunUsage: a configuration that does not load and an unknown --only are usage
// errors, found before anything is replayed.
func TestRunUsage(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bad.json"), []byte(`{"composite_threshold": 2}`), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "registry.toml")
	src := strings.Replace(testRegistry, "[[datasets]]", "[configs.bad]\nstruggle = \"bad.json\"\n\n[[datasets]]", 1) + "configs = [\"bad\"]\n"
	src = strings.Replace(src, "detectors = [\"struggle\"]\n\n[datasets.baselines.default.struggle]\nrecall = { value = 0.5, tolerance = 0.02 }\n", "detectors = [\"struggle\"]\n", 1)
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	reg := load(t, path)
	out := filepath.Join(dir, "out")
	_, err := Run(context.Background(), reg, Options{Out: out})
	if !IsUsage(err) || !strings.Contains(err.Error(), "registry.toml:7: configuration bad: --struggle-config") {
		t.Errorf("bad configuration: %v", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("something was replayed: %v", err)
	}
	if _, err := Run(context.Background(), reg, Options{Out: out, Only: []string{"nope"}}); !IsUsage(err) {
		t.Errorf("unknown --only: %v", err)
	}
}

// TestRunFailsOnLostInput: the input's counts are checked whatever the detectors.
// Input files that stop parsing and label rows that stop reading fail the run
// (input/sessions, input/problems, the detectors' scored units), though every figure
// may stay within its tolerance; a detector that scores nothing is missing, not a
// new "undefined" baseline; and a replay that fails fails the run even where no
// baseline is recorded yet.
func TestRunFailsOnLostInput(t *testing.T) {
	t.Setenv(corpus.EnvVar, filepath.Join(t.TempDir(), "absent"))
	dir := t.TempDir()
	if _, err := synth.WriteDataset(synth.DirDest(filepath.Join(dir, "data")), synth.DatasetConfig{Runs: 40, Sessions: 40, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "registry.toml")
	src := "version = 1\n\n[eval]\nresamples = 50\n\n[[datasets]]\nname = \"local\"\ninput = \"data/inputs\"\n" +
		"labels = [\"data/labels/runs.csv\", \"data/labels/sessions.csv\"]\ndetectors = [\"struggle\", \"breaker\"]\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	rep, err := Run(context.Background(), load(t, path), Options{Out: out, Workers: 1})
	if err != nil || rep.Failed() {
		t.Fatalf("first run: %v %v", rep.Counts(), err)
	}
	if _, err := load(t, path).Rewrite(rep.Updates()); err != nil {
		t.Fatal(err)
	}

	// Spoil three transcripts and one run label.
	transcripts, _ := filepath.Glob(filepath.Join(dir, "data", "inputs", "sessions", "*", "*.jsonl"))
	if len(transcripts) < 3 {
		t.Fatalf("%d transcripts", len(transcripts))
	}
	for _, f := range transcripts[:3] {
		if err := os.WriteFile(f, []byte("not json at all\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	labels := filepath.Join(dir, "data", "labels", "runs.csv")
	b, _ := os.ReadFile(labels)
	rows := strings.SplitAfter(string(b), "\n")
	rows[1] = strings.Replace(rows[1], ",", ",x", 1)
	if err := os.WriteFile(labels, []byte(strings.Join(rows, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err = Run(context.Background(), load(t, path), Options{Out: out, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	regressed := map[string]bool{}
	for _, r := range rep.Results {
		if r.Verdict == Regressed {
			regressed[r.Detector+"/"+r.Metric] = true
		}
	}
	for _, want := range []string{"input/sessions", "input/problems", "breaker/scored", "struggle/scored"} {
		if !regressed[want] {
			t.Errorf("%s did not regress; regressed: %v", want, regressed)
		}
	}
	if !rep.Failed() {
		t.Error("the run passed")
	}

	// A dataset whose labels match nothing: struggle scores no run.
	empty := filepath.Join(dir, "empty.toml")
	if err := os.WriteFile(empty, []byte(strings.Replace(src, "\"data/labels/runs.csv\", ", "", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err = Run(context.Background(), load(t, empty), Options{Out: filepath.Join(dir, "out2"), Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if c := rep.Counts(); c[Missing] != 6 || !rep.Failed() {
		t.Errorf("no run scored: %v (want struggle's 6 metrics missing)", c)
	}

	// A replay that fails, with no baseline recorded: the run fails.
	blocked := filepath.Join(dir, "out3", "local", "default", "results.parquet")
	if err := os.MkdirAll(blocked, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"results", "metrics"} { // files where the folder output's tables go
		if err := os.WriteFile(filepath.Join(blocked, table), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rep, err = Run(context.Background(), load(t, empty), Options{Out: filepath.Join(dir, "out3"), Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Failed() || !strings.Contains(rep.Headline(), "FAIL") || !strings.Contains(rep.Headline(), "1 replay failed") {
		t.Errorf("a failed replay: %s", rep.Headline())
	}
}

// TestFewResamples: the registry's eval.resamples 1 or 2 replays the sample without a
// panic (stat: zero length slice) where a metric is undefined on the one resample
// drawn, whatever the seed.
func TestFewResamples(t *testing.T) {
	t.Setenv(corpus.EnvVar, "")
	for _, resamples := range []string{"1", "2"} {
		for _, seed := range []string{"1", "2", "3", "4"} {
			t.Run(resamples+"/"+seed, func(t *testing.T) {
				dir := t.TempDir()
				path := filepath.Join(dir, "registry.toml")
				src := strings.Replace(testRegistry, "resamples = 50", "resamples = "+resamples+"\nseed = "+seed, 1)
				if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
					t.Fatal(err)
				}
				rep, err := Run(context.Background(), load(t, path), Options{Out: filepath.Join(dir, "out"), Workers: 1})
				if err != nil || rep.Failed() || rep.Counts()[New] != 25 {
					t.Fatalf("%v %v", rep.Counts(), err)
				}
			})
		}
	}
}
