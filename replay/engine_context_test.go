package replay_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/loopwatch/loopwatch/analyze/struggle"
	"github.com/loopwatch/loopwatch/replay"
)

const sha = "d5ce931809ecab586a2388d05b27e579ce67ea79"

// historyFS is a small quasar history: a beads export, a nebula with state, a commit
// list, a configuration, a run trace, and a file nothing reads.
func historyFS() fstest.MapFS {
	bead := func(id, status string, comments ...string) string {
		var cs []string
		for i := 0; i < len(comments); i += 2 {
			cs = append(cs, fmt.Sprintf(`{"id":%d,"issue_id":%q,"author":"A","text":%q,"created_at":%q}`, i, id, comments[i+1], comments[i]))
		}
		return fmt.Sprintf(`{"id":%q,"title":"T %s","status":%q,"issue_type":"task","created_at":"2026-02-24T09:00:00Z","comments":[%s]}`+"\n",
			id, id, status, strings.Join(cs, ","))
	}
	return fstest.MapFS{
		"b/.beads/issues.jsonl": {Data: []byte(
			bead("q-1", "closed", "2026-02-24T10:05:00Z", "[coder cycle 1]\nx", "2026-02-24T10:06:00Z", "[reviewer cycle 1]\nx",
				"2026-02-24T10:15:00Z", "[coder cycle 2]\nx", "2026-02-24T10:16:00Z", "[reviewer cycle 2]\nx", "2026-02-24T10:16:00Z", "[reviewer report]\nSatisfaction: high") +
				bead("q-2", "open", "2026-02-24T11:05:00Z", "[coder cycle 1]\nx") +
				bead("other", "open") +
				`{"id":"q-1.1","title":"[major] x","description":"x","status":"open","created_at":"2026-02-24T10:06:01Z","labels":["review-finding"],"dependencies":[{"issue_id":"q-1.1","depends_on_id":"q-1","type":"parent-child"}]}` + "\n")},
		"a/nebulas/n/nebula.toml":       {Data: []byte("[nebula]\nname = 'n'\n[execution]\nmax_review_cycles = 5\nmax_budget_usd = 20.0\n")},
		"a/nebulas/n/nebula.state.toml": {Data: []byte("nebula_name = 'n'\ntotal_cost_usd = 8.0\n[phases.p1]\nbead_id = 'q-1'\nstatus = 'done'\n[phases.p9]\nbead_id = 'q-9'\nstatus = 'created'\n")},
		"a/nebulas/m/nebula.toml":       {Data: []byte("[nebula]\nname = 'm'\n")},
		"c/cycle-commits.tsv":           {Data: []byte(sha + "\t2026-02-24T10:14:30Z\tq-1/cycle-2: x\n" + sha + "\t2026-02-24T10:17:30Z\tq-1/cycle-2: x (lint fix)\n")},
		"default.yaml":                  {Data: []byte("max_review_cycles: 4\n")},
		"t/run.jsonl":                   {Data: []byte(`{"ts":"2026-03-01T10:00:00Z","kind":"cycle_done","task":"q-t","data":{"cycle":1,"total_cost_usd":1}}` + "\n")},
		"z/mystery.bin":                 {Data: []byte("\x00\x01")},
		"LICENSE.md":                    {Data: []byte("MIT")},
	}
}

type replayed struct {
	keys, runs []string
	sum        *replay.Summary
}

func replayFS(t *testing.T, fsys fstest.MapFS, workers int) replayed {
	t.Helper()
	var out replayed
	sum, err := replay.Replay(context.Background(), fsys, replay.Options{Workers: workers, Struggle: struggle.DefaultStruggleConfig()},
		replay.SinkFunc(func(r *replay.RunResult) error {
			run := r.Run
			var cyc []string
			for _, c := range run.Cycles {
				cyc = append(cyc, fmt.Sprintf("%d:%.1f:%d:%d", c.Cycle, c.TotalCostUSD, len(c.Findings), c.LintFixCalls))
			}
			out.keys = append(out.keys, run.Key)
			out.runs = append(out.runs, fmt.Sprintf("%s %s %s/%s %d(%s) %.0f(%s) %s %v", run.Key, run.Outcome, run.Nebula, run.Phase,
				run.MaxCycles, run.MaxCyclesSource, run.MaxBudgetUSD, run.MaxBudgetSource, run.CostSource, cyc))
			return nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	out.sum = sum
	return out
}

func TestReplayJoinsContext(t *testing.T) {
	got := replayFS(t, historyFS(), 3)
	want := []string{
		"q-1#1 approved n/p1 5(nebula) 20(nebula) estimated [1:4.0:1:0 2:8.0:0:1]",
		"q-2#1 incomplete / 4(config) 5(default) unknown [1:0.0:0:0]",
		"q-t incomplete / 0() 0() measured [1:1.0:0:0]",
	}
	if fmt.Sprint(got.runs) != fmt.Sprint(want) {
		t.Errorf("runs\n got %v\nwant %v", got.runs, want)
	}
	s := got.sum
	if fmt.Sprint(s.FilesByFmt) != "map[beads:1 cycle-commits:1 nebula:2 nebula-state:1 quasar-config:1 trace:1]" || s.Files != 7 || s.Ignored != 1 || s.Runs != 3 {
		t.Errorf("summary %+v", s)
	}
	var probs []string
	for _, p := range s.Problems {
		probs = append(probs, p.File+":"+string(p.Kind))
	}
	// context problems first (a nebula without state), then the run files' in path order
	if fmt.Sprint(probs) != "[a/nebulas/m/nebula.toml:unmatched z/mystery.bin:unknown_file]" {
		t.Errorf("problems %v", s.Problems)
	}
	for what, n := range map[string]int{"beads: beads without cycle comments (not runs)": 1, "beads: review findings joined to a cycle": 1,
		"nebula: phases with a bead": 2, "nebula: phases that joined no run": 1, "cycle-commits: cycle commits that joined no run": 0,
		"cycle-commits: lint-fix commits": 1} {
		if s.Notes[what] != n {
			t.Errorf("note %q = %d, want %d (notes %v)", what, s.Notes[what], n, s.Notes)
		}
	}
}

func TestReplayDeterministic(t *testing.T) {
	base := replayFS(t, historyFS(), 1)
	for _, w := range []int{2, 8} {
		got := replayFS(t, historyFS(), w)
		if fmt.Sprint(got.runs) != fmt.Sprint(base.runs) || got.sum.Fingerprint != base.sum.Fingerprint ||
			fmt.Sprint(got.sum.Problems) != fmt.Sprint(base.sum.Problems) || !maps.Equal(got.sum.Notes, base.sum.Notes) {
			t.Errorf("workers %d differ from 1", w)
		}
	}
	changed := historyFS()
	changed["a/nebulas/n/nebula.toml"] = &fstest.MapFile{Data: []byte("[nebula]\nname = 'n'\n")}
	if replayFS(t, changed, 2).sum.Fingerprint == base.sum.Fingerprint {
		t.Error("a changed context file leaves the fingerprint unchanged")
	}
	if !slices.IsSorted(base.keys) {
		t.Errorf("keys out of order %v", base.keys)
	}
}
