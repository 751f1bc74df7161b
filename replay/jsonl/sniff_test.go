package jsonl

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestFirstObject(t *testing.T) {
	tests := []struct {
		name string
		head string
		want map[string]string
	}{
		{"not JSON", "id,label\n", nil},
		{"array", `[1,2]`, nil},
		{"empty", "", nil},
		{"string and other values", `{"kind":"cycle_done","n":3,"data":{"a":1}}` + "\n{\"x\":1}", map[string]string{"kind": "cycle_done", "n": "", "data": ""}},
		{"leading blank lines and BOM", "\n\xef\xbb\xbf" + `{"type":"user"}`, map[string]string{"type": "user"}},
		{"cut off inside a value keeps the keys before", `{"type":"user","message":{"content":"aaaa`, map[string]string{"type": "user", "message": ""}},
		{"cut off inside a key", `{"type":"user","mess`, map[string]string{"type": "user"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := FirstObject([]byte(tt.head)); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("FirstObject(%q) = %v, want %v", tt.head, got, tt.want)
			}
		})
	}
}

func FuzzFirstObject(f *testing.F) {
	f.Add([]byte(`{"kind":"x","ts":"2026-01-01T00:00:00Z"}`))
	f.Add([]byte(`{"a":`))
	f.Fuzz(func(t *testing.T, head []byte) {
		FirstObject(head) // must not panic
	})
}

// FuzzFirstObjectScan holds FirstObject's fast path to the decoder's keys: on every
// head it accepts, it yields what firstObjectDecode yields.
func FuzzFirstObjectScan(f *testing.F) {
	for _, s := range []string{`{"kind":"x","ts":"2026-01-01T00:00:00Z","data":{"a":[1,null]}}`, `{"a":"1","a":2}`,
		`{"typ\u0065":"\u00e9\n"} trailing`, `{"a":`, `{"\u212a":"k"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, head []byte) {
		fast, ok := firstObjectScan(head)
		if !ok {
			return
		}
		if slow := firstObjectDecode(head); !reflect.DeepEqual(fast, slow) {
			t.Fatalf("firstObjectScan(%q) = %v, firstObjectDecode %v", head, fast, slow)
		}
	})
}

func TestHeadObjects(t *testing.T) {
	deep := strings.Repeat(`{"a":`, 20000)
	tests := []struct {
		name string
		head string
		max  int
		want []map[string]string
	}{
		{"garbage, blank and BOM lines passed over", "\xef\xbb\xbfnot json\n\n" + `{"kind":"k"}` + "\n" + `{"x":"1"}`, 0,
			[]map[string]string{{"kind": "k"}, {"x": "1"}}},
		{"a deep line yields its first key and the next line is still seen", deep + "\n" + `{"type":"user"}`, 0,
			[]map[string]string{{"a": ""}, {"type": "user"}}},
		{"at most max", `{"a":"1"}` + "\n" + `{"b":"2"}` + "\n" + `{"c":"3"}`, 2, []map[string]string{{"a": "1"}, {"b": "2"}}},
		{"cut-off last line keeps its keys", `{"a":"1"}` + "\n" + `{"b":"2","c":"xx`, 0, []map[string]string{{"a": "1"}, {"b": "2", "c": ""}}},
		{"nothing", "id,label\nq,positive\n", 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := slices.Collect(HeadObjects([]byte(tt.head), tt.max)); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("HeadObjects = %v, want %v", got, tt.want)
			}
		})
	}
}
