package vibeslog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loopwatch/loopwatch/analyze"
	"github.com/loopwatch/loopwatch/replay/input"
	"github.com/loopwatch/loopwatch/replay/jsonl"
)

var t0 = time.Date(2026, 3, 3, 14, 0, 0, 0, time.UTC)

// id returns a UUIDv7 for t0 plus ms milliseconds; n makes it unique.
func id(ms int64, n int) string {
	u := uint64(t0.UnixMilli() + ms)
	return fmt.Sprintf("%08x-%04x-7%03x-8%03x-%012x", u>>16, u&0xffff, n&0xfff, n&0xfff, n)
}

// line builds one log line from a type, a session and extra fields.
func line(ms int64, n int, typ, session, extra string) string {
	s := fmt.Sprintf(`{"event_id":%q,"type":%q`, id(ms, n), typ)
	if session != "" {
		s += fmt.Sprintf(`,"session_id":%q`, session)
	}
	if extra != "" {
		s += "," + extra
	}
	return s + "}\n"
}

func claudeEv(ms int64, n int, session, event string) string {
	return line(ms, n, "claude", session, `"event":`+event)
}

func hookEv(ms int64, n int, session, typ, extra string) string {
	ev := fmt.Sprintf(`{"type":%q,"session_id":"cc","cwd":"/w","hook_event_name":"x"`, typ)
	if extra != "" {
		ev += "," + extra
	}
	return line(ms, n, "hook", session, `"event":`+ev+"}")
}

func userInput(ms int64, n int, session, text string) string {
	return line(ms, n, "user_input", session, fmt.Sprintf(`"content":%q,"source":"cli"`, text))
}

func brief(evs []analyze.Event) []string {
	var out []string
	for _, ev := range evs {
		s := string(ev.Kind)
		switch ev.Kind {
		case analyze.KindUserMessage:
			s += ":" + ev.UserContent
		case analyze.KindAssistantMessage:
			s += ":" + ev.AssistantText
		case analyze.KindToolResult:
			s += fmt.Sprintf(":%s/%s/%s", ev.ToolName, ev.ToolStatus, ev.ToolOutput)
			if ev.ToolCommand != "" {
				s += " $ " + ev.ToolCommand
			}
			if ev.HasExitCode {
				s += fmt.Sprintf(" exit=%d", ev.ExitCode)
			}
		case analyze.KindHook:
			s += ":" + ev.HookName
		case analyze.KindSystem:
			s += ":" + ev.Subtype
		}
		out = append(out, s)
	}
	return out
}

