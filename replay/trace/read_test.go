package trace

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/loopwatch/loopwatch/analyze"
	"github.com/loopwatch/loopwatch/replay/input"
	"github.com/loopwatch/loopwatch/replay/input/inputtest"
)

func ev(ts, kind, epoch, task, data string) string {
	return fmt.Sprintf(`{"ts":%q,"kind":%q,"epoch":%q,"task":%q,"data":%s}`, ts, kind, epoch, task, data) + "\n"
}

func cyc(n int, cost float64, check string, approved bool, findings ...string) string {
	var fs []string
	for _, f := range findings {
		fs = append(fs, fmt.Sprintf(`{"severity":"major","description":%q}`, f))
	}
	return fmt.Sprintf(`{"cycle":%d,"max_cycles":5,"total_cost_usd":%v,"max_budget_usd":10,"filter_check_name":%q,"findings":[%s],"approved":%v}`,
		n, cost, check, strings.Join(fs, ","), approved)
}

func TestRead(t *testing.T) {
	good := ev("2026-03-01T10:00:00Z", "task_start", "e1", "q-1", `{"title":"Add X","phase":"p1","max_cycles":3,"max_budget_usd":6}`) +
		ev("2026-03-01T10:05:00Z", "agent_done", "e1", "q-1", `{"cycle":1,"role":"coder","cost_usd":0.5}`) +
		ev("2026-03-01T10:06:00Z", "filter_result", "e1", "q-1", `{"cycle":1,"check":"build","passed":false,"output":"x.go:1:1: boom"}`) +
		ev("2026-03-01T10:07:00Z", "cycle_done", "e1", "q-1", cyc(1, 0.5, "build", false, "the build fails")) +
		ev("2026-03-01T11:20:00+01:00", "cycle_done", "e1", "q-1", cyc(2, 1.25, "", true)) +
		ev("2026-03-01T10:21:00Z", "task_state", "e1", "q-1", `{"outcome":"approved"}`)

	tests := []struct {
		name     string
		in       string
		keys     []string
		outcome  []input.Outcome
		cycles   []int
		problems []string // "line:kind" in order
	}{
		{name: "a complete run", in: good, keys: []string{"q-1@e1"}, outcome: []input.Outcome{"approved"}, cycles: []int{2}},
		{name: "runs are split by task and epoch and sorted by key",
			in: ev("2026-03-01T10:00:00Z", "cycle_done", "e2", "q-2", cyc(1, 1, "", false)) +
				ev("2026-03-01T10:00:00Z", "cycle_done", "", "q-1", cyc(1, 1, "", false)) +
				ev("2026-03-01T10:00:00Z", "cycle_done", "e1", "q-2", cyc(1, 1, "", false)),
			keys: []string{"q-1", "q-2@e1", "q-2@e2"}, outcome: []input.Outcome{"incomplete", "incomplete", "incomplete"}, cycles: []int{1, 1, 1}},
		{name: "bad lines are reported and skipped",
			in: "not json\n" + ev("2026-03-01T10:00:00Z", "mystery", "", "q-1", `{}`) +
				`{"ts":"yesterday","kind":"cycle_done","task":"q-1","data":{}}` + "\n" +
				`{"kind":"cycle_done","data":{}}` + "\n" +
				ev("2026-03-01T10:00:00Z", "cycle_done", "", "q-1", `{"cycle":"one"}`) +
				ev("2026-03-01T10:00:00Z", "cycle_done", "", "q-1", cyc(1, 1, "", false)) +
				"\n   \n" +
				`{"ts":"2026-03-01T10:00:00Z","kind":"cycle_done","task":"q-1","data":{"cyc`,
			keys: []string{"q-1"}, outcome: []input.Outcome{"incomplete"}, cycles: []int{1},
			problems: []string{"1:malformed_line", "2:unknown_kind", "3:invalid_record", "4:invalid_record", "5:invalid_record", "5:invalid_record", "9:truncated_line"}},
		{name: "a run without cycles is unusable",
			in:   ev("2026-03-01T10:00:00Z", "agent_done", "", "q-1", `{"cycle":1,"role":"coder","cost_usd":1}`),
			keys: nil, problems: []string{"1:unusable_run"}},
		{name: "a gap drops the later cycles, a repeat keeps the first",
			in: ev("2026-03-01T10:00:00Z", "cycle_done", "", "q-1", cyc(1, 1, "", false)) +
				ev("2026-03-01T10:01:00Z", "cycle_done", "", "q-1", cyc(1, 9, "", false)) +
				ev("2026-03-01T10:02:00Z", "cycle_done", "", "q-1", cyc(3, 3, "", false)),
			keys: []string{"q-1"}, outcome: []input.Outcome{"incomplete"}, cycles: []int{1},
			problems: []string{"2:invalid_record", "3:invalid_record"}},
		{name: "a falling cumulative cost is reported but kept",
			in: ev("2026-03-01T10:00:00Z", "cycle_done", "", "q-1", cyc(1, 2, "", false)) +
				ev("2026-03-01T10:01:00Z", "cycle_done", "", "q-1", cyc(2, 1, "", false)),
			keys: []string{"q-1"}, outcome: []input.Outcome{"incomplete"}, cycles: []int{2}, problems: []string{"2:invalid_record"}},
		{name: "a severity or status quasar never writes is reported, the finding read as major and found",
			in: ev("2026-03-01T10:00:00Z", "cycle_done", "", "q-1",
				`{"cycle":1,"total_cost_usd":1,"findings":[{"severity":"blocker","description":"x"},{"severity":"minor","status":"wontfix","description":"y"},{"severity":"critical","status":"fixed","description":"z"}]}`),
			keys: []string{"q-1"}, outcome: []input.Outcome{"incomplete"}, cycles: []int{1}, problems: []string{"1:invalid_record", "1:invalid_record"}},
		{name: "invalid UTF-8 is reported and the line is kept",
			in: ev("2026-03-01T10:00:00Z", "cycle_done", "", "q-1",
				`{"cycle":1,"total_cost_usd":1,"findings":[{"description":"bad `+"\xff"+` byte"}]}`),
			keys: []string{"q-1"}, outcome: []input.Outcome{"incomplete"}, cycles: []int{1}, problems: []string{"1:invalid_utf8"}},
		{name: "an unknown outcome is reported and the run stays incomplete; an approved last cycle without task_state is approved",
			in: ev("2026-03-01T10:00:00Z", "cycle_done", "", "q-1", cyc(1, 1, "", false)) +
				ev("2026-03-01T10:00:00Z", "task_state", "", "q-1", `{"outcome":"exploded"}`) +
				ev("2026-03-01T10:00:00Z", "cycle_done", "", "q-2", cyc(1, 1, "", true)),
			keys: []string{"q-1", "q-2"}, outcome: []input.Outcome{"incomplete", "approved"}, cycles: []int{1, 1}, problems: []string{"2:invalid_record"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runs, probs := Read("t.jsonl", strings.NewReader(tt.in))
			var keys []string
			for i, r := range runs {
				keys = append(keys, r.Key)
				if i < len(tt.outcome) && r.Outcome != tt.outcome[i] {
					t.Errorf("run %s outcome %q, want %q", r.Key, r.Outcome, tt.outcome[i])
				}
				if i < len(tt.cycles) && len(r.Cycles) != tt.cycles[i] {
					t.Errorf("run %s has %d cycles, want %d", r.Key, len(r.Cycles), tt.cycles[i])
				}
			}
			if fmt.Sprint(keys) != fmt.Sprint(tt.keys) {
				t.Errorf("keys %v, want %v", keys, tt.keys)
			}
			// A run holds fewer cycles than it went through exactly where the reader
			// dropped some after a gap.
			for _, r := range runs {
				if gap := strings.Contains(tt.name, "a gap drops"); r.CyclesDropped != gap {
					t.Errorf("run %s: CyclesDropped %v, want %v", r.Key, r.CyclesDropped, gap)
				}
			}
			var got []string
			for _, p := range probs {
				if p.File != "t.jsonl" || p.Detail == "" {
					t.Errorf("problem without file or detail: %+v", p)
				}
				got = append(got, fmt.Sprintf("%d:%s", p.Line, p.Kind))
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.problems) {
				t.Errorf("problems %v, want %v\n%v", got, tt.problems, probs)
			}
		})
	}
}

