package beads

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/loopwatch/loopwatch/analyze"
	"github.com/loopwatch/loopwatch/replay/clockfault"
	"github.com/loopwatch/loopwatch/replay/input"
	"github.com/loopwatch/loopwatch/replay/input/inputtest"
	"github.com/loopwatch/loopwatch/replay/join"
)

// c is a comment of a test bead: its time and text.
type c struct{ at, text string }

// bead writes one beads line with these comments.
func line(id, created, status, closeReason string, comments ...c) string {
	obj := map[string]any{"id": id, "title": "Task " + id, "description": "d", "status": status, "priority": 2,
		"issue_type": "task", "created_at": created, "updated_at": created}
	if closeReason != "" {
		obj["close_reason"] = closeReason
	}
	var cs []map[string]any
	for i, cm := range comments {
		cs = append(cs, map[string]any{"id": i + 1, "issue_id": id, "author": "A", "text": cm.text, "created_at": cm.at})
	}
	if cs != nil {
		obj["comments"] = cs
	}
	b, _ := json.Marshal(obj)
	return string(b) + "\n"
}

// child writes a review-finding child bead of parent ("" for none).
func child(id, parent, created, title, desc string) string {
	obj := map[string]any{"id": id, "title": title, "description": desc, "status": "open", "priority": 2,
		"issue_type": "bug", "created_at": created, "labels": []string{FindingLabel}}
	if parent != "" {
		obj["dependencies"] = []map[string]any{{"issue_id": id, "depends_on_id": parent, "type": "parent-child",
			"created_at": "2026-01-01T00:00:00Z"}}
	}
	b, _ := json.Marshal(obj)
	return string(b) + "\n"
}

const report = "[reviewer report]\nSatisfaction: high\nRisk: low\nNeeds human review: yes\nSummary: Good work.\nSecond line."

func coder(n int) string { return fmt.Sprintf("[coder cycle %d]\nDone.", n) }
func reviewer(n int) string {
	return fmt.Sprintf("[reviewer cycle %d]\nISSUE:\nSEVERITY: major\nDESCRIPTION: x", n)
}

// runSummary describes a run for the table: key, outcome, cycles, findings per cycle.
func runSummary(r *input.Run) string {
	var fs []string
	for _, cy := range r.Cycles {
		fs = append(fs, fmt.Sprint(len(cy.Findings)))
	}
	s := fmt.Sprintf("%s %s %d [%s]", r.Key, r.Outcome, len(r.Cycles), strings.Join(fs, " "))
	if r.CyclesDropped {
		s += " dropped"
	}
	return s
}

