package vibeslog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loopwatch/loopwatch/replay/input"
)

// parts returns a log's parts from their texts, named p0.jsonl, p1.jsonl, ….
func parts(texts ...string) []Part {
	var ps []Part
	for i, text := range texts {
		ps = append(ps, Part{Name: fmt.Sprintf("p%d.jsonl", i), Open: func() (io.ReadCloser, error) {
			return io.NopCloser(strings.NewReader(text)), nil
		}})
	}
	return ps
}

// lineParts splits a log's text after each of its lines, keeping the newlines.
func lineParts(in string) []string {
	ls := strings.SplitAfter(in, "\n")
	if ls[len(ls)-1] == "" {
		ls = ls[:len(ls)-1]
	}
	return ls
}

// samePlaces maps the problems of a read in parts to the lines of the whole log the
// parts were cut from: starts[i] is the whole log's line before part i's first.
func samePlaces(probs []input.Problem, starts []int) []input.Problem {
	out := slices.Clone(probs)
	for i := range out {
		var k int
		fmt.Sscanf(out[i].File, "p%d.jsonl", &k)
		out[i].File = "f.jsonl"
		if out[i].Line > 0 {
			out[i].Line += starts[k]
		}
		out[i].Detail = placeRE.ReplaceAllStringFunc(out[i].Detail, func(m string) string {
			var n, part int
			if _, err := fmt.Sscanf(m, "line %d", &n); err == nil {
				part = k
			} else {
				fmt.Sscanf(m, "p%d.jsonl:%d", &part, &n)
			}
			return fmt.Sprintf("line %d", n+starts[part])
		})
	}
	return out
}

// placeRE matches where a problem's detail says another event was read.
var placeRE = regexp.MustCompile(`line \d+|p\d+\.jsonl:\d+`)

// readCut reads a log's lines cut in parts before each of cuts (ascending line
// indices) with ReadPartsOnly, and returns what it read with the places its sessions
// and problems name mapped to the whole log's (f.jsonl): as ReadLog would name them.
func readCut(lines []string, cuts []int) *Log {
	var texts []string
	starts, from := []int{}, 0
	for _, c := range append(slices.Clone(cuts), len(lines)) {
		texts, starts = append(texts, strings.Join(lines[from:c], "")), append(starts, from)
		from = c
	}
	got := ReadPartsOnly(parts(texts...), nil)
	for _, s := range got.Sessions {
		var k int
		fmt.Sscanf(s.File, "p%d.jsonl", &k)
		s.File, s.Line = "f.jsonl", s.Line+starts[k]
	}
	got.Problems = samePlaces(got.Problems, starts)
	return got
}

