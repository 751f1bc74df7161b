package claudecode

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/loopwatch/loopwatch/replay/jsonl"
)

// checkDecode holds decodeRecord to the reference, encoding/json (decodeSlow): when
// it accepts a line, the line is valid JSON and the record is the one json.Unmarshal
// decodes; it reports whether it accepted the line.
func checkDecode(t testing.TB, line []byte) bool {
	t.Helper()
	var fast, slow record
	ok := utf8.Valid(line) && decodeRecord(line, &fast)
	bad, err := decodeSlow(line, &slow)
	if !ok {
		return false
	}
	if err != nil || len(bad) > 0 || !json.Valid(line) {
		t.Fatalf("decodeRecord accepted a line encoding/json does not decode cleanly (%v, %v): %q", err, bad, line)
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("decodeRecord and encoding/json differ on %q:\nfast %#v\nslow %#v", line, fast, slow)
	}
	return true
}

// TestDecodeRecord lists what the fast decoder decodes itself and what it leaves to
// encoding/json; either way the record is encoding/json's.
func TestDecodeRecord(t *testing.T) {
	for _, tt := range []struct {
		name   string
		line   string
		accept bool
	}{
		{"user text", `{"type":"user","uuid":"u","sessionId":"s","timestamp":"2026-01-01T10:00:00Z","message":{"role":"user","content":"hi"}}`, true},
		{"white space everywhere", " { \"type\" :\t\"user\" , \"message\" : { \"content\" : [ { \"type\" : \"text\" , \"text\" : \"a\" } ] } } \t", true},
		{"flags", `{"type":"user","isSidechain":true,"isMeta":false,"isCompactSummary":null,"isApiErrorMessage":true}`, true},
		{"escapes", `{"type":"user","message":{"content":"a\"b\\c\/d\b\f\n\r\t\u00e9\u20ac\ud83d\ude00 \ud800 \udc00\ud800x \ud800\u0041"}}`, true},
		{"multi-byte text", `{"type":"user","message":{"content":"café – 不是 😤"}}`, true},
		{"tool use and result", `{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"go test ./...","description":"x","nested":{"a":[1,2.5e-3,-0,true,null]}}}]}}`, true},
		{"tool result parts", `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"a"},null,{"type":"image","source":{}},{"type":"text","text":"b"},{"text":"c"}],"is_error":false}]},"toolUseResult":{"stdout":"","stderr":"x","interrupted":false,"isImage":false}}`, true},
		{"tool result of other types", `{"type":"user","message":{"content":[{"type":"tool_result","content":7,"is_error":null},{"type":"tool_result","content":{"a":1}},{"type":"tool_result","content":null},null]}}`, true},
		{"command not a string", `{"type":"assistant","message":{"content":[{"type":"tool_use","input":{"command":["ls"]}},{"type":"tool_use","input":"ls"},{"type":"tool_use","input":null}]}}`, true},
		{"toolUseResult of other shapes", `{"type":"user","toolUseResult":"Error: failed"}`, true},
		{"toolUseResult null", `{"type":"user","toolUseResult":null,"message":null}`, true},
		{"interrupted mistyped", `{"type":"user","toolUseResult":{"stdout":"out","interrupted":"yes"}}`, true},
		{"stdout of another type", `{"type":"user","toolUseResult":{"stdout":{"a":"b"},"stderr":12,"interrupted":true}}`, true},
		{"content of other types", `{"type":"user","message":{"content":42}}`, true},
		{"content object", `{"type":"user","message":{"content":{"a":1}}}`, true},
		{"content null", `{"type":"user","message":{"content":null}}`, true},
		{"empty content list", `{"type":"user","message":{"content":[]}}`, true},
		{"null block", `{"type":"assistant","message":{"content":[null,{"type":"text","text":"x"}]}}`, true},
		{"strings null", `{"type":null,"uuid":null,"summary":null}`, true},
		{"unknown keys and values", `{"progress":{"data":[{"x":"\u0000"},1e10,-1.5E+2,0.0,"\\"],"deep":{"a":{"b":{"c":[[[]]]}}}},"type":"progress"}`, true},
		{"empty object", `{}`, true},
		{"summary", `{"type":"summary","summary":"Fix the parser","leafUuid":"l1"}`, true},

		// Left to encoding/json.
		{"syntax error", `{"type":"user",}`, false},
		{"trailing data", `{"type":"user"} x`, false},
		{"two records", `{"type":"user"}{"type":"user"}`, false},
		{"cut off", `{"type":"user","message":{"content":"half`, false},
		{"bad escape", `{"type":"user","x":"\x"}`, false},
		{"short unicode escape", `{"type":"user","x":"\u12"}`, false},
		{"control byte", "{\"type\":\"user\",\"x\":\"a\tb\"}", false},
		{"bad number", `{"type":"user","x":01}`, false},
		{"bad number 2", `{"type":"user","x":1.}`, false},
		{"bad number 3", `{"type":"user","x":-}`, false},
		{"bad number 4", `{"type":"user","x":1e}`, false},
		{"bad literal", `{"type":"user","x":tru}`, false},
		{"not an object", `["type","user"]`, false},
		{"field of the wrong type", `{"type":"user","isSidechain":"yes"}`, false},
		{"type not a string", `{"type":7}`, false},
		{"message a string", `{"type":"user","message":"hi"}`, false},
		{"block not an object", `{"type":"user","message":{"content":["hi"]}}`, false},
		{"part not an object", `{"type":"user","message":{"content":[{"type":"tool_result","content":["x"]}]}}`, false},
		{"part text not a string", `{"type":"user","message":{"content":[{"type":"tool_result","content":[{"type":"text","text":1}]}]}}`, false},
		{"is_error a string", `{"type":"user","message":{"content":[{"type":"tool_result","is_error":"yes"}]}}`, false},
		{"key in other case", `{"Type":"user"}`, false},
		{"block key in other case", `{"type":"user","message":{"content":[{"TYPE":"text","text":"x"}]}}`, false},
		{"key with an escape", `{"typ\u0065":"user","x\u00e9":1,"\ud800":2}`, true},
		{"key with an escape in other case", `{"\u0054ype":"user"}`, false},
		{"non-ASCII keys", `{"type":"user","é":"x","answers":{"ſ—K":1}}`, true},
		{"long s key", `{"type":"user","ſummary":"x"}`, false},
		{"Kelvin sign key", "{\"type\":\"user\",\"toolUseResult\":{\"\u212ax\":1}}", false},
		{"field twice", `{"type":"user","type":"assistant"}`, false},
		{"message twice", `{"type":"user","message":{"content":"a"},"message":{"role":"user"}}`, false},
		{"command twice", `{"type":"assistant","message":{"content":[{"type":"tool_use","input":{"command":"a","command":"b"}}]}}`, false},
		{"too deep", `{"type":"user","x":` + strings.Repeat("[", jsonl.MaxScanDepth) + strings.Repeat("]", jsonl.MaxScanDepth) + `}`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := checkDecode(t, []byte(tt.line)); got != tt.accept {
				t.Errorf("accepted %v, want %v", got, tt.accept)
			}
		})
	}
}