func TestRead(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		runs     []string // runSummary of each run
		problems []string // "line:kind"
	}{
		{name: "approved in one cycle",
			in: line("q-1", "2026-02-24T10:00:00Z", "closed", "Approved by reviewer",
				c{"2026-02-24T10:05:00Z", coder(1)}, c{"2026-02-24T10:06:00Z", reviewer(1)}, c{"2026-02-24T10:06:00Z", report}),
			runs: []string{"q-1#1 approved 1 [0]"}},
		{name: "rejected, then approved, findings from children in their cycle",
			in: line("q-1", "2026-02-24T10:00:00Z", "closed", "",
				c{"2026-02-24T10:05:00Z", coder(1)}, c{"2026-02-24T10:06:00Z", reviewer(1)},
				c{"2026-02-24T10:15:00Z", coder(2)}, c{"2026-02-24T10:16:00Z", reviewer(2)}, c{"2026-02-24T10:16:00Z", report}) +
				child("q-1.1", "q-1", "2026-02-24T10:06:02Z", "[minor] a nit", "a nit, in full") +
				child("q-1.2", "q-1", "2026-02-24T10:06:01Z", "[critical] a bug", "a bug, in full"),
			runs: []string{"q-1#1 approved 2 [2 0]"}},
		{name: "re-runs split at [coder cycle 1], in time order whatever the export order",
			in: line("q-1", "2026-02-24T10:00:00Z", "closed", "",
				c{"2026-02-24T12:05:00Z", coder(1)}, c{"2026-02-24T12:06:00Z", reviewer(1)}, c{"2026-02-24T12:06:00Z", report},
				c{"2026-02-24T10:05:00Z", coder(1)}, c{"2026-02-24T10:06:00Z", reviewer(1)}) +
				child("q-1.1", "q-1", "2026-02-24T10:06:01Z", "[major] first attempt", "first attempt"),
			runs: []string{"q-1#1 incomplete 1 [1]", "q-1#2 approved 1 [0]"}},
		{name: "both timestamp formats",
			in: line("q-old", "2026-02-14T12:56:49.381534-05:00", "closed", "",
				c{"2026-02-14T13:00:00.5-05:00", coder(1)}, c{"2026-02-14T18:01:00Z", reviewer(1)}, c{"2026-02-14T13:01:00.100-05:00", report}),
			runs: []string{"q-old#1 approved 1 [0]"}},
		{name: "a reused id: the beads are told apart by creation time, children join the bead of their time",
			in: line("q-1", "2026-02-16T10:00:00Z", "closed", "", c{"2026-02-16T10:05:00Z", coder(1)}, c{"2026-02-16T10:06:00Z", reviewer(1)}) +
				line("q-1", "2026-02-17T22:21:14Z", "closed", "", c{"2026-02-17T22:39:50Z", coder(1)}, c{"2026-02-17T22:40:39Z", reviewer(1)}, c{"2026-02-17T22:40:40Z", report}) +
				child("q-1.1", "q-1", "2026-02-16T10:06:01Z", "[major] old", "old"),
			runs: []string{"q-1@20260216T100000Z#1 incomplete 1 [1]", "q-1@20260217T222114Z#1 approved 1 [0]"}},
		{name: "a reused id created twice in one second: the key keeps the fraction that tells them apart, in UTC",
			in: line("q-1", "2026-02-24T19:53:03.100Z", "closed", "", c{"2026-02-24T20:05:00Z", coder(1)}, c{"2026-02-24T20:06:00Z", reviewer(1)}) +
				line("q-1", "2026-02-24T14:53:03.9-05:00", "closed", "", c{"2026-02-24T20:15:00Z", coder(1)}, c{"2026-02-24T20:16:00Z", reviewer(1)}, c{"2026-02-24T20:16:00Z", report}),
			runs: []string{"q-1@20260224T195303.1Z#1 incomplete 1 [0]", "q-1@20260224T195303.9Z#1 approved 1 [0]"}},
		{name: "a duplicate (id, created_at) is skipped",
			in: line("q-1", "2026-02-24T10:00:00Z", "closed", "", c{"2026-02-24T10:05:00Z", coder(1)}) +
				line("q-1", "2026-02-24T10:00:00Z", "closed", "", c{"2026-02-24T10:05:00Z", coder(1)}, c{"2026-02-24T10:06:00Z", reviewer(1)}),
			runs: []string{"q-1#1 incomplete 1 [0]"}, problems: []string{"2:duplicate_run"}},
		{name: "max cycles reached",
			in: line("q-1", "2026-02-24T10:00:00Z", "open", "",
				c{"2026-02-24T10:01:00Z", coder(1)}, c{"2026-02-24T10:02:00Z", reviewer(1)},
				c{"2026-02-24T10:03:00Z", coder(2)}, c{"2026-02-24T10:04:00Z", reviewer(2)},
				c{"2026-02-24T10:04:01Z", "Max cycles reached (2). Manual review recommended."}) +
				child("q-1.1", "q-1", "2026-02-24T10:02:00Z", "[major] x", "x") + child("q-1.2", "q-1", "2026-02-24T10:04:00Z", "[major] x", "x"),
			runs: []string{"q-1#1 max_cycles 2 [1 1]"}},
		{name: "budget exceeded",
			in: line("q-1", "2026-02-24T10:00:00Z", "open", "",
				c{"2026-02-24T10:01:00Z", coder(1)}, c{"2026-02-24T10:02:00Z", reviewer(1)}, c{"2026-02-24T10:02:30Z", "Budget exceeded: $5.20 / $5.00"}) +
				child("q-1.1", "q-1", "2026-02-24T10:02:01Z", "[minor] x", "x"),
			runs: []string{"q-1#1 budget_exceeded 1 [1]"}},
		{name: "a bead of another project is counted, not reported; a run's free-text comment is",
			in: line("other-1", "2026-02-24T10:00:00Z", "open", "", c{"2026-02-24T10:05:00Z", "Looks good to me"}) +
				line("q-1", "2026-02-24T10:00:00Z", "open", "", c{"2026-02-24T10:05:00Z", coder(1)}, c{"2026-02-24T10:06:00Z", "please also fix the docs"}),
			runs: []string{"q-1#1 incomplete 1 [0]"}, problems: []string{"2:unknown_kind"}},
		{name: "children without a parent, with a parent not in the export, before any review, in an approved cycle",
			in: line("q-1", "2026-02-24T10:00:00Z", "closed", "", c{"2026-02-24T10:05:00Z", coder(1)}, c{"2026-02-24T10:06:00Z", reviewer(1)}, c{"2026-02-24T10:06:00Z", report}) +
				child("q-1.1", "", "2026-02-24T10:06:01Z", "[major] orphan", "orphan") +
				child("q-9.1", "q-9", "2026-02-24T10:06:01Z", "[major] lost", "lost") +
				child("q-1.2", "q-1", "2026-02-24T10:04:00Z", "[major] early", "early") +
				child("q-1.3", "q-1", "2026-02-24T10:06:01Z", "[bogus] late", ""),
			runs:     []string{"q-1#1 approved 1 [1]"},
			problems: []string{"2:unmatched", "3:unmatched", "4:unmatched", "5:invalid_record", "5:invalid_record"}},
		{name: "a gap in the cycles drops the later ones; a run not starting at cycle 1 is skipped",
			in: line("q-1", "2026-02-24T10:00:00Z", "open", "", c{"2026-02-24T10:01:00Z", coder(1)}, c{"2026-02-24T10:02:00Z", reviewer(1)},
				c{"2026-02-24T10:03:00Z", coder(3)}, c{"2026-02-24T10:04:00Z", reviewer(3)}) +
				line("q-2", "2026-02-24T10:00:00Z", "open", "", c{"2026-02-24T10:01:00Z", coder(2)}, c{"2026-02-24T10:02:00Z", reviewer(2)}) +
				child("q-1.1", "q-1", "2026-02-24T10:04:01Z", "[major] in the dropped cycle", "x"),
			runs:     []string{"q-1#1 incomplete 1 [0] dropped"},
			problems: []string{"1:invalid_record", "2:unusable_run", "3:unmatched"}},
		{name: "an approval after a gap approves a run whose later cycles are dropped",
			in: line("q-1", "2026-02-24T10:00:00Z", "closed", "", c{"2026-02-24T10:01:00Z", coder(1)}, c{"2026-02-24T10:02:00Z", reviewer(1)},
				c{"2026-02-24T10:03:00Z", coder(3)}, c{"2026-02-24T10:04:00Z", reviewer(3)}, c{"2026-02-24T10:05:00Z", report}),
			runs:     []string{"q-1#1 approved 1 [0] dropped"},
			problems: []string{"1:invalid_record"}},
		{name: "comments after the outcome, repeated and missing comments",
			in: line("q-1", "2026-02-24T10:00:00Z", "closed", "", c{"2026-02-24T10:01:00Z", coder(1)}, c{"2026-02-24T10:02:00Z", reviewer(1)},
				c{"2026-02-24T10:02:10Z", reviewer(1)}, c{"2026-02-24T10:03:00Z", coder(2)}, c{"2026-02-24T10:03:30Z", coder(2)},
				c{"2026-02-24T10:04:00Z", reviewer(2)}, c{"2026-02-24T10:05:00Z", reviewer(3)}, c{"2026-02-24T10:05:00Z", report},
				c{"2026-02-24T10:09:00Z", reviewer(4)}, c{"bad time", coder(4)}) +
				child("q-1.1", "q-1", "2026-02-24T10:02:11Z", "[major] x", "x") + child("q-1.2", "q-1", "2026-02-24T10:04:11Z", "[major] x", "x"),
			runs:     []string{"q-1#1 approved 3 [1 1 0]"},
			problems: []string{"1:invalid_record", "1:invalid_record", "1:invalid_record", "1:invalid_record", "1:invalid_record"}},
		{name: "bad lines",
			in: "not json\n" + `{"id":"","title":"x"}` + "\n" + line("q-1", "yesterday", "open", "", c{"2026-02-24T10:01:00Z", coder(1)}) +
				`{"id":"q-2","title":"cut`,
			runs:     []string{"q-1#1 incomplete 1 [0]"},
			problems: []string{"1:malformed_line", "2:invalid_record", "3:invalid_record", "4:truncated_line"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runs, probs, _ := Read("issues.jsonl", strings.NewReader(tt.in), nil)
			var got []string
			for _, r := range runs {
				got = append(got, runSummary(r))
				checkRun(t, r)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.runs) {
				t.Errorf("runs\n got %v\nwant %v", got, tt.runs)
			}
			var ps []string
			for _, p := range probs {
				ps = append(ps, fmt.Sprintf("%d:%s", p.Line, p.Kind))
				if p.File != "issues.jsonl" || p.Detail == "" {
					t.Errorf("problem without file or detail: %+v", p)
				}
			}
			if fmt.Sprint(ps) != fmt.Sprint(tt.problems) {
				t.Errorf("problems\n got %v\nwant %v\n%v", ps, tt.problems, probs)
			}
		})
	}
}