func TestRead(t *testing.T) {
	const a = "s-a"
	tests := []struct {
		name   string
		in     string
		events []string
		probs  []string
	}{
		{name: "a prompt seen by vibes and by the hook is one message, whichever comes first",
			in: userInput(0, 1, a, "fix it") + hookEv(10, 2, a, "user_prompt_submit", `"prompt":" fix it "`) +
				hookEv(1000, 3, a, "user_prompt_submit", `"prompt":"typed in the TUI"`) +
				hookEv(2000, 4, a, "user_prompt_submit", `"prompt":"again"`) + userInput(2010, 5, a, "again"),
			events: []string{"user_message:fix it", "user_message:typed in the TUI", "user_message:again"}},
		{name: "the same text twice makes two messages; pairs are not made across the window",
			in: userInput(0, 1, a, "continue") + hookEv(5, 2, a, "user_prompt_submit", `"prompt":"continue"`) +
				userInput(100, 3, a, "continue") + hookEv(105, 4, a, "user_prompt_submit", `"prompt":"continue"`) +
				userInput(200, 5, a, "late") + hookEv(200+int64(PairWindow/time.Millisecond)+1, 6, a, "user_prompt_submit", `"prompt":"late"`),
			events: []string{"user_message:continue", "user_message:continue", "user_message:late", "user_message:late"}},
		{name: "text deltas join until anything else of the session",
			in: claudeEv(0, 1, a, `{"type":"text_delta","text":"Hel"}`) +
				claudeEv(1, 2, "s-b", `{"type":"text_delta","text":"other session"}`) +
				claudeEv(2, 3, a, `{"type":"text_delta","text":"lo."}`) +
				claudeEv(3, 4, a, `{"type":"thinking_delta","text":"hm"}`) +
				claudeEv(4, 5, a, `{"type":"text_delta","text":" "}`) +
				claudeEv(5, 6, a, `{"type":"tool_use_start","id":"t1","name":"Bash"}`) +
				claudeEv(6, 7, a, `{"type":"text_delta","text":"Done."}`),
			events: []string{"assistant_message:Hello.", "assistant_message:Done."}},
		{name: "a tool call's command comes from its input deltas, or from post_tool_use's tool_input; a failed result's exit code from its output",
			in: claudeEv(0, 1, a, `{"type":"tool_use_start","id":"t1","name":"Bash"}`) +
				claudeEv(1, 2, a, `{"type":"tool_input_delta","id":"t1","delta":"{\"comm"}`) +
				claudeEv(2, 3, a, `{"type":"tool_input_delta","id":"t1","delta":"and\":\"go test ./...\"}"}`) +
				claudeEv(3, 4, a, `{"type":"tool_result","id":"t1","output":"Exit code 1\nFAIL\tx","is_error":true}`) +
				hookEv(400000, 5, a, "post_tool_use", `"tool_name":"Bash","tool_input":{"command":"cargo build"},"tool_response":{"stdout":"","stderr":"error: x","interrupted":false}`) +
				claudeEv(400001, 6, a, `{"type":"tool_result","id":"t9","output":"Exit code 101\nerror: x","is_error":true}`) +
				claudeEv(800000, 7, a, `{"type":"tool_use_start","id":"t2","name":"Bash"}`) +
				claudeEv(800001, 8, a, `{"type":"tool_input_delta","id":"t2","delta":"{\"command\":"}`) +
				claudeEv(800002, 9, a, `{"type":"tool_input_delta","id":"t2","delta":"`+strings.Repeat("x", MaxToolInput)+`"}`) +
				claudeEv(800003, 10, a, `{"type":"tool_input_delta","id":"t2","delta":"\"ls\"}"}`) +
				claudeEv(800004, 11, a, `{"type":"tool_result","id":"t2","output":"Exit code 2\n","is_error":false}`) +
				hookEv(1200000, 12, a, "post_tool_use", `"tool_name":"Bash","tool_input":{"command":7},"tool_response":"done"`),
			events: []string{"tool_result:Bash/error/Exit code 1\nFAIL\tx $ go test ./... exit=1",
				"tool_result:Bash/error/Exit code 101\nerror: x $ cargo build exit=101",
				"tool_result:Bash/ok/Exit code 2\n",
				"tool_result:Bash/unknown/done"}},
		{name: "tool results pair with post_tool_use by tool name (or with any when a name is unknown); claude's output and flag win",
			in: claudeEv(0, 1, a, `{"type":"tool_use_start","id":"t1","name":"Bash"}`) +
				claudeEv(1, 2, a, `{"type":"tool_use_start","id":"t2","name":"Read"}`) +
				hookEv(10, 3, a, "post_tool_use", `"tool_name":"Read","tool_response":"file text"`) +
				hookEv(11, 4, a, "post_tool_use", `"tool_name":"Bash","tool_response":{"stdout":"so","stderr":"se","interrupted":true}`) +
				claudeEv(12, 5, a, `{"type":"tool_result","id":"t1","output":"claude's","is_error":false}`) +
				claudeEv(13, 6, a, `{"type":"tool_result","id":"t2","output":"file text"}`) +
				claudeEv(14, 7, a, `{"type":"tool_result","id":"t9","output":"no start","is_error":true}`) +
				hookEv(15, 8, a, "post_tool_use", `"tool_name":"Edit","tool_response":{"filePath":"x"}`),
			events: []string{"tool_result:Read/unknown/file text", "tool_result:Bash/ok/claude's", "tool_result:Edit/error/no start"}}, // an unnamed result pairs with any tool
		{name: "a hook after its tool result fills an unknown status",
			in: claudeEv(0, 1, a, `{"type":"tool_use_start","id":"t1","name":"Bash"}`) +
				claudeEv(1, 2, a, `{"type":"tool_result","id":"t1","output":"partial"}`) +
				hookEv(2, 3, a, "post_tool_use", `"tool_name":"Bash","tool_response":{"stdout":"partial","interrupted":true}`),
			events: []string{"tool_result:Bash/error/partial"}},
		{name: "hooks and lifecycle",
			in: hookEv(0, 1, a, "session_start", "") + hookEv(1, 2, a, "stop", "") + hookEv(2, 3, a, "subagent_stop", "") +
				hookEv(3, 4, a, "pre_compact", "") + hookEv(4, 5, a, "session_end", `"reason":"logout"`) +
				hookEv(5, 6, a, "config_change", "") + hookEv(6, 7, a, "user_prompt_submit", "") +
				line(7, 8, "session_removed", a, "") + line(8, 9, "ownership_transferred", a, "") +
				claudeEv(9, 10, a, `{"type":"error","message":"boom","recoverable":false}`),
			events: []string{"hook:SessionStart", "hook:Stop", "hook:SubagentStop", "hook:PreCompact", "hook:SessionEnd",
				"hook:x", "hook:UserPromptSubmit", "system:session_removed", "system:ownership_transferred", "system:error"}},
		{name: "out of order: small steps sorted, large ones clamped",
			in:     userInput(2000, 1, a, "b") + userInput(1000, 2, a, "a") + userInput(3000, 3, a, "c") + userInput(-3600_000, 4, a, "fault"),
			events: []string{"user_message:a", "user_message:b", "user_message:c", "user_message:fault"},
			probs:  []string{"4:invalid_record"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lg := ReadLog("t.jsonl", strings.NewReader(tt.in))
			checkLog(t, lg)
			var got []string
			for _, s := range lg.Sessions {
				if s.Key == a {
					got = brief(s.Events)
				}
			}
			if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", tt.events) {
				t.Errorf("events\n got %q\nwant %q", got, tt.events)
			}
			var probs []string
			for _, p := range lg.Problems {
				probs = append(probs, fmt.Sprintf("%d:%s", p.Line, p.Kind))
			}
			if fmt.Sprint(probs) != fmt.Sprint(tt.probs) {
				t.Errorf("problems %v, want %v\n%v", probs, tt.probs, lg.Problems)
			}
		})
	}
}

