package eval

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestReadLabels(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		want   map[string]string // key → label/source/rule
		probs  []string          // "line:substring"
		errSub string
	}{
		{name: "CSV with every column",
			in:   "run_key,label,outcome,label_source,rule\nq-1,positive,max_cycles,derived,max cycles reached\nq-2,NEG,approved,,\n",
			want: map[string]string{"q-1": "positive/derived/max cycles reached", "q-2": "negative/human/"}},
		{name: "CSV with quoted commas, BOM and key alias",
			in:   "\ufeffkey,label,notes\n\"q,1\",ambiguous,\"a, b\"\n",
			want: map[string]string{"q,1": "ambiguous/human/"}},
		{name: "CSV bad rows are skipped with their line",
			in:    "run_key,label\nq-1,maybe\n,positive\nq-2,excluded\nq-2,positive\n",
			want:  map[string]string{"q-2": "positive/human/"},
			probs: []string{"2:not positive", "3:no run_key", "5:already labelled on line 4"}},
		{name: "run CSV: an empty label is a problem whatever the outcome; a session_id column does not matter",
			in:    "run_key,session_id,label,outcome\nq-1,s-1,negative,failure\nq-2,s-2,,failure\n",
			want:  map[string]string{"q-1": "negative/human/"},
			probs: []string{`3:label "" is not`}},
		{name: "CSV row with more fields than the header is read, with a problem",
			in:    "run_key,label\nq-1,positive,extra\nq-2,negative\n",
			want:  map[string]string{"q-1": "positive/human/", "q-2": "negative/human/"},
			probs: []string{"2:3 fields, the header names 2; the extra fields are ignored"}},
		{name: "CSV quote left open: the problem is on the record's first line",
			in:    "run_key,label\n\"q-1\",positive\n\"q-2,negative\nq-3,negative\n",
			want:  map[string]string{"q-1": "positive/human/"},
			probs: []string{`3:extraneous or missing " in quoted-field (the record runs from line 3 to line 4); skipped`}},
		{name: "CSV without a label column", in: "run_key,outcome\nq-1,approved\n", errSub: "run_key and label"},
		{name: "CSV without a key column", in: "name,label\nq-1,positive\n", errSub: "session_id and outcome"},
		{name: "session CSV without an outcome or label column", in: "session_id,notes\ns-1,x\n", errSub: "session_id and outcome"},
		{name: "session CSV: an explicit label wins over the outcome",
			in:    "session_id,label,outcome\ns-1,negative,failure\ns-2,,failure\ns-3,,\n",
			want:  map[string]string{"s-1": "negative/human/", "s-2": "positive/human/outcome failure; positive outcomes: failure,abandoned"},
			probs: []string{"4:no label and no outcome"}},
		{name: "session CSV whose outcome is a run outcome labels nothing",
			in:    "session_id,outcome\ns-1,approved\n,failure\n",
			want:  map[string]string{},
			probs: []string{"2:not a session outcome", "3:no session_id"}},
		{name: "JSONL",
			in:    `{"run_key":"q-1","label":"positive","label_source":"model"}` + "\n\n" + `{"key":"q-2","label":"0","label_rule":"r"}` + "\nnot json\n" + `{"run_key":"q-3","label":"positive","label_source":"oracle"}`,
			want:  map[string]string{"q-1": "positive/model/", "q-2": "negative/human/r", "q-3": "positive/oracle/"},
			probs: []string{"4:not a JSON object", "5:label_source"}},
		{name: "JSONL lines of the wrong shape say what is wrong",
			in:    `{"run_key":"q-1","label":5}` + "\n[1,2]\n" + `{"run_key":"q-2","friction_uuids":{"x":1}}` + "\n" + `{"run_key":"q-3","label":"negative"}` + "\n",
			want:  map[string]string{"q-3": "negative/human/"},
			probs: []string{"1:label is a JSON number, not a string; skipped", "2:not a JSON object but a JSON array; skipped", "3:friction_uuids is a JSON object, not a string or an array of strings; skipped"}},
		{name: "CSV naming the label column twice (as the reader matches names) cannot be trusted",
			in:     "run_key,label,outcome,Label \nq-1,positive,,negative\n",
			errSub: `the header names the column label twice: column 2 ("label") and column 4 ("Label ")`},
		{name: "CSV naming the key column twice cannot be trusted",
			in:     "\ufeffrun_key,label,RUN_KEY\nq-1,positive,q-2\n",
			errSub: `the header names the column run_key twice: column 1 ("run_key") and column 3 ("RUN_KEY")`},
		{name: "CSV naming twice a column the reader does not read, as it ignores it; empty names are no names",
			in:   "run_key,label,,,x,x,Comment,comment\nq-1,positive\n",
			want: map[string]string{"q-1": "positive/human/"}},
		{name: "CSV with empty column names", in: "run_key,label,,\nq-1,positive,,\n", want: map[string]string{"q-1": "positive/human/"}},
		{name: "JSONL giving a member twice: that line is a problem, skipped",
			in: `{"run_key":"q-1","label":"positive","label":"negative"}` + "\n" +
				`{"run_key":"q-2","label":"positive","Label":"negative"}` + "\n" +
				`{"run_key":"q-3","\u006cabel":"positive","label":"negative"}` + "\n" +
				`{"run_key":"q-4","label":"positive","run_\u212aey":"q-5"}` + "\n" +
				`{"run_key":"q-6","label":"positive","x":{"a":1},"X":2,"Extra":1,"extra":2}` + "\n" +
				`{"run_key":"q-7","label":"negative","notes":"label","friction_uuids":["label","label"]}` + "\n",
			want: map[string]string{"q-6": "positive/human/", "q-7": "negative/human/"},
			probs: []string{`1:member "label" given twice; skipped`,
				`2:members "label" and "Label" name the same field (names are matched ignoring case); skipped`,
				`3:member "label" given twice; skipped`,
				"4:members \"run_key\" and \"run_\u212aey\" name the same field"}},
		{name: "empty", in: "  \n", want: map[string]string{}},
		{name: "CSV after blank lines: lines counted from the file's first",
			in:    "\n \r\n\nrun_key,label\nq-1,maybe\n\"q-2,negative\nq-3,positive\nq-3,negative\n",
			want:  map[string]string{},
			probs: []string{"5:not positive", `6:extraneous or missing " in quoted-field (the record runs from line 6 to line 8); skipped`}},
		{name: "JSONL after blank lines: lines counted from the file's first",
			in:    "\n\n" + `{"run_key":"q-1","label":"positive"}` + "\n" + `{"run_key":"q-1","label":"bogus"}` + "\n" + `{"run_key":"q-1","label":"negative"}` + "\n",
			want:  map[string]string{"q-1": "negative/human/"},
			probs: []string{"4:not positive", "5:already labelled on line 3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ls, probs, err := ReadLabels(strings.NewReader(tt.in))
			if tt.errSub != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errSub) {
					t.Fatalf("err %v, want %q", err, tt.errSub)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if ls.Len() != len(tt.want) {
				t.Errorf("%d labels, want %d", ls.Len(), len(tt.want))
			}
			for k, w := range tt.want {
				r, ok := ls.Get(k)
				if got := fmt.Sprintf("%s/%s/%s", r.Label, r.Source, r.Rule); !ok || got != w {
					t.Errorf("%s: %s, want %s", k, got, w)
				}
			}
			if len(probs) != len(tt.probs) {
				t.Fatalf("problems %+v, want %v", probs, tt.probs)
			}
			for i, p := range probs {
				var line int
				var sub string
				fmt.Sscanf(tt.probs[i], "%d:", &line)
				sub = tt.probs[i][strings.Index(tt.probs[i], ":")+1:]
				if p.Line != line || !strings.Contains(p.Detail, sub) {
					t.Errorf("problem %+v, want line %d with %q", p, line, sub)
				}
			}
		})
	}
}