// TestPartsAreTheWholeLog: a log cut in two at any line, or in three, and read in its
// parts is the whole log read as one file: the same sessions, event for event (a
// session's File and Line where it first appears), the same problems at the same
// places; cut anywhere in random logs of good and bad lines (genLine).
func TestPartsAreTheWholeLog(t *testing.T) {
	seeds := uint64(600)
	if testing.Short() {
		seeds = 100
	}
	for seed := range seeds {
		r := rand.New(rand.NewPCG(seed, 7))
		log := genLog(r, 2, 30)
		lines := lineParts(log)
		whole := ReadLog("f.jsonl", strings.NewReader(log))
		cuts := []int{r.IntN(len(lines) + 1)}
		if r.IntN(2) == 0 {
			cuts = append(cuts, cuts[0]+r.IntN(len(lines)-cuts[0]+1))
		}
		got := readCut(lines, cuts)
		for i := range max(len(got.Problems), len(whole.Problems)) {
			if i >= len(got.Problems) || i >= len(whole.Problems) || got.Problems[i] != whole.Problems[i] {
				t.Fatalf("seed %d, cut at lines %v: problem %d differs: parts %v, whole %v", seed, cuts, i, got.Problems[i:], whole.Problems[i:])
			}
		}
		for i, s := range whole.Sessions {
			if i >= len(got.Sessions) || !reflect.DeepEqual(got.Sessions[i], s) {
				t.Fatalf("seed %d, cut at lines %v: session %s differs:\n%+v\nwhole:\n%+v", seed, cuts, s.Key, got.Sessions[i], s)
			}
		}
		if !reflect.DeepEqual(got, whole) {
			t.Fatalf("seed %d, cut at lines %v: the parts read as\n%+v\nnot as the whole log\n%+v\non\n%s", seed, cuts, got, whole, log)
		}
		checkLog(t, got)

		// Parts that overlap: the sessions are the whole log's, each event once, and
		// what was wrong with an event read again is not reported again — of a log whose
		// events have UUIDv7 ids (an event without one cannot be told from another).
		lines = slices.DeleteFunc(lines, func(l string) bool { return strings.Contains(l, `"event_id":"bad"`) })
		whole = ReadLog("f.jsonl", strings.NewReader(strings.Join(lines, "")))
		b1, c1 := r.IntN(len(lines)+1), 0
		c1 = b1 + r.IntN(len(lines)-b1+1)
		a1 := r.IntN(b1 + 1)
		over := ReadPartsOnly(parts(strings.Join(lines[:b1], ""), strings.Join(lines[a1:c1], ""), strings.Join(lines[c1:], "")), nil)
		for i, s := range over.Sessions {
			c := *s
			c.Records = maps.Clone(s.Records)
			delete(c.Records, "repeated")
			w := *whole.Sessions[i]
			w.Records = maps.Clone(w.Records)
			delete(w.Records, "repeated")
			if c.Key != w.Key || !reflect.DeepEqual(c.Events, w.Events) || !maps.Equal(c.Records, w.Records) {
				t.Fatalf("seed %d, parts [0,%d) [%d,%d) [%d,…): session %s differs:\n%v %d events %v\nwhole:\n%v %d events %v", seed, b1, a1, c1, c1, c.Key, c.Records, len(c.Events), brief(c.Events), w.Records, len(w.Events), brief(w.Events))
			}
		}
		if len(over.Sessions) != len(whole.Sessions) {
			t.Fatalf("seed %d: %d sessions, not the whole log's %d", seed, len(over.Sessions), len(whole.Sessions))
		}
		count := func(lg *Log) (n int) {
			for _, p := range lg.Problems {
				if p.Kind == input.ProblemInvalid && !strings.Contains(p.Detail, "without a session_id") {
					n++
				}
			}
			return n
		}
		if count(over) != count(whole) {
			t.Fatalf("seed %d, parts [0,%d) [%d,%d) [%d,…): %d problems of its events, not the whole log's %d:\n%v", seed, b1, a1, c1, c1, count(over), count(whole), over.Problems)
		}
	}
}

// respelled writes each line's JSON value again, as another tool would: its members
// in reverse order, a space after every ':' and ',', every string's 'e', '/' and
// letters beyond ASCII escaped, every number in exponent form.
func respelled(t *testing.T, lines ...string) string {
	var b strings.Builder
	var write func(v any)
	list := func(open, close string, n int, item func(i int)) {
		b.WriteString(open)
		for i := range n {
			if i > 0 {
				b.WriteString(", ")
			}
			item(i)
		}
		b.WriteString(close)
	}
	write = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			keys := slices.Sorted(maps.Keys(v))
			slices.Reverse(keys)
			list("{", "}", len(keys), func(i int) { write(keys[i]); b.WriteString(": "); write(v[keys[i]]) })
		case []any:
			list("[", "]", len(v), func(i int) { write(v[i]) })
		case string:
			b.WriteString(`"`)
			for _, r := range v {
				switch {
				case r == '"' || r == '\\':
					b.WriteString(`\` + string(r))
				case r == 'e' || r == '/' || r < 0x20 || r > 0x7e:
					fmt.Fprintf(&b, `\u%04x`, r) // the tests' text is of the BMP
				default:
					b.WriteRune(r)
				}
			}
			b.WriteString(`"`)
		case float64:
			b.WriteString(strconv.FormatFloat(v, 'e', -1, 64))
		default:
			raw, _ := json.Marshal(v)
			b.Write(raw)
		}
	}
	for _, l := range lines {
		var v any
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("respelled: %v", err)
		}
		write(v)
		b.WriteString("\n")
	}
	return b.String()
}

