package claudecode

import (
	"bytes"
	"encoding/binary"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// This file is the transcript reader's fast decoder: one pass over a line that
// validates all of it as JSON — exactly what encoding/json accepts — and decodes, in
// the same pass, the fields [record] declares. Everything else (progress payloads, tool
// inputs but a command, thinking, signatures, usage, snapshots, the stdout and stderr
// of a toolUseResult, which only have to be known non-empty) is only validated, at a
// few bytes per cycle: strings are skipped eight bytes at a time. Those fields are
// most of a transcript's bytes (a progress record's payload, a Bash result's output
// repeated in its toolUseResult), so the record's type need not be known first to
// leave them undecoded; the fields decodeRecord decodes are the ones the mapping of a
// user or assistant record reads, and other records do not carry them.
//
// It decodes only what it is sure of. A line it is not sure of — a syntax error, a
// key that matches a field only ignoring case, a field met twice, a value of an unexpected JSON type, invalid UTF-8, nesting
// deeper than maxDepth — makes decodeRecord report false, and the caller decodes the
// line with encoding/json (json.Unmarshal into a record), which reports the problem
// with its usual words, decodes a field of the wrong type as it always did, and so on.
// On every line decodeRecord accepts, it yields the record json.Unmarshal yields; a
// fuzz target (FuzzDecodeRecord) holds both to it.

// maxDepth is the deepest nesting decodeRecord reads (encoding/json's limit is
// 10000); deeper lines take the encoding/json path.
const maxDepth = 1000

// scanner is a position in one line.
type scanner struct {
	b     []byte
	i     int
	depth int
}

// The fields of a record, a message, a block, a tool input, a toolUseResult and a
// tool_result text part, by the bit decodeRecord marks when it meets one: a field met
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

// foldKeys are the keys encoding/json would match to a field of each object ignoring
// case, lower-cased: a key that is not one of the fields exactly but folds to one
// takes the encoding/json path.
var (
	recordKeys = foldSet("type", "subtype", "uuid", "sessionid", "timestamp", "issidechain", "ismeta", "iscompactsummary",
		"isapierrormessage", "cwd", "version", "message", "tooluseresult", "summary", "leafuuid", "aititle", "customtitle")
	messageKeys = foldSet("content")
	blockKeys   = foldSet("type", "text", "id", "name", "input", "tool_use_id", "content", "is_error")
	inputKeys   = foldSet("command")
	resultKeys  = foldSet("stdout", "stderr", "interrupted")
	partKeys    = foldSet("type", "text")
)

// keySet is a set of lower-case keys.
type keySet map[string]bool

func foldSet(keys ...string) keySet {
	s := keySet{}
	for _, k := range keys {
		s[k] = true
	}
	return s
}

// folds reports whether key, an ASCII key that is not a field exactly, is one
// ignoring case.
func (s keySet) folds(key []byte) bool {
	var buf [32]byte
	if len(key) > len(buf) {
		return false
	}
	lower := buf[:len(key)]
	for i, c := range key {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		lower[i] = c
	}
	return s[string(lower)]
}

// decodeRecord decodes line, a line that is valid UTF-8, into rec (the zero record),
// or reports false when the line must be decoded by encoding/json (see above); rec is
// then partly filled and must be reset.
func decodeRecord(line []byte, rec *record) bool {
	s := scanner{b: line}
	s.ws()
	if !s.eat('{') {
		return false
	}
	var seen uint32
	ok := s.object(true, func(key []byte) bool {
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
			return !recordKeys.folds(key) && s.skip()
		}
		if !once(&seen, bit) {
			return false
		}
		if str != nil {
			return s.str(str)
		}
		return s.boolean(flag)
	})
	if !ok {
		return false
	}
	s.ws()
	return s.i == len(s.b)
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
func (s *scanner) message(m **message) bool {
	switch s.peek() {
	case 'n':
		*m = nil
		return s.literal("null")
	case '{':
	default:
		return false
	}
	s.i++
	*m = &message{}
	seen := false
	return s.object(true, func(key []byte) bool {
		if string(key) != "content" {
			return !messageKeys.folds(key) && s.skip()
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
func (s *scanner) content(c *content) bool {
	*c = content{}
	switch s.peek() {
	case 'n':
		return s.literal("null")
	case '"':
		c.present, c.isText = true, true
		return s.str(&c.text)
	case '[':
		s.i++
		c.present = true
		c.blocks = []block{}
		return s.array(func() bool {
			c.blocks = append(c.blocks, block{})
			return s.block(&c.blocks[len(c.blocks)-1])
		})
	}
	start := s.i
	if !s.skip() {
		return false
	}
	c.present, c.odd = true, jsonType(s.b[start:s.i])
	return true
}

// block decodes one content block (an object, or null: a zero block).
func (s *scanner) block(bl *block) bool {
	switch s.peek() {
	case 'n':
		return s.literal("null")
	case '{':
	default:
		return false
	}
	s.i++
	var seen uint32
	return s.object(true, func(key []byte) bool {
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
			return !blockKeys.folds(key) && s.skip()
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
			return s.optBool(&bl.IsError)
		}
		return s.str(str)
	})
}

// toolInput keeps the "command" string of an object, as toolInput.UnmarshalJSON does.
func (s *scanner) toolInput(t *toolInput) bool {
	*t = toolInput{}
	if s.peek() != '{' {
		return s.skip()
	}
	s.i++
	seen := false
	return s.object(true, func(key []byte) bool {
		if string(key) != "command" {
			return !inputKeys.folds(key) && s.skip()
		}
		if seen {
			return false
		}
		seen = true
		if s.peek() == '"' {
			return s.str(&t.command)
		}
		return s.skip()
	})
}

// toolContent decodes a tool_result's content as toolContent.UnmarshalJSON does: a
// string, or a list of parts whose text parts are kept; any other value is empty.
func (s *scanner) toolContent(c *toolContent) bool {
	*c = toolContent{}
	switch s.peek() {
	case '"':
		return s.str(&c.text)
	case '[':
	default:
		return s.skip()
	}
	s.i++
	var parts []toolPart
	ok := s.array(func() bool {
		parts = append(parts, toolPart{})
		p := &parts[len(parts)-1]
		switch s.peek() {
		case 'n':
			return s.literal("null")
		case '{':
		default:
			return false
		}
		s.i++
		var seen uint32
		return s.object(true, func(key []byte) bool {
			var bit uint32
			var str *string
			switch string(key) {
			case "type":
				bit, str = 1, &p.Type
			case "text":
				bit, str = 2, &p.Text
			default:
				return !partKeys.folds(key) && s.skip()
			}
			return once(&seen, bit) && s.str(str)
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
func (s *scanner) toolUseResult(t *toolUseResult) bool {
	*t = toolUseResult{}
	if s.peek() != '{' {
		return s.skip()
	}
	s.i++
	var seen uint32
	var out, interrupted, mistyped bool
	ok := s.object(true, func(key []byte) bool {
		var bit uint32
		switch string(key) {
		case "stdout":
			bit = 1
		case "stderr":
			bit = 2
		case "interrupted":
			bit = 4
		default:
			return !resultKeys.folds(key) && s.skip()
		}
		if !once(&seen, bit) {
			return false
		}
		start := s.i
		if !s.skip() {
			return false
		}
		v := s.b[start:s.i]
		switch {
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

// object reads the members of an object whose '{' has been read, calling member with
// each key (decoded) with the scanner at its value, to read the value. fields says
// that the object's keys are matched to fields: then a key that encoding/json could
// match to an ASCII field only ignoring case through a non-ASCII letter (the Kelvin
// sign, the long s) is not read.
func (s *scanner) object(fields bool, member func(key []byte) bool) bool {
	if s.depth++; s.depth > maxDepth {
		return false
	}
	s.ws()
	if s.peek() == '}' {
		s.i++
		s.depth--
		return true
	}
	for {
		start := s.i + 1
		escaped, ok := s.skipString()
		if !ok {
			return false
		}
		key := s.b[start : s.i-1]
		if fields {
			if escaped {
				key = []byte(unquote(key))
			}
			if !asciiKey(key) && (bytes.Contains(key, []byte("\u017f")) || bytes.Contains(key, []byte("\u212a"))) {
				return false
			}
		}
		s.ws()
		if !s.eat(':') {
			return false
		}
		s.ws()
		if !member(key) {
			return false
		}
		s.ws()
		switch s.peek() {
		case ',':
			s.i++
			s.ws()
		case '}':
			s.i++
			s.depth--
			return true
		default:
			return false
		}
	}
}

func asciiKey(key []byte) bool {
	for _, c := range key {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// array reads the elements of an array whose '[' has been read (the scanner at each,
// past white space).
func (s *scanner) array(elem func() bool) bool {
	if s.depth++; s.depth > maxDepth {
		return false
	}
	s.ws()
	if s.peek() == ']' {
		s.i++
		s.depth--
		return true
	}
	for {
		if !elem() {
			return false
		}
		s.ws()
		switch s.peek() {
		case ',':
			s.i++
			s.ws()
		case ']':
			s.i++
			s.depth--
			return true
		default:
			return false
		}
	}
}

// skip validates one value and moves past it.
func (s *scanner) skip() bool {
	switch s.peek() {
	case '"':
		_, ok := s.skipString()
		return ok
	case '{':
		s.i++
		return s.object(false, func([]byte) bool { return s.skip() })
	case '[':
		s.i++
		return s.array(s.skip)
	case 't':
		return s.literal("true")
	case 'f':
		return s.literal("false")
	case 'n':
		return s.literal("null")
	}
	return s.number()
}

// str decodes a string, or leaves *dst as it is for null (as encoding/json does).
func (s *scanner) str(dst *string) bool {
	if s.peek() == 'n' {
		return s.literal("null")
	}
	start := s.i + 1
	escaped, ok := s.skipString()
	if !ok {
		return false
	}
	raw := s.b[start : s.i-1]
	if escaped {
		*dst = unquote(raw)
	} else {
		*dst = string(raw)
	}
	return true
}

// boolean decodes true or false, or leaves *dst as it is for null.
func (s *scanner) boolean(dst *bool) bool {
	switch s.peek() {
	case 't':
		*dst = true
		return s.literal("true")
	case 'f':
		*dst = false
		return s.literal("false")
	case 'n':
		return s.literal("null")
	}
	return false
}

// optBool decodes true or false into a new bool, or null into nil.
func (s *scanner) optBool(dst **bool) bool {
	if s.peek() == 'n' {
		*dst = nil
		return s.literal("null")
	}
	var v bool
	if !s.boolean(&v) {
		return false
	}
	*dst = &v
	return true
}

// Masks for the eight-bytes-at-a-time string scan.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// skipString validates a string at the scanner (its opening quote) and moves past
// its closing quote; escaped reports whether it holds an escape. Invalid UTF-8 is
// not looked for: the caller has checked the whole line.
func (s *scanner) skipString() (escaped, ok bool) {
	if s.peek() != '"' {
		return false, false
	}
	b := s.b
	i := s.i + 1
	for {
		// Eight bytes at a time while none is a quote, a backslash or a control byte.
		for i+8 <= len(b) {
			x := binary.LittleEndian.Uint64(b[i:])
			q := x ^ ('"' * ones)
			bs := x ^ ('\\' * ones)
			if ((q-ones)&^q|(bs-ones)&^bs|(x-0x20*ones)&^x)&highs != 0 {
				break
			}
			i += 8
		}
		for i < len(b) && b[i] != '"' && b[i] != '\\' && b[i] >= 0x20 {
			i++
		}
		if i >= len(b) {
			return false, false
		}
		switch c := b[i]; {
		case c == '"':
			s.i = i + 1
			return escaped, true
		case c == '\\':
			escaped = true
			if i+1 >= len(b) {
				return false, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					return false, false
				}
				i += 6
			default:
				return false, false
			}
		case c < 0x20:
			return false, false
		default:
			i++
		}
	}
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// number validates a JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scanner) number() bool {
	b, i := s.b, s.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		for i++; i < len(b) && isDigit(b[i]); i++ {
		}
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || !isDigit(b[i]) {
			return false
		}
		for i++; i < len(b) && isDigit(b[i]); i++ {
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			return false
		}
		for i++; i < len(b) && isDigit(b[i]); i++ {
		}
	}
	s.i = i
	return true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// literal reads the literal word (true, false, null) at the scanner.
func (s *scanner) literal(word string) bool {
	if len(s.b)-s.i < len(word) || string(s.b[s.i:s.i+len(word)]) != word {
		return false
	}
	s.i += len(word)
	return true
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) peek() byte {
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

func (s *scanner) eat(c byte) bool {
	if s.peek() != c {
		return false
	}
	s.i++
	return true
}

// unquote decodes the contents of a valid JSON string with escapes, as encoding/json
// does: a lone or reversed UTF-16 surrogate becomes U+FFFD. The runs between escapes
// are copied whole.
func unquote(raw []byte) string {
	var out strings.Builder
	out.Grow(len(raw))
	for {
		k := bytes.IndexByte(raw, '\\')
		if k < 0 {
			out.Write(raw)
			return out.String()
		}
		out.Write(raw[:k])
		raw = raw[k:]
		n := 2
		switch raw[1] {
		case 'b':
			out.WriteByte('\b')
		case 'f':
			out.WriteByte('\f')
		case 'n':
			out.WriteByte('\n')
		case 'r':
			out.WriteByte('\r')
		case 't':
			out.WriteByte('\t')
		case 'u':
			r := hex4(raw[2:])
			n = 6
			if utf16.IsSurrogate(r) {
				r = utf8.RuneError
				if len(raw) >= 12 && raw[6] == '\\' && raw[7] == 'u' {
					if dec := utf16.DecodeRune(hex4(raw[2:]), hex4(raw[8:])); dec != utf8.RuneError {
						r, n = dec, 12
					}
				}
			}
			out.WriteRune(r)
		default: // '"', '\\', '/'
			out.WriteByte(raw[1])
		}
		raw = raw[n:]
	}
}

// hex4 decodes four hexadecimal digits.
func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		default:
			c -= 'A' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}
