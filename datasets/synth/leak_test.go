package synth

import (
	"bufio"
	"bytes"
	"encoding/json"
	"path"
	"strings"
	"testing"

	"github.com/loopwatch/loopwatch/replay/trace"
)

// TestNoGroundTruthInTheInputs: the scenario a run or session was generated from is
// its ground truth, and lives in the labels only. No value of any record of the
// inputs — a trace's phase or title, a transcript's fields — is a scenario's name or
// holds it as a word, so that no column of a replay's output (the run table's phase,
// for one) hands a detector or an analyst the answer.
func TestNoGroundTruthInTheInputs(t *testing.T) {
	names := map[string]bool{}
	for _, sc := range Scenarios {
		names[string(sc)] = true
	}
	for _, sc := range SessionScenarios {
		names[string(sc)] = true
	}
	// Words a scenario name shares with ordinary text, where it names no scenario: a
	// subagent's own records say "subagent", an abandoned flag says "abandoned".
	ordinary := map[string]bool{"subagent": true, "abandoned": true, "stuck": true}

	runs := Generate(Config{Seed: 7, Runs: 2000, RerunEvery: 9})
	files := Layout(runs[:240], GenerateSessions(SessionConfig{Seed: 7, Sessions: 36}),
		[]VibesLog{GenerateVibesLog(SampleVibesConfig())})
	for name, data := range SampleFiles() {
		files["sample/"+name] = data
	}
	checked := 0
	for name, data := range files {
		if strings.Contains(name, "labels/") || path.Ext(name) != ".jsonl" {
			continue
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 1<<26)
		for line := 1; sc.Scan(); line++ {
			var v any
			if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
				t.Fatalf("%s:%d: %v", name, line, err)
			}
			walkStrings(v, "", func(field, s string) {
				checked++
				if names[s] {
					t.Errorf("%s:%d: %s is %q, a scenario's name", name, line, field, s)
					return
				}
				if strings.HasSuffix(field, "output") {
					// A failing check's output, the same whatever the scenario: go test's
					// output names quasar's own subtest TestEvaluateStruggle/filter_repeat.
					return
				}
				for _, w := range strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '/' || r == '-' }) {
					if names[w] && !ordinary[w] {
						t.Errorf("%s:%d: %s holds %q, a scenario's name: %.80q", name, line, field, w, s)
						return
					}
				}
			})
		}
	}
	if checked < 5000 {
		t.Fatalf("only %d values checked", checked)
	}
	// The phase is what quasar records: a phase of the task, seen with every scenario
	// (in 2000 runs, some 30 of each phase and scenario).
	byPhase := map[string]map[Scenario]bool{}
	for _, r := range runs {
		p := r.Events[0].Data.(trace.TaskStart).Phase
		if byPhase[p] == nil {
			byPhase[p] = map[Scenario]bool{}
		}
		byPhase[p][r.Scenario] = true
	}
	for p, scs := range byPhase {
		if len(scs) < len(Scenarios) {
			t.Errorf("phase %q is seen with only %d of %d scenarios in %d runs: it tells them apart", p, len(scs), len(Scenarios), len(runs))
		}
	}
}

// walkStrings calls f with every string value in v and its dotted field path.
func walkStrings(v any, field string, f func(field, s string)) {
	switch v := v.(type) {
	case string:
		f(field, v)
	case []any:
		for _, e := range v {
			walkStrings(e, field, f)
		}
	case map[string]any:
		for k, e := range v {
			walkStrings(e, strings.TrimPrefix(field+"."+k, "."), f)
		}
	}
}
