package jsonl

import (
	"bytes"
	"encoding/json"
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