// checkRun checks what every rebuilt run must satisfy.
func checkRun(t *testing.T, r *input.Run) {
	t.Helper()
	if r.Source != SourceName || r.FilterKnown || !r.Outcome.Valid() || r.Attempt < 1 || r.Attempt > r.Attempts || r.MaxCycles < 1 || !(r.MaxBudgetUSD > 0) {
		t.Errorf("run %s: %+v", r.Key, r)
	}
	for i, cy := range r.Cycles {
		if cy.Cycle != i+1 || cy.Time.IsZero() || cy.Time.Location() != time.UTC {
			t.Errorf("run %s cycle %d: %+v", r.Key, i+1, cy)
		}
		if cy.Approved != (r.Outcome == input.OutcomeApproved && i == len(r.Cycles)-1) {
			t.Errorf("run %s cycle %d approved %v", r.Key, cy.Cycle, cy.Approved)
		}
		for _, f := range cy.Findings {
			if f.Cycle != cy.Cycle || f.ID != analyze.FindingID(f.Severity, f.Description) || f.Status != analyze.StatusFound {
				t.Errorf("run %s finding %+v", r.Key, f)
			}
		}
	}
}

func TestReadFields(t *testing.T) {
	in := line("q-1", "2026-02-14T12:00:00.5-05:00", "closed", "Approved by reviewer",
		c{"2026-02-14T13:00:00-05:00", coder(1)}, c{"2026-02-14T13:01:00-05:00", reviewer(1) + strings.Repeat("x", 2000) + truncMark},
		c{"2026-02-14T13:10:00-05:00", coder(2)}, c{"2026-02-14T13:11:00-05:00", reviewer(2)}, c{"2026-02-14T13:11:00-05:00", report}) +
		child("q-1.2", "q-1", "2026-02-14T18:01:01Z", "[minor] b nit", "  b nit, described in full  ") +
		child("q-1.1", "q-1", "2026-02-14T18:01:01Z", "[critical] a bug that is cut at eighty charac... [truncated]", "")
	runs, probs, notes := Read("x.jsonl", strings.NewReader(in), nil)
	if len(runs) != 1 {
		t.Fatalf("runs %v problems %v", runs, probs)
	}
	r := runs[0]
	utc := func(s string) time.Time { tt, _ := time.Parse(time.RFC3339, s); return tt.UTC() }
	if r.Key != "q-1#1" || r.TaskID != "q-1" || r.Title != "Task q-1" || r.Line != 1 || r.File != "x.jsonl" ||
		!r.TaskCreatedAt.Equal(utc("2026-02-14T17:00:00.5Z")) || r.TaskStatus != "closed" || r.CloseReason != "Approved by reviewer" {
		t.Errorf("run fields %+v", r)
	}
	if !r.Start.Equal(utc("2026-02-14T18:00:00Z")) || !r.End.Equal(utc("2026-02-14T18:11:00Z")) || r.Reason != "reviewer report at cycle 2" {
		t.Errorf("start %v end %v reason %q", r.Start, r.End, r.Reason)
	}
	if r.MaxCycles != 3 || r.MaxBudgetUSD != 5 || r.MaxCyclesSource != "default" || r.MaxBudgetSource != "default" ||
		r.CostSource != input.CostUnknown || r.LintFixKnown || r.Nebula != "" {
		t.Errorf("limits and cost without context: %+v", r)
	}
	if rep := r.Report; rep == nil || rep.Satisfaction != "high" || rep.Risk != "low" || rep.NeedsHumanReview == nil || !*rep.NeedsHumanReview ||
		rep.Summary != "Good work.\nSecond line." || rep.Source != "comment" {
		t.Errorf("report %+v", r.Report)
	}
	c1 := r.Cycles[0]
	if !c1.CoderTime.Equal(utc("2026-02-14T18:00:00Z")) || !c1.ReviewerTime.Equal(c1.Time) || !c1.Time.Equal(utc("2026-02-14T18:01:00Z")) || !c1.ReviewTruncated {
		t.Errorf("cycle 1 %+v", c1)
	}
	if r.Cycles[1].ReviewTruncated {
		t.Error("cycle 2 review is not cut")
	}
	if len(c1.Findings) != 2 {
		t.Fatalf("findings %+v", c1.Findings)
	}
	f0, f1 := c1.Findings[0], c1.Findings[1]
	if f0.Severity != analyze.SeverityCritical || f0.Description != "a bug that is cut at eighty charac" ||
		f1.Severity != analyze.SeverityMinor || f1.Description != "b nit, described in full" || f1.ID != analyze.FindingID("minor", "b nit, described in full") {
		t.Errorf("findings (same time: by child id) %+v", c1.Findings)
	}
	if len(probs) != 1 || probs[0].Kind != input.ProblemInvalid || probs[0].Line != 3 {
		t.Errorf("problems %v (the child without description)", probs)
	}
	counts := map[string]int{}
	for _, n := range notes {
		counts[n.What] = n.Count
	}
	if counts["beads: beads read"] != 3 || counts["beads: review-finding child beads"] != 2 || counts["beads: comments cut at 2000 bytes by quasar"] != 1 ||
		counts["beads: review findings joined to a cycle"] != 2 {
		t.Errorf("notes %v", notes)
	}
}

