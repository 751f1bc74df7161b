package eval

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopwatch/loopwatch/internal/corpus"

	"github.com/loopwatch/loopwatch/analyze"
)

// sessionCSV is shaped like the Claude Code corpus's labels.csv.
const sessionCSV = `session_id,file,outcome,confidence,human_msgs,friction_uuids,notes
s-1,a/s-1.jsonl,success,medium,18,u-4;u-9; u-12 ,"Done, and accepted."
s-2,a/s-2.jsonl,abandoned,high,5,,"Stops mid-run; ""no"" acceptance."
s-3,a/s-3.jsonl,none,high,0,,Summary-only file.
s-4,a/s-4.jsonl,partial,low,2,u-1,Settled for less.
s-5,a/s-5.jsonl,failure,high,x,,Bad count.
s-6,a/s-6.jsonl,exploded,high,1,,Unknown outcome.
`

func TestReadSessionLabels(t *testing.T) {
	tests := []struct {
		name  string
		class string // "" for the default
		want  map[string]Label
	}{
		{"default: failure and abandoned positive", "",
			map[string]Label{"s-1": Negative, "s-2": Positive, "s-3": Excluded, "s-4": Negative, "s-5": Positive}},
		{"partial counts as positive too", "failure, abandoned,partial",
			map[string]Label{"s-1": Negative, "s-2": Positive, "s-3": Excluded, "s-4": Positive, "s-5": Positive}},
		{"only failure", "FAILURE",
			map[string]Label{"s-1": Negative, "s-2": Negative, "s-3": Excluded, "s-4": Negative, "s-5": Positive}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var opts LabelOptions
			if tt.class != "" {
				c, err := ParseOutcomeClass(tt.class)
				if err != nil {
					t.Fatal(err)
				}
				opts.Outcomes = c
			}
			ls, probs, err := ReadLabelsWith(strings.NewReader(sessionCSV), opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprint(probs); len(probs) != 2 || probs[0].Line != 6 || !strings.Contains(probs[0].Detail, "human_msgs") ||
				probs[1].Line != 7 || !strings.Contains(probs[1].Detail, "not a session outcome") {
				t.Errorf("problems %s", got)
			}
			if ls.Len() != len(tt.want) {
				t.Errorf("%d labels, want %d: %v", ls.Len(), len(tt.want), ls.Keys())
			}
			for k, w := range tt.want {
				if r, _ := ls.Get(k); r.Label != w {
					t.Errorf("%s: %s, want %s", k, r.Label, w)
				}
			}
			if ls.Outcomes.String() != opts.Outcomes.String() {
				t.Errorf("class %s kept, want %s", ls.Outcomes, opts.Outcomes)
			}
		})
	}

	ls, _, _ := ReadLabels(strings.NewReader(sessionCSV))
	r, _ := ls.Get("s-1")
	if r.Outcome != "success" || r.Confidence != "medium" || r.HumanMsgs != 18 || r.Path != "a/s-1.jsonl" ||
		r.Notes != "Done, and accepted." || r.Source != SourceHuman || r.Line != 2 ||
		r.Rule != "outcome success; positive outcomes: failure,abandoned" {
		t.Errorf("record %+v", r)
	}
	if got := fmt.Sprint(ls.Moments("s-1")); got != "[u-4 u-9 u-12]" {
		t.Errorf("moments %s", got)
	}
	if ls.Moments("s-2") != nil || ls.Moments("nobody") != nil {
		t.Error("moments where none are labelled")
	}
	if r, _ := ls.Get("s-5"); r.HumanMsgs != -1 {
		t.Errorf("a bad count should read as -1: %+v", r)
	}
	if fmt.Sprint(ls.Keys()) != "[s-1 s-2 s-3 s-4 s-5]" {
		t.Errorf("keys %v", ls.Keys())
	}
}