// TestReadOnly: reading only some runs gives those runs exactly as Read gives them, and
// the problems of every line as such, but not what is wrong with the other runs' data.
func TestReadOnly(t *testing.T) {
	in := ev("2026-03-01T10:00:00Z", "task_start", "e1", "q-a", `{"title":"A","max_cycles":3}`) +
		ev("2026-03-01T10:01:00Z", "cycle_done", "", "q-b", `{"cycle":"one"}`) +
		"not json\n" +
		ev("2026-03-01T10:02:00Z", "cycle_done", "", "q-b", cyc(1, 1, "", false)) +
		ev("2026-03-01T10:03:00Z", "cycle_done", "e1", "q-a", cyc(1, 2, "build", false, "it fails")) +
		ev("2026-03-01T10:04:00Z", "agent_done", "", "q-c", `{"cycle":1,"role":"coder","cost_usd":1}`) +
		ev("2026-03-01T10:05:00Z", "mystery", "", "q-b", `{}`) +
		ev("2026-03-01T10:06:00Z", "cycle_done", "e1", "q-a", cyc(2, 3, "", true))
	all, allProbs := Read("t.jsonl", strings.NewReader(in))
	if len(all) != 2 || len(allProbs) != 5 { // q-c has no cycle: unusable
		t.Fatalf("the input lacks variety: %d runs, problems %v", len(all), allProbs)
	}
	for _, tt := range []struct {
		keep     []string
		runs     []string
		problems []string // "line:kind"
	}{
		{nil, []string{"q-a@e1", "q-b"}, []string{"2:invalid_record", "2:invalid_record", "3:malformed_line", "6:unusable_run", "7:unknown_kind"}},
		{[]string{"q-a@e1"}, []string{"q-a@e1"}, []string{"3:malformed_line", "7:unknown_kind"}},
		{[]string{"q-b"}, []string{"q-b"}, []string{"2:invalid_record", "2:invalid_record", "3:malformed_line", "7:unknown_kind"}},
		{[]string{"q-c"}, nil, []string{"3:malformed_line", "6:unusable_run", "7:unknown_kind"}},
		{[]string{}, nil, []string{"3:malformed_line", "7:unknown_kind"}},
	} {
		var keep func(string) bool
		if tt.keep != nil {
			keep = func(k string) bool { return slices.Contains(tt.keep, k) }
		}
		runs, probs := ReadOnly("t.jsonl", strings.NewReader(in), keep)
		var keys []string
		for _, r := range runs {
			keys = append(keys, r.Key)
			i := slices.IndexFunc(all, func(a *input.Run) bool { return a.Key == r.Key })
			if i < 0 || !reflect.DeepEqual(r, all[i]) {
				t.Errorf("keep %v: run %s is not Read's", tt.keep, r.Key)
			}
		}
		var got []string
		for _, p := range probs {
			got = append(got, fmt.Sprintf("%d:%s", p.Line, p.Kind))
		}
		if fmt.Sprint(keys) != fmt.Sprint(tt.runs) || fmt.Sprint(got) != fmt.Sprint(tt.problems) {
			t.Errorf("keep %v: runs %v, problems %v; want %v, %v", tt.keep, keys, got, tt.runs, tt.problems)
		}
	}
}