// TestOverlappingParts: parts that overlap — each export the whole log again, or from
// before where the last one stopped — read as the whole log, each event once, the
// repeats counted; an event_id given to another event is reported where it is read
// again, naming where it was read first.
func TestOverlappingParts(t *testing.T) {
	log := userInput(0, 1, "s", "fix the parser") + claudeEv(1000, 2, "s", `{"type":"text_delta","text":"on it"}`) +
		hookEv(2000, 3, "s", "stop", "") + userInput(60000, 4, "s", "now the lexer") +
		claudeEv(61000, 5, "s", `{"type":"text_delta","text":"done"}`) + hookEv(62000, 6, "s", "stop", "")
	lines := lineParts(log)
	whole := ReadLog("p0.jsonl", strings.NewReader(log))
	tests := []struct {
		name     string
		parts    []string
		repeated int
	}{
		{"from before the cut", []string{strings.Join(lines[:4], ""), strings.Join(lines[2:], "")}, 2},
		{"the whole log again", []string{strings.Join(lines[:3], ""), log}, 3},
		{"one part twice", []string{log, log}, 6},
		{"the same line twice in one part", []string{strings.Join(lines[:2], "") + lines[1] + strings.Join(lines[2:], "")}, 1},
		{"the whole log again, written by another tool", []string{strings.Join(lines[:3], ""), respelled(t, lines...)}, 3},
		{"the whole log again, each event with a member the reader does not read", []string{strings.Join(lines[:3], ""),
			strings.ReplaceAll(log, "{\"event_id\"", "{\"exported_at\":\"2026-11-30\",\"event_id\"")}, 3},
	}
	for _, tt := range tests {
		got := ReadPartsOnly(parts(tt.parts...), nil)
		if len(got.Problems) != 0 || len(got.Sessions) != 1 {
			t.Errorf("%s: %d sessions, problems %v; want 1, none", tt.name, len(got.Sessions), got.Problems)
			continue
		}
		s := got.Sessions[0]
		if s.Records["repeated"] != tt.repeated {
			t.Errorf("%s: %d repeated, want %d", tt.name, s.Records["repeated"], tt.repeated)
		}
		delete(s.Records, "repeated")
		if !reflect.DeepEqual(s, whole.Sessions[0]) {
			t.Errorf("%s: read as\n%+v\nnot as the whole log\n%+v", tt.name, s, whole.Sessions[0])
		}
	}

	// Within one file a line is compared byte for byte: one writer writes an event
	// the same way — in one part of a log in parts too.
	if got := ReadLog("f.jsonl", strings.NewReader(log+respelled(t, lines[1]))); len(got.Problems) != 1 ||
		!strings.Contains(got.Problems[0].Detail, "with other content") {
		t.Errorf("an event written again otherwise in the same file: problems %v, want it reported", got.Problems)
	}
	if got := ReadPartsOnly(parts(strings.Join(lines[:3], ""), strings.Join(lines[3:], "")+respelled(t, lines[4])), nil); len(got.Problems) != 1 ||
		got.Problems[0].File != "p1.jsonl" || !strings.Contains(got.Problems[0].Detail, "read at line 2, with other content") {
		t.Errorf("an event written again otherwise in the same part: problems %v, want it reported", got.Problems)
	}

	other := strings.Replace(lines[1], "on it", "on that", 1) // the same event_id, another event
	got := ReadPartsOnly(parts(strings.Join(lines[:3], ""), other+strings.Join(lines[3:], "")), nil)
	want := []input.Problem{{File: "p1.jsonl", Line: 1, Kind: input.ProblemInvalid,
		Detail: fmt.Sprintf("event_id %s was read at p0.jsonl:2, with other content; this one is skipped", id(1000, 2))}}
	if !reflect.DeepEqual(got.Problems, want) {
		t.Errorf("a reused event_id: problems %v, want %v", got.Problems, want)
	}
	if s := got.Sessions[0]; s.Records["repeated"] != 1 || !reflect.DeepEqual(s.Events, whole.Sessions[0].Events) {
		t.Errorf("a reused event_id: the first event is not the one read (%d repeated)", s.Records["repeated"])
	}
	inOne := ReadLog("f.jsonl", strings.NewReader(strings.Join(lines[:3], "")+other))
	if len(inOne.Problems) != 1 || inOne.Problems[0].Line != 4 || !strings.Contains(inOne.Problems[0].Detail, "read at line 2,") {
		t.Errorf("a reused event_id within one file: problems %v, want one at line 4 naming line 2", inOne.Problems)
	}
	// A copy of the part holding the other event: its line was reported already.
	copied := other + strings.Join(lines[3:], "")
	got = ReadPartsOnly(parts(strings.Join(lines[:3], ""), copied, copied), nil)
	if !reflect.DeepEqual(got.Problems, want) {
		t.Errorf("the part with the reused event_id twice: problems %v, want %v", got.Problems, want)
	}
}