func TestReadJoins(t *testing.T) {
	jc := join.New()
	jc.SetConfig(join.Config{MaxCycles: 4})
	n := jc.Nebula("neb")
	n.Name, n.Manifest, n.State, n.MaxBudgetUSD, n.TotalCostUSD, n.HasCost = "neb", "m", "s", 30, 10, true
	n.Phases = []*join.Phase{{Nebula: n, ID: "p1", BeadID: "q-1", Status: "done"},
		{Nebula: n, ID: "p2", BeadID: "q-2", Status: "failed", Report: &input.Report{Summary: "from state", Source: "nebula_state"}}}
	at := func(s string) time.Time { tt, _ := time.Parse(time.RFC3339, s); return tt }
	for i, cm := range []join.Commit{
		{BeadID: "q-1", Cycle: 1, Time: at("2026-02-24T10:04:30Z")},
		{BeadID: "q-1", Cycle: 1, Time: at("2026-02-24T10:07:00Z"), LintFix: true},
		{BeadID: "q-1", Cycle: 2, Time: at("2026-02-24T10:14:30Z")},
		{BeadID: "q-1", Cycle: 2, Time: at("2026-02-24T10:18:00Z"), LintFix: true},
		{BeadID: "q-1", Cycle: 2, Time: at("2026-02-24T10:19:00Z"), LintFix: true},
		{BeadID: "q-1", Cycle: 3, Time: at("2026-02-24T10:30:00Z")},         // no run reached cycle 3
		{BeadID: "q-1", Cycle: 1, Time: at("2026-02-25T10:30:00Z")},         // a day away
		{BeadID: "q-1", Cycle: 1, Time: at("2026-02-24T12:04:30Z")},         // the re-run's
		{BeadID: "q-elsewhere", Cycle: 1, Time: at("2026-02-24T12:04:30Z")}, // not in this export
	} {
		cm.SHA, cm.File, cm.Line = fmt.Sprintf("%040d", i), "c.tsv", i+1
		jc.AddCommit(cm)
	}
	jc.Finish()
	in := line("q-1", "2026-02-24T10:00:00Z", "closed", "",
		c{"2026-02-24T10:05:00Z", coder(1)}, c{"2026-02-24T10:06:00Z", reviewer(1)},
		c{"2026-02-24T10:15:00Z", coder(2)}, c{"2026-02-24T10:16:00Z", reviewer(2)},
		c{"2026-02-24T12:05:00Z", coder(1)}, c{"2026-02-24T12:06:00Z", reviewer(1)}, c{"2026-02-24T12:06:00Z", report}) +
		line("q-2", "2026-02-24T10:00:00Z", "open", "", c{"2026-02-24T11:05:00Z", coder(1)}, c{"2026-02-24T11:06:00Z", reviewer(1)}) +
		line("q-3", "2026-02-24T10:00:00Z", "open", "", c{"2026-02-24T11:05:00Z", coder(1)}) +
		child("q-1.1", "q-1", "2026-02-24T10:06:01Z", "[major] x", "x") + child("q-1.2", "q-1", "2026-02-24T10:16:01Z", "[major] x", "x") +
		child("q-2.1", "q-2", "2026-02-24T11:06:01Z", "[major] y", "y")
	runs, probs, _ := Read("issues.jsonl", strings.NewReader(in), jc)
	if len(runs) != 4 {
		t.Fatalf("runs %v", runs)
	}
	var ps []string
	for _, p := range probs {
		ps = append(ps, fmt.Sprintf("%d:%s", p.Line, p.Kind))
	}
	if fmt.Sprint(ps) != "[1:unmatched 1:unmatched]" {
		t.Errorf("problems %v\n%v", ps, probs)
	}
	// The nebula's 10 USD over its phase beads' 6 + 2 coder and reviewer comments.
	per := 10.0 / 8
	r1, r2, q2, q3 := runs[0], runs[1], runs[2], runs[3]
	for _, r := range runs {
		checkRun(t, r)
	}
	if r1.Nebula != "neb" || r1.Phase != "p1" || r1.PhaseStatus != "done" || r1.MaxCycles != 4 || r1.MaxCyclesSource != "config" ||
		r1.MaxBudgetUSD != 30 || r1.MaxBudgetSource != "nebula" || r1.CostSource != input.CostEstimated || !r1.LintFixKnown {
		t.Errorf("run 1 %+v", r1)
	}
	if got := []float64{r1.Cycles[0].TotalCostUSD, r1.Cycles[1].TotalCostUSD, r2.Cycles[0].TotalCostUSD, q2.Cycles[0].TotalCostUSD}; fmt.Sprint(got) != fmt.Sprint([]float64{2 * per, 4 * per, 2 * per, 2 * per}) {
		t.Errorf("estimated cumulative costs %v", got)
	}
	if r1.Cycles[0].LintFixCalls != 1 || r1.Cycles[1].LintFixCalls != 2 || len(r1.Cycles[1].Commits) != 3 || r2.Cycles[0].LintFixCalls != 0 || len(r2.Cycles[0].Commits) != 1 {
		t.Errorf("commits %+v / %+v", r1.Cycles, r2.Cycles)
	}
	if q2.Report == nil || q2.Report.Source != "nebula_state" || q2.LintFixKnown {
		t.Errorf("q-2: the phase's report on its last run, lint fixes unknown: %+v", q2)
	}
	if q3.CostSource != input.CostUnknown || q3.Nebula != "" || q3.MaxCycles != 4 || q3.Cycles[0].TotalCostUSD != 0 {
		t.Errorf("q-3 outside the nebula: %+v", q3)
	}
}