func TestReadFields(t *testing.T) {
	in := ev("2026-03-01T10:00:00Z", "task_start", "e1", "q-1", `{"title":"Add X","phase":"p1","max_cycles":3,"max_budget_usd":6}`) +
		ev("2026-03-01T10:05:00Z", "agent_done", "e1", "q-1", `{"cycle":1,"role":"coder","cost_usd":0.5,"duration_ms":1200,"tokens":900}`) +
		ev("2026-03-01T10:06:00Z", "filter_result", "e1", "q-1", `{"cycle":1,"check":"build","passed":false}`) +
		ev("2026-03-01T10:07:00Z", "cycle_done", "e1", "q-1", `{"cycle":1,"total_cost_usd":0.5,"filter_check_name":"build","filter_output":"x.go:1:1: boom","findings":[{"description":"  the build fails "},{"id":"f-given","severity":"minor","description":"nit","status":"fixed"}],"lint_fix_calls":1}`) +
		ev("2026-03-01T12:20:00+01:00", "task_state", "e1", "q-1", `{"outcome":"max_cycles","reason":" limit "}`)
	runs, probs := Read("dir/t.jsonl", strings.NewReader(in))
	if len(probs) != 0 || len(runs) != 1 {
		t.Fatalf("runs %d, problems %v", len(runs), probs)
	}
	r := runs[0]
	if r.Title != "Add X" || r.Phase != "p1" || r.MaxCycles != 3 || r.MaxBudgetUSD != 6 || r.File != "dir/t.jsonl" || r.Line != 1 {
		t.Errorf("run fields: %+v", r)
	}
	if r.Outcome != input.OutcomeMaxCycles || r.Reason != "limit" || !r.FilterKnown || r.CostSource != input.CostMeasured {
		t.Errorf("outcome fields: %+v", r)
	}
	if got := r.End.Format("15:04Z07:00"); got != "11:20Z" {
		t.Errorf("End %s not the latest event in UTC", got)
	}
	c := r.Cycles[0]
	if c.FilterCheckName != "build" || c.FilterOutput == "" || c.LintFixCalls != 1 || len(c.Findings) != 2 {
		t.Fatalf("cycle: %+v", c)
	}
	f0, f1 := c.Findings[0], c.Findings[1]
	if f0.ID != analyze.FindingID(analyze.SeverityMajor, "the build fails") || f0.Severity != analyze.SeverityMajor || f0.Cycle != 1 || f0.Status != analyze.StatusFound {
		t.Errorf("finding 0: %+v", f0)
	}
	if f1.ID != "f-given" || f1.Severity != analyze.SeverityMinor || f1.Status != analyze.StatusFixed {
		t.Errorf("finding 1: %+v", f1)
	}
	if len(r.Calls) != 1 || r.Calls[0].Tokens != 900 || len(r.Checks) != 1 || r.Checks[0].Check != "build" {
		t.Errorf("calls %+v checks %+v", r.Calls, r.Checks)
	}
}

