//go:build unix

package replay_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/loopwatch/loopwatch/analyze/struggle"
	"github.com/loopwatch/loopwatch/replay"
	"github.com/loopwatch/loopwatch/replay/input"
)

// mkfifo makes a named pipe in a fresh folder and returns the folder and the pipe.
func mkfifo(t *testing.T, name string) (string, string) {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, name)
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("cannot make a named pipe here: %v", err)
	}
	return dir, p
}

// replayWithin runs a replay and fails the test, instead of hanging it, when the
// replay does not return within a minute.
func replayWithin(t *testing.T, ctx context.Context, fsys fs.FS, opts replay.Options, sink replay.Sink) (*replay.Summary, error) {
	t.Helper()
	type result struct {
		sum *replay.Summary
		err error
	}
	done := make(chan result, 1)
	opts.Struggle = struggle.DefaultStruggleConfig()
	go func() {
		sum, err := replay.Replay(ctx, fsys, opts, sink)
		done <- result{sum, err}
	}()
	select {
	case r := <-done:
		return r.sum, r.err
	case <-time.After(time.Minute):
		t.Fatal("the replay hangs")
		return nil, nil
	}
}

// dirFSes are the folders' file systems the tests read pipes through: os.DirFS and
// replay.DirFS, which opens files its own way.
var dirFSes = []struct {
	name string
	open func(string) fs.FS
}{{"os.DirFS", os.DirFS}, {"replay.DirFS", replay.DirFS}}

// TestNamedPipeInAFolderIsReported: a named pipe found while walking a folder is
// reported and skipped, never opened (nobody may ever write to it).
func TestNamedPipeInAFolderIsReported(t *testing.T) {
	for _, d := range dirFSes {
		t.Run(d.name, func(t *testing.T) { namedPipeInAFolderIsReported(t, d.open) })
	}
}

func namedPipeInAFolderIsReported(t *testing.T, dirFS func(string) fs.FS) {
	dir, _ := mkfifo(t, "pipe.jsonl")
	if err := os.WriteFile(filepath.Join(dir, "run.jsonl"), []byte(traceLine("q-1", 1)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	runs := 0
	sum, err := replayWithin(t, context.Background(), dirFS(dir), replay.Options{}, replay.SinkFunc(func(*replay.RunResult) error { runs++; return nil }))
	if err != nil {
		t.Fatal(err)
	}
	if runs != 1 || sum.ProblemCount[input.ProblemRead] != 1 || sum.Problems[0].File != "pipe.jsonl" {
		t.Errorf("%d runs, problems %v", runs, sum.Problems)
	}
}

// TestStreamIsReadOnce: a named pipe given as the input (ReadSpecialFiles) is
// recognised and read from one pass over its bytes.
func TestStreamIsReadOnce(t *testing.T) {
	for _, d := range dirFSes {
		t.Run(d.name, func(t *testing.T) { streamIsReadOnce(t, d.open) })
	}
}

func streamIsReadOnce(t *testing.T, dirFS func(string) fs.FS) {
	dir, pipe := mkfifo(t, "stdin")
	go func() {
		f, err := os.OpenFile(pipe, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer f.Close()
		f.WriteString(traceLine("q-1", 1) + "\n" + traceLine("q-1", 2) + "\n" + traceLine("q-2", 1) + "\n")
	}()
	runs := 0
	sum, err := replayWithin(t, context.Background(), dirFS(dir), replay.Options{ReadSpecialFiles: true},
		replay.SinkFunc(func(*replay.RunResult) error { runs++; return nil }))
	if err != nil {
		t.Fatal(err)
	}
	if runs != 2 || sum.TotalProblems() != 0 || sum.FilesByFmt["trace"] != 1 || sum.Fingerprint == "" {
		t.Errorf("%d runs (want 2), problems %v, formats %v", runs, sum.Problems, sum.FilesByFmt)
	}
}

// TestStreamHonoursCancellation: a replay blocked opening a pipe nobody writes to, or
// reading one that never ends, returns when its context is cancelled.
func TestStreamHonoursCancellation(t *testing.T) {
	for _, d := range dirFSes {
		t.Run(d.name, func(t *testing.T) { streamHonoursCancellation(t, d.open) })
	}
}

func streamHonoursCancellation(t *testing.T, dirFS func(string) fs.FS) {
	t.Run("no writer", func(t *testing.T) {
		dir, _ := mkfifo(t, "stdin")
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(50*time.Millisecond, cancel)
		_, err := replayWithin(t, ctx, dirFS(dir), replay.Options{ReadSpecialFiles: true}, replay.SinkFunc(func(*replay.RunResult) error { return nil }))
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	})
	t.Run("writer that never closes", func(t *testing.T) {
		dir, pipe := mkfifo(t, "stdin")
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		wrote := make(chan struct{})
		go func() {
			f, err := os.OpenFile(pipe, os.O_WRONLY, 0)
			if err != nil {
				return
			}
			defer f.Close()
			f.WriteString(traceLine("q-1", 1) + "\n")
			close(wrote)
			<-ctx.Done()
		}()
		go func() {
			<-wrote
			time.Sleep(50 * time.Millisecond)
			cancel()
		}()
		_, err := replayWithin(t, ctx, dirFS(dir), replay.Options{ReadSpecialFiles: true}, replay.SinkFunc(func(*replay.RunResult) error { return nil }))
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	})
}