func TestSniff(t *testing.T) {
	tests := []struct {
		head string
		want bool
	}{
		{line("q-1", "2026-02-24T10:00:00Z", "open", ""), true},
		{`{"id":"q-1","title":"t","description":"` + strings.Repeat("x", 100), true}, // cut inside the description
		{`{"id":"q-1","title":"t"}`, false},
		{`{"id":1,"title":"t","status":"open"}`, false},
		{`{"ts":"2026-03-01T10:00:00Z","kind":"cycle_done","task":"q","data":{}}`, false},
		{"not json", false},
	}
	for _, tt := range tests {
		if got := Sniff([]byte(tt.head)); got != tt.want {
			t.Errorf("Sniff(%.50q) = %v, want %v", tt.head, got, tt.want)
		}
	}
}

// FuzzRead checks that no input panics the reader and that every run it returns is
// consistent: cycles numbered 1..n, a valid outcome, findings in their cycle with
// recomputed IDs, an unknown filter chain.
func FuzzRead(f *testing.F) {
	f.Add([]byte(line("q-1", "2026-02-24T10:00:00Z", "closed", "",
		c{"2026-02-24T10:05:00Z", coder(1)}, c{"2026-02-24T10:06:00Z", reviewer(1)}, c{"2026-02-24T10:15:00Z", coder(2)},
		c{"2026-02-24T10:16:00Z", reviewer(2)}, c{"2026-02-24T10:16:00Z", report}) +
		child("q-1.1", "q-1", "2026-02-24T10:06:01Z", "[minor] x", "x")))
	f.Add([]byte(line("q-1", "2026-02-14T12:56:49.381534-05:00", "open", "",
		c{"2026-02-14T13:00:00-05:00", coder(1)}, c{"2026-02-14T13:00:01-05:00", "Max cycles reached (1). Manual review recommended."}) + "{\n\xff"))
	f.Fuzz(func(t *testing.T, in []byte) {
		runs, probs, _ := Read("f", bytes.NewReader(in), nil)
		keys := map[string]bool{}
		for _, r := range runs {
			if r.Key == "" || keys[r.Key] || len(r.Cycles) == 0 {
				t.Fatalf("inconsistent run %+v", r)
			}
			keys[r.Key] = true
			checkRun(t, r)
		}
		for _, p := range probs {
			if p.Detail == "" || p.File != "f" {
				t.Fatalf("problem %+v", p)
			}
		}
	})
}