func TestSniff(t *testing.T) {
	tests := []struct {
		head string
		want bool
	}{
		{ev("2026-03-01T10:00:00Z", "cycle_done", "", "q", "{}"), true},
		{`{"ts":"2026-03-01T10:00:00Z","kind":"agent_done","task":"q","data":{"cycle":1,` /* cut */, true},
		{`{"ts":"x","kind":"something_else","task":"q"}`, false},
		{`{"type":"user","sessionId":"s"}`, false},
		{`{"id":"quasar-1","title":"t","comments":[]}`, false},
		{"sha\ttime\tsubject\n", false},
	}
	for _, tt := range tests {
		if got := Sniff([]byte(tt.head)); got != tt.want {
			t.Errorf("Sniff(%.40q) = %v, want %v", tt.head, got, tt.want)
		}
	}
}

// FuzzRead checks that no input panics the reader and that every run it returns is
// consistent: cycles numbered 1..n, a valid outcome, a key.
func FuzzRead(f *testing.F) {
	f.Add([]byte(ev("2026-03-01T10:00:00Z", "cycle_done", "e", "q", cyc(1, 1, "test", false, "a b c"))))
	f.Add([]byte(ev("2026-03-01T10:00:00Z", "task_state", "", "q", `{"outcome":"approved"}`) + "{\n\xff"))
	f.Fuzz(func(t *testing.T, in []byte) {
		runs, _ := Read("f", bytes.NewReader(in))
		var even []*input.Run // the runs ReadOnly keeps below
		for _, r := range runs {
			if r.Key == "" || !r.Outcome.Valid() || len(r.Cycles) == 0 {
				t.Fatalf("inconsistent run %+v", r)
			}
			for i, c := range r.Cycles {
				if c.Cycle != i+1 {
					t.Fatalf("run %s: cycle %d at position %d", r.Key, c.Cycle, i)
				}
			}
			if len(r.Key)%2 == 0 {
				even = append(even, r)
			}
		}
		only, _ := ReadOnly("f", bytes.NewReader(in), func(k string) bool { return len(k)%2 == 0 })
		if !reflect.DeepEqual(only, even) && len(only)+len(even) > 0 {
			t.Fatalf("ReadOnly kept %d runs, not Read's %d of those keys", len(only), len(even))
		}
	})
}

