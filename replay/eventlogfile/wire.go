// Package eventlogfile is an event log kept in a JSON Lines file, for the online
// assessment processor (analyze/assess.Processor.Run) to consume: [JSONL], an
// eventlog.Log whose committed offset lives in a small file written atomically, so
// that a restarted consumer resumes exactly after its last commit, and [JSONLWriter]
// that appends to it. One event a line, in the format of [EncodeEvent].
//
// It lives outside analyze, which knows no file format; what it refuses to do is
// assess anything: it delivers events, at least once (see package eventlog).
package eventlogfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/loopwatch/loopwatch/analyze"
)

// wireEvent is the JSONL line format of an analyze.Event.
type wireEvent struct {
	Kind          string    `json:"kind"`
	SessionID     string    `json:"session_id,omitempty"`
	Time          time.Time `json:"time"`
	ID            string    `json:"id,omitempty"`
	UserContent   string    `json:"user_content,omitempty"`
	AssistantText string    `json:"assistant_text,omitempty"`
	ToolName      string    `json:"tool_name,omitempty"`
	ToolOutput    string    `json:"tool_output,omitempty"`
	ToolStatus    string    `json:"tool_status,omitempty"`
	ToolCommand   string    `json:"tool_command,omitempty"`
	ExitCode      *int      `json:"exit_code,omitempty"`
	HookName      string    `json:"hook_name,omitempty"`
	Sidechain     bool      `json:"sidechain,omitempty"`
	Subtype       string    `json:"subtype,omitempty"`
}

// EncodeEvent returns the JSONL form of ev, without the trailing newline:
//
//	{"kind":"tool_result","session_id":"s1","time":"2025-12-30T14:32:00.123Z",
//	 "tool_name":"Bash","tool_output":"…","tool_status":"error"}
//
// Keys are the snake_case names of analyze.Event's fields; empty fields are left
// out; time is RFC 3339 in UTC; tool_status is "ok" or "error" (absent: unknown);
// exit_code is present when the event has one (HasExitCode).
func EncodeEvent(ev analyze.Event) ([]byte, error) {
	w := wireEvent{
		Kind: string(ev.Kind), SessionID: ev.SessionID, Time: ev.Time.UTC(), ID: ev.ID,
		UserContent: ev.UserContent, AssistantText: ev.AssistantText,
		ToolName: ev.ToolName, ToolOutput: ev.ToolOutput, ToolCommand: ev.ToolCommand, HookName: ev.HookName,
		Sidechain: ev.Sidechain, Subtype: ev.Subtype,
	}
	if ev.HasExitCode {
		w.ExitCode = &ev.ExitCode
	}
	if ev.ToolStatus != analyze.ToolStatusUnknown {
		w.ToolStatus = ev.ToolStatus.String()
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(&w); err != nil {
		return nil, fmt.Errorf("eventlog: encode: %w", err)
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// DecodeEvent parses one JSONL line written by [EncodeEvent]. kind and time are
// required; tool_status must be absent, "unknown", "ok" or "error".
func DecodeEvent(line []byte) (analyze.Event, error) {
	var w wireEvent
	if err := json.Unmarshal(line, &w); err != nil {
		return analyze.Event{}, fmt.Errorf("eventlog: decode: %w", err)
	}
	if w.Kind == "" {
		return analyze.Event{}, errors.New("eventlog: decode: missing kind")
	}
	if w.Time.IsZero() {
		return analyze.Event{}, errors.New("eventlog: decode: missing time")
	}
	ev := analyze.Event{
		Kind: analyze.EventKind(w.Kind), SessionID: w.SessionID, Time: w.Time.UTC(), ID: w.ID,
		UserContent: w.UserContent, AssistantText: w.AssistantText,
		ToolName: w.ToolName, ToolOutput: w.ToolOutput, ToolCommand: w.ToolCommand, HookName: w.HookName,
		Sidechain: w.Sidechain, Subtype: w.Subtype,
	}
	if w.ExitCode != nil {
		ev.ExitCode, ev.HasExitCode = *w.ExitCode, true
	}
	switch w.ToolStatus {
	case "", "unknown":
	case "ok":
		ev.ToolStatus = analyze.ToolStatusOK
	case "error":
		ev.ToolStatus = analyze.ToolStatusError
	default:
		return analyze.Event{}, fmt.Errorf("eventlog: decode: tool_status %q", w.ToolStatus)
	}
	return ev, nil
}