// TestReadKeepsTheRest: two beads on one line are both read, a field of the wrong type
// loses the field, and a comment stamped seventy years off is dropped, not moved to
// the end of its bead's runs.
func TestReadKeepsTheRest(t *testing.T) {
	b1 := strings.TrimSuffix(line("q-1", "2026-02-24T09:00:00Z", "closed", "",
		c{"2026-02-24T10:00:00Z", coder(1)}, c{"2026-02-24T10:05:00Z", reviewer(1)},
		c{"2096-02-24T10:06:00Z", coder(2)}, c{"2026-02-24T10:06:00Z", report}), "\n")
	b2 := line("q-2", "2026-02-24T09:00:00Z", "open", "", c{"2026-02-24T11:00:00Z", coder(1)})
	b3 := strings.Replace(line("q-3", "2026-02-24T09:00:00Z", "open", "", c{"2026-02-24T12:00:00Z", coder(1)}),
		`"priority":2`, `"priority":2,"labels":"not a list"`, 1)
	runs, probs, _ := Read("issues.jsonl", strings.NewReader(b1+b2+b3), nil)
	var got []string
	for _, r := range runs {
		got = append(got, runSummary(r))
	}
	var kinds []string
	for _, p := range probs {
		kinds = append(kinds, fmt.Sprintf("%d:%s", p.Line, p.Kind))
	}
	if len(runs) != 3 || runs[0].Outcome != input.OutcomeApproved || len(runs[0].Cycles) != 1 {
		t.Errorf("runs %v (problems %v)", got, probs)
	}
	if fmt.Sprint(kinds) != "[1:malformed_line 1:invalid_record 2:invalid_record]" {
		t.Errorf("problems %v: %v", kinds, probs)
	}
}

// TestReadZeroTime: a created_at that parses to Go's zero time is a time like any
// other, not "no time": a comment's is the same clock fault as a second after it,
// reported and skipped; a bead's is kept as the far-off creation time it is, as a second
// after it is, not left unknown.
func TestReadZeroTime(t *testing.T) {
	for _, tt := range []struct {
		name, ts string
		detail   string // in the problem's detail
	}{
		{"zero time", "0001-01-01T00:00:00Z", "has created_at 0001-01-01T00:00:00Z, more than a year from"},
		{"zero time with an offset", "0001-01-01T02:00:00+02:00", "has created_at 0001-01-01T00:00:00Z, more than a year from"},
		{"zero time with fractional zeros", "0001-01-01T00:00:00.000Z", "has created_at 0001-01-01T00:00:00Z, more than a year from"},
		{"a second after the zero time", "0001-01-01T00:00:01Z", "has created_at 0001-01-01T00:00:01Z, more than a year from"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// A comment at that time among a run's: reported and skipped.
			in := line("q-1", "2026-02-24T10:00:00Z", "closed", "",
				c{"2026-02-24T10:05:00Z", coder(1)}, c{"2026-02-24T10:06:00Z", reviewer(1)},
				c{tt.ts, coder(2)}, c{"2026-02-24T10:07:00Z", report})
			runs, probs, _ := Read("issues.jsonl", strings.NewReader(in), nil)
			if len(probs) != 1 || probs[0].Line != 1 || probs[0].Kind != input.ProblemInvalid ||
				!strings.Contains(probs[0].Detail, tt.detail) || !strings.Contains(probs[0].Detail, "a clock fault") {
				t.Errorf("problems %v, want one at line 1 with %q", probs, tt.detail)
			}
			if len(runs) != 1 || runSummary(runs[0]) != "q-1#1 approved 1 [0]" || runs[0].Start.Year() != 2026 {
				t.Errorf("runs %v", runs)
			}
			// A comment at that time as the run's first: the far-off time it is.
			in = line("q-2", tt.ts, "open", "", c{tt.ts, coder(1)})
			runs, probs, _ = Read("issues.jsonl", strings.NewReader(in), nil)
			if len(runs) != 1 || len(probs) != 0 {
				t.Fatalf("runs %v problems %v", runs, probs)
			}
			r := runs[0]
			if r.TaskCreatedAt.IsZero() || r.TaskCreatedAt.Year() != 1 || r.Start.IsZero() || r.Start.Year() != 1 ||
				r.Cycles[0].Time.IsZero() || r.Cycles[0].CoderTime.IsZero() {
				t.Errorf("created %v start %v cycle %+v: want the far-off time, not none", r.TaskCreatedAt, r.Start, r.Cycles[0])
			}
			checkRun(t, r)
		})
	}
}