// TestReadLosesTheFieldNotTheRun: a wrong-typed field loses that field, not the event,
// its cycle or the cycles after it.
func TestReadLosesTheFieldNotTheRun(t *testing.T) {
	at := func(m int) string { return fmt.Sprintf("2026-03-01T10:%02d:00Z", m) }
	tests := []struct {
		name     string
		in       string
		cycles   []string // cycle:cost
		problems []string // "line:kind" then a substring of the detail, after a space
	}{
		{"a cost written as a string",
			ev(at(1), "cycle_done", "", "q", cyc(1, 1, "", false)) +
				ev(at(2), "cycle_done", "", "q", `{"cycle":2,"total_cost_usd":"1.5","approved":false,"findings":[]}`) +
				ev(at(3), "cycle_done", "", "q", cyc(3, 3, "", false)) +
				ev(at(4), "cycle_done", "", "q", cyc(4, 4, "", false)),
			[]string{"1:1", "2:0", "3:3", "4:4"},
			[]string{"2:invalid_record field total_cost_usd is a JSON string", "2:invalid_record cumulative cost 0"}},
		{"two wrong fields are both named",
			ev(at(1), "cycle_done", "", "q", `{"cycle":1,"total_cost_usd":1,"approved":"no","lint_fix_calls":"2"}`),
			[]string{"1:1"}, []string{"1:invalid_record 2 fields have the wrong JSON type (approved is a JSON string, not a bool; lint_fix_calls is"}},
		{"an unreadable cycle number is taken from its place",
			ev(at(1), "cycle_done", "", "q", cyc(1, 1, "", false)) +
				ev(at(2), "cycle_done", "", "q", `{"cycle":"2","total_cost_usd":2}`) +
				ev(at(3), "cycle_done", "", "q", cyc(3, 3, "", false)),
			[]string{"1:1", "2:2", "3:3"}, []string{"2:invalid_record cycle taken as 2"}},
		{"misspelt fields are named, and read as absent",
			ev(at(1), "cycle_done", "", "q", `{"cycle":1,"total_cost":1.5,"filter_check":"build","aproved":true,"coder_output":"ok","findings":[]}`) +
				ev(at(2), "agent_done", "", "q", `{"cycle":1,"role":"coder","cost_usd":1,"tokns":5}`) +
				ev(at(3), "cycle_done", "", "q", `{"cycle":2,"total_cost_usd":2,"total_cost":1,"cycles":2,"Max_Cycle":3,"findings":[]}`) +
				ev(at(4), "filter_fix_attempt", "", "q", `{"cycle":2,"check":"vet","attempts":1,"passed":false}`) +
				ev(at(5), "task_state", "", "q", `{"outcome":"max_cycles","cycle":2,"total_cost":1.3}`),
			[]string{"1:0", "2:2"}, []string{
				`1:invalid_record payload: field "total_cost" is not the format's (did you mean "total_cost_usd"?), field "filter_check" is not the format's (did you mean "filter_check_name"?), field "aproved" is not the format's (did you mean "approved"?); ignored`,
				`2:invalid_record payload: field "tokns" is not the format's (did you mean "tokens"?); ignored`,
				// Beside total_cost_usd, total_cost is another field; cycles is task_state's.
				`3:invalid_record payload: field "Max_Cycle" is not the format's (did you mean "max_cycles"?); ignored`,
				// attempts is filter_fix_result's, but no field of a filter_fix_attempt.
				`4:invalid_record payload: field "attempts" is not the format's (did you mean "attempt"?); ignored`,
				// cycle is cycle_done's, as a final CycleState carries it.
				`5:invalid_record payload: field "total_cost" is not the format's (did you mean "total_cost_usd"?); ignored`}},
		{"two events on one line",
			strings.TrimSuffix(ev(at(1), "cycle_done", "", "q", cyc(1, 1, "", false)), "\n") + ev(at(2), "cycle_done", "", "q", cyc(2, 2, "", false)),
			[]string{"1:1", "2:2"}, []string{"1:malformed_line 2 records on one line"}},
		{"a cut-off event runs into the next one",
			ev(at(1), "cycle_done", "", "q", cyc(1, 1, "", false)) +
				`{"ts":"2026-03-01T10:02:00Z","kind":"cycle_done","task":"q","data":{"filter_output":"x.go:1: un` +
				ev(at(2), "cycle_done", "", "q", cyc(2, 2, "", false)),
			[]string{"1:1", "2:2"}, []string{"2:malformed_line cut-off record run together with 1 complete record"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runs, probs := Read("t.jsonl", strings.NewReader(tt.in))
			var cycles []string
			for _, r := range runs {
				for _, c := range r.Cycles {
					cycles = append(cycles, fmt.Sprintf("%d:%g", c.Cycle, c.TotalCostUSD))
				}
			}
			if fmt.Sprint(cycles) != fmt.Sprint(tt.cycles) {
				t.Errorf("cycles %v, want %v (problems %v)", cycles, tt.cycles, probs)
			}
			inputtest.Problems(t, probs, tt.problems)
		})
	}
}

