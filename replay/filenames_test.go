package replay

import (
	"strings"
	"testing"
)

func TestFileNames(t *testing.T) {
	for _, tt := range []struct {
		name  string
		paths []string
		dirs  int
	}{
		{"none", nil, 0},
		{"at the root", []string{"a.jsonl", "b.jsonl"}, 1},
		{"folders, nested, revisited", []string{"a/x.jsonl", "a/y.jsonl", "a/b/x.jsonl", "a/z.jsonl", "c/x.jsonl", "top.csv"}, 4},
		{"Unicode, spaces, dots", []string{"séance/é t.jsonl", "日本/語.jsonl", ".beads/issues.jsonl", "a/.hidden", "a/b/c/d/e/f"}, 5},
		{"a name ending in a slash, empty base names", []string{"a/", "a/b", "/", ""}, 3},
		{"long", []string{strings.Repeat("d/", 500) + strings.Repeat("x", 5000), "y"}, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFileNames(tt.paths)
			if f.len() != len(tt.paths) || len(f.dirs) != tt.dirs {
				t.Fatalf("%d files in %d folders, want %d in %d", f.len(), len(f.dirs), len(tt.paths), tt.dirs)
			}
			for i, p := range tt.paths {
				if got := f.at(i); got != p {
					t.Errorf("at(%d) = %.60q, want %.60q", i, got, p)
				}
			}
		})
	}
}
