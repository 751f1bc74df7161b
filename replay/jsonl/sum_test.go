package jsonl

import (
	"bytes"
	"encoding/json"
	"hash/maphash"
	"reflect"
	"testing"
	"unicode/utf8"
)

// TestValueSum: spellings of one value sum alike, other values do not, and what is
// not one JSON value is refused.
func TestValueSum(t *testing.T) {
	seed := maphash.MakeSeed()
	tests := []struct {
		a, b string
		same bool
	}{
		{`{"a":1,"b":[true,null]}`, ` { "b" : [ true , null ] , "a" : 1 } `, true},
		{`{"t":"é/x"}`, `{"t":"\u00e9\/x"}`, true},
		{`{"k\u0065y":1}`, `{"key":1}`, true},
		{`[1, 2.0, 3e0, -0, 1e-2]`, `[1.0,2,3,0,0.01]`, true},
		{`{"a":{"x":1,"y":2},"b":{"x":3}}`, `{"b":{"x":3},"a":{"y":2,"x":1}}`, true},
		{`"😀"`, `"\ud83d\ude00"`, true},
		{`{"a":1}`, `{"a":2}`, false},
		{`{"a":1}`, `{"a":"1"}`, false},
		{`{"a":1}`, `{"b":1}`, false},
		{`{"a":1,"b":2}`, `{"a":2,"b":1}`, false},
		{`[1,2]`, `[2,1]`, false},
		{`[[1],2]`, `[1,[2]]`, false},
		{`{"a":[]}`, `{"a":{}}`, false},
		{`{"a":null}`, `{}`, false},
		{`{"a":true}`, `{"a":false}`, false},
		{`{"a":{"b":1}}`, `{"a":{"b":1},"c":{}}`, false},
		{`""`, `null`, false},
		{`{"text":"on it"}`, `{"text":"on that"}`, false},
	}
	for _, tt := range tests {
		a, okA := ValueSum(seed, []byte(tt.a))
		b, okB := ValueSum(seed, []byte(tt.b))
		if !okA || !okB {
			t.Errorf("%s, %s: refused (%v, %v)", tt.a, tt.b, okA, okB)
			continue
		}
		if (a == b) != tt.same {
			t.Errorf("%s and %s: same sum %v, want %v", tt.a, tt.b, a == b, tt.same)
		}
	}
	for _, bad := range []string{``, ` `, `{"a":1`, `{"a":1} {}`, `{"a":1}x`, `[1,]`, `01`, `{a:1}`, `"\x"`} {
		if _, ok := ValueSum(seed, []byte(bad)); ok {
			t.Errorf("%q: summed, want refused", bad)
		}
	}
}

// FuzzValueSum holds ValueSum to encoding/json: a valid line decoded into an any and
// written again (members sorted, numbers respelled, escapes changed) sums as the line
// does, and a value ValueSum reads is one encoding/json reads.
func FuzzValueSum(f *testing.F) {
	for _, s := range []string{`{"b":[1,-2.5e3,true,null,"x\u00e9\/"],"a":{}}`, `[{"b":{}},"",1E2]`, `"\ud800"`, `{"a":1,"a":2}`, `-0.0`, `1e400`} {
		f.Add([]byte(s))
	}
	seed := maphash.MakeSeed()
	f.Fuzz(func(t *testing.T, in []byte) {
		sum, ok := ValueSum(seed, in)
		if ok && !json.Valid(in) {
			t.Fatalf("ValueSum read %q, which encoding/json refuses", in)
		}
		var v any
		if !ok || !utf8.Valid(in) || json.Unmarshal(in, &v) != nil || repeatsAMember(in) {
			return
		}
		again, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		if sum2, ok := ValueSum(seed, again); !ok || sum2 != sum {
			t.Fatalf("%q sums %x, written again as %s %x (read: %v)", in, sum, again, sum2, ok)
		}
		var w any
		if json.Unmarshal(again, &w) != nil || !reflect.DeepEqual(v, w) {
			t.Fatalf("%q: written again as %s, another value", in, again)
		}
	})
}

// repeatsAMember reports whether a valid JSON text has an object that gives a member
// twice (encoding/json keeps the last; ValueSum counts both).
func repeatsAMember(in []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(in))
	type frame struct {
		seen  map[string]bool
		isKey bool
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil { // the end
			return false
		}
		top := (*frame)(nil)
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		switch tok := tok.(type) {
		case json.Delim:
			switch tok {
			case '{', '[':
				if top != nil && top.seen != nil {
					top.isKey = true
				}
				f := &frame{}
				if tok == '{' {
					f.seen, f.isKey = map[string]bool{}, true
				}
				stack = append(stack, f)
			default:
				stack = stack[:len(stack)-1]
			}
			continue
		case string:
			if top != nil && top.seen != nil && top.isKey {
				if top.seen[tok] {
					return true
				}
				top.seen[tok] = true
				top.isKey = false
				continue
			}
		}
		if top != nil && top.seen != nil {
			top.isKey = true
		}
	}
}
