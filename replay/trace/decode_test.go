package trace

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
// and to the same envelope. It reports whether it accepted the line.
func checkEnvelope(t testing.TB, line []byte) bool {
	t.Helper()
	var fast, slow envelope
	ok := utf8.Valid(line) && decodeEnvelope(line, &fast, &stringCache{task: "t", epoch: "e1"})
	fields, err := jsonl.DecodeObject(line, &slow)
	if !ok {
		return false
	}
	if err != nil || len(fields) > 0 || !json.Valid(line) {
		t.Fatalf("decodeEnvelope accepted a line DecodeObject does not decode cleanly (%v, %v): %q", err, fields, line)
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("decodeEnvelope and DecodeObject differ on %q:\nfast %#v\nslow %#v", line, fast, slow)
	}
	return true
}

// checkPayload holds fastDecode to DecodeObject for every payload type, decoding data
// into a zero value and into one already filled (as a second task_start is): when it
// accepts data, DecodeObject decodes it cleanly to the same value; when it does not,
// it leaves the value as it was. It reports whether it accepted data for any type.
func checkPayload(t testing.TB, data []byte) bool {
	t.Helper()
	if !utf8.Valid(data) {
		return false
	}
	accepted := false
	for _, fn := range []func(testing.TB, []byte) bool{
		payloadCase[TaskStart], payloadCase[AgentDone], payloadCase[FilterResult], payloadCase[FilterFixAttempt],
		payloadCase[FilterFixResult], payloadCase[CycleDone], payloadCase[TaskState],
	} {
		accepted = fn(t, data) || accepted
	}
	start := TaskStart{Title: "before", Phase: "p", MaxCycles: 3, MaxBudgetUSD: 1.5}
	fast, slow := start, start
	if fastDecode(data, &fast) {
		accepted = true
		if fields, err := jsonl.DecodeObject(data, &slow); err != nil || len(fields) > 0 || fast != slow {
			t.Fatalf("fastDecode into a filled TaskStart: %+v, DecodeObject: %+v (%v, %v) on %q", fast, slow, err, fields, data)
		}
	} else if fast != start {
		t.Fatalf("fastDecode refused %q but changed the value: %+v", data, fast)
	}
	return accepted
}

func payloadCase[T payload](t testing.TB, data []byte) bool {
	t.Helper()
	var fast, slow, zero T
	if !fastDecode(data, &fast) {
		if !reflect.DeepEqual(fast, zero) {
			t.Fatalf("fastDecode refused %q but changed the %T: %+v", data, fast, fast)
		}
		return false
	}
	fields, err := jsonl.DecodeObject(data, &slow)
	if err != nil || len(fields) > 0 || !json.Valid(data) {
		t.Fatalf("fastDecode accepted %q, which DecodeObject does not decode cleanly into a %T (%v, %v)", data, fast, err, fields)
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("fastDecode and DecodeObject differ on %q:\nfast %#v\nslow %#v", data, fast, slow)
	}
	return true
}

// TestDecodeEnvelope lists what the fast decoder decodes itself and what it leaves to
// DecodeObject; either way the envelope is DecodeObject's.
func TestDecodeEnvelope(t *testing.T) {
	for _, tt := range []struct {
		name   string
		line   string
		accept bool
	}{
		{"event", `{"ts":"2026-03-01T10:00:00Z","kind":"cycle_done","epoch":"e1","task":"t","data":{"cycle":1}}`, true},
		{"new task and epoch", `{"ts":"x","kind":"agent_done","epoch":"e2","task":"other","data":{}}`, true},
		{"escaped strings, white space, other keys", ` { "ts" : "a\u00e9\n" , "kind":"k\"","task":"\\t","extra":[1,{"a":null}] } `, true},
		{"nulls", `{"ts":null,"kind":null,"epoch":null,"task":null,"data":null}`, true},
		{"data not an object", `{"kind":"task_state","data":[1,2]}`, true},
		{"no data", `{"kind":"task_state","task":"t"}`, true},

		{"ts a number", `{"ts":7,"kind":"x"}`, false},
		{"kind an object", `{"kind":{}}`, false},
		{"key in other case", `{"Kind":"x"}`, false},
		{"field twice", `{"task":"a","task":"b"}`, false},
		{"data twice", `{"data":{},"data":{"a":1}}`, false},
		{"syntax error", `{"task":"a",}`, false},
		{"syntax error in data", `{"task":"a","data":{"cycle":}}`, false},
		{"trailing data", `{"task":"a"} {}`, false},
		{"not an object", `["task"]`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := checkEnvelope(t, []byte(tt.line)); got != tt.accept {
				t.Errorf("accepted %v, want %v", got, tt.accept)
			}
		})
	}
}