// TestPartsProblemsInPartOrder: problems come in the order of the parts, then of their
// lines, each naming its part; a part that cannot be opened is left out, unreported
// (its caller reports it).
func TestPartsProblemsInPartOrder(t *testing.T) {
	ps := parts("{bad\n"+userInput(0, 1, "s", "hi"), "{bad\n{bad\n", userInput(1000, 2, "s", "again")+"{bad\n")
	ps = slices.Insert(ps, 1, Part{Name: "gone.jsonl", Open: func() (io.ReadCloser, error) { return nil, os.ErrNotExist }})
	got := ReadPartsOnly(ps, nil)
	var places []string
	for _, p := range got.Problems {
		places = append(places, fmt.Sprintf("%s:%d", p.File, p.Line))
	}
	if want := []string{"p0.jsonl:1", "p1.jsonl:1", "p1.jsonl:2", "p2.jsonl:2"}; !slices.Equal(places, want) {
		t.Errorf("problems at %v, want %v", places, want)
	}
	if len(got.Sessions) != 1 || len(got.Sessions[0].Events) != 2 || got.Sessions[0].File != "p0.jsonl" || got.Sessions[0].Line != 2 {
		t.Errorf("sessions %+v; want one of two events, first at p0.jsonl:2", got.Sessions)
	}
}

// TestSessionKeys: SessionKeys names the key of every session ReadLog builds, on
// random logs of good and bad lines (genLine) and on the test logs and the sample's;
// of the sample, its two sessions' keys and no other (not the Claude Code sessions its
// hook payloads name); a member named otherwise than vibes names it is not seen; a
// failed read is its error.
func TestSessionKeys(t *testing.T) {
	keys := func(what, in string) []string {
		t.Helper()
		var got []string
		if _, err := SessionKeys(strings.NewReader(in), func(k []byte) { got = append(got, string(k)) }); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		slices.Sort(got)
		got = slices.Compact(got)
		for _, s := range ReadLog("f.jsonl", strings.NewReader(in)).Sessions {
			if _, found := slices.BinarySearch(got, s.Key); !found {
				t.Fatalf("%s: keys %q, not session %q's", what, got, s.Key)
			}
		}
		return got
	}
	seeds := uint64(2000)
	if testing.Short() {
		seeds = 300
	}
	for seed := range seeds {
		r := rand.New(rand.NewPCG(seed, 9))
		keys(fmt.Sprintf("seed %d", seed), genLog(r, 1, 30))
	}
	for _, name := range []string{"testdata/two-sessions.jsonl", "testdata/bad.jsonl"} {
		in, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		keys(name, string(in))
	}
	in, err := os.ReadFile("../../datasets/sample/inputs/vibes/vibes-events.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"019cb926-0a71-79fb-ab9f-44077bbfd129", "019cb927-4320-728c-b5fe-84765b9727cc"} // not its hooks' Claude Code sessions
	if got := keys("the sample", string(in)); !slices.Equal(got, want) {
		t.Errorf("the sample's keys %q, want %q", got, want)
	}
	// The member as vibes writes it, with space about its colon, in a hook payload, with
	// escapes in its value; not inside a string, nor spelled otherwise.
	for _, tt := range []struct{ line, want string }{
		{`{"event_id":"x","type":"user_input","session_id" : "k","content":"a"}`, "k"},
		{`{"event_id":"x","type":"hook","event":{"type":"stop","session_id":"k"}}`, "k"},
		{`{"event_id":"x","type":"hook","session_id":"k","event":{"type":"stop","session_id":"cc"}}`, "k"},
		{`{"event_id":"x","type":"hook","event":{"type":"stop","session_id":"cc"},"session_id":"k"}`, "cc k"},
		{`{"event_id":"x","type":"hook","session_id":"","event":{"type":"stop","session_id":"k"}}`, "k"},
		{`{"event_id":"x","type":"hook","session_id":"k","event":{}}{"event_id":"y","type":"hook","event":{"session_id":"l"}}`, "k l"},
		{`{"event_id":"x","type":"user_input","content":"a \"session_id\":\"no\"","session_id":"\u006b"}`, "k"},
		{`{"event_id":"x","type":"user_input","content":"a","session_id":"k\"\\"}`, "k\"\\"},
		{`{"event_id":"x","type":"user_input","Session_ID":"k","content":"a"}`, ""},
		{`{"event_id":"x","type":"user_input","session\u005fid":"k","content":"a"}`, ""},
	} {
		var got []string
		SessionKeys(strings.NewReader(tt.line+"\n"), func(k []byte) { got = append(got, string(k)) })
		if want := strings.Fields(tt.want); !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Errorf("%s: keys %q, want %q", tt.line, got, want)
		}
	}
	// Where the log starts: the median of its first event times, whatever one wrong
	// clock says.
	var faulty strings.Builder
	faulty.WriteString(userInput(-59*60000, 1, "s", "from a clock an hour behind"))
	for i := 1; i <= 4; i++ {
		faulty.WriteString(userInput(int64(i)*60000, i+1, "s", "hi"))
	}
	for _, tt := range []struct {
		log  string
		want time.Time
	}{
		{userInput(5000, 1, "s", "hi") + userInput(1000, 2, "s", "again"), t0.Add(time.Second)},
		{faulty.String(), t0.Add(2 * time.Minute)},
		{"{bad\n" + `{"event_id":"no","type":"user_input","session_id":"s","content":"x"}` + "\n" + userInput(7000, 3, "s", "hi"), t0.Add(7 * time.Second)},
		{`{"type":"user_input","session_id":"s","content":"x"}` + "\n", time.Time{}},
	} {
		if got, _ := SessionKeys(strings.NewReader(tt.log), func([]byte) {}); !got.Equal(tt.want) {
			t.Errorf("first of\n%s= %v, want %v", tt.log, got, tt.want)
		}
	}
	failing := io.MultiReader(strings.NewReader(userInput(0, 1, "s", "hi")), iotestErr{})
	if _, err := SessionKeys(failing, func([]byte) {}); err == nil {
		t.Error("a failed read: no error")
	}
}