// TestReadLabelsNoText: NoText leaves out a record's notes and file and nothing else,
// from CSV and JSON Lines alike.
func TestReadLabelsNoText(t *testing.T) {
	jsonLines := `{"session_id":"s-1","outcome":"success","confidence":"medium","human_msgs":18,"file":"a/s-1.jsonl","notes":"Done.","friction_uuids":["u-4","u-9"]}` + "\n"
	for _, tt := range []struct{ name, in string }{{"csv", sessionCSV}, {"jsonl", jsonLines}} {
		t.Run(tt.name, func(t *testing.T) {
			full, _, err := ReadLabels(strings.NewReader(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			lean, _, err := ReadLabelsWith(strings.NewReader(tt.in), LabelOptions{NoText: true})
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(full.Keys()) != fmt.Sprint(lean.Keys()) {
				t.Fatalf("keys %v, want %v", lean.Keys(), full.Keys())
			}
			for _, k := range full.Keys() {
				want, _ := full.Get(k)
				got, _ := lean.Get(k)
				if got.Notes != "" || got.Path != "" {
					t.Errorf("%s: notes %q and file %q kept", k, got.Notes, got.Path)
				}
				want.Notes, want.Path = "", ""
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("%s: %+v, want %+v", k, got, want)
				}
			}
			if r, _ := full.Get("s-1"); r.Notes == "" || r.Path == "" {
				t.Errorf("without NoText the notes and file are kept: %+v", r)
			}
		})
	}
}

func TestReadSessionLabelsMoments(t *testing.T) {
	in := "session_id,outcome,friction_uuids,friction_times,moments\n" +
		"s-1,failure,u-1,2026-03-01T10:00:00+01:00;yesterday,u-2;2026-03-01T11:00:00Z\n"
	ls, probs, err := ReadLabels(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(probs) != 1 || !strings.Contains(probs[0].Detail, `"yesterday"`) {
		t.Errorf("problems %v", probs)
	}
	var got []string
	for _, m := range ls.Moments("s-1") {
		got = append(got, m.String())
	}
	if fmt.Sprint(got) != "[u-1 2026-03-01T09:00:00Z u-2 2026-03-01T11:00:00Z]" {
		t.Errorf("moments %v", got)
	}

	jsonl := `{"session_id":"s-1","outcome":"abandoned","human_msgs":3,"friction_uuids":["u-1","u-2"],"confidence":"low"}` + "\n" +
		`{"session_id":"s-2","outcome":"success","human_msgs":"4","friction_uuids":"u-3;u-4","moments":["2026-03-01T11:00:00Z"]}` + "\n" +
		`{"session_id":"s-3","outcome":"none","friction_uuids":7}` + "\n" +
		`{"run_key":"q-1","label":"positive"}`
	ls, probs, err = ReadLabels(strings.NewReader(jsonl))
	if err != nil {
		t.Fatal(err)
	}
	if len(probs) != 1 || probs[0].Line != 3 {
		t.Errorf("problems %v", probs)
	}
	r1, _ := ls.Get("s-1")
	r2, _ := ls.Get("s-2")
	rq, _ := ls.Get("q-1")
	if r1.Label != Positive || r1.HumanMsgs != 3 || r1.Confidence != "low" || len(r1.Moments) != 2 ||
		r2.Label != Negative || r2.HumanMsgs != 4 || len(r2.Moments) != 3 || rq.Label != Positive || rq.HumanMsgs != -1 {
		t.Errorf("records %+v %+v %+v", r1, r2, rq)
	}
}

func TestOutcomeClass(t *testing.T) {
	var zero OutcomeClass
	def := DefaultOutcomeClass()
	for _, c := range []OutcomeClass{zero, def} {
		if c.String() != "failure,abandoned" {
			t.Errorf("default class %s", c)
		}
	}
	tests := []struct {
		outcome string
		want    Label
	}{
		{"success", Negative}, {"partial", Negative}, {" Failure ", Positive}, {"abandoned", Positive},
		{"none", Excluded}, {"NONE", Excluded}, {"approved", Unlabelled}, {"", Unlabelled},
	}
	for _, tt := range tests {
		if got := zero.Label(tt.outcome); got != tt.want {
			t.Errorf("Label(%q) = %q, want %q", tt.outcome, got, tt.want)
		}
	}
	for _, bad := range []string{"", "none", "failure,none", "great", "success,partial,failure,abandoned", " , "} {
		if _, err := ParseOutcomeClass(bad); err == nil {
			t.Errorf("ParseOutcomeClass(%q) accepted", bad)
		}
	}
	c, err := ParseOutcomeClass("abandoned,partial,abandoned")
	if err != nil || c.String() != "partial,abandoned" || fmt.Sprint(c.Positive()) != "[partial abandoned]" {
		t.Errorf("class %v %v", c, err)
	}
	if !IsSessionOutcome(" Partial") || IsSessionOutcome("approved") || len(SessionOutcomes()) != 5 {
		t.Error("session outcomes")
	}
}

func TestMomentFind(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	evs := []analyze.Event{
		{ID: "a", Time: t0}, {ID: "b", Time: t0.Add(time.Second)}, {ID: "b", Time: t0.Add(time.Second)}, {ID: "c", Time: t0.Add(3 * time.Second)},
	}
	tests := []struct {
		m    Moment
		want int
	}{
		{Moment{ID: "b"}, 1}, {Moment{ID: "z"}, -1},
		{Moment{Time: t0.Add(2 * time.Second)}, 3}, {Moment{Time: t0.Add(-time.Hour)}, 0}, {Moment{Time: t0.Add(time.Hour)}, -1},
	}
	for _, tt := range tests {
		if got := tt.m.Find(evs); got != tt.want {
			t.Errorf("%v.Find = %d, want %d", tt.m, got, tt.want)
		}
	}
}

// TestCorpusLabels reads the shared Claude Code corpus's labels.csv as it is.
func TestCorpusLabels(t *testing.T) {
	path := corpusLabelsPath(t)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ls, probs, err := ReadLabels(f)
	if err != nil || len(probs) != 0 {
		t.Fatalf("err %v, problems %v", err, probs)
	}
	counts := map[Label]int{}
	moments, humans := 0, 0
	for _, k := range ls.Keys() {
		r, _ := ls.Get(k)
		counts[r.Label]++
		moments += len(r.Moments)
		humans += r.HumanMsgs
		if r.HumanMsgs < 0 || r.Path == "" || r.Confidence == "" || r.Notes == "" {
			t.Errorf("%s: incomplete record %+v", k, r)
		}
	}
	if ls.Len() != 73 || counts[Positive] != 5 || counts[Negative] != 67 || counts[Excluded] != 1 || moments != 52 || humans != 480 {
		t.Errorf("%d labels %v, %d moments, %d human messages", ls.Len(), counts, moments, humans)
	}
	if r, _ := ls.Get("ff71dbed-a4f2-4284-a4fc-fe2fb90de929"); r.Label != Excluded || r.Outcome != "none" {
		t.Errorf("summary-only session: %+v", r)
	}
	if got := ls.Moments("d6e0bada-1959-4eec-a9d2-0bfade768d8f"); len(got) != 1 || got[0].ID != "f643538d-cf06-4b9a-9bb0-9ae5c26ea07a" {
		t.Errorf("moments %v", got)
	}
}

// corpusLabelsPath returns the corpus's labels.csv: under $LOOPWATCH_CORPORA, or
// ../shared/corpora beside the module root (the folder holding go.mod); it skips the
// test when there is none.
func corpusLabelsPath(t *testing.T) string {
	t.Helper()
	dir, err := corpus.Dir("claude-code")
	if err != nil {
		t.Skip(err)
	}
	return filepath.Join(dir, "labels.csv")
}

// TestLabelsSet: a record set into Labels reads back as it was set, every field,
// after other keys are added and when its key is set again (its moments, notes and
// file replaced, not mixed with the earlier record's).
func TestLabelsSet(t *testing.T) {
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	full := LabelRecord{Key: "s-1", Label: Positive, Outcome: "failure", Source: SourceModel, Rule: "r", Line: 7,
		Confidence: "high", HumanMsgs: 3, Moments: []Moment{{ID: "u-1"}, {Time: at}}, Path: "a/s-1.jsonl", Notes: "why"}
	bare := LabelRecord{Key: "s-1", Label: Negative, Line: 9, HumanMsgs: -1}
	other := LabelRecord{Key: "r-2", Label: Excluded, Source: SourceHuman, Moments: []Moment{{ID: "u-2"}}, HumanMsgs: -1}
	for _, tt := range []struct {
		name string
		set  []LabelRecord
		want map[string]LabelRecord
	}{
		{"one", []LabelRecord{full}, map[string]LabelRecord{"s-1": full}},
		{"two", []LabelRecord{full, other}, map[string]LabelRecord{"s-1": full, "r-2": other}},
		{"replaced by a bare record", []LabelRecord{full, other, bare}, map[string]LabelRecord{"s-1": bare, "r-2": other}},
		{"replacing a bare record", []LabelRecord{bare, other, full}, map[string]LabelRecord{"s-1": full, "r-2": other}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ls := NewLabels()
			for _, r := range tt.set {
				ls.Set(r)
			}
			if ls.Len() != len(tt.want) {
				t.Errorf("Len %d, want %d", ls.Len(), len(tt.want))
			}
			seen := map[int]bool{}
			for k, want := range tt.want {
				got, ok := ls.Get(k)
				if !ok || fmt.Sprintf("%#v", got) != fmt.Sprintf("%#v", want) {
					t.Errorf("Get(%s) = %#v, %v; want %#v", k, got, ok, want)
				}
				i, ok := ls.Index(k)
				if !ok || i < 0 || i >= ls.Len() || seen[i] {
					t.Errorf("Index(%s) = %d, %v: not a position of its own below %d", k, i, ok, ls.Len())
				}
				seen[i] = true
			}
			if _, ok := ls.Get("none"); ok {
				t.Error("Get of a key never set found a record")
			}
			if _, ok := ls.Index("none"); ok {
				t.Error("Index of a key never set found one")
			}
		})
	}
}