// TestDecodePayload lists payloads the fast decoder decodes itself and payloads it
// leaves to DecodeObject, for the type named; either way the value is DecodeObject's.
func TestDecodePayload(t *testing.T) {
	for _, tt := range []struct {
		name   string
		data   string
		decode func(testing.TB, []byte) bool
		accept bool
	}{
		{"task_start", `{"title":"T \u00e9","phase":"p","max_cycles":5,"max_budget_usd":10,"other":"x"}`, payloadCase[TaskStart], true},
		{"agent_done", `{"cycle":1,"role":"coder","cost_usd":0.59,"duration_ms":513000,"tokens":170058}`, payloadCase[AgentDone], true},
		{"filter_result", `{"cycle":1,"check":"lint","passed":false,"output":"a\nb","elapsed_ms":5781}`, payloadCase[FilterResult], true},
		{"filter_fix_attempt", `{"cycle":2,"check":"test","attempt":1,"cost_usd":0.1,"passed":true}`, payloadCase[FilterFixAttempt], true},
		{"filter_fix_result", `{"cycle":2,"check":"test","fixed":true,"attempts":2,"cost_usd":1e-1}`, payloadCase[FilterFixResult], true},
		{"cycle_done", `{"cycle":1,"max_cycles":5,"total_cost_usd":0.59,"max_budget_usd":10,"filter_check_name":"lint","filter_output":"x",` +
			`"findings":[{"severity":"major","description":"d"},null,{"id":"f1","status":"fixed"}],"lint_fix_calls":0,"approved":false,` +
			`"filter_fix_attempts":1,"filter_fix_cost_usd":0.2}`, payloadCase[CycleDone], true},
		{"cycle_done, no findings", `{"cycle":2,"findings":[]}`, payloadCase[CycleDone], true},
		{"cycle_done, findings null", `{"cycle":2,"findings":null}`, payloadCase[CycleDone], true},
		{"task_state", `{"outcome":"approved","cycles":2,"total_cost_usd":1.31,"reason":null}`, payloadCase[TaskState], true},
		{"negative zero, nulls", `{"cycle":null,"cost_usd":-0,"role":null,"tokens":-0}`, payloadCase[AgentDone], true},

		{"a fraction for an int", `{"cycle":1.5}`, payloadCase[AgentDone], false},
		{"an exponent for an int", `{"cycle":1e2}`, payloadCase[CycleDone], false},
		{"an int out of range", `{"tokens":9223372036854775808}`, payloadCase[AgentDone], false},
		{"a float out of range", `{"cost_usd":1e400}`, payloadCase[AgentDone], false},
		{"a string for a number", `{"cycle":"1"}`, payloadCase[CycleDone], false},
		{"a number for a bool", `{"passed":1}`, payloadCase[FilterResult], false},
		{"a finding not an object", `{"findings":["x"]}`, payloadCase[CycleDone], false},
		{"findings an object", `{"findings":{}}`, payloadCase[CycleDone], false},
		{"key in other case", `{"Cycle":1}`, payloadCase[CycleDone], false},
		{"field twice", `{"cycle":1,"cycle":2}`, payloadCase[CycleDone], false},
		{"not an object", `"x"`, payloadCase[TaskState], false},
		{"null", `null`, payloadCase[TaskState], false},
		{"trailing data", `{} 1`, payloadCase[TaskState], false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.decode(t, []byte(tt.data)); got != tt.accept {
				t.Errorf("accepted %v, want %v", got, tt.accept)
			}
			checkPayload(t, []byte(tt.data))
		})
	}
}

// TestDecodeSample checks, over every line of the built-in sample's traces, that the
// fast decoders read themselves every line and payload DecodeObject decodes cleanly,
// and read them as it does.
func TestDecodeSample(t *testing.T) {
	files, _ := filepath.Glob("../../datasets/sample/inputs/runs/*.jsonl")
	if len(files) == 0 {
		t.Fatal("no sample traces")
	}
	payloads := map[string]func(testing.TB, []byte) bool{KindTaskStart: payloadCase[TaskStart], KindAgentDone: payloadCase[AgentDone],
		KindFilterResult: payloadCase[FilterResult], KindFilterFixAttempt: payloadCase[FilterFixAttempt],
		KindFilterFixResult: payloadCase[FilterFixResult], KindCycleDone: payloadCase[CycleDone], KindTaskState: payloadCase[TaskState]}
	fast := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, MaxLine)
		for sc.Scan() {
			line := sc.Bytes()
			var env envelope
			fields, err := jsonl.DecodeObject(line, &env)
			clean := err == nil && len(fields) == 0 && utf8.Valid(line)
			if got := checkEnvelope(t, line); got != clean {
				t.Fatalf("%s: the fast decoder accepted %v, DecodeObject decodes cleanly %v: %s", f, got, clean, line)
			}
			decode := payloads[env.Kind]
			if !clean || decode == nil {
				continue
			}
			var v any
			fields, err = jsonl.DecodeObject(env.Data, &v)
			if got := decode(t, env.Data); !got && err == nil && len(fields) == 0 && bytes.HasPrefix(env.Data, []byte("{")) {
				t.Errorf("%s: the fast decoder left a clean %s payload to DecodeObject: %s", f, env.Kind, env.Data)
			} else if got {
				fast++
			}
		}
	}
	if fast == 0 {
		t.Fatal("no payload read by the fast decoder")
	}
}

// FuzzDecodeEnvelope holds the fast envelope decoder to jsonl.DecodeObject on any
// line.
func FuzzDecodeEnvelope(f *testing.F) {
	for _, s := range []string{
		`{"ts":"2026-03-01T10:00:00Z","kind":"cycle_done","epoch":"e1","task":"t","data":{"cycle":1}}`,
		`{"ts":null,"kind":"x","Task":"y","data":[1]}`,
		`{"task":"t","task":"u"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) { checkEnvelope(t, line) })
}

// FuzzDecodePayload holds the fast payload decoders to jsonl.DecodeObject on any
// data, for every payload type.
func FuzzDecodePayload(f *testing.F) {
	for _, s := range []string{
		`{"cycle":1,"role":"coder","cost_usd":0.59,"duration_ms":513000,"tokens":170058}`,
		`{"cycle":1,"findings":[{"severity":"major","description":"d"},null],"approved":true,"filter_output":"a\u00e9"}`,
		`{"title":"x","max_cycles":1.5,"MAX_BUDGET_USD":2}`,
		`{"outcome":"approved","cycles":-0,"total_cost_usd":1e308}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkPayload(t, data) })
}
