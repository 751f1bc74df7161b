//go:build unix

package screens

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestOpenNamedPipe: a named pipe given as the results file is refused at once, not
// opened (which blocks until something writes to it); so is one in a sibling table's
// place.
func TestOpenNamedPipe(t *testing.T) {
	dir := t.TempDir()
	pipe := filepath.Join(dir, "pipe.parquet")
	if err := syscall.Mkfifo(pipe, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	results := writeFixture(t, dir)
	events := strings.TrimSuffix(results, ".parquet") + ".events.parquet"
	if err := syscall.Unlink(events); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(events, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		open func() error
		path string
	}{
		{"results", func() error { _, err := Open(pipe); return err }, pipe},
		{"events", func() error {
			r, err := Open(results)
			if err != nil {
				return err
			}
			defer r.Close()
			_, err = r.Detail(keyA)
			return err
		}, events},
	} {
		t.Run(tc.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() { done <- tc.open() }()
			select {
			case err := <-done:
				var fe *FileError
				if !errors.As(err, &fe) || fe.Path != tc.path || !strings.Contains(err.Error(), "not a regular file but a named pipe") {
					t.Fatalf("error %v, want a *FileError naming %s as a named pipe", err, tc.path)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("still blocked after 10 s: the pipe was opened")
			}
		})
	}
}