func TestReadSessions(t *testing.T) {
	in := line(0, 1, "client_connected", "", `"client_id":"c"`) +
		userInput(1, 2, "s-2", "two") + line(2, 3, "session_created", "s-1", `"name":"first"`) +
		hookEv(3, 4, "s-1", "stop", "")
	sessions, probs := Read("log.jsonl", strings.NewReader(in))
	if len(probs) != 0 || len(sessions) != 2 {
		t.Fatalf("sessions %d, problems %v", len(sessions), probs)
	}
	s1, s2 := sessions[0], sessions[1]
	if s1.Key != "s-1" || s1.Title != "first" || s1.Project != "/w" || s1.Line != 3 || s1.File != "log.jsonl" ||
		!s1.Start.Equal(t0.Add(2*time.Millisecond)) || !s1.End.Equal(t0.Add(3*time.Millisecond)) {
		t.Errorf("s-1: %+v", s1)
	}
	if s2.Key != "s-2" || s2.Line != 2 || len(s2.Events) != 1 || s2.Records["user_input"] != 1 {
		t.Errorf("s-2: %+v", s2)
	}
	if lg := ReadLog("log.jsonl", strings.NewReader(in)); lg.Unattributed["client_connected"] != 1 {
		t.Errorf("unattributed %v", lg.Unattributed)
	}
}

