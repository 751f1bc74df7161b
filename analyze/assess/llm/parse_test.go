package llm

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseEnvelope(t *testing.T) {
	tests := []struct {
		name    string
		out     string
		want    string
		wantErr string
	}{
		{name: "result object", out: `{"type":"result","subtype":"success","is_error":false,"result":"Hello.","session_id":"x","total_cost_usd":0.01}`, want: "Hello."},
		{name: "surrounding whitespace", out: "\n  {\"type\":\"result\",\"result\":\"a\\nb\"}\n", want: "a\nb"},
		{name: "verbose array", out: `[{"type":"system","subtype":"init"},{"type":"assistant","message":{}},{"type":"result","result":"done"}]`, want: "done"},
		{name: "stream-json lines", out: "{\"type\":\"system\"}\n{\"type\":\"assistant\"}\n{\"type\":\"result\",\"result\":\"r\"}\n", want: "r"},
		{name: "trailing noise after result", out: "{\"type\":\"result\",\"result\":\"r\"}\nnot json", want: "r"},
		{name: "plain text", out: "The session went well.", want: "The session went well."},
		{name: "text answer that is JSON", out: `{"outcome":"success","confidence":0.9,"summary":"ok"}`, want: `{"outcome":"success","confidence":0.9,"summary":"ok"}`},
		{name: "text answer that looks like JSON", out: "{not json at all", want: "{not json at all"},
		{name: "empty", out: "  \n", wantErr: "printed nothing"},
		{name: "error result", out: `{"type":"result","subtype":"error_max_turns","is_error":true,"result":"limit"}`, wantErr: "error_max_turns"},
		{name: "is_error", out: `{"type":"result","subtype":"success","is_error":true,"result":"Invalid API key"}`, wantErr: "Invalid API key"},
		{name: "no result field", out: `{"type":"result","subtype":"success"}`, wantErr: `no "result" field`},
		{name: "no result message", out: `{"type":"system"}`, wantErr: `no "result" message`},
		{name: "broken stream", out: "{\"type\":\"system\"}\n{\"type\":", wantErr: "malformed"},
	}
	for _, tt := range tests {
		got, err := ParseEnvelope([]byte(tt.out))
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: err = %v, want %q", tt.name, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%s: got %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
}

func TestParseAnalysis(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    SessionAnalysis
		wantErr string
	}{
		{name: "bare", in: `{"outcome":"success","confidence":0.92,"summary":"Auth flow done."}`, want: SessionAnalysis{OutcomeSuccess, 0.92, "Auth flow done."}},
		{name: "fenced", in: "Here is my analysis:\n```json\n{\"outcome\": \"partial\", \"confidence\": 0.6, \"summary\": \"Half done.\"}\n```\nLet me know.", want: SessionAnalysis{OutcomePartial, 0.6, "Half done."}},
		{name: "fence without language", in: "```\n{\"outcome\":\"failure\",\"confidence\":1,\"summary\":\"x\"}\n```", want: SessionAnalysis{OutcomeFailure, 1, "x"}},
		{name: "prose around", in: `Sure. {"outcome":"abandoned","confidence":0.3,"summary":"stopped"} Hope that helps {`, want: SessionAnalysis{OutcomeAbandoned, 0.3, "stopped"}},
		{name: "case and space", in: `{"outcome":" Success ","confidence":"0.5","summary":"  s  "}`, want: SessionAnalysis{OutcomeSuccess, 0.5, "s"}},
		{name: "nested", in: `{"analysis":{"outcome":"partial","confidence":0.4,"summary":"n"}}`, want: SessionAnalysis{OutcomePartial, 0.4, "n"}},
		{name: "braces in prose first", in: "Using {braces} here. {\"outcome\":\"success\",\"confidence\":0.7}", want: SessionAnalysis{OutcomeSuccess, 0.7, ""}},
		{name: "bad outcome", in: `{"outcome":"great","confidence":0.5}`, wantErr: "unknown outcome"},
		{name: "confidence too high", in: `{"outcome":"success","confidence":85}`, wantErr: "outside [0, 1]"},
		{name: "confidence missing", in: `{"outcome":"success"}`, wantErr: "no confidence"},
		{name: "confidence not a number", in: `{"outcome":"success","confidence":"high"}`, wantErr: "not a number"},
		{name: "garbage", in: "I cannot classify this session.", wantErr: "no JSON object"},
		{name: "empty", in: "", wantErr: "no JSON object"},
	}
	for _, tt := range tests {
		got, err := ParseAnalysis(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: err = %v, want %q", tt.name, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%s: got %+v, %v; want %+v", tt.name, got, err, tt.want)
		}
	}
}

func TestParseAnalysisBoundedWork(t *testing.T) {
	// Many opening braces: the search gives up after a bounded number of starts.
	in := strings.Repeat("{", 100000) + `{"outcome":"success","confidence":1}`
	if _, err := ParseAnalysis(in); err == nil {
		t.Error("found an object past the search bound")
	}
}

func FuzzParseEnvelope(f *testing.F) {
	f.Add([]byte(`{"type":"result","subtype":"success","is_error":false,"result":"Hello."}`))
	f.Add([]byte(`[{"type":"system"},{"type":"result","result":"x"}]`))
	f.Add([]byte("{\"type\":\"system\"}\n{\"type\":\"result\",\"result\":\"r\"}\n"))
	f.Add([]byte("plain text"))
	f.Add([]byte(`{"type":"result","is_error":true}`))
	f.Add([]byte(`{"type":`))
	f.Fuzz(func(t *testing.T, out []byte) {
		got, err := ParseEnvelope(out)
		if err != nil {
			return
		}
		if got == "" && len(strings.TrimSpace(string(out))) > 0 && !strings.Contains(string(out), `"result"`) {
			t.Errorf("empty answer from %q", out)
		}
		// A plain-text answer is returned unchanged (trimmed).
		if trimmed := strings.TrimSpace(string(out)); !strings.HasPrefix(trimmed, "{") && !strings.HasPrefix(trimmed, "[") && got != trimmed {
			t.Errorf("plain text changed: %q -> %q", out, got)
		}
	})
}

func FuzzParseAnalysis(f *testing.F) {
	f.Add(`{"outcome":"success","confidence":0.92,"summary":"ok"}`)
	f.Add("```json\n{\"outcome\":\"partial\",\"confidence\":0.6}\n```")
	f.Add(`x {"a":{"outcome":"failure","confidence":"1"}} y`)
	f.Add("```")
	f.Fuzz(func(t *testing.T, in string) {
		a, err := ParseAnalysis(in)
		if err != nil {
			return
		}
		if _, err := ParseOutcome(string(a.Outcome)); err != nil {
			t.Errorf("invalid outcome %q accepted", a.Outcome)
		}
		if !(a.Confidence >= 0 && a.Confidence <= 1) {
			t.Errorf("confidence %v accepted", a.Confidence)
		}
	})
}

func TestShorten(t *testing.T) {
	s := strings.Repeat("é", 100)
	got := shorten(s, 50)
	if len(got) > 50 || !utf8.ValidString(got) || !strings.Contains(got, "[…]") {
		t.Errorf("shorten = %q", got)
	}
	if shorten("short", 50) != "short" {
		t.Error("short text changed")
	}
}
