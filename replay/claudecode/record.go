package claudecode

import (
	"encoding/json"
	"strings"

	"github.com/loopwatch/loopwatch/replay/jsonl"
)

// record is the part of a transcript record the reader uses. Fields it does not
// declare (tool inputs but a command, thinking text, usage, file snapshots, progress payloads) are
// skipped by the decoder without being built.
type record struct {
	Type             string `json:"type"`
	Subtype          string `json:"subtype"`
	UUID             string `json:"uuid"`
	SessionID        string `json:"sessionId"`
	Timestamp        string `json:"timestamp"`
	IsSidechain      bool   `json:"isSidechain"`
	IsMeta           bool   `json:"isMeta"`
	IsCompactSummary bool   `json:"isCompactSummary"`
	IsAPIError       bool   `json:"isApiErrorMessage"`
	Cwd              string `json:"cwd"`
	Version          string `json:"version"`

	Message       *message      `json:"message"`
	ToolUseResult toolUseResult `json:"toolUseResult"`

	Summary     string `json:"summary"`  // summary
	LeafUUID    string `json:"leafUuid"` // summary
	AITitle     string `json:"aiTitle"`  // ai-title
	CustomTitle string `json:"customTitle"`
}

// decodeSlow decodes a line into rec with encoding/json (jsonl.DecodeObject): the
// reference decodeRecord keeps to, and the decoder of the lines it is not sure of.
func decodeSlow(line []byte, rec *record) ([]jsonl.FieldError, error) {
	*rec = record{}
	return jsonl.DecodeObject(line, rec)
}

// message is a user or assistant record's message.
type message struct {
	Content content `json:"content"`
}

// content is a message's content: a JSON string or a list of blocks.
type content struct {
	present bool   // neither absent nor null
	isText  bool   // a string
	text    string // the string
	blocks  []block
	odd     string // the JSON type when it is neither a string nor a list
}

// UnmarshalJSON decodes a string or a list of blocks; anything else is noted in odd.
func (c *content) UnmarshalJSON(b []byte) error {
	*c = content{}
	switch firstByte(b) {
	case 'n':
		return nil
	case '"':
		c.present, c.isText = true, true
		return json.Unmarshal(b, &c.text)
	case '[':
		c.present = true
		return json.Unmarshal(b, &c.blocks)
	}
	c.present, c.odd = true, jsonl.Kind(b)
	return nil
}

// block is one content block of any type.
type block struct {
	Type      string      `json:"type"`
	Text      string      `json:"text"`        // text
	ID        string      `json:"id"`          // tool_use
	Name      string      `json:"name"`        // tool_use
	Input     toolInput   `json:"input"`       // tool_use
	ToolUseID string      `json:"tool_use_id"` // tool_result
	Content   toolContent `json:"content"`     // tool_result
	IsError   *bool       `json:"is_error"`    // tool_result
}

// toolInput is a tool_use's input, of which only a string "command" (Bash's
// command line) is kept; the decoder skips the rest without building it.
type toolInput struct {
	command string
}

// UnmarshalJSON reads the command of an object; any other value, or a command that
// is not a string, leaves it empty.
func (t *toolInput) UnmarshalJSON(b []byte) error {
	*t = toolInput{}
	if firstByte(b) != '{' {
		return nil
	}
	var v struct {
		Command json.RawMessage `json:"command"`
	}
	if json.Unmarshal(b, &v) == nil && firstByte(v.Command) == '"' {
		json.Unmarshal(v.Command, &t.command)
	}
	return nil
}

// toolContent is a tool_result's content: a string or a list of blocks, of which
// the text blocks are kept, joined by newlines.
type toolContent struct {
	text   string
	images int // image blocks (their data is not kept)
	other  int // blocks of other types
}

// UnmarshalJSON decodes a string or a list of content blocks.
func (c *toolContent) UnmarshalJSON(b []byte) error {
	*c = toolContent{}
	switch firstByte(b) {
	case '"':
		return json.Unmarshal(b, &c.text)
	case '[':
		var parts []toolPart
		if err := json.Unmarshal(b, &parts); err != nil {
			return err
		}
		c.fromParts(parts)
	}
	return nil
}

// toolPart is one block of a tool_result's content.
type toolPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// fromParts keeps the text of the text parts, joined by newlines, and counts the
// others.
func (c *toolContent) fromParts(parts []toolPart) {
	var sb strings.Builder
	for _, p := range parts {
		switch p.Type {
		case "text":
			if sb.Len() > 0 {
				sb.WriteByte('\n')
			}
			sb.WriteString(p.Text)
		case "image":
			c.images++
		default:
			c.other++
		}
	}
	c.text = sb.String()
}

// toolUseResult is what Claude Code records beside a tool result. Only the Bash
// shape's fields are looked at, and stdout and stderr only for whether they are
// empty: they repeat the tool_result's content, and decoding megabytes of output twice
// is the cost to avoid. [bashOutput] decodes them when they are needed.
type toolUseResult struct {
	HasOutput   bool // stdout or stderr is a non-empty string
	Interrupted bool
}

// UnmarshalJSON reads an object's interrupted flag and whether its stdout or stderr
// is non-empty; any other value (a string for failed calls, other tools' shapes)
// leaves the zero value.
func (t *toolUseResult) UnmarshalJSON(b []byte) error {
	*t = toolUseResult{}
	if firstByte(b) != '{' {
		return nil
	}
	var v struct {
		Stdout      nonEmpty `json:"stdout"`
		Stderr      nonEmpty `json:"stderr"`
		Interrupted bool     `json:"interrupted"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		// A Bash-shaped field of an unexpected type: not worth losing the record for.
		return nil
	}
	t.HasOutput, t.Interrupted = bool(v.Stdout || v.Stderr), v.Interrupted
	return nil
}

// nonEmpty records whether a JSON value is a non-empty string, without decoding it.
type nonEmpty bool

// UnmarshalJSON implements json.Unmarshaler.
func (n *nonEmpty) UnmarshalJSON(b []byte) error {
	*n = len(b) > 2 && b[0] == '"'
	return nil
}

// bashOutput decodes the stdout and stderr of a record's toolUseResult from the
// record's line, joined by a newline when both are present.
func bashOutput(line []byte) string {
	var v struct {
		ToolUseResult struct {
			Stdout string `json:"stdout"`
			Stderr string `json:"stderr"`
		} `json:"toolUseResult"`
	}
	if json.Unmarshal(line, &v) != nil {
		return ""
	}
	return joinNonEmpty(v.ToolUseResult.Stdout, v.ToolUseResult.Stderr)
}

func firstByte(b []byte) byte {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return c
	}
	return 0
}
