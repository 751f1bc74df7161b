package reports

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/loopwatch/loopwatch/replay/fixsim"
	"github.com/loopwatch/loopwatch/replay/input"
)

// TestFolderOutput: the hive layout — every table in its folder and partition, the
// manifest in _manifests with the paths, rows and metadata — committed as a set, and
// nothing left by an aborted one.
func TestFolderOutput(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	if !IsFolder(dir+"/") || IsFolder(dir) || IsFolder(filepath.Join(dir, "r.parquet")) {
		t.Error("IsFolder: a trailing slash names a folder, a missing name does not")
	}
	out, err := NewFolderOutput(dir+"/", "shard=2", "shard=2", map[string]string{"loopwatch.shard": "2/3", "loopwatch.input_fingerprint": "fp"})
	if err != nil {
		t.Fatal(err)
	}
	if !IsFolder(dir) {
		t.Error("an existing folder is a folder")
	}
	runs := mustTable[ProblemRow](t, out, "")
	events := mustTable[ProblemRow](t, out, "events")
	if err := runs.Write(ProblemRow{File: "a"}, ProblemRow{File: "b"}); err != nil {
		t.Fatal(err)
	}
	if err := events.Write(ProblemRow{File: "e"}); err != nil {
		t.Fatal(err)
	}
	if got, want := out.Path("events"), filepath.Join(dir, "events", "shard=2", "part-0.parquet"); got != want {
		t.Errorf("Path(events) = %s, want %s", got, want)
	}
	if got := out.Files(); !slices.Equal(got, []string{dir}) {
		t.Errorf("Files() = %v: the whole folder is output", got)
	}
	out.SetInfo(ManifestInfo{Shard: "2/3", Summary: []byte(`{"runs":2}`)})
	if err := out.Commit(); err != nil {
		t.Fatal(err)
	}
	m, err := ReadManifestFile(filepath.Join(dir, "_manifests", "shard=2.manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var summary map[string]int
	json.Unmarshal(m.Summary, &summary)
	if m.Shard != "2/3" || summary["runs"] != 2 || m.Metadata["loopwatch.shard"] != "2/3" || m.Metadata[ReplayIDKey] != m.ReplayID ||
		m.InputFingerprint != "fp" {
		t.Errorf("manifest %+v", m)
	}
	if tb := m.Table("runs"); tb == nil || tb.File != "results/shard=2/part-0.parquet" || tb.Rows == nil || *tb.Rows != 2 {
		t.Errorf("run table %+v", tb)
	}
	if tb := m.Table("events"); tb == nil || tb.File != "events/shard=2/part-0.parquet" || tb.Rows == nil || *tb.Rows != 1 {
		t.Errorf("events table %+v", tb)
	}
	if id, err := FileMetadata(filepath.Join(dir, "events", "shard=2", "part-0.parquet"), ReplayIDKey); err != nil || id != m.ReplayID {
		t.Errorf("the table's replay id %q (%v), the manifest's %s", id, err, m.ReplayID)
	}
	if m.ReplayID != ReplayID(m.Metadata, []string{"runs", "events"}) {
		t.Error("the replay id is not recomputable from the manifest")
	}

	// The derived tables of the set: no partition, a manifest of their own.
	merged, err := NewFolderOutput(dir, "", "merged", nil)
	if err != nil {
		t.Fatal(err)
	}
	mt := mustTable[ProblemRow](t, merged, "metrics")
	if err := mt.Write(ProblemRow{}); err != nil {
		t.Fatal(err)
	}
	if err := merged.Commit(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "metrics", "part-0.parquet")); err != nil {
		t.Error(err)
	}

	// An aborted shard leaves no file and no partition; the folders the shards share
	// stay.
	other, err := NewFolderOutput(dir, "shard=0", "shard=0", nil)
	if err != nil {
		t.Fatal(err)
	}
	tb := mustTable[ProblemRow](t, other, "checkpoints")
	if err := tb.Write(ProblemRow{}); err != nil {
		t.Fatal(err)
	}
	ev := mustTable[ProblemRow](t, other, "events")
	if err := ev.Write(ProblemRow{}); err != nil {
		t.Fatal(err)
	}
	other.Abort()
	if _, err := os.Stat(filepath.Join(dir, "checkpoints", "shard=0")); !os.IsNotExist(err) {
		t.Errorf("an aborted shard left its partition: %v", err)
	}
	if got := entries(t, filepath.Join(dir, "events")); !slices.Equal(got, []string{"shard=2"}) {
		t.Errorf("an aborted shard changed another's table folder: %v", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "_manifests", "shard=2.manifest.json")); err != nil {
		t.Errorf("an aborted shard removed another's: %v", err)
	}
	if _, err := NewFolderOutput(filepath.Join(dir, "events", "shard=2", "part-0.parquet"), "", "x", nil); err == nil || !strings.Contains(err.Error(), "is a file") {
		t.Errorf("a folder output over a file: %v", err)
	}
}

// TestFixCasesRoundTrip: a run's recorded failures become rows and come back as the
// case the simulation needs (all but the output text, which it never reads).
func TestFixCasesRoundTrip(t *testing.T) {
	cases := []*fixsim.Case{
		{Key: "r1", TaskID: "t1", Title: "one", Outcome: input.OutcomeMaxCycles, Cycles: 3, MaxCycles: 3, MaxBudgetUSD: 5, TotalCostUSD: 2.5,
			MeanCoderCostUSD: 0.4, MeanCycleCostUSD: 0.8333, Failures: []fixsim.Failure{
				{Cycle: 1, Check: "build", OutputLen: 120, Errors: 2, Unparsed: 1, CostAtFail: 0.9, Next: fixsim.NotCleared},
				{Cycle: 2, Check: "build", OutputLen: 80, CostAtFail: math.Pi, Next: fixsim.Cleared},
				{Cycle: 3, Check: "claims", Next: fixsim.NoNextCycle}}},
		{Key: "r2", Outcome: input.OutcomeApproved, Cycles: 2, CoderCostEstimated: true, Failures: []fixsim.Failure{
			{Cycle: 1, Check: "lint", Next: fixsim.Unknown}}},
		{Key: "r3", Outcome: input.OutcomeMaxCycles, Cycles: 2, LoopOn: true, Failures: []fixsim.Failure{
			{Cycle: 1, Check: "build", Next: fixsim.Cleared, Recorded: fixsim.Recorded{Attempts: 2, Reruns: 2, Passed: 1, Fixed: true, CostUSD: 0.5}},
			{Cycle: 2, Check: "test", Recorded: fixsim.Recorded{Attempts: 3, Reruns: 2, CostUSD: 1.25, BudgetStop: true}}}},
	}
	var rows []FixCaseRow
	for _, c := range cases {
		rows = append(rows, FixCaseRows(c, "runs/"+c.Key+".jsonl")...)
	}
	if len(rows) != 6 || rows[3].File != "runs/r2.jsonl" || rows[1].NextCycle != "cleared" || !rows[4].Recorded || rows[4].RecordedAttempts != 2 {
		t.Fatalf("rows %+v", rows)
	}
	back, err := FixCases(rows)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, cases) {
		t.Errorf("round trip:\n got %+v\nwant %+v", back, cases)
	}
	for _, tt := range []struct {
		name string
		edit func(r []FixCaseRow)
		want string
	}{
		{"a run's rows disagree on recorded", func(r []FixCaseRow) { r[5].Recorded = false }, "recorded is false where the run's first failure has true"},
		{"more passes than re-runs", func(r []FixCaseRow) { r[4].RecordedPassed = 3 }, "2 recorded attempts, 2 re-runs, 3 passed"},
		{"more re-runs than attempts", func(r []FixCaseRow) { r[5].RecordedReruns = 4 }, "3 recorded attempts, 4 re-runs, 0 passed"},
		{"negative passes", func(r []FixCaseRow) { r[5].RecordedPassed = -1 }, "3 recorded attempts, 2 re-runs, -1 passed"},
	} {
		bad := slices.Clone(rows)
		tt.edit(bad)
		if _, err := FixCases(bad); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v", tt.name, err)
		}
	}
	rows[0].NextCycle = "later"
	if _, err := FixCases(rows); err == nil || !strings.Contains(err.Error(), `next_cycle "later"`) {
		t.Errorf("an unknown transition: %v", err)
	}
}
