package replay

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// tempScratch returns a Scratch that creates files in a test folder, opened with flag.
func tempScratch(t testing.TB, flag int) func(string) (*os.File, error) {
	dir := t.TempDir()
	return func(name string) (*os.File, error) {
		f, err := os.OpenFile(filepath.Join(dir, name), os.O_CREATE|os.O_EXCL|flag, 0o600)
		if err == nil {
			t.Cleanup(func() { f.Close() })
		}
		return f, err
	}
}

// TestFileNamesAside: names kept in a scratch file are read back a part at a time, so
// that names asked for nearly in order cost few reads; a name that cannot be read back
// is a failure kept for the replay, never a wrong name; a scratch that cannot be
// created or written fails at once.
func TestFileNamesAside(t *testing.T) {
	var paths []string
	for i := range 20000 {
		paths = append(paths, fmt.Sprintf("sessions/p%d/%08x-6f1c-4d5e-9a2b-%012x.jsonl", i/5000, i*7919, i))
	}
	f, err := newFileNames(paths, tempScratch(t, os.O_RDWR))
	if err != nil {
		t.Fatal(err)
	}
	for i := range paths {
		if got := f.at(i); got != paths[i] {
			t.Fatalf("at(%d) = %q, want %q", i, got, paths[i])
		}
	}
	if bytes := f.end[len(paths)-1]; f.reads != (bytes+namesPart-1)/namesPart {
		t.Errorf("%d parts read for %d bytes of names read in order", f.reads, bytes)
	}

	unreadable, err := newFileNames(paths, tempScratch(t, os.O_WRONLY))
	if err != nil {
		t.Fatal(err)
	}
	if got := unreadable.at(3); got != "" {
		t.Errorf("an unreadable name read as %q", got)
	}
	if err := unreadable.failed(); err == nil || !strings.Contains(err.Error(), "reading back the file names") {
		t.Errorf("failed() = %v", err)
	}
	if got := unreadable.at(0); got != "" || unreadable.failed() == nil {
		t.Errorf("after a failure at(0) = %q, failed %v", got, unreadable.failed())
	}

	if _, err := newFileNames(paths, func(string) (*os.File, error) { return nil, os.ErrPermission }); err == nil {
		t.Error("a scratch that cannot be created was taken")
	}
	closed := func(name string) (*os.File, error) {
		f, err := tempScratch(t, os.O_RDWR)(name)
		f.Close()
		return f, err
	}
	if _, err := newFileNames(paths, closed); err == nil || !strings.Contains(err.Error(), "aside") {
		t.Errorf("a scratch that cannot be written: %v", err)
	}
}

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
		for _, aside := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/aside=%v", tt.name, aside), func(t *testing.T) {
				var scratch func(string) (*os.File, error)
				if aside {
					scratch = tempScratch(t, os.O_RDWR)
				}
				f, err := newFileNames(tt.paths, scratch)
				if err != nil {
					t.Fatal(err)
				}
				if f.len() != len(tt.paths) || len(f.dirs) != tt.dirs {
					t.Fatalf("%d files in %d folders, want %d in %d", f.len(), len(f.dirs), len(tt.paths), tt.dirs)
				}
				backward := seq(len(tt.paths))
				slices.Reverse(backward)
				for _, i := range append(seq(len(tt.paths)), backward...) {
					if got, want := f.at(i), tt.paths[i]; got != want {
						t.Errorf("at(%d) = %.60q, want %.60q", i, got, want)
					}
				}
				if err := f.failed(); err != nil {
					t.Error(err)
				}
			})
		}
	}
}