// TestReadClockFaults: the event whose ts is off is reported and placed among its
// neighbours; its neighbours keep their times.
func TestReadClockFaults(t *testing.T) {
	at := func(d string) string { return "2026-03-0" + d + "Z" }
	tests := []struct {
		name     string
		in       string
		problems []string // line:kind
		start    string
		end      string
		times    []string // cycle end times, 15:04 on the day
		detail   string   // in the first problem's detail, when given
	}{
		{"a cycle logged days before its neighbours",
			ev(at("5T10:00:00"), "cycle_done", "", "q", cyc(1, 1, "", false)) +
				ev(at("5T10:10:00"), "cycle_done", "", "q", cyc(2, 2, "", false)) +
				ev(at("2T10:20:00"), "cycle_done", "", "q", cyc(3, 3, "", false)) +
				ev(at("5T10:30:00"), "cycle_done", "", "q", cyc(4, 4, "", false)),
			[]string{"3:invalid_record"}, "05 10:00", "05 10:30", []string{"05 10:00", "05 10:10", "05 10:10", "05 10:30"}, ""},
		{"one event 70 years ahead",
			ev(at("5T10:00:00"), "agent_done", "", "q", `{"cycle":1,"role":"coder","cost_usd":1}`) +
				ev("2096-03-09T23:59:00Z", "cycle_done", "", "q", cyc(1, 1, "", false)) +
				ev(at("5T10:10:00"), "cycle_done", "", "q", cyc(2, 2, "", false)) +
				ev(at("5T10:20:00"), "cycle_done", "", "q", cyc(3, 3, "", false)),
			[]string{"2:invalid_record"}, "05 10:00", "05 10:20", []string{"05 10:00", "05 10:10", "05 10:20"}, ""},
		{"in order: nothing to report",
			ev(at("5T10:00:00"), "cycle_done", "", "q", cyc(1, 1, "", false)) +
				ev(at("7T10:00:00"), "cycle_done", "", "q", cyc(2, 2, "", false)),
			nil, "05 10:00", "07 10:00", []string{"05 10:00", "07 10:00"}, ""},
		// Go's zero time is a time like any other here, not "no time": it is the same
		// clock fault as a second later.
		{"an agent_done at the zero time",
			ev(at("2T14:00:00"), "task_start", "", "q", `{"max_cycles":3,"max_budget_usd":5}`) +
				ev("0001-01-01T00:00:00Z", "agent_done", "", "q", `{"cycle":1,"role":"coder","cost_usd":0.5}`) +
				ev(at("2T14:05:20"), "cycle_done", "", "q", cyc(1, 0.5, "", true)),
			[]string{"2:invalid_record"}, "02 14:00", "02 14:05", []string{"02 14:05"}, "ts 0001-01-01T00:00:00Z is 106752 days behind"},
		{"an agent_done a second after the zero time",
			ev(at("2T14:00:00"), "task_start", "", "q", `{"max_cycles":3,"max_budget_usd":5}`) +
				ev("0001-01-01T00:00:01Z", "agent_done", "", "q", `{"cycle":1,"role":"coder","cost_usd":0.5}`) +
				ev(at("2T14:05:20"), "cycle_done", "", "q", cyc(1, 0.5, "", true)),
			[]string{"2:invalid_record"}, "02 14:00", "02 14:05", []string{"02 14:05"}, "ts 0001-01-01T00:00:01Z is 106752 days behind"},
		{"a cycle_done at the zero time",
			ev(at("2T14:00:00"), "cycle_done", "", "q", cyc(1, 1, "", false)) +
				ev("0001-01-01T00:00:00+00:00", "cycle_done", "", "q", cyc(2, 2, "", false)) +
				ev(at("2T14:20:00"), "cycle_done", "", "q", cyc(3, 3, "", false)),
			[]string{"2:invalid_record"}, "02 14:00", "02 14:20", []string{"02 14:00", "02 14:00", "02 14:20"}, "ts 0001-01-01T00:00:00Z is"},
		{"the zero time in another zone",
			ev(at("2T14:00:00"), "cycle_done", "", "q", cyc(1, 1, "", false)) +
				ev("0001-01-01T01:00:00+01:00", "cycle_done", "", "q", cyc(2, 2, "", false)),
			[]string{"2:invalid_record"}, "02 14:00", "02 14:00", []string{"02 14:00", "02 14:00"}, "ts 0001-01-01T00:00:00Z is"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runs, probs := Read("t.jsonl", strings.NewReader(tt.in))
			var got, times []string
			for _, p := range probs {
				got = append(got, fmt.Sprintf("%d:%s", p.Line, p.Kind))
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.problems) {
				t.Errorf("problems %v, want %v: %v", got, tt.problems, probs)
			}
			if tt.detail != "" && (len(probs) == 0 || !strings.Contains(probs[0].Detail, tt.detail)) {
				t.Errorf("problems %v, want the first to say %q", probs, tt.detail)
			}
			r := runs[0]
			for _, c := range r.Cycles {
				times = append(times, c.Time.Format("02 15:04"))
			}
			if s, e := r.Start.Format("02 15:04"), r.End.Format("02 15:04"); s != tt.start || e != tt.end || fmt.Sprint(times) != fmt.Sprint(tt.times) {
				t.Errorf("start %s end %s cycles %v; want %s %s %v", s, e, times, tt.start, tt.end, tt.times)
			}
		})
	}
}