// TestReadOutOfRange: a cycle comment or max-cycles comment whose number lies outside
// the range of a 32-bit integer (the tables' columns, where it would wrap) is reported:
// a cycle comment is skipped (its cycle is unknown), a max-cycles comment ends the run
// without giving its MaxCycles. The largest 32-bit number is read as it is.
func TestReadOutOfRange(t *testing.T) {
	at := func(m int) string { return fmt.Sprintf("2026-02-24T10:%02d:00Z", m) }
	tests := []struct {
		name      string
		in        string
		runs      []string
		maxCycles int      // of the first run
		problems  []string // "line:kind" then a substring of the detail, after a space
	}{
		{"in range: read as recorded",
			line("q-1", at(0), "open", "", c{at(1), coder(1)}, c{at(2), reviewer(1)}, c{at(3), "Max cycles reached (2147483647). Stop."}),
			[]string{"q-1#1 max_cycles 1 [0]"}, 2147483647, []string{"1:invalid_record says 2147483647 cycles but the run has 1"}},
		{"a max-cycles number past int32",
			line("q-1", at(0), "open", "", c{at(1), coder(1)}, c{at(2), reviewer(1)}, c{at(3), "Max cycles reached (2147483648). Stop."}),
			[]string{"q-1#1 max_cycles 1 [0]"}, 3, []string{"1:invalid_record max cycles 2147483648 is outside the range of a 32-bit integer; the run reached its limit, but MaxCycles is not taken"}},
		{"a max-cycles number past int64",
			line("q-1", at(0), "open", "", c{at(1), coder(1)}, c{at(2), reviewer(1)}, c{at(3), "Max cycles reached (99999999999999999999)."}),
			[]string{"q-1#1 max_cycles 1 [0]"}, 3, []string{"1:invalid_record max cycles 99999999999999999999 is outside"}},
		{"a cycle comment past int32 is skipped",
			line("q-1", at(0), "open", "", c{at(1), coder(1)}, c{at(2), reviewer(1)}, c{at(4), "[coder cycle 4294967298]\nDone."}),
			[]string{"q-1#1 incomplete 1 [0]"}, 3, []string{"1:invalid_record comment 3 (coder cycle): cycle 4294967298 is outside the range of a 32-bit integer; skipped"}},
		{"a bead whose only cycle comments are past int32 is reported, not counted as another project's",
			line("q-1", at(0), "open", "", c{at(1), "[coder cycle 2147483648]\nDone."}, c{at(2), "[reviewer cycle 99999999999999999999]\nok"}),
			nil, 0, []string{"1:invalid_record comment 1 (coder cycle): cycle 2147483648 is outside", "1:invalid_record comment 2 (reviewer cycle): cycle 99999999999999999999 is outside"}},
		{"a negative cycle is skipped, a negative max-cycles number not taken",
			line("q-1", at(0), "open", "", c{at(1), coder(1)}, c{at(2), reviewer(1)}, c{at(3), "[coder cycle -1]\nDone."}, c{at(4), "Max cycles reached (-2). Stop."}),
			[]string{"q-1#1 max_cycles 1 [0]"}, 3, []string{"1:invalid_record comment 3 (coder cycle): cycle -1 is negative; skipped", "1:invalid_record max cycles -2 is negative"}},
		{"a bead whose only cycle comment is negative is reported",
			line("q-1", at(0), "open", "", c{at(1), "[coder cycle -3]\nDone."}),
			nil, 0, []string{"1:invalid_record comment 1 (coder cycle): cycle -3 is negative"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runs, probs, notes := Read("issues.jsonl", strings.NewReader(tt.in), nil)
			var got []string
			for _, r := range runs {
				got = append(got, runSummary(r))
				checkRun(t, r)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.runs) {
				t.Errorf("runs %v, want %v (problems %v)", got, tt.runs, probs)
			}
			if len(runs) > 0 && runs[0].MaxCycles != tt.maxCycles {
				t.Errorf("max cycles %d, want %d", runs[0].MaxCycles, tt.maxCycles)
			}
			inputtest.Problems(t, probs, tt.problems)
			for _, n := range notes {
				if n.What == "beads: beads without cycle comments (not runs)" && n.Count != 0 {
					t.Errorf("note %v", n)
				}
			}
		})
	}
}