type iotestErr struct{}

func (iotestErr) Read([]byte) (int, error) { return 0, errors.New("disk gone") }

// BenchmarkSessionKeys reads the sample's log, ten times over, for its session keys,
// against reading it (once) with ReadLog.
func BenchmarkSessionKeys(b *testing.B) {
	one, err := os.ReadFile("../../datasets/sample/inputs/vibes/vibes-events.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	in := []byte(strings.Repeat(string(one), 10))
	b.Run("keys", func(b *testing.B) {
		b.SetBytes(int64(len(in)))
		for b.Loop() {
			SessionKeys(bytes.NewReader(in), func([]byte) {})
		}
	})
	b.Run("read", func(b *testing.B) { // one copy: ten would be read once and skipped nine times
		b.SetBytes(int64(len(one)))
		for b.Loop() {
			ReadLog("f.jsonl", bytes.NewReader(one))
		}
	})
}

// TestRepeatsWithinTheirSession: an event_id is an event's within its session: an
// event of another session with the same id is read (no problem), so that a reader
// building only some sessions (ReadLogOnly) builds them as ReadLog does; and a line
// read again — not UTF-8, or holding two records — is reported once, in the part it
// was first read from.
func TestRepeatsWithinTheirSession(t *testing.T) {
	a := userInput(0, 1, "a", "fix the parser")
	b := strings.Replace(userInput(1000, 2, "b", "now the lexer"), id(1000, 2), id(0, 1), 1) // a's id
	lg := ReadLog("f.jsonl", strings.NewReader(a+b))
	if len(lg.Sessions) != 2 || len(lg.Problems) != 0 || lg.Repeated != 0 {
		t.Fatalf("an id in two sessions: %d sessions, problems %v, %d repeated; want 2, none, 0", len(lg.Sessions), lg.Problems, lg.Repeated)
	}
	only := ReadLogOnly("f.jsonl", strings.NewReader(a+b), func(k string) bool { return k == "b" })
	if len(only.Sessions) != 1 || !reflect.DeepEqual(only.Sessions[0], lg.Sessions[1]) {
		t.Errorf("ReadLogOnly(b) is not ReadLog's b: %+v", only.Sessions)
	}

	bad := fmt.Sprintf(`{"event_id":%q,"type":"user_input","session_id":"a","content":"caf`+"\xe9"+`"}`+"\n", id(2000, 3)) // not UTF-8
	two := strings.TrimSuffix(userInput(3000, 4, "a", "one"), "\n") + userInput(4000, 5, "a", "two")
	log := a + bad + two
	whole := ReadLog("p0.jsonl", strings.NewReader(log))
	if len(whole.Problems) != 2 {
		t.Fatalf("the log: problems %v, want 2", whole.Problems)
	}
	// The log twice: its events' problems once (the UTF-8 one), the line of two
	// records — no event — in each file.
	got := ReadPartsOnly(parts(log, log), nil)
	twice := append(slices.Clone(whole.Problems), input.Problem{File: "p1.jsonl", Line: 3, Kind: input.ProblemMalformed, Detail: whole.Problems[1].Detail})
	if !reflect.DeepEqual(got.Problems, twice) || got.Repeated != 4 {
		t.Errorf("the log twice: problems %v, %d repeated; want %v, 4", got.Problems, got.Repeated, twice)
	}
	// A line of two records, one of them read before with other content: reported.
	other := strings.TrimSuffix(userInput(3000, 4, "a", "ONE"), "\n") + userInput(5000, 6, "a", "three")
	got = ReadPartsOnly(parts(log, other), nil)
	var places []string
	for _, p := range got.Problems {
		places = append(places, fmt.Sprintf("%s:%d %s", p.File, p.Line, p.Kind))
	}
	if want := []string{"p0.jsonl:2 invalid_utf8", "p0.jsonl:3 malformed_line", "p1.jsonl:1 malformed_line", "p1.jsonl:1 invalid_record"}; !slices.Equal(places, want) {
		t.Errorf("a line of a record read before with other content and a new one: problems %v, want %v", places, want)
	}
}

// TestEventSumCoversEveryField: changing any field of an event as the reader decodes
// it (the envelope's and its inner event's) changes its sum, so that an event_id
// given to two events that differ in any of them is reported; spelling the same
// tool_input or tool_response otherwise does not.
func TestEventSumCoversEveryField(t *testing.T) {
	seed := maphash.MakeSeed()
	base := func() *envelope {
		f, out, content, prompt := false, "out", "content", "prompt"
		return &envelope{EventID: "id", Type: "claude", SessionID: "s", Content: &content, Name: "n", Event: &inner{
			Type: "t", Text: "x", ID: "i", Name: "n", Output: &out, IsError: &f, Delta: "d", SessionID: "s2", Cwd: "/", HookEventName: "h",
			Prompt: &prompt, ToolName: "Bash", ToolInput: json.RawMessage(`{"command":"ls","a":[1,2]}`), ToolResponse: json.RawMessage(`{"stdout":"é"}`)}}
	}
	want := base().sum(seed)
	var walk func(v reflect.Value, path string, get func() *envelope)
	walk = func(v reflect.Value, path string, get func() *envelope) {
		for i := range v.NumField() {
			f, name := v.Field(i), path+v.Type().Field(i).Name
			e := get()
			target := reflect.ValueOf(e).Elem()
			for _, p := range strings.Split(name, ".")[:len(strings.Split(name, "."))-1] {
				target = target.FieldByName(p).Elem()
			}
			field := target.FieldByName(v.Type().Field(i).Name)
			switch {
			case f.Kind() == reflect.String:
				field.SetString(field.String() + "!")
			case f.Type() == reflect.TypeFor[json.RawMessage]():
				field.SetBytes([]byte(`{"other":true}`))
			case f.Type() == reflect.TypeFor[*inner]():
				field.SetZero()
				if e.sum(seed) == want {
					t.Errorf("%s: the event without it sums as with it", name)
				}
				walk(f.Elem(), name+".", get)
				continue
			case f.Kind() == reflect.Pointer:
				field.SetZero()
			default:
				t.Fatalf("%s: a field of kind %s the test does not know: give it to envelope.sum and here", name, f.Kind())
			}
			if e.sum(seed) == want {
				t.Errorf("%s changed, the sum did not", name)
			}
		}
	}
	walk(reflect.ValueOf(base()).Elem(), "", base)
	// *bool: false, true and none are three.
	e := base()
	*e.Event.IsError = true
	if e.sum(seed) == want {
		t.Error("is_error true sums as false")
	}
	// tool_input and tool_response by their JSON values.
	e = base()
	e.Event.ToolInput = json.RawMessage(` { "a" : [ 1 , 2.0 ] , "command" : "l\u0073" } `)
	e.Event.ToolResponse = json.RawMessage(`{"stdout":"\u00e9"}`)
	if e.sum(seed) != want {
		t.Error("tool_input and tool_response spelled otherwise sum otherwise")
	}
}
