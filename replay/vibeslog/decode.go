package vibeslog

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/loopwatch/loopwatch/analyze"
	"github.com/loopwatch/loopwatch/replay/jsonl"
)

// The log reader's fast decoder: one pass over a line that validates all of it
// exactly as encoding/json does ([jsonl.Scanner]) and decodes, in the same pass, the
// fields [envelope] declares; every other field is validated, not decoded. A line it
// is not sure of — a syntax error, a field of an unexpected type, a key that matches a
// field only ignoring case, a field given twice, invalid UTF-8 — is left to
// jsonl.DecodeObject, as every line was before; on the lines decodeEnvelope accepts it
// yields the envelope DecodeObject yields (FuzzDecodeEnvelope holds it to that). A
// reader that builds only some sessions (ReadLogOnly) reads the event inside in a
// second pass over its text, once the line's session is known to be one it builds.

var (
	envelopeKeys = jsonl.NewFields("event_id", "type", "session_id", "content", "name", "event")
	innerKeys    = jsonl.NewFields("type", "text", "id", "name", "output", "is_error", "delta", "session_id", "cwd",
		"hook_event_name", "prompt", "tool_name", "tool_input", "tool_response")
	bashKeys = jsonl.NewFields("stdout", "stderr", "interrupted")
)

// decodeEnvelope decodes line, a line that is valid UTF-8, into env (the zero
// envelope), or reports false when the line must be decoded by jsonl.DecodeObject; env
// is then partly filled and must be reset. keep, when not nil, names the sessions whose
// events are wanted: the event of a line whose top-level session_id keep refuses is
// validated, not decoded (env.Event stays nil), and the rest of the envelope is what it
// would be without keep.
func decodeEnvelope(line []byte, env *envelope, keep func(key string) bool) bool {
	s := jsonl.NewScanner(line)
	var seen uint32
	var event []byte // with keep: the event's text, decoded once the session is known
	ok := s.Object(true, func(key []byte) bool {
		var bit uint32
		var str *string
		switch string(key) {
		case "event_id":
			bit, str = 1, &env.EventID
		case "type":
			bit, str = 2, &env.Type
		case "session_id":
			bit, str = 4, &env.SessionID
		case "name":
			bit, str = 8, &env.Name
		case "content":
			return once(&seen, 16) && s.OptString(&env.Content)
		case "event":
			if !once(&seen, 32) {
				return false
			}
			if keep == nil {
				return decodeInner(s, &env.Event)
			}
			var ok bool
			event, ok = s.Raw()
			return ok
		default:
			return !envelopeKeys.Folds(key) && s.Skip()
		}
		return once(&seen, bit) && s.String(str)
	})
	if !ok || !s.End() {
		return false
	}
	if event == nil || env.SessionID != "" && !keep(env.SessionID) {
		return true
	}
	in := jsonl.NewScanner(event)
	return decodeInner(in, &env.Event) && in.End()
}

// decodeInner decodes a claude or hook event, or null.
func decodeInner(s *jsonl.Scanner, dst **inner) bool {
	if s.Peek() == 'n' {
		*dst = nil
		return s.Null()
	}
	in := &inner{}
	*dst = in
	var seen uint32
	return s.Object(true, func(key []byte) bool {
		var bit uint32
		var str *string
		switch string(key) {
		case "type":
			bit, str = 1, &in.Type
		case "text":
			bit, str = 2, &in.Text
		case "id":
			bit, str = 4, &in.ID
		case "name":
			bit, str = 8, &in.Name
		case "delta":
			bit, str = 16, &in.Delta
		case "session_id":
			bit, str = 32, &in.SessionID
		case "cwd":
			bit, str = 64, &in.Cwd
		case "hook_event_name":
			bit, str = 128, &in.HookEventName
		case "tool_name":
			bit, str = 256, &in.ToolName
		case "output":
			return once(&seen, 512) && s.OptString(&in.Output)
		case "prompt":
			return once(&seen, 1024) && s.OptString(&in.Prompt)
		case "is_error":
			return once(&seen, 2048) && s.OptBool(&in.IsError)
		case "tool_input":
			return once(&seen, 4096) && raw(s, &in.ToolInput)
		case "tool_response":
			return once(&seen, 8192) && raw(s, &in.ToolResponse)
		default:
			return !innerKeys.Folds(key) && s.Skip()
		}
		return once(&seen, bit) && s.String(str)
	})
}

// raw copies a value's text, as json.RawMessage does (null included).
func raw(s *jsonl.Scanner, dst *json.RawMessage) bool {
	b, ok := s.Raw()
	*dst = append(json.RawMessage(nil), b...)
	return ok
}

// once marks bit in seen and reports whether it was not marked yet.
func once(seen *uint32, bit uint32) bool {
	if *seen&bit != 0 {
		return false
	}
	*seen |= bit
	return true
}

// fastToolResponse is toolResponse decoded in one pass: a string, Bash's {stdout,
// stderr, interrupted}, other values as their JSON text; ok is false for what it is
// not sure of (a Bash field of another type, a key in other case, invalid UTF-8), left
// to decodeToolResponse.
func fastToolResponse(raw []byte) (out string, status analyze.ToolStatus, ok bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || !utf8.Valid(raw) {
		return "", analyze.ToolStatusUnknown, false
	}
	s := jsonl.NewScanner(raw)
	switch raw[0] {
	case '"':
		ok = s.String(&out) && s.End()
		return out, analyze.ToolStatusUnknown, ok
	case '{':
	default: // null is no output; any other value is its JSON text
		if !s.Skip() || !s.End() {
			return "", analyze.ToolStatusUnknown, false
		}
		if string(raw) == "null" {
			return "", analyze.ToolStatusUnknown, true
		}
		return string(raw), analyze.ToolStatusUnknown, true
	}
	var stdout, stderr *string
	var interrupted bool
	var seen uint32
	ok = s.Object(true, func(key []byte) bool {
		switch string(key) {
		case "stdout":
			return once(&seen, 1) && s.OptString(&stdout)
		case "stderr":
			return once(&seen, 2) && s.OptString(&stderr)
		case "interrupted":
			return once(&seen, 4) && s.Bool(&interrupted)
		}
		return !bashKeys.Folds(key) && s.Skip()
	}) && s.End()
	switch {
	case !ok:
		return "", analyze.ToolStatusUnknown, false
	case stdout == nil && stderr == nil: // another tool's result: its JSON text
		return string(raw), analyze.ToolStatusUnknown, true
	}
	status = analyze.ToolStatusUnknown
	if interrupted {
		status = analyze.ToolStatusError
	}
	switch {
	case stdout == nil || *stdout == "":
		out = deref(stderr)
	case stderr == nil || *stderr == "":
		out = *stdout
	default:
		out = *stdout + "\n" + *stderr
	}
	return out, status, true
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
