package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSplitInput: every file lands in exactly one part at its own relative path, with
// its content; a transcript and the folder of its subagents stay together; the parts
// weigh about the same; the placeholder names them.
func TestSplitInput(t *testing.T) {
	in := t.TempDir()
	files := map[string]int{ // synthetic fixture: path → size
		"runs/r1.jsonl": 100, "runs/r2.jsonl": 100, "runs/r3.jsonl": 100, "runs/r4.jsonl": 100,
		"sessions/p/s1.jsonl": 300, "sessions/p/s1/subagents/agent-a.jsonl": 50, "sessions/p/s1/subagents/agent-b.jsonl": 50,
		"sessions/p/s2.jsonl": 350, "sessions/q/s3.jsonl": 20,
		"labels/sessions.csv": 30, // no transcript beside its folder: a group of its own
	}
	for p, n := range files {
		full := filepath.Join(in, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(strings.Repeat(p[:1], n)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	pattern, err := splitInput(in, dir, 2)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "part-{i}"); pattern != want {
		t.Errorf("pattern %q, want %q", pattern, want)
	}
	partOf := map[string]int{}
	weight := make([]int, 2)
	for i := range 2 {
		root := strings.ReplaceAll(pattern, partPlaceholder, string(rune('0'+i)))
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			rel = filepath.ToSlash(rel)
			if prev, ok := partOf[rel]; ok {
				t.Errorf("%s in parts %d and %d", rel, prev, i)
			}
			partOf[rel] = i
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if len(b) != files[rel] || len(b) > 0 && b[0] != rel[0] {
				t.Errorf("%s: %d bytes, not its content", rel, len(b))
			}
			weight[i] += len(b)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for p := range files {
		if _, ok := partOf[p]; !ok {
			t.Errorf("%s in no part", p)
		}
	}
	for _, sub := range []string{"sessions/p/s1/subagents/agent-a.jsonl", "sessions/p/s1/subagents/agent-b.jsonl"} {
		if partOf[sub] != partOf["sessions/p/s1.jsonl"] {
			t.Errorf("%s in part %d, its transcript in %d", sub, partOf[sub], partOf["sessions/p/s1.jsonl"])
		}
	}
	if d := weight[0] - weight[1]; d > 100 || d < -100 {
		t.Errorf("parts of %v bytes: not balanced", weight)
	}

	if _, err := splitInput(t.TempDir(), t.TempDir(), 2); err == nil {
		t.Error("an empty folder split without an error")
	}
	if got := partArgs([]string{"--in", "x/part-{i}", "--out", "o/{i}.parquet", "--workers", "1"}, 3); !slices.Equal(got, []string{"--in", "x/part-3", "--out", "o/3.parquet", "--workers", "1"}) {
		t.Errorf("partArgs = %q", got)
	}
}
