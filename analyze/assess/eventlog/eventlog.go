// Package eventlog is the event log the assessment processor consumes (the seed's
// Iggy EventLog consumer): the [Log] interface with Poll and Commit, an in-memory
// log ([Memory]) and a JSONL-file-backed log ([JSONL], with [JSONLWriter]) whose
// committed offset lives in a small file written atomically, so a restarted consumer
// resumes exactly after its last commit.
//
// Delivery is at-least-once: events after the last commit are delivered again after
// a restart, events up to it never are. The JSONL line format is one JSON object per
// line, see [EncodeEvent].
//
// What it refuses to do: it makes no assessment decision and reads no clock for one.
// The only timing here is Poll's wait for new events (a timer), which never changes
// what is delivered, only when.
package eventlog

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/loopwatch/loopwatch/analyze"
)

// Record is one event at its offset in a log. Offsets start at 0 and increase by
// one per stored entry (for JSONL, per line).
type Record struct {
	Offset uint64
	Event  analyze.Event
}

// Log is a consumer's view of an event log.
type Log interface {
	// Poll returns up to max records after the last one returned (or, for a new
	// consumer, after its last commit). When none is available it waits up to wait
	// for some, and returns an empty batch if none came; it returns ctx's error if
	// ctx ends first.
	Poll(ctx context.Context, max int, wait time.Duration) ([]Record, error)
	// Commit records that every record up to and including offset is processed. The
	// offset must be one Poll returned; committing the last committed offset again is
	// a no-op, committing an earlier one an error.
	Commit(offset uint64) error
}

// ErrNotPolled is returned (wrapped) by Commit for an offset Poll has not returned.
var ErrNotPolled = errors.New("eventlog: offset not polled")

// ErrBackwards is returned (wrapped) by Commit for an offset before the last commit.
var ErrBackwards = errors.New("eventlog: commit before the committed offset")

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
		Sidechain: ev.Sidechain,
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
		Sidechain: w.Sidechain,
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
