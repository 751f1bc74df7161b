//go:build unix

package llm

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/loopwatch/loopwatch/analyze/assess/duration"
)

// fakeScript writes an executable shell script standing in for claude into a fresh
// folder and returns its path.
func fakeScript(t *testing.T, body string) string {
	t.Helper()
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh")
	}
	p := filepath.Join(t.TempDir(), "claude")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestHarnessScriptFailures: a claude that exits non-zero, prints no analysis or
// hangs gives an error — a failed analysis, never an outcome — and is told no tools.
func TestHarnessScriptFailures(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{"non-zero exit", "cat >/dev/null; echo 'Error: not logged in' >&2; exit 1", "not logged in"},
		{"bad JSON", "cat >/dev/null; printf '{\"type\":\"result\",\"result\":'", "no JSON object with an outcome"},
		{"an answer that is no analysis", `cat >/dev/null; printf '{"type":"result","subtype":"success","is_error":false,"result":"I cannot help"}'`, "no JSON object with an outcome"},
		{"timeout", "cat >/dev/null; sleep 30", "timed out"},
		{"tools are refused", `cat >/dev/null; case "$*" in *"--tools  --strict-mcp-config"*) printf '{"type":"result","subtype":"success","is_error":false,"result":"{\"outcome\":\"success\",\"confidence\":0.9,\"summary\":\"ok\"}"}';; *) echo "tools allowed: $*" >&2; exit 9;; esac`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Only the hanging claude is to time out: the others get long enough to start
			// and exit on a loaded machine (300 ms was not always).
			timeout := 30 * time.Second
			if tt.want == "timed out" {
				timeout = 300 * time.Millisecond
			}
			h := NewHarnessLLM(HarnessConfig{Binary: fakeScript(t, tt.body), Timeout: duration.Duration(timeout)})
			a, err := h.AnalyzeSession(context.Background(), transcript())
			if tt.want == "" {
				if err != nil || a.Outcome != OutcomeSuccess {
					t.Fatalf("got %+v, %v", a, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %+v, %v; want an error with %q", a, err, tt.want)
			}
		})
	}
}

// TestHarnessKillsTheProcessGroup: at a timeout, what claude started dies with it.
func TestHarnessKillsTheProcessGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "grandchild.pid")
	h := NewHarnessLLM(HarnessConfig{Binary: fakeScript(t, "cat >/dev/null; sleep 60 & echo $! > "+pidFile+"; wait"),
		Timeout: duration.Duration(500 * time.Millisecond)})
	if _, err := h.Complete(context.Background(), "hi"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the grandchild %d survived the timeout", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestHarnessProgress: a slow call is reported when it starts, while it runs and when
// it ends.
func TestHarnessProgress(t *testing.T) {
	var mu sync.Mutex
	var calls []Call
	h := NewHarnessLLM(HarnessConfig{
		Binary:        fakeScript(t, "cat >/dev/null; sleep 0.3; echo 'not an analysis'"),
		ProgressEvery: duration.Duration(50 * time.Millisecond),
		Now:           time.Now,
		Progress: func(c Call) {
			mu.Lock()
			calls = append(calls, c)
			mu.Unlock()
		},
	})
	_, err := h.AnalyzeSession(context.Background(), transcript())
	if err == nil {
		t.Fatal("no error")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(calls) < 3 {
		t.Fatalf("progress %+v", calls)
	}
	first, last := calls[0], calls[len(calls)-1]
	if first.Kind != "analysis" || first.SessionID != "s1" || first.Done || first.Elapsed != 0 {
		t.Errorf("first %+v", first)
	}
	if !last.Done || last.Err == nil || last.Elapsed <= 0 {
		t.Errorf("last %+v", last)
	}
	for _, c := range calls[1 : len(calls)-1] {
		if c.Done || c.Elapsed <= 0 {
			t.Errorf("running %+v", c)
		}
	}
	// Without a clock the reports still come, with no elapsed time: the package reads
	// no clock of its own.
	calls = nil
	mu.Unlock()
	h = NewHarnessLLM(HarnessConfig{
		Binary:        fakeScript(t, "cat >/dev/null; sleep 0.2; echo 'not an analysis'"),
		ProgressEvery: duration.Duration(50 * time.Millisecond),
		Progress: func(c Call) {
			mu.Lock()
			calls = append(calls, c)
			mu.Unlock()
		},
	})
	h.AnalyzeSession(context.Background(), transcript())
	mu.Lock()
	if len(calls) < 3 || !calls[len(calls)-1].Done {
		t.Errorf("without a clock, progress %+v", calls)
	}
	for _, c := range calls {
		if c.Elapsed != 0 {
			t.Errorf("without a clock, elapsed %v", c.Elapsed)
		}
	}
}
