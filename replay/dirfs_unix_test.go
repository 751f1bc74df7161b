//go:build unix

package replay_test

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
	"time"

	"github.com/loopwatch/loopwatch/replay"
)

// TestDirFSLikeOSDirFS: replay.DirFS opens what os.DirFS opens — the same content,
// name, mode and size — and fails where it fails with the same error, over regular
// files, folders, links, a missing file, a file it may not read and names os.DirFS
// refuses; its other methods are os.DirFS's.
func TestDirFSLikeOSDirFS(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string, mode os.FileMode) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), mode); err != nil {
			t.Fatal(err)
		}
	}
	write("a.jsonl", "{}\n", 0o644)
	write("sub/b.jsonl", strings.Repeat("x", 70000), 0o644)
	write("empty", "", 0o644)
	write("secret", "no", 0o000)
	for link, target := range map[string]string{"link": "a.jsonl", "sublink": "sub", "dangling": "nowhere"} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	names := []string{"a.jsonl", "sub/b.jsonl", "empty", "secret", "link", "sublink", "sublink/b.jsonl", "dangling", "sub",
		".", "missing", "sub/missing", "a.jsonl/x", "../a.jsonl", "/a.jsonl", "sub//b.jsonl", "sub/./b.jsonl", "", "a\x00b"}
	for _, root := range []string{dir, dir + "/"} {
		lean, plain := replay.DirFS(root), os.DirFS(root)
		for _, name := range names {
			got, want := describeOpen(lean, name), describeOpen(plain, name)
			if got != want {
				t.Errorf("root %q, Open(%q):\n got  %s\n want %s", root, name, got, want)
			}
			for _, m := range []struct {
				what string
				call func(fs.FS) string
			}{
				{"ReadFile", func(f fs.FS) string { b, err := fs.ReadFile(f, name); return fmt.Sprint(len(b), err) }},
				{"ReadDir", func(f fs.FS) string { es, err := fs.ReadDir(f, name); return fmt.Sprint(len(es), err) }},
				{"Stat", func(f fs.FS) string { fi, err := fs.Stat(f, name); return describeInfo(fi, err) }},
				{"Lstat", func(f fs.FS) string { fi, err := fs.Lstat(f, name); return describeInfo(fi, err) }},
				{"ReadLink", func(f fs.FS) string { s, err := fs.ReadLink(f, name); return fmt.Sprint(s, err) }},
			} {
				if got, want := m.call(lean), m.call(plain); got != want {
					t.Errorf("root %q, %s(%q): got %s, want %s", root, m.what, name, got, want)
				}
			}
		}
	}
	write("clean/a.jsonl", "{}\n", 0o644)
	write("clean/sub/b.jsonl", "{}\n", 0o644)
	if err := fstest.TestFS(replay.DirFS(filepath.Join(dir, "clean")), "a.jsonl", "sub/b.jsonl"); err != nil {
		t.Error(err)
	}
}

// describeOpen opens name in fsys and says what it got: the error, or the file's
// name, type, size and content's length and first bytes.
func describeOpen(fsys fs.FS, name string) string {
	f, err := fsys.Open(name)
	if err != nil {
		var pe *fs.PathError
		return fmt.Sprintf("error %q (path error %v, not exist %v, permission %v)", err, errors.As(err, &pe),
			errors.Is(err, fs.ErrNotExist), errors.Is(err, fs.ErrPermission))
	}
	defer f.Close()
	fi, err := f.Stat()
	desc := describeInfo(fi, err)
	if named, ok := f.(interface{ Name() string }); ok {
		desc += " name " + named.Name()
	}
	if fi != nil && fi.IsDir() {
		es, err := f.(fs.ReadDirFile).ReadDir(-1)
		return desc + fmt.Sprintf(" entries %d %v", len(es), err)
	}
	b, err := io.ReadAll(f)
	return desc + fmt.Sprintf(" read %d %q %v", len(b), b[:min(len(b), 8)], err)
}

func describeInfo(fi fs.FileInfo, err error) string {
	if err != nil {
		return fmt.Sprintf("error %q", err)
	}
	return fmt.Sprintf("%s %v %d", fi.Name(), fi.Mode(), fi.Size())
}

// TestDirFSPipeCloseEndsRead: a named pipe opened through replay.DirFS is offered to
// the poller as os.DirFS leaves it, so that closing it ends a read that waits for a
// writer who writes nothing.
func TestDirFSPipeCloseEndsRead(t *testing.T) {
	dir := t.TempDir()
	pipe := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(pipe, 0o600); err != nil {
		t.Skipf("cannot make a named pipe here: %v", err)
	}
	writer := make(chan *os.File, 1)
	go func() {
		w, err := os.OpenFile(pipe, os.O_WRONLY, 0)
		if err != nil {
			writer <- nil
			return
		}
		writer <- w // holds the pipe open, writing nothing
	}()
	f, err := replay.DirFS(dir).Open("pipe")
	if err != nil {
		t.Fatal(err)
	}
	if w := <-writer; w != nil {
		defer w.Close()
	}
	read := make(chan error, 1)
	go func() {
		_, err := f.Read(make([]byte, 10))
		read <- err
	}()
	time.Sleep(20 * time.Millisecond)
	f.Close()
	select {
	case err := <-read:
		if err == nil {
			t.Error("the read of a closed pipe returned no error")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("closing the pipe did not end the read")
	}
}

// BenchmarkDirFSOpen opens, reads and closes a small file through os.DirFS and
// replay.DirFS: what a replay pays twice for every input file.
func BenchmarkDirFSOpen(b *testing.B) {
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "run.jsonl"), []byte(strings.Repeat("x", 4600)), 0o644); err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 8192)
	for _, d := range []struct {
		name string
		fsys fs.FS
	}{{"os.DirFS", os.DirFS(dir)}, {"replay.DirFS", replay.DirFS(dir)}} {
		b.Run(d.name, func(b *testing.B) {
			for b.Loop() {
				f, err := d.fsys.Open("run.jsonl")
				if err != nil {
					b.Fatal(err)
				}
				if _, err := f.Stat(); err != nil {
					b.Fatal(err)
				}
				for {
					if _, err := f.Read(buf); err != nil {
						break
					}
				}
				f.Close()
			}
		})
	}
}