// TestReadFarCommits: a cycle commit stamped centuries from its cycle (the year 1, Go's
// zero time included, as package commits reads it) is reported as too far away, not
// joined (the saturated distance was negative, within the window).
func TestReadFarCommits(t *testing.T) {
	for _, tt := range []struct {
		name   string
		at     time.Time
		joined bool
		away   string // in the problem's detail
	}{
		{"near", time.Date(2026, 2, 24, 10, 4, 30, 0, time.UTC), true, ""},
		{"Go's zero time, as read", time.Time{}.Add(time.Nanosecond), false, "is 106752 days away"},
		{"the year 1700", time.Date(1700, 1, 1, 0, 0, 0, 0, time.UTC), false, "is 106752 days away"},
		{"the year 2400", time.Date(2400, 1, 1, 0, 0, 0, 0, time.UTC), false, "is 106752 days away"},
		{"a day ahead", time.Date(2026, 2, 25, 10, 4, 30, 0, time.UTC), false, "is 23h59m30s away"},
		{"three days ahead", time.Date(2026, 2, 27, 10, 4, 30, 0, time.UTC), false, "is 3 days away"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			jc := join.New()
			jc.AddCommit(join.Commit{SHA: strings.Repeat("a", 40), BeadID: "q-1", Cycle: 1, Time: tt.at, LintFix: true, File: "c.tsv", Line: 1})
			jc.Finish()
			in := line("q-1", "2026-02-24T10:00:00Z", "open", "", c{"2026-02-24T10:05:00Z", coder(1)}, c{"2026-02-24T10:06:00Z", reviewer(1)})
			runs, probs, _ := Read("issues.jsonl", strings.NewReader(in), jc)
			if len(runs) != 1 {
				t.Fatalf("runs %v", runs)
			}
			if got := runs[0].Cycles[0].LintFixCalls == 1; got != tt.joined {
				t.Errorf("joined %v, want %v (problems %v)", got, tt.joined, probs)
			}
			if tt.joined != (len(probs) == 0) || !tt.joined && (probs[0].Kind != input.ProblemUnmatched || !strings.Contains(probs[0].Detail, tt.away+" from cycle 1")) {
				t.Errorf("problems %v", probs)
			}
		})
	}
}

// TestReadFarCreation: a run's bead created more than a year from its comments is
// reported at its line and kept as written (its run's task_created_at); one created
// within a year of them, or at the far-off time its comments share, is not reported.
func TestReadFarCreation(t *testing.T) {
	comments := []c{{"2026-02-24T10:05:00Z", coder(1)}, {"2026-02-24T10:06:00Z", reviewer(1)}, {"2026-02-24T10:07:00Z", report}}
	for _, tt := range []struct {
		name, created string
		problems      []string
	}{
		{"the year 1", "0001-01-01T00:00:01Z", []string{"1:invalid_record bead q-1: created_at 0001-01-01T00:00:01Z is more than a year from the bead's comments (a clock fault in one or the other); kept as written"}},
		{"Go's zero time", "0001-01-01T00:00:00Z", []string{"1:invalid_record bead q-1: created_at 0001-01-01T00:00:00Z is more than a year"}},
		{"2099", "2099-02-24T10:00:00Z", []string{"1:invalid_record bead q-1: created_at 2099-02-24T10:00:00Z is more than a year"}},
		{"eleven months before", "2025-03-24T10:00:00Z", nil},
		{"the same day", "2026-02-24T10:00:00Z", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			runs, probs, _ := Read("issues.jsonl", strings.NewReader(line("q-1", tt.created, "closed", "", comments...)), nil)
			inputtest.Problems(t, probs, tt.problems)
			parsed, _ := time.Parse(time.RFC3339, tt.created)
			want := clockfault.Recorded(parsed) // Go's zero time a nanosecond later, as every reader takes it
			if len(runs) != 1 || runSummary(runs[0]) != "q-1#1 approved 1 [0]" || !runs[0].TaskCreatedAt.Equal(want) {
				t.Fatalf("runs %v, want one approved run created at %s", runs, tt.created)
			}
			checkRun(t, runs[0])
		})
	}
}

// TestReadFarFinding: a review-finding child created more than a year after its
// parent's last reviewer comment is reported as a clock fault and joins that comment's
// cycle; one created before any is dropped, as before; one between or shortly after
// joins quietly.
func TestReadFarFinding(t *testing.T) {
	parent := line("q-1", "2026-02-24T10:00:00Z", "closed", "",
		c{"2026-02-24T10:05:00Z", coder(1)}, c{"2026-02-24T10:06:00Z", reviewer(1)},
		c{"2026-02-24T10:15:00Z", coder(2)}, c{"2026-02-24T10:16:00Z", reviewer(2)}, c{"2026-02-24T10:17:00Z", report})
	for _, tt := range []struct {
		name, created string
		findings      string // per cycle
		problems      []string
	}{
		{"2099", "2099-02-24T10:00:00Z", "[0 1]", []string{
			"2:invalid_record review-finding bead q-1.1 was created at 2099-02-24T10:00:00Z, more than a year after the last reviewer comment of its parent q-1 (a clock fault); joins that comment's cycle 2, kept",
			"2:invalid_record review-finding bead q-1.1 joins cycle 2 of q-1, which the reviewer approved; kept"}},
		{"eleven months after", "2027-01-24T10:00:00Z", "[0 1]", []string{
			"2:invalid_record review-finding bead q-1.1 joins cycle 2 of q-1, which the reviewer approved; kept"}},
		{"between the reviews", "2026-02-24T10:07:00Z", "[1 0]", nil},
		{"the year 1", "0001-01-01T00:00:01Z", "[0 0]", []string{
			"2:unmatched review-finding bead q-1.1 was created at 0001-01-01T00:00:01Z, before any reviewer comment of its parent q-1; finding dropped"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			runs, probs, _ := Read("issues.jsonl", strings.NewReader(parent+child("q-1.1", "q-1", tt.created, "[major] x", "x")), nil)
			inputtest.Problems(t, probs, tt.problems)
			if len(runs) != 1 || runSummary(runs[0]) != "q-1#1 approved 2 "+tt.findings {
				t.Fatalf("runs %v, want one approved run of 2 cycles with findings %s", runs, tt.findings)
			}
			checkRun(t, runs[0])
		})
	}
}
