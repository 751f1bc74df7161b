package vibeslog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"unicode/utf8"

	"github.com/loopwatch/loopwatch/replay/jsonl"
)

// checkEnvelope holds decodeEnvelope to the reference, jsonl.DecodeObject: when it
// accepts a line, the line is valid JSON, DecodeObject decodes it without a problem
// and to the same envelope. It reports whether it accepted the line. It holds the
// decoder of a reader that builds only some sessions (ReadLogOnly) to the same, on
// every line, those the decoder without keep leaves to DecodeObject included: keeping
// every session, it accepts only what DecodeObject decodes cleanly, to the same
// envelope; refusing every session, only what DecodeObject decodes, to the same
// envelope but for the event of a line that names its session at the top level, which
// it leaves out unread (and only cleanly when the line names none).
func checkEnvelope(t testing.TB, line []byte) bool {
	t.Helper()
	var fast, slow envelope
	valid := utf8.Valid(line)
	ok := valid && decodeEnvelope(line, &fast, nil)
	fields, err := jsonl.DecodeObject(line, &slow)
	clean := err == nil && len(fields) == 0 && json.Valid(line)
	if ok && !clean {
		t.Fatalf("decodeEnvelope accepted a line DecodeObject does not decode cleanly (%v, %v): %q", err, fields, line)
	}
	if ok && !reflect.DeepEqual(fast, slow) {
		t.Fatalf("decodeEnvelope and DecodeObject differ on %q:\nfast %#v\nslow %#v", line, fast, slow)
	}
	if !valid {
		return false
	}
	var kept, refused envelope
	if decodeEnvelope(line, &kept, func(string) bool { return true }) != ok || ok && !reflect.DeepEqual(kept, fast) {
		t.Fatalf("decodeEnvelope keeping every session differs on %q:\nkept %#v\nall  %#v", line, kept, fast)
	}
	if decodeEnvelope(line, &refused, func(string) bool { return false }) {
		want := slow
		if want.SessionID != "" {
			want.Event = nil
		}
		if err != nil || !json.Valid(line) || want.SessionID == "" && !clean || !reflect.DeepEqual(refused, want) {
			t.Fatalf("decodeEnvelope refusing every session accepted %q (DecodeObject: %v, %v):\nrefused %#v\nwant    %#v", line, err, fields, refused, want)
		}
	} else if ok {
		t.Fatalf("decodeEnvelope refusing every session left %q to DecodeObject", line)
	}
	return ok
}

// TestDecodeEnvelope lists what the fast decoder decodes itself and what it leaves to
// DecodeObject; either way the envelope is DecodeObject's.
func TestDecodeEnvelope(t *testing.T) {
	for _, tt := range []struct {
		name   string
		line   string
		accept bool
	}{
		{"user input", `{"event_id":"e","type":"user_input","session_id":"s","content":"hi \u00e9","source":"cli"}`, true},
		{"content null", `{"type":"user_input","content":null}`, true},
		{"claude event", `{"type":"claude","event":{"type":"tool_result","id":"t","output":"ok","is_error":false,"extra":[1,{"a":null}]}}`, true},
		{"hook with raw fields", `{"type":"hook","event":{"type":"post_tool_use","tool_name":"Bash","tool_input":{"command":"ls"},"tool_response": {"stdout":"a","stderr":"","interrupted":false} }}`, true},
		{"raw null", `{"type":"hook","event":{"type":"post_tool_use","tool_input":null,"tool_response":null,"prompt":null,"output":null,"is_error":null}}`, true},
		{"event null", `{"type":"session_created","event":null,"name":"x"}`, true},
		{"strings null", `{"type":null,"session_id":null}`, true},

		{"content a number", `{"type":"user_input","content":7}`, false},
		{"event a string", `{"type":"claude","event":"x"}`, false},
		{"is_error a string", `{"type":"claude","event":{"is_error":"yes"}}`, false},
		{"key in other case", `{"Type":"claude"}`, false},
		{"field twice", `{"type":"claude","type":"hook"}`, false},
		{"syntax error", `{"type":"claude",}`, false},
		{"trailing data", `{"type":"claude"} {}`, false},
		{"event before its session", `{"type":"hook","event":{"type":"stop","session_id":"inner"},"session_id":"s"}`, true},
		{"session only inside", `{"type":"hook","event":{"type":"stop","session_id":"inner"}}`, true},
		{"trailing data after the event", `{"type":"claude","session_id":"s","event":{"type":"x"}} {}`, false},
		{"event twice", `{"type":"claude","session_id":"s","event":{},"event":{}}`, false},
		{"inner field of a wrong type", `{"type":"claude","event":{"type":"text_delta","text":5},"session_id":"s"}`, false},
		{"inner key in other case", `{"type":"claude","event":{"Type":"x","type":"y"},"session_id":"s"}`, false},
		{"session null, inside", `{"type":"claude","session_id":null,"event":{"session_id":"i"}}`, true},
		{"event an array", `{"type":"claude","event":[1],"session_id":"s"}`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := checkEnvelope(t, []byte(tt.line)); got != tt.accept {
				t.Errorf("accepted %v, want %v", got, tt.accept)
			}
		})
	}
}

