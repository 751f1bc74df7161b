package claudecode

import "github.com/loopwatch/loopwatch/replay/jsonl"

// This file is the transcript reader's fast decoder: one pass over a line that
// validates all of it as JSON — exactly what encoding/json accepts ([jsonl.Scanner]) —
// and decodes, in the same pass, the fields [record] declares. Everything else
// (progress payloads, tool inputs but a command, thinking, signatures, usage,
// snapshots, the stdout and stderr of a toolUseResult, which only have to be known
// non-empty) is only validated, strings eight bytes at a time. Those fields are most of
// a transcript's bytes (a progress record's payload, a Bash result's output repeated
// in its toolUseResult), so the record's type need not be known first to leave them
// undecoded; the fields decodeRecord decodes are the ones the mapping of a user or
// assistant record reads, and other records do not carry them.
//
// It decodes only what it is sure of. A line it is not sure of — a syntax error, a
// key that matches a field only ignoring case, a field met twice, a value of an
// unexpected JSON type, invalid UTF-8, nesting deeper than jsonl.MaxScanDepth — makes
// decodeRecord report false, and the caller decodes the line with encoding/json
// (decodeSlow), which reports the problem with its usual words, decodes a field of the
// wrong type as it always did, and so on. On every line decodeRecord accepts, it
// yields the record json.Unmarshal yields; a fuzz target (FuzzDecodeRecord) holds both
// to it.

// The fields of a record, by the bit decodeRecord marks when it meets one: a field met
// twice takes the encoding/json path.
const (
	fType = 1 << iota
	fSubtype
	fUUID
	fSessionID
	fTimestamp
	fIsSidechain
	fIsMeta
	fIsCompactSummary
	fIsAPIError
	fCwd
	fVersion
	fMessage
	fToolUseResult
	fSummary
	fLeafUUID
	fAITitle
	fCustomTitle
)

// The field names of each object decoded, for the keys encoding/json would match to
// one of them only ignoring case: such a key takes the encoding/json path.
var (
	recordKeys = jsonl.NewFields("type", "subtype", "uuid", "sessionId", "timestamp", "isSidechain", "isMeta", "isCompactSummary",
		"isApiErrorMessage", "cwd", "version", "message", "toolUseResult", "summary", "leafUuid", "aiTitle", "customTitle")
	messageKeys = jsonl.NewFields("content")
	blockKeys   = jsonl.NewFields("type", "text", "id", "name", "input", "tool_use_id", "content", "is_error")
	inputKeys   = jsonl.NewFields("command")
	resultKeys  = jsonl.NewFields("stdout", "stderr", "interrupted")
	partKeys    = jsonl.NewFields("type", "text")
)

// scanner is a line being decoded.
type scanner struct{ *jsonl.Scanner }

// decodeRecord decodes line, a line that is valid UTF-8, into rec (the zero record),
// or reports false when the line must be decoded by encoding/json (see above); rec is
// then partly filled and must be reset.
func decodeRecord(line []byte, rec *record) bool {
	s := scanner{jsonl.NewScanner(line)}
	var seen uint32
	ok := s.Object(true, func(key []byte) bool {
		bit, str := uint32(0), (*string)(nil)
		var flag *bool
		switch string(key) {
		case "type":
			bit, str = fType, &rec.Type
		case "subtype":
			bit, str = fSubtype, &rec.Subtype
		case "uuid":
			bit, str = fUUID, &rec.UUID
		case "sessionId":
			bit, str = fSessionID, &rec.SessionID
		case "timestamp":
			bit, str = fTimestamp, &rec.Timestamp
		case "cwd":
			bit, str = fCwd, &rec.Cwd
		case "version":
			bit, str = fVersion, &rec.Version
		case "summary":
			bit, str = fSummary, &rec.Summary
		case "leafUuid":
			bit, str = fLeafUUID, &rec.LeafUUID
		case "aiTitle":
			bit, str = fAITitle, &rec.AITitle
		case "customTitle":
			bit, str = fCustomTitle, &rec.CustomTitle
		case "isSidechain":
			bit, flag = fIsSidechain, &rec.IsSidechain
		case "isMeta":
			bit, flag = fIsMeta, &rec.IsMeta
		case "isCompactSummary":
			bit, flag = fIsCompactSummary, &rec.IsCompactSummary
		case "isApiErrorMessage":
			bit, flag = fIsAPIError, &rec.IsAPIError
		case "message":
			return once(&seen, fMessage) && s.message(&rec.Message)
		case "toolUseResult":
			return once(&seen, fToolUseResult) && s.toolUseResult(&rec.ToolUseResult)
		default:
			return !recordKeys.Folds(key) && s.Skip()
		}
		if !once(&seen, bit) {
			return false
		}
		if str != nil {
			return s.String(str)
		}
		return s.Bool(flag)
	})
	return ok && s.End()
}

// once marks bit in seen and reports whether it was not marked yet.
func once(seen *uint32, bit uint32) bool {
	if *seen&bit != 0 {
		return false
	}
	*seen |= bit
	return true
}

