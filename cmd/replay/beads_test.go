package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/loopwatch/loopwatch/reports"
)

// TestReplayBeadsDerivedLabels replays a small hand-written quasar history (a beads
// export, a nebula with its state, a cycle-commit list) with --derive-labels and an
// explicit label that overrides a derived one, and reads the written tables back.
func TestReplayBeadsDerivedLabels(t *testing.T) {
	out := filepath.Join(t.TempDir(), "q.parquet")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"--in", "testdata/quasar", "--derive-labels", "--labels", "testdata/labels.csv",
		"--out", out, "--resamples", "0", "--workers", "2"}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout.String(), stderr.String())
	}
	for _, want := range []string{"5 runs, 0 problems", "beads 1, cycle-commits 1, nebula 1, nebula-state 1",
		"beads: beads without cycle comments (not runs): 1", "4 runs labelled from their outcomes"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, stdout.String())
		}
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr: %s", stderr.String())
	}

	runs, err := parquet.ReadFile[reports.RunRow](out)
	if err != nil {
		t.Fatal(err)
	}
	str := func(p *string) string {
		if p == nil {
			return "∅"
		}
		return *p
	}
	var got []string
	for _, r := range runs {
		got = append(got, fmt.Sprintf("%s %s/%d %s/%s/%s %s %.2f %s/%s pred=%v", r.RunKey, str(r.Outcome), *r.Cycles,
			str(r.Label), str(r.LabelSource), str(r.LabelRule), str(r.CostSource), *r.TotalCostUSD, str(r.Nebula), str(r.MaxCyclesSource), *r.StrugglePredicted))
	}
	want := []string{
		"q-a#1 approved/1 negative/derived/approved_in_1_cycle estimated 1.50 shop/nebula pred=false",
		"q-b#1 approved/3 positive/derived/approved_after_3plus_cycles estimated 4.50 shop/nebula pred=true",
		"q-c#1 incomplete/1 ambiguous/derived/incomplete_after_1_cycle unknown 0.00 ∅/default pred=false",
		"q-c#2 approved/2 positive/human/∅ unknown 0.00 ∅/default pred=false",
		"q-d#1 incomplete/2 excluded/derived/excluded_permission_bug unknown 0.00 ∅/default pred=false",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("runs\n got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	b := runs[1]
	if *b.LintFixCalls != 1 || !*b.LintFixKnown || *b.FilterKnown || str(b.PhaseStatus) != "done" || str(b.TaskStatus) != "closed" ||
		b.Attempt == nil || *b.Attempt != 1 || *b.Attempts != 1 || str(b.ReportSatisfaction) != "high" || str(b.ReportSource) != "comment" ||
		b.ReportNeedsHumanReview == nil || *b.ReportNeedsHumanReview || *b.MaxCycles != 5 || *b.MaxBudgetUSD != 10 || str(b.MaxBudgetSource) != "nebula" ||
		*b.Findings != 2 || b.StruggleFirstCycle == nil || *b.StruggleFirstCycle != 2 || str(b.Confusion) != "tp" {
		t.Errorf("q-b#1 row %+v", b)
	}
	c2 := runs[3]
	if *c2.Attempt != 2 || *c2.Attempts != 2 || c2.TaskCreatedAt == nil || c2.TaskCreatedAt.Format("2006-01-02T15:04:05.000Z07:00") != "2026-02-14T17:56:49.381Z" || *c2.LintFixKnown {
		t.Errorf("q-c#2 row %+v", c2)
	}
	if str(runs[4].CloseReason) != "Blocked by the Claude Code permission bug" {
		t.Errorf("q-d#1 close reason %q", str(runs[4].CloseReason))
	}

	cycles, err := parquet.ReadFile[reports.CycleRow](strings.TrimSuffix(out, ".parquet") + ".cycles.parquet")
	if err != nil {
		t.Fatal(err)
	}
	if len(cycles) != 9 {
		t.Fatalf("%d cycle rows, want 9", len(cycles))
	}
	for _, c := range cycles {
		if c.FilterCheckName != nil || c.ReviewerAt == nil || c.CoderAt == nil || c.EndedAt == nil || !c.EndedAt.Equal(*c.ReviewerAt) {
			t.Errorf("cycle row %+v: the filter chain is unknown, the cycle ends at its reviewer comment", c)
		}
	}
	bc2 := cycles[2] // q-b#1 cycle 2
	if bc2.RunKey != "q-b#1" || bc2.Cycle != 2 || bc2.LintFixCalls != 1 || fmt.Sprint(bc2.CommitSHAs) != "["+strings.Repeat("3", 40)+" "+strings.Repeat("2", 40)+"]" ||
		bc2.CostSource != "estimated" || bc2.TotalCostUSD != 3 || bc2.FindingOverlap != 1 || !bc2.Triggered || !bc2.Decision {
		t.Errorf("q-b#1 cycle 2 row %+v", bc2)
	}

	metrics, err := parquet.ReadFile[reports.MetricRow](strings.TrimSuffix(out, ".parquet") + ".metrics.parquet")
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]float64{}
	for _, r := range metrics {
		if r.Value != nil {
			m[r.Metric] = *r.Value
		}
		if r.Scored != 3 || r.Ambiguous != 1 || r.Excluded != 1 || r.Runs != 5 {
			t.Errorf("metric row counts %+v", r)
		}
	}
	if m["tp"] != 1 || m["fn"] != 1 || m["tn"] != 1 || m["fp"] != 0 {
		t.Errorf("confusion %v", m)
	}
}

// TestDerivedLabelOfDroppedCycles: a run whose cycle numbers skip one keeps the cycles
// before the gap, and its derived label is ambiguous (cycles_dropped) — not the
// "approved in 1 cycle" negative its kept cycles alone would give.
func TestDerivedLabelOfDroppedCycles(t *testing.T) {
	dir := t.TempDir()
	line := func(ts, kind, data string) string {
		return fmt.Sprintf(`{"ts":%q,"kind":%q,"task":"q-1","data":%s}`, ts, kind, data) + "\n"
	}
	trace := line("2026-03-01T10:00:00Z", "task_start", `{"title":"x","max_cycles":5,"max_budget_usd":10}`) +
		line("2026-03-01T10:01:00Z", "cycle_done", `{"cycle":1,"total_cost_usd":1}`) +
		line("2026-03-01T10:02:00Z", "cycle_done", `{"cycle":3,"total_cost_usd":3,"approved":true}`) +
		line("2026-03-01T10:03:00Z", "task_state", `{"outcome":"approved"}`)
	if err := os.WriteFile(filepath.Join(dir, "t.jsonl"), []byte(trace), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "r.parquet")
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"--in", dir, "--derive-labels", "--out", out, "--resamples", "0"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout.String(), stderr.String())
	}
	if !strings.Contains(stderr.String(), "cycle 2 missing; cycles from 3 on are dropped") {
		t.Errorf("the gap is not reported:\n%s", stderr.String())
	}
	runs, err := parquet.ReadFile[reports.RunRow](out)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || *runs[0].Cycles != 1 || runs[0].Label == nil || *runs[0].Label != "ambiguous" || *runs[0].LabelRule != "cycles_dropped" {
		t.Fatalf("runs %+v", runs)
	}
}