// TestReadOnly: building only some sessions gives those sessions exactly as ReadLog
// gives them, and the problems of every line as such; of the other sessions' events,
// only what is found decoding a line before its session is known.
func TestReadOnly(t *testing.T) {
	bad, err := os.ReadFile("testdata/bad.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	in := string(bad) + "\n" + userInput(1, 2, "s-2", "two") + line(2, 3, "session_created", "s-1", `"name":"first"`) +
		hookEv(3, 4, "s-1", "post_tool_use", `"tool_name":"Bash","tool_response":{"stdout":"a"}`) +
		line(4, 5, "hologram", "s-2", "") + `{"type":"claude","session_id":"s-1","event":{"type":"text_delta","text":5}}` + "\n"
	all := ReadLog("log.jsonl", strings.NewReader(in))
	if len(all.Sessions) != 3 {
		t.Fatalf("the input lacks variety: %d sessions", len(all.Sessions))
	}
	lines := func(lg *Log) []string {
		var out []string
		for _, p := range lg.Problems {
			out = append(out, fmt.Sprintf("%d:%s", p.Line, p.Kind))
		}
		return out
	}
	// Lines 3, 4, 19 (not JSON), 8 (no type), 13 (no session) and 15 (not UTF-8) are
	// problems as such, and 14 (s-bad's content of the wrong type) is found while its
	// line is decoded, before its session is known; 23 (s-2's unknown type) and 24
	// (s-1's text of the wrong type, and so no text) are the sessions'.
	asSuch := "3:malformed_line 4:malformed_line 8:invalid_record 13:invalid_record 14:invalid_record 15:invalid_utf8 19:malformed_line"
	for _, tt := range []struct {
		keep     []string
		problems string
	}{
		{[]string{"s-bad", "s-1", "s-2"}, strings.Join(lines(all), " ")},
		{[]string{"s-1"}, asSuch + " 24:invalid_record 24:invalid_record"},
		{[]string{"s-2"}, asSuch + " 23:unknown_kind"},
		{[]string{}, asSuch},
	} {
		only := ReadLogOnly("log.jsonl", strings.NewReader(in), func(k string) bool { return slices.Contains(tt.keep, k) })
		var keys []string
		for _, s := range only.Sessions {
			keys = append(keys, s.Key)
			i := slices.IndexFunc(all.Sessions, func(a *input.Session) bool { return a.Key == s.Key })
			if i < 0 || !reflect.DeepEqual(s, all.Sessions[i]) {
				t.Errorf("keep %v: session %s is not ReadLog's", tt.keep, s.Key)
			}
		}
		want := slices.Sorted(slices.Values(tt.keep))
		if fmt.Sprint(keys) != fmt.Sprint(want) {
			t.Errorf("keep %v: sessions %v", tt.keep, keys)
		}
		if got := strings.Join(lines(only), " "); got != tt.problems {
			t.Errorf("keep %v: problems\n%s\nwant\n%s", tt.keep, got, tt.problems)
		}
	}
}

// genLine is a random log line of sessions a, bb, c, dd and e (n makes its event id
// unique): good events and bad ones — a clock fault, a session named only inside its
// event, before it, null or twice, fields of the wrong type or in other case, values
// nested about as deep as the scanner reads, two records on a line, invalid UTF-8,
// unknown types, bad event ids, cut lines, events of no session.
// genLog returns a random log of least to least+more-1 lines of genLine's.
func genLog(r *rand.Rand, least, more int) string {
	var b strings.Builder
	for n := range least + r.IntN(more) {
		b.WriteString(genLine(r, n+1))
	}
	return b.String()
}

func genLine(r *rand.Rand, n int) string {
	sids := []string{"a", "bb", "c", "dd", "e"}
	sid := sids[r.IntN(len(sids))]
	ms := int64(r.IntN(4000)) * 1000
	if r.IntN(12) == 0 {
		ms -= 40 * 60 * 1000 // clock fault
	}
	switch r.IntN(26) {
	case 0:
		return userInput(ms, n, sid, "fix it")
	case 1:
		return hookEv(ms, n, sid, "user_prompt_submit", `"prompt":"fix it"`)
	case 2:
		return claudeEv(ms, n, sid, `{"type":"text_delta","text":"hi"}`)
	case 3:
		return claudeEv(ms, n, sid, `{"type":"tool_use_start","id":"t1","name":"Bash"}`)
	case 4:
		return claudeEv(ms, n, sid, `{"type":"tool_input_delta","id":"t1","delta":"{\"command\":\"go test\"}"}`)
	case 5:
		return claudeEv(ms, n, sid, `{"type":"tool_result","id":"t1","output":"FAIL","is_error":true}`)
	case 6:
		return hookEv(ms, n, sid, "post_tool_use", `"tool_name":"Bash","tool_input":{"command":"go test"},"tool_response":{"stdout":"FAIL"}`)
	case 7: // session only inside
		return line(ms, n, "hook", "", `"event":{"type":"stop","session_id":"`+sid+`","hook_event_name":"Stop"}`)
	case 8: // event before the session
		return fmt.Sprintf(`{"event_id":%q,"type":"hook","event":{"type":"stop","session_id":"inner"},"session_id":%q}`+"\n", id(ms, n), sid)
	case 9: // session null, inner session
		return fmt.Sprintf(`{"event_id":%q,"type":"hook","session_id":null,"event":{"type":"stop","session_id":%q}}`+"\n", id(ms, n), sid)
	case 10: // session twice
		return fmt.Sprintf(`{"event_id":%q,"type":"user_input","session_id":"a","content":"x","session_id":%q}`+"\n", id(ms, n), sid)
	case 11: // wrong-typed inner field
		return claudeEv(ms, n, sid, `{"type":"text_delta","text":5}`)
	case 12: // case-folded inner key
		return claudeEv(ms, n, sid, `{"type":"text_delta","TEXT":"x","text":"y"}`)
	case 13: // deep inner value
		d := jsonl.MaxScanDepth - 2 + r.IntN(4)
		return claudeEv(ms, n, sid, `{"type":"turn_start","x":`+strings.Repeat("[", d)+strings.Repeat("]", d)+`}`)
	case 14: // two records on a line
		return strings.TrimSuffix(genLine(r, n), "\n") + genLine(r, n+1)
	case 15: // invalid UTF-8
		return userInput(ms, n, sid, "caf\xe9")
	case 16:
		return line(ms, n, "session_created", sid, `"name":"title `+sid+`"`)
	case 17:
		return line(ms, n, "hologram", sid, "")
	case 18:
		return "{not json\n"
	case 19:
		return line(ms, n, "client_connected", "", "")
	case 20:
		return fmt.Sprintf(`{"event_id":"bad","type":"user_input","session_id":%q,"content":"x"}`+"\n", sid)
	case 21: // event of a wrong type, no session at the top
		return line(ms, n, "hook", "", `"event":5`)
	case 22: // inner session, event with a wrong-typed field
		return line(ms, n, "hook", "", `"event":{"type":"stop","session_id":"`+sid+`","prompt":7}`)
	case 23: // top-level session empty string
		return fmt.Sprintf(`{"event_id":%q,"type":"hook","session_id":"","event":{"type":"stop","session_id":%q}}`+"\n", id(ms, n), sid)
	case 24: // cut
		s := claudeEv(ms, n, sid, `{"type":"text_delta","text":"hi"}`)
		return s[:len(s)/2] + "\n"
	default:
		return claudeEv(ms, n, sid, `{"type":"turn_complete"}`)
	}
}

// TestReadOnlyGenerated: on random logs of good and bad lines (genLine), ReadLogOnly
// with a random keep builds ReadLog's sessions of those keys and counts the same
// events of no session, and keeping every session it is ReadLog.
func TestReadOnlyGenerated(t *testing.T) {
	seeds := uint64(3000)
	if testing.Short() {
		seeds = 300
	}
	for seed := range seeds {
		r := rand.New(rand.NewPCG(seed, 1))
		in := genLog(r, 1, 40)
		all := ReadLog("f.jsonl", strings.NewReader(in))
		mask := r.IntN(32)
		keep := func(k string) bool {
			i := slices.Index([]string{"a", "bb", "c", "dd", "e"}, k)
			return i >= 0 && mask&(1<<i) != 0
		}
		var want []*input.Session
		for _, s := range all.Sessions {
			if keep(s.Key) {
				want = append(want, s)
			}
		}
		only := ReadLogOnly("f.jsonl", strings.NewReader(in), keep)
		if !reflect.DeepEqual(only.Sessions, want) || !reflect.DeepEqual(only.Unattributed, all.Unattributed) {
			t.Fatalf("seed %d, keeping %05b: not ReadLog's sessions of those keys on\n%s", seed, mask, in)
		}
		checkLog(t, only)
		if !reflect.DeepEqual(ReadLogOnly("f.jsonl", strings.NewReader(in), func(string) bool { return true }), all) {
			t.Fatalf("seed %d: keeping every session is not ReadLog on\n%s", seed, in)
		}
	}
}

func TestEventTime(t *testing.T) {
	tests := []struct {
		id   string
		want string // RFC 3339 or "error"
	}{
		{"019cb3ff-9f00-7001-8000-000000000001", "2026-03-03T14:00:00Z"},
		{"019CB3FF-9F00-7001-B000-000000000001", "2026-03-03T14:00:00Z"},
		{"019cb3ff9f0070018000000000000001", "2026-03-03T14:00:00Z"},
		// The earliest time an id holds: never Go's zero time, which the reader takes for
		// no time (so no id's time is lost as 0001-01-01T00:00:00Z is in other formats).
		{"00000000-0000-7000-8000-000000000000", "1970-01-01T00:00:00Z"},
		{"019cb3ff-9f00-4001-8000-000000000001", "error"}, // v4
		{"019cb3ff-9f00-7001-c000-000000000001", "error"}, // wrong variant
		{"019cb3ff-9f00-7001-8000-00000000000g", "error"},
		{"019cb3ff_9f00-7001-8000-000000000001", "error"},
		{"", "error"},
	}
	for _, tt := range tests {
		got, err := EventTime(tt.id)
		s := "error"
		if err == nil {
			s = got.Format(time.RFC3339Nano)
		}
		if s != tt.want {
			t.Errorf("EventTime(%q) = %s (%v), want %s", tt.id, s, err, tt.want)
		}
	}
	if got, _ := EventTime(id(1234, 1)); !got.Equal(t0.Add(1234*time.Millisecond)) || got.Location() != time.UTC {
		t.Errorf("EventTime of a generated id: %s", got)
	}
}

func TestSniff(t *testing.T) {
	tests := []struct {
		head string
		want bool
	}{
		{line(0, 1, "user_input", "s", `"content":"x"`), true},
		{line(0, 1, "client_connected", "", ""), true},
		{`{"event_id":"x","type":"claude","session_id":"s","event":{"type":"text_delta","text":"` /* cut */, true},
		{`{"event_id":"x","type":"hologram"}`, false},
		{`{"type":"user","sessionId":"s","uuid":"u"}`, false},
		{`{"ts":"2026-01-01T00:00:00Z","kind":"cycle_done","task":"q"}`, false},
		{"", false},
	}
	for _, tt := range tests {
		if got := Sniff([]byte(tt.head)); got != tt.want {
			t.Errorf("Sniff(%.50q) = %v, want %v", tt.head, got, tt.want)
		}
	}
}

// withoutOtherContent returns a copy of lg without its problems of an event_id read
// before with other content.
func withoutOtherContent(lg *Log) *Log {
	c := *lg
	c.Problems = slices.DeleteFunc(slices.Clone(lg.Problems), func(p input.Problem) bool {
		return strings.Contains(p.Detail, ", with other content; this one is skipped")
	})
	return &c
}

// FuzzRead checks that no input panics the reader and that what it returns keeps the
// invariants (sorted sessions, non-decreasing UTC times within Start–End, content
// where the kind needs it, problems in line order).
func FuzzRead(f *testing.F) {
	f.Add([]byte(userInput(0, 1, "s", "hi") + hookEv(1, 2, "s", "user_prompt_submit", `"prompt":"hi"`) +
		claudeEv(2, 3, "s", `{"type":"text_delta","text":"x"}`) + hookEv(3, 4, "s", "stop", "")))
	f.Add([]byte(claudeEv(0, 1, "s", `{"type":"tool_use_start","id":"t","name":"Bash"}`) +
		hookEv(1, 2, "s", "post_tool_use", `"tool_name":"Bash","tool_response":{"stdout":"a"}`) +
		claudeEv(2, 3, "s", `{"type":"tool_result","id":"t","output":"a","is_error":true}`) + "{\xff\n"))
	f.Add([]byte(`{"event_id":"nope","type":"user_input","session_id":"s","content":"x"}` + "\n" + `{"type":`))
	f.Fuzz(func(t *testing.T, in []byte) {
		lg := ReadLog("f.jsonl", bytes.NewReader(in))
		checkLog(t, lg)
		// Building only the sessions of keys of even length gives ReadLog's of those.
		var even []*input.Session
		for _, s := range lg.Sessions {
			if len(s.Key)%2 == 0 {
				even = append(even, s)
			}
		}
		only := ReadLogOnly("f.jsonl", bytes.NewReader(in), func(k string) bool { return len(k)%2 == 0 })
		if !reflect.DeepEqual(only.Sessions, even) || !reflect.DeepEqual(only.Unattributed, lg.Unattributed) {
			t.Fatalf("ReadLogOnly built %d sessions, not ReadLog's %d of those keys", len(only.Sessions), len(even))
		}
		// The log cut in two at its middle line and read in its parts is the log — but
		// for a repeat across the cut, which the parts compare as the event read, and one
		// file byte for byte: whether such a repeat is reported may differ.
		if lines := lineParts(string(in)); len(lines) > 1 && !reflect.DeepEqual(withoutOtherContent(readCut(lines, []int{len(lines) / 2})), withoutOtherContent(lg)) {
			t.Fatalf("cut at line %d, the parts do not read as the whole log", len(lines)/2)
		}
		// SessionKeys names every session's key, where a "session_id" member gives it, on
		// a log whose every line is JSON (on another line, a record cut off and run
		// together with the next, say, it may miss one: the files that share that
		// session are then read alone, the second reported as a duplicate).
		keys := map[string]bool{}
		if _, err := SessionKeys(bytes.NewReader(in), func(k []byte) { keys[string(k)] = true }); err != nil {
			t.Fatal(err)
		}
		for _, s := range lg.Sessions {
			if q, _ := json.Marshal(s.Key); !keys[s.Key] && bytes.Contains(in, append([]byte(`"session_id":`), q...)) && allJSON(in) {
				t.Fatalf("SessionKeys does not name session %q", s.Key)
			}
		}
	})
}

// BenchmarkRead reports MB/s and events/s over a synthetic log of 20 interleaved
// sessions of 200 turns each (every turn a prompt seen twice, 30 text deltas, a tool
// call seen twice with a few KiB of output, the Stop hook):
//
//	go test -run '^$' -bench Read -benchmem ./replay/vibeslog/
func BenchmarkRead(b *testing.B) {
	var buf bytes.Buffer
	out, _ := json.Marshal(strings.Repeat("ok  \tgithub.com/acme/project/pkg\t0.123s\n", 80))
	n, ms := 0, int64(0)
	next := func() (int64, int) { n++; ms += 40; return ms, n }
	for turn := range 200 {
		for s := range 20 {
			sess := fmt.Sprintf("s-%02d", s)
			prompt := fmt.Sprintf("turn %d: run the tests and fix what fails", turn)
			m, k := next()
			buf.WriteString(userInput(m, k, sess, prompt))
			m, k = next()
			buf.WriteString(hookEv(m, k, sess, "user_prompt_submit", fmt.Sprintf(`"prompt":%q`, prompt)))
			for range 30 {
				m, k = next()
				buf.WriteString(claudeEv(m, k, sess, `{"type":"text_delta","text":"some streamed words "}`))
			}
			m, k = next()
			buf.WriteString(claudeEv(m, k, sess, `{"type":"tool_use_start","id":"t","name":"Bash"}`))
			m, k = next()
			buf.WriteString(hookEv(m, k, sess, "post_tool_use", `"tool_name":"Bash","tool_response":{"stdout":`+string(out)+`,"stderr":"","interrupted":false}`))
			m, k = next()
			buf.WriteString(claudeEv(m, k, sess, `{"type":"tool_result","id":"t","output":`+string(out)+`,"is_error":false}`))
			m, k = next()
			buf.WriteString(hookEv(m, k, sess, "stop", ""))
		}
	}
	data := buf.Bytes()
	events := 0
	for _, s := range ReadLog("bench.jsonl", bytes.NewReader(data)).Sessions {
		events += len(s.Events)
	}
	if events != 200*20*4 {
		b.Fatalf("%d events, want %d", events, 200*20*4)
	}
	// The log in one file, and cut in two at its middle line (each event read once, as
	// one log: a repeat compared as the event read, not byte for byte).
	cut := bytes.IndexByte(data[len(data)/2:], '\n') + len(data)/2 + 1
	halves := []Part{{Name: "a.jsonl", Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data[:cut])), nil }},
		{Name: "b.jsonl", Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data[cut:])), nil }}}
	for _, bb := range []struct {
		name string
		read func() *Log
	}{
		{"file", func() *Log { return ReadLog("bench.jsonl", bytes.NewReader(data)) }},
		{"parts", func() *Log { return ReadPartsOnly(halves, nil) }},
	} {
		b.Run(bb.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			start, runs := time.Now(), 0
			for b.Loop() {
				bb.read()
				runs++
			}
			b.ReportMetric(float64(events*runs)/time.Since(start).Seconds(), "events/s")
		})
	}
}

