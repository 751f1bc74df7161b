package jsonl

import (
	"bytes"
	"encoding/json"
	"iter"
	"unicode/utf8"
)

// FirstObject returns the top-level keys of the first JSON object in head, the opening
// bytes of a file, mapped to their values when those are strings (other values map to
// ""). It stops at the end of that object or wherever head is cut off, so a file whose
// first line is longer than head still yields the keys that came before the cut.
// It returns nil when head does not start (after white space) with a JSON object.
func FirstObject(head []byte) map[string]string {
	head = bytes.TrimLeft(head, " \t\r\n\ufeff")
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")) // UTF-8 byte order mark
	if len(head) == 0 || head[0] != '{' {
		return nil
	}
	if i := bytes.IndexByte(head, '\n'); i >= 0 {
		head = head[:i]
	}
	if keys, ok := firstObjectScan(head); ok {
		return keys
	}
	return firstObjectDecode(head)
}

// firstObjectScan is FirstObject's fast path, for a head whose first object is whole,
// valid JSON and valid UTF-8: one pass of a [Scanner]. It reports false for anything
// else (a cut-off object, a syntax error, a key that is not plainly a key), left to
// firstObjectDecode; on what it accepts it yields firstObjectDecode's keys
// (FuzzFirstObjectScan holds it to that).
func firstObjectScan(head []byte) (map[string]string, bool) {
	if !utf8.Valid(head) {
		return nil, false
	}
	s := NewScanner(head)
	keys := map[string]string{}
	ok := s.Object(true, func(key []byte) bool {
		var v string
		if s.Peek() == '"' {
			if !s.String(&v) {
				return false
			}
		} else if !s.Skip() {
			return false
		}
		keys[string(key)] = v
		return true
	})
	return keys, ok
}

// firstObjectDecode is FirstObject by encoding/json's tokens, for any head.
func firstObjectDecode(head []byte) map[string]string {
	dec := json.NewDecoder(bytes.NewReader(head))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	keys := map[string]string{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			break
		}
		key, ok := t.(string)
		if !ok {
			break
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			keys[key] = "" // the value runs past the cut: the key is still evidence
			break
		}
		var s string
		if json.Unmarshal(v, &s) == nil {
			keys[key] = s
		} else {
			keys[key] = ""
		}
	}
	return keys
}

// SniffRecords is how many of a file's opening JSON records [HeadObjects] looks at by
// default: enough to see past a garbage or unreadable first line, few enough that
// recognising a file stays cheap.
const SniffRecords = 8

// HeadObjects yields the top-level keys, as [FirstObject] gives them, of the first
// max lines of head that begin (after white space) with a JSON object, one at a time,
// so that a caller that recognises the first stops there. Blank lines and lines that
// are not objects (garbage, a cut-off record's tail) are passed over; a byte order
// mark at the start of head is skipped. The last line may be cut off where head ends.
// max ≤ 0 means [SniffRecords].
func HeadObjects(head []byte, max int) iter.Seq[map[string]string] {
	if max <= 0 {
		max = SniffRecords
	}
	return func(yield func(map[string]string) bool) {
		head := bytes.TrimPrefix(head, bom)
		for n := 0; len(head) > 0 && n < max; {
			line := head
			if i := bytes.IndexByte(head, '\n'); i >= 0 {
				line, head = head[:i], head[i+1:]
			} else {
				head = nil
			}
			if obj := FirstObject(line); obj != nil {
				n++
				if !yield(obj) {
					return
				}
			}
		}
	}
}