// TestDecodeEnvelopeLogs runs checkEnvelope over the fixtures' lines and checks that
// the fast decoder reads itself every line DecodeObject decodes cleanly.
func TestDecodeEnvelopeLogs(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.jsonl")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		for sc.Scan() {
			line := sc.Bytes()
			var env envelope
			fields, err := jsonl.DecodeObject(line, &env)
			if !checkEnvelope(t, line) && utf8.Valid(line) && err == nil && len(fields) == 0 && bytes.HasPrefix(bytes.TrimSpace(line), []byte("{")) {
				t.Errorf("%s: a well-formed line left to DecodeObject: %q", f, line)
			}
		}
	}
}

// TestToolResponse checks the fast tool_response decoder against the reference on
// the shapes it reads and those it leaves.
func TestToolResponse(t *testing.T) {
	for _, tt := range []struct {
		raw    string
		accept bool
	}{
		{`"plain output\n"`, true},
		{` {"stdout":"a","stderr":"b","interrupted":true} `, true},
		{`{"stdout":"","stderr":"err"}`, true},
		{`{"stdout":null,"stderr":"x","other":{"k":[1]}}`, true},
		{`{"stdout":"a","interrupted":null}`, true},
		{`{"interrupted":true}`, true},
		{`{"file":{"path":"a.go","lines":3}}`, true},
		{`null`, true},
		{`[1,2]`, true},
		{`12.5`, true},
		{`{"stdout":5}`, false},
		{`{"interrupted":"yes","stdout":"a"}`, false},
		{`{"Stdout":"a"}`, false},
		{`{"stdout":"a","stdout":"b"}`, false},
		{``, false},
	} {
		if got := checkToolResponse(t, []byte(tt.raw)); got != tt.accept {
			t.Errorf("%s: accepted %v, want %v", tt.raw, got, tt.accept)
		}
	}
}

func checkToolResponse(t testing.TB, raw []byte) bool {
	t.Helper()
	out, status, ok := fastToolResponse(raw)
	if !ok {
		return false
	}
	if !json.Valid(raw) {
		t.Fatalf("fastToolResponse accepted %q, which is not JSON", raw)
	}
	wantOut, wantStatus := decodeToolResponse(raw)
	if out != wantOut || status != wantStatus {
		t.Fatalf("fastToolResponse(%q) = %q %s, want %q %s", raw, out, status, wantOut, wantStatus)
	}
	return true
}

// FuzzDecodeEnvelope holds the fast decoder to jsonl.DecodeObject on any line.
func FuzzDecodeEnvelope(f *testing.F) {
	for _, s := range []string{
		`{"event_id":"e","type":"user_input","session_id":"s","content":"hi","source":"cli"}`,
		`{"type":"hook","event":{"type":"post_tool_use","tool_name":"Bash","tool_input":{"command":"ls"},"tool_response":{"stdout":"a\n","interrupted":false}}}`,
		`{"type":"claude","event":{"type":"text_delta","text":"x","is_error":null,"output":"o"}}`,
		`{"type":"claude","event":"x","Type":1}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) { checkEnvelope(t, line) })
}

// FuzzToolResponse holds the fast tool_response decoder to the reference on any
// JSON value.
func FuzzToolResponse(f *testing.F) {
	for _, s := range []string{`"x\ty"`, `{"stdout":"a","stderr":"b","interrupted":true}`, `{"stdout":null}`, `{"stderr":"\u00e9"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if json.Valid(raw) {
			checkToolResponse(t, raw)
		}
	})
}