func FuzzReadLabels(f *testing.F) {
	f.Add([]byte("run_key,label\nq,positive\n"))
	f.Add([]byte(`{"run_key":"q","label":"negative"}`))
	f.Add([]byte(sessionCSV))
	f.Add([]byte(`{"session_id":"s","outcome":"failure","friction_uuids":["a"],"friction_times":"2026-01-01T00:00:00Z;x","human_msgs":"2"}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		ls, _, err := ReadLabels(strings.NewReader(string(in)))
		if err == nil && ls == nil {
			t.Fatal("nil labels without an error")
		}
	})
}

// FuzzLabelFiles checks what every label file read must hold, whatever its bytes:
// labels are keyed, known labels, problems point at a line of the file, and a byte
// order mark at the start changes nothing.
func FuzzLabelFiles(f *testing.F) {
	f.Add([]byte("run_key,label\nq,positive\n"))
	f.Add([]byte(sessionCSV))
	f.Add([]byte(`{"run_key":"q","label":"negative"}` + "\n" + `{"session_id":"s","outcome":"failure"}`))
	f.Add([]byte("run_key,label,rule\n\"q,1\",excluded,\"a \"\"quoted\"\" rule\"\n,positive\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		opts := LabelOptions{}
		ls, probs, err := ReadLabelsWith(bytes.NewReader(in), opts)
		lines := bytes.Count(in, []byte("\n")) + 1
		if err == nil {
			for _, k := range ls.Keys() {
				rec, _ := ls.Get(k)
				if strings.TrimSpace(k) == "" || rec.Key != k {
					t.Fatalf("label keyed %q: %+v", k, rec)
				}
				if _, perr := ParseLabel(string(rec.Label)); perr != nil && rec.Label != "" {
					t.Fatalf("label %q of %s is no label", rec.Label, k)
				}
			}
			for _, p := range probs {
				if p.Line < 1 || p.Line > lines {
					t.Fatalf("problem at line %d of a %d-line file: %+v", p.Line, lines, p)
				}
			}
		}
		if bytes.HasPrefix(in, []byte("\xef\xbb\xbf")) {
			return
		}
		ls2, probs2, err2 := ReadLabelsWith(bytes.NewReader(append([]byte("\xef\xbb\xbf"), in...)), opts)
		if (err == nil) != (err2 == nil) || err == nil && (!reflect.DeepEqual(ls.Keys(), ls2.Keys()) || len(probs) != len(probs2)) {
			t.Fatalf("a byte order mark changes the reading: %v/%v, %d/%d problems", err, err2, len(probs), len(probs2))
		}
	})
}