// TestReadOutOfRange: an integer field outside the range of a 32-bit integer (the
// tables' columns, where it would wrap) and a negative limit are read without them,
// each reported; so is a cycle's lint_fix_calls that takes the run's total out of
// that range. In-range values and limits of 0 are read as they are, unreported.
func TestReadOutOfRange(t *testing.T) {
	at := func(m int) string { return fmt.Sprintf("2026-03-02T14:%02d:00Z", m) }
	cd := func(n int, extra string) string {
		return fmt.Sprintf(`{"cycle":%d,"total_cost_usd":%d,"max_budget_usd":5,"approved":false%s}`, n, n, extra)
	}
	start := func(data string) string { return ev(at(0), "task_start", "e1", "q", data) }
	tests := []struct {
		name      string
		in        string
		maxCycles int
		budget    float64
		cycles    []string // cycle:lint_fix_calls
		problems  []string // "line:kind" then a substring of the detail, after a space
	}{
		{"in range: read as recorded",
			start(`{"max_cycles":2147483647,"max_budget_usd":5}`) +
				ev(at(1), "cycle_done", "e1", "q", cd(1, `,"max_cycles":2147483647,"lint_fix_calls":2147483647`)),
			2147483647, 5, []string{"1:2147483647"}, nil},
		{"max_cycles and lint_fix_calls past int32",
			start(`{"max_cycles":2147483648,"max_budget_usd":5}`) +
				ev(at(1), "agent_done", "e1", "q", `{"cycle":1,"role":"coder","cost_usd":0.5}`) +
				ev(at(2), "cycle_done", "e1", "q", cd(1, `,"max_cycles":2147483648,"lint_fix_calls":4294967296`)),
			0, 5, []string{"1:0"}, []string{
				"1:invalid_record task_start field max_cycles 2147483648 is outside the range of a 32-bit integer; read without it",
				"3:invalid_record cycle_done field max_cycles 2147483648 is outside the range of a 32-bit integer; read without it; field lint_fix_calls 4294967296 is outside"}},
		{"2^62 and below the range",
			ev(at(1), "cycle_done", "e1", "q", cd(1, `,"max_cycles":5,"lint_fix_calls":4611686018427387904`)) +
				ev(at(2), "cycle_done", "e1", "q", cd(2, `,"lint_fix_calls":-2147483649`)),
			5, 5, []string{"1:0", "2:0"}, []string{"1:invalid_record field lint_fix_calls 4611686018427387904", "2:invalid_record field lint_fix_calls -2147483649"}},
		{"a cycle number past int32 is taken from its place",
			ev(at(1), "cycle_done", "e1", "q", cd(1, "")) +
				ev(at(2), "cycle_done", "e1", "q", `{"cycle":4294967298,"total_cost_usd":2,"approved":false}`),
			0, 5, []string{"1:0", "2:0"}, []string{"2:invalid_record field cycle 4294967298 is outside the range of a 32-bit integer; read without it; cycle taken as 2"}},
		{"other events' integers",
			ev(at(1), "agent_done", "e1", "q", `{"cycle":2147483648,"role":"coder","cost_usd":0.5}`) +
				ev(at(2), "filter_fix_attempt", "e1", "q", `{"cycle":1,"check":"vet","attempt":-2147483649,"cost_usd":0.1,"passed":true}`) +
				ev(at(3), "cycle_done", "e1", "q", cd(1, "")) +
				ev(at(4), "task_state", "e1", "q", `{"outcome":"error","cycles":2147483648}`),
			0, 5, []string{"1:0"}, []string{"1:invalid_record agent_done field cycle 2147483648", "2:invalid_record filter_fix_attempt field attempt -2147483649",
				"4:invalid_record task_state field cycles 2147483648"}},
		{"the run's total lint_fix_calls past int32",
			ev(at(1), "cycle_done", "e1", "q", cd(1, `,"lint_fix_calls":2000000000`)) +
				ev(at(2), "cycle_done", "e1", "q", cd(2, `,"lint_fix_calls":2000000000`)) +
				ev(at(3), "cycle_done", "e1", "q", cd(3, `,"lint_fix_calls":3`)),
			0, 5, []string{"1:2000000000", "2:0", "3:3"}, []string{"2:invalid_record run q@e1: lint_fix_calls 2000000000 at cycle 2 takes the run's total past"}},
		{"negative limits",
			start(`{"max_cycles":-1,"max_budget_usd":-5}`) +
				ev(at(1), "cycle_done", "e1", "q", `{"cycle":1,"max_cycles":-1,"max_budget_usd":-5,"total_cost_usd":1}`),
			0, 0, []string{"1:0"}, []string{"1:invalid_record task_start field max_cycles -1 is negative; read without it; field max_budget_usd -5 is negative",
				"2:invalid_record cycle_done field max_cycles -1 is negative; read without it; field max_budget_usd -5 is negative"}},
		{"limits of 0 are not set: the task_start's count",
			start(`{"max_cycles":4,"max_budget_usd":8}`) +
				ev(at(1), "cycle_done", "e1", "q", `{"cycle":1,"max_cycles":0,"max_budget_usd":0,"total_cost_usd":1}`),
			4, 8, []string{"1:0"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runs, probs := Read("t.jsonl", strings.NewReader(tt.in))
			if len(runs) != 1 {
				t.Fatalf("%d runs, problems %v", len(runs), probs)
			}
			r := runs[0]
			var cycles []string
			for _, c := range r.Cycles {
				cycles = append(cycles, fmt.Sprintf("%d:%d", c.Cycle, c.LintFixCalls))
			}
			if r.MaxCycles != tt.maxCycles || r.MaxBudgetUSD != tt.budget || fmt.Sprint(cycles) != fmt.Sprint(tt.cycles) {
				t.Errorf("max_cycles %d, max_budget_usd %v, cycles %v; want %d, %v, %v (problems %v)",
					r.MaxCycles, r.MaxBudgetUSD, cycles, tt.maxCycles, tt.budget, tt.cycles, probs)
			}
			for _, c := range r.Calls {
				if c.Cycle != int(int32(c.Cycle)) {
					t.Errorf("call of cycle %d", c.Cycle)
				}
			}
			for _, c := range r.Checks {
				if c.Cycle != int(int32(c.Cycle)) || c.Attempt != int(int32(c.Attempt)) {
					t.Errorf("check %+v", c)
				}
			}
			inputtest.Problems(t, probs, tt.problems)
		})
	}
}

// TestReadBadSeverity: a severity or status quasar never writes is read as major and
// found (the finding's ID computed with major), and the line's problem says so.
func TestReadBadSeverity(t *testing.T) {
	runs, probs := Read("t.jsonl", strings.NewReader(ev("2026-03-01T10:00:00Z", "cycle_done", "", "q-1",
		`{"cycle":1,"findings":[{"severity":"blocker","status":"wontfix","description":"x"}]}`)))
	if len(runs) != 1 || len(runs[0].Cycles) != 1 || len(runs[0].Cycles[0].Findings) != 1 {
		t.Fatalf("runs %+v", runs)
	}
	f := runs[0].Cycles[0].Findings[0]
	if f.Severity != analyze.SeverityMajor || f.Status != analyze.StatusFound || f.ID != analyze.FindingID(analyze.SeverityMajor, "x") {
		t.Errorf("finding %+v", f)
	}
	if len(probs) != 1 || !strings.Contains(probs[0].Detail, `severity "blocker"`) || !strings.Contains(probs[0].Detail, `status "wontfix"`) {
		t.Errorf("problems %+v", probs)
	}
}