// FuzzEventTime checks that EventTime never panics and that the hyphenated and the
// 32-digit forms of one id agree.
func FuzzEventTime(f *testing.F) {
	f.Add("019cb3ff-9f00-7001-8000-000000000001")
	f.Add("019cb3ff9f0070018000000000000001")
	f.Add("zz")
	f.Fuzz(func(t *testing.T, id string) {
		t1, err1 := EventTime(id)
		if len(id) != 36 || err1 != nil {
			return
		}
		t2, err2 := EventTime(id[0:8] + id[9:13] + id[14:18] + id[19:23] + id[24:36])
		if err2 != nil || !t1.Equal(t2) {
			t.Fatalf("%q: %v %v, 32-digit form: %v %v", id, t1, err1, t2, err2)
		}
	})
}

// TestReadClockFaultsAndJoinedLines: one event whose id says 70 years ahead is the
// one reported and placed; the events after it keep their times. Two events on one
// line are both read.
func TestReadClockFaultsAndJoinedLines(t *testing.T) {
	const years70 = int64(70 * 365 * 24 * time.Hour / time.Millisecond)
	in := userInput(0, 1, "s", "first") +
		userInput(years70, 2, "s", "from the future") +
		userInput(2000, 3, "s", "second") +
		strings.TrimSuffix(userInput(3000, 4, "s", "third"), "\n") + userInput(4000, 5, "s", "fourth") +
		userInput(5000, 6, "s", "fifth")
	lg := ReadLog("v.jsonl", strings.NewReader(in))
	var probs []string
	for _, p := range lg.Problems {
		probs = append(probs, fmt.Sprintf("%d:%s", p.Line, p.Kind))
	}
	if fmt.Sprint(probs) != "[2:invalid_record 4:malformed_line]" {
		t.Errorf("problems %v: %v", probs, lg.Problems)
	}
	s := lg.Sessions[0]
	var times []string
	for _, ev := range s.Events {
		times = append(times, fmt.Sprintf("%s@%d", ev.UserContent, ev.Time.Sub(t0).Milliseconds()))
	}
	if want := "[first@0 from the future@0 second@2000 third@3000 fourth@4000 fifth@5000]"; fmt.Sprint(times) != want {
		t.Errorf("events %v, want %s", times, want)
	}
	if !s.End.Equal(t0.Add(5 * time.Second)) {
		t.Errorf("End %v", s.End)
	}
}

