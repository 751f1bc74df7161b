//go:build unix

package replay

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestWalkMatchesWalkDirOnDisk compares the walks on a folder on disk holding
// symbolic links (to a file, a folder, a named pipe and nowhere), a named pipe and a
// folder that cannot be read, and on a root that cannot be read.
func TestWalkMatchesWalkDirOnDisk(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a/x.jsonl", "a-b/x.jsonl", "a.b", "sub/deep/y.jsonl", ".git/HEAD",
		".runs.parquet.tmp-12-ab", "locked/inside.jsonl", "locked/more/z.jsonl"} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "sub", "pipe"), 0o600); err != nil {
		t.Skipf("cannot make a named pipe here: %v", err)
	}
	for link, target := range map[string]string{"to-file": "a.b", "to-dir": "sub", "to-pipe": "sub/pipe", "dangling": "nowhere", "sub/up": ".."} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	locked := filepath.Join(dir, "locked")
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(locked, 0o755) })
	_, err := os.ReadDir(locked)
	unreadable := err != nil // not as root
	fsys := os.DirFS(dir)
	for _, tt := range []struct {
		name string
		opts Options
	}{
		{"special files skipped", Options{}},
		{"special files read", Options{ReadSpecialFiles: true}},
		{"excluded", Options{Exclude: []string{"locked", "to-pipe", "sub/deep"}}},
		{"folders listed ahead", Options{Workers: 4}},
		{"folders listed ahead, excluded", Options{Workers: 3, Exclude: []string{"locked", "sub/deep"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := sameWalk(t, fsys, tt.opts)
			if len(got.Files) == 0 {
				t.Error("no files")
			}
		})
	}
	t.Run("problems", func(t *testing.T) {
		got := sameWalk(t, fsys, Options{})
		want := 4 // sub/pipe, to-pipe; to-dir, sub/up (links to folders)
		if unreadable {
			want++ // locked
		}
		if len(got.Problems) != want {
			t.Errorf("problems %+v, want %d: the named pipe twice, the two links to folders and the locked folder if it is unreadable", got.Problems, want)
		}
		for _, p := range got.Problems {
			if (p.File == "to-dir" || p.File == "sub/up") && p.Detail != linkToFolder {
				t.Errorf("%s: %s, want %q", p.File, p.Detail, linkToFolder)
			}
		}
	})
	t.Run("root unreadable", func(t *testing.T) {
		if !unreadable {
			t.Skip("a folder of mode 000 stays readable here (running as root?)")
		}
		got := sameWalk(t, os.DirFS(locked), Options{})
		if got.Err == "" {
			t.Errorf("no error walking an unreadable root: %+v", got)
		}
	})
}
