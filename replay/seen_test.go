package replay

import (
	"fmt"
	"testing"
)

func TestFirstReads(t *testing.T) {
	files := []string{"a/one.jsonl", "b/two.jsonl", "c/three.jsonl"}
	type add struct {
		key   string
		file  int32
		first string // "" when it is no duplicate
	}
	long := string(make([]byte, 1<<20))
	for _, tt := range []struct {
		name string
		adds []add
	}{
		{"distinct keys", []add{{"q-1", 0, ""}, {"q-2", 0, ""}, {"q-3", 1, ""}}},
		{"a key read again names the file that had it first",
			[]add{{"q-1", 0, ""}, {"q-2", 1, ""}, {"q-1", 2, "a/one.jsonl"}, {"q-2", 2, "b/two.jsonl"}, {"q-1", 1, "a/one.jsonl"}}},
		{"a duplicate within one file", []add{{"s", 1, ""}, {"s", 1, "b/two.jsonl"}}},
		{"keys differing in one byte, case or trailing space are distinct",
			[]add{{"q-1", 0, ""}, {"q-2", 1, ""}, {"Q-1", 1, ""}, {"q-1 ", 1, ""}, {"q-1\x00", 2, ""}}},
		{"empty, Unicode and huge keys", []add{{"", 0, ""}, {"séance-é", 1, ""}, {long, 2, ""},
			{"séance-é", 2, "b/two.jsonl"}, {"", 2, "a/one.jsonl"}, {long, 0, "c/three.jsonl"}, {long + "x", 0, ""}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			seen := newFirstReads(func(i int32) string { return files[i] })
			for i, a := range tt.adds {
				first, dup := seen.add(a.key, a.file)
				if dup != (a.first != "") || first != a.first {
					t.Errorf("add %d (%.10q from %s) = %q, %v; want %q", i, a.key, files[a.file], first, dup, a.first)
				}
			}
		})
	}
}

// TestFirstReadsMany: no two of many similar keys are taken for one, and each is
// found again with its file.
func TestFirstReadsMany(t *testing.T) {
	const n = 200_000
	seen := newFirstReads(func(i int32) string { return fmt.Sprint("file-", i) })
	for i := range n {
		if first, dup := seen.add(fmt.Sprintf("synth-%06d@e1", i), int32(i)); dup {
			t.Fatalf("key %d taken for the key first read from %s", i, first)
		}
	}
	for i := range n {
		if first, dup := seen.add(fmt.Sprintf("synth-%06d@e1", i), -1); !dup || first != fmt.Sprint("file-", i) {
			t.Fatalf("key %d read again: %q, %v", i, first, dup)
		}
	}
}