// TestUnpairedBounded: records that never pair — here post_tool_use hooks of one
// session all at one millisecond, with no claude side — are each an event, and at most
// MaxUnpaired of them wait for a partner: the rest are given up, oldest first, and
// counted, so a record's look-up does not grow with the log. A partner within the
// window still pairs with the oldest that waits.
func TestUnpairedBounded(t *testing.T) {
	const n = 3 * MaxUnpaired
	var b strings.Builder
	for i := range n {
		b.WriteString(hookEv(1000, i+1, "s", "post_tool_use", `"tool_name":"Bash","tool_input":{"command":"ls"},"tool_response":"x"`))
	}
	b.WriteString(claudeEv(2000, n+1, "s", `{"type":"tool_result","tool_use_id":"t","output":"y","is_error":false}`))
	sessions, probs := Read("log.jsonl", strings.NewReader(b.String()))
	if len(sessions) != 1 {
		t.Fatalf("%d sessions, problems %v", len(sessions), probs)
	}
	s := sessions[0]
	if len(s.Events) != n || s.Records["pairing/given_up"] != n-MaxUnpaired || s.Records["claude/tool_result/paired"] != 1 {
		t.Errorf("%d events, records %v", len(s.Events), s.Records)
	}
	if got := s.Events[n-MaxUnpaired].ToolOutput; got != "y" {
		t.Errorf("the oldest waiting result took %q, want the claude side's output", got)
	}
}

// allJSON reports whether every line of in that is not blank is JSON.
func allJSON(in []byte) bool {
	for _, l := range bytes.Split(in, []byte("\n")) {
		if len(bytes.TrimSpace(l)) > 0 && !json.Valid(l) {
			return false
		}
	}
	return true
}