// TestDecodeRecordInvalidUTF8 checks that a line that is not valid UTF-8 is read by
// encoding/json (each invalid byte a U+FFFD).
func TestDecodeRecordInvalidUTF8(t *testing.T) {
	line := rec("user", "u1", "2026-01-01T10:00:00Z", `"message":{"content":"caf`+"\xe9"+` \u00e9"}`)
	s, probs := ReadTranscript("f.jsonl", strings.NewReader(line))
	if s == nil || len(s.Events) != 1 || s.Events[0].UserContent != "caf\ufffd é" || len(probs) != 1 || probs[0].Kind != "invalid_utf8" {
		t.Fatalf("session %+v, problems %v", s, probs)
	}
}

// checkDecodeLines holds the fast decoder to encoding/json on every line of data,
// and checks that it decodes itself every line encoding/json decodes without an
// error.
func checkDecodeLines(t *testing.T, name string, data []byte) {
	t.Helper()
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, MaxLine)
	declined := 0
	for sc.Scan() {
		line := sc.Bytes()
		var slow record
		bad, err := decodeSlow(line, &slow)
		if !checkDecode(t, line) && utf8.Valid(line) && err == nil && len(bad) == 0 {
			declined++
		}
	}
	if declined > 0 {
		t.Errorf("%s: %d well-formed lines left to encoding/json", name, declined)
	}
}

// checkDecodeTree runs checkDecodeLines over every transcript under root.
func checkDecodeTree(t *testing.T, root string) {
	t.Helper()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !strings.HasSuffix(p, ".jsonl") {
			return err
		}
		data, err := os.ReadFile(p)
		if err == nil {
			checkDecodeLines(t, p, data)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestDecodeRecordTranscripts runs checkDecodeLines over the fixtures and the
// synthetic benchmark transcript.
func TestDecodeRecordTranscripts(t *testing.T) {
	checkDecodeTree(t, "testdata")
	data, _ := synthTranscript(30)
	checkDecodeLines(t, "synthetic", data)
}

// TestDecodeRecordCorpus runs checkDecodeLines over every transcript of the shared
// corpus.
func TestDecodeRecordCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("the corpus is read without -short")
	}
	checkDecodeTree(t, corpusDir(t))
}

// FuzzDecodeRecord holds the fast decoder to encoding/json on any line.
func FuzzDecodeRecord(f *testing.F) {
	for _, s := range []string{
		`{"type":"user","uuid":"u","message":{"role":"user","content":"hi \u00e9\ud83d\ude00"}}`,
		`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t","name":"Bash","input":{"command":"ls"}},{"type":"thinking","thinking":"x","signature":"y"}]}}`,
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"a"}],"is_error":true}]},"toolUseResult":{"stdout":"a","stderr":"","interrupted":false}}`,
		`{"type":"progress","data":{"type":"hook_progress","n":[1,-2.5e3,true,null]},"isSidechain":false}`,
		`{"type":"user","isSidechain":"yes","Message":{}}`,
		`{"type":"system","subtype":"stop_hook_summary","hookInfos":[{"command":"callback"}]}`,
		`{"type":"user","message":{"content":[null,{"type":"tool_result","content":{"x":1}}]},"toolUseResult":{"interrupted":"no"}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		checkDecode(t, line)
	})
}