// message decodes a message object or null.
func (s scanner) message(m **message) bool {
	switch s.Peek() {
	case 'n':
		*m = nil
		return s.Null()
	case '{':
	default:
		return false
	}
	*m = &message{}
	seen := false
	return s.Object(true, func(key []byte) bool {
		if string(key) != "content" {
			return !messageKeys.Folds(key) && s.Skip()
		}
		if seen {
			return false
		}
		seen = true
		return s.content(&(*m).Content)
	})
}

// content decodes a message's content: a string, a list of blocks, null or any other
// value (noted by its type, as content.UnmarshalJSON does).
func (s scanner) content(c *content) bool {
	*c = content{}
	switch s.Peek() {
	case 'n':
		return s.Null()
	case '"':
		c.present, c.isText = true, true
		return s.String(&c.text)
	case '[':
		c.present = true
		c.blocks = []block{}
		return s.Array(func() bool {
			c.blocks = append(c.blocks, block{})
			return s.block(&c.blocks[len(c.blocks)-1])
		})
	}
	raw, ok := s.Raw()
	c.present, c.odd = true, jsonl.Kind(raw)
	return ok
}

// block decodes one content block (an object, or null: a zero block).
func (s scanner) block(bl *block) bool {
	if s.Peek() == 'n' {
		return s.Null()
	}
	var seen uint32
	return s.Object(true, func(key []byte) bool {
		var bit uint32
		var str *string
		switch string(key) {
		case "type":
			bit, str = 1, &bl.Type
		case "text":
			bit, str = 2, &bl.Text
		case "id":
			bit, str = 4, &bl.ID
		case "name":
			bit, str = 8, &bl.Name
		case "tool_use_id":
			bit, str = 16, &bl.ToolUseID
		case "input":
			bit = 32
		case "content":
			bit = 64
		case "is_error":
			bit = 128
		default:
			return !blockKeys.Folds(key) && s.Skip()
		}
		if !once(&seen, bit) {
			return false
		}
		switch bit {
		case 32:
			return s.toolInput(&bl.Input)
		case 64:
			return s.toolContent(&bl.Content)
		case 128:
			return s.OptBool(&bl.IsError)
		}
		return s.String(str)
	})
}

// toolInput keeps the "command" string of an object, as toolInput.UnmarshalJSON does.
func (s scanner) toolInput(t *toolInput) bool {
	*t = toolInput{}
	if s.Peek() != '{' {
		return s.Skip()
	}
	seen := false
	return s.Object(true, func(key []byte) bool {
		if string(key) != "command" {
			return !inputKeys.Folds(key) && s.Skip()
		}
		if seen {
			return false
		}
		seen = true
		if s.Peek() == '"' {
			return s.String(&t.command)
		}
		return s.Skip()
	})
}

// toolContent decodes a tool_result's content as toolContent.UnmarshalJSON does: a
// string, or a list of parts whose text parts are kept; any other value is empty.
func (s scanner) toolContent(c *toolContent) bool {
	*c = toolContent{}
	switch s.Peek() {
	case '"':
		return s.String(&c.text)
	case '[':
	default:
		return s.Skip()
	}
	var parts []toolPart
	ok := s.Array(func() bool {
		parts = append(parts, toolPart{})
		p := &parts[len(parts)-1]
		if s.Peek() == 'n' {
			return s.Null()
		}
		var seen uint32
		return s.Object(true, func(key []byte) bool {
			var bit uint32
			var str *string
			switch string(key) {
			case "type":
				bit, str = 1, &p.Type
			case "text":
				bit, str = 2, &p.Text
			default:
				return !partKeys.Folds(key) && s.Skip()
			}
			return once(&seen, bit) && s.String(str)
		})
	})
	if ok {
		c.fromParts(parts)
	}
	return ok
}

// toolUseResult reads what toolUseResult.UnmarshalJSON reads: of an object, whether
// stdout or stderr is a non-empty string and the interrupted flag; a flag of another
// type leaves the zero value, as does any value but an object.
func (s scanner) toolUseResult(t *toolUseResult) bool {
	*t = toolUseResult{}
	if s.Peek() != '{' {
		return s.Skip()
	}
	var seen uint32
	var out, interrupted, mistyped bool
	ok := s.Object(true, func(key []byte) bool {
		var bit uint32
		switch string(key) {
		case "stdout":
			bit = 1
		case "stderr":
			bit = 2
		case "interrupted":
			bit = 4
		default:
			return !resultKeys.Folds(key) && s.Skip()
		}
		if !once(&seen, bit) {
			return false
		}
		v, ok := s.Raw()
		switch {
		case !ok:
			return false
		case bit != 4:
			out = out || len(v) > 2 && v[0] == '"'
		case string(v) == "true":
			interrupted = true
		case string(v) != "false" && string(v) != "null":
			mistyped = true
		}
		return true
	})
	if ok && !mistyped {
		t.HasOutput, t.Interrupted = out, interrupted
	}
	return ok
}
