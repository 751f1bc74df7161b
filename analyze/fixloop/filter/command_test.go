package filter

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// copyModule copies testdata/modules/<name> to a fresh temporary directory, so the
// go command never writes into testdata.
func copyModule(t *testing.T, name string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), name)
	if err := os.CopyFS(dst, os.DirFS(filepath.Join("testdata", "modules", name))); err != nil {
		t.Fatal(err)
	}
	return dst
}

func noLint(string) (string, error) { return "", exec.ErrNotFound }

// TestDefaultChainOnModules runs the real default chain (go build, go vet, the lint
// check, go test, claims) on throw-away modules that fail at different checks.
func TestDefaultChainOnModules(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go not on PATH")
	}
	claimAll := ClaimsFunc(func(context.Context, string) ([]string, []string, error) {
		return []string{"passing.go"}, []string{"passing.go"}, nil
	})
	claimNone := ClaimsFunc(func(context.Context, string) ([]string, []string, error) {
		return []string{"passing.go", "go.mod"}, []string{"passing.go"}, nil
	})
	tests := []struct {
		module     string // module directory, optionally followed by /<case>
		claims     ClaimsSource
		wantRan    []string // checks run, in order; the last failed unless wantPass
		wantPass   bool
		wantOutput []string // substrings of the last check's output
	}{
		{"buildfail", nil, []string{"build"}, false, []string{
			"# example.com/buildfail/shapes",
			"shapes/shapes.go:12:2: declared and not used: unused",
			"geom/geom.go:6:9: cannot use 2 * (w + h)",
		}},
		{"vetfail", nil, []string{"build", "vet"}, false, []string{
			"vetfail.go:18:20: fmt.Printf format %d has arg name of wrong type string",
			"self-assignment of n",
		}},
		{"testbuildfail", nil, []string{"build", "vet"}, false, []string{"undefined: want"}},
		{"testfail", nil, []string{"build", "vet", "lint", "test"}, false, []string{
			"--- FAIL: TestAdd",
			"calc_test.go:7: Add(1, 2) = 4, want 3",
			"--- FAIL: TestAbs/negative",
			"panic: runtime error: index out of range [5] with length 3",
			"FAIL\texample.com/testfail/panicky",
		}},
		{"passing/claims ok", claimAll, []string{"build", "vet", "lint", "test", "claims"}, true, nil},
		{"passing/claims fail", claimNone, []string{"build", "vet", "lint", "test", "claims"}, false, []string{
			"Modified files not claimed by task quasar-t1:\n  go.mod",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.module, func(t *testing.T) {
			t.Parallel()
			dir := copyModule(t, strings.Split(tt.module, "/")[0])
			chain := DefaultChain(Options{TaskID: "quasar-t1", Claims: tt.claims, LookPath: noLint, Now: time.Now})
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			res, err := chain.Run(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			var ran []string
			for _, cr := range res.Checks {
				ran = append(ran, cr.Name)
			}
			if strings.Join(ran, ",") != strings.Join(tt.wantRan, ",") || res.Passed != tt.wantPass {
				t.Fatalf("ran %v passed=%v, want %v passed=%v\nlast output:\n%s", ran, res.Passed, tt.wantRan, tt.wantPass, res.Checks[len(res.Checks)-1].Output)
			}
			last := res.Checks[len(res.Checks)-1]
			for _, s := range tt.wantOutput {
				if !strings.Contains(last.Output, s) {
					t.Errorf("%s output lacks %q:\n%s", last.Name, s, last.Output)
				}
			}
			if last.Output != strings.TrimRight(last.Output, "\n ") {
				t.Errorf("output not trimmed: %q", last.Output)
			}
			if last.Elapsed <= 0 {
				t.Errorf("Elapsed = %v, want > 0 with the wall clock", last.Elapsed)
			}
			if !tt.wantPass {
				// Re-running just the failing check reproduces the failure.
				cr, err := chain.RunCheck(ctx, dir, last.Name)
				if err != nil || cr.Passed || cr.Name != last.Name {
					t.Errorf("RunCheck(%q) = %+v, %v; want the same failure", last.Name, cr, err)
				}
			}
		})
	}
}

func TestLintCheck(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("uses a shell-script stand-in for golangci-lint")
	}
	// A stand-in golangci-lint that prints its documented default text format.
	bin := filepath.Join(t.TempDir(), "golangci-lint")
	script := "#!/bin/sh\n" +
		"[ \"$1\" = run ] || exit 3\n" +
		"echo 'main.go:12:5: Error return value of `f.Close` is not checked (errcheck)'\n" +
		"exit 1\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		lookPath   func(string) (string, error)
		wantPass   bool
		wantOutput string
	}{
		{"absent: skipped and passing", noLint, true, LintSkippedOutput},
		{"found but not runnable: the check could not run", func(string) (string, error) { return "", os.ErrPermission }, false, ""},
		{"present: runs golangci-lint run", func(string) (string, error) { return bin, nil }, false,
			"main.go:12:5: Error return value of `f.Close` is not checked (errcheck)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &Chain{Checks: []Check{LintCheck(tt.lookPath)}}
			cr, err := c.RunCheck(context.Background(), t.TempDir(), CheckLint)
			if tt.wantOutput == "" {
				if !errors.Is(err, ErrInfrastructure) {
					t.Errorf("err = %v, want ErrInfrastructure", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cr.Passed != tt.wantPass || cr.Output != tt.wantOutput {
				t.Errorf("got %v %q, want %v %q", cr.Passed, cr.Output, tt.wantPass, tt.wantOutput)
			}
		})
	}
}

func TestCommandCheckErrors(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("uses sleep")
	}
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep binary")
	}
	t.Run("missing program is infrastructure", func(t *testing.T) {
		c := &Chain{Checks: []Check{CommandCheck("build", "no-such-program-loopwatch")}}
		if _, err := c.RunCheck(context.Background(), t.TempDir(), "build"); !errors.Is(err, ErrInfrastructure) {
			t.Errorf("err = %v, want ErrInfrastructure", err)
		}
	})
	t.Run("context deadline is the timeout", func(t *testing.T) {
		c := &Chain{Checks: []Check{CommandCheck("test", sleep, "30")}}
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := c.RunCheck(ctx, t.TempDir(), "test")
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err = %v, want DeadlineExceeded", err)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("took %v: the command was not killed at the deadline", d)
		}
	})
	t.Run("the deadline kills what the command started, and the wait ends", func(t *testing.T) {
		// A shell that waits for a child of its own holding the output: killing the shell
		// alone left the check waiting 20 s, and the child running.
		c := &Chain{Checks: []Check{CommandCheck("test", "sh", "-c", "sleep 20 & wait")}}
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := c.RunCheck(ctx, t.TempDir(), "test")
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err = %v, want DeadlineExceeded", err)
		}
		if d := time.Since(start); d > WaitDelay/2 {
			t.Errorf("took %v: the check waited for the command's child (its group was not killed)", d)
		}
	})
	t.Run("a command that passes but leaves a child holding its output passes, the child killed", func(t *testing.T) {
		pidFile := filepath.Join(t.TempDir(), "pid")
		c := &Chain{Checks: []Check{CommandCheck("test", "sh", "-c", "sleep 60 & echo $! > "+pidFile+"; echo ok")}}
		cr, err := c.RunCheck(context.Background(), t.TempDir(), "test")
		if err != nil || !cr.Passed || cr.Output != "ok" {
			t.Fatalf("%+v %v", cr, err)
		}
		b, _ := os.ReadFile(pidFile)
		pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		if pid <= 0 {
			t.Fatalf("no pid in %q", b)
		}
		// Alive is running or sleeping; killed is gone, or a zombie its new parent has
		// not reaped yet (/proc/PID/stat's third field).
		state := func() string {
			stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
			if err != nil {
				return "gone"
			}
			if f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:])); len(f) > 0 {
				return f[0]
			}
			return "?"
		}
		st := state()
		for deadline := time.Now().Add(2 * time.Second); st != "gone" && st != "Z" && st != "X" && time.Now().Before(deadline); st = state() {
			time.Sleep(20 * time.Millisecond) // a SIGKILL is delivered when the process next runs
		}
		if st != "gone" && st != "Z" && st != "X" {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("the child %d outlived the check (state %s)", pid, st)
		}
	})
	t.Run("a command killed by a signal did not judge the code", func(t *testing.T) {
		c := &Chain{Checks: []Check{CommandCheck("build", "sh", "-c", "kill -9 $$")}}
		if _, err := c.RunCheck(context.Background(), t.TempDir(), "build"); !errors.Is(err, ErrInfrastructure) {
			t.Errorf("err = %v, want ErrInfrastructure", err)
		}
	})
	t.Run("arguments are not interpreted by a shell", func(t *testing.T) {
		c := &Chain{Checks: []Check{CommandCheck("echo", "echo", "$HOME", ";", "false")}}
		cr, err := c.RunCheck(context.Background(), t.TempDir(), "echo")
		if err != nil {
			t.Fatal(err)
		}
		if !cr.Passed || cr.Output != "$HOME ; false" {
			t.Errorf("got %v %q", cr.Passed, cr.Output)
		}
	})
}

func TestCappedBuffer(t *testing.T) {
	const half = MaxCommandOutput / 2
	tests := []struct {
		name        string
		writes      []int // sizes; byte i of the stream is 'a'+i%26
		wantDropped int
	}{
		{"small", []int{10, 20}, 0},
		{"exactly the cap", []int{half, half}, 0},
		{"one byte over", []int{MaxCommandOutput + 1}, 1},
		{"many small writes", repeat(4096, 3*MaxCommandOutput/4096+7), 3*MaxCommandOutput + 7*4096 - MaxCommandOutput},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b cappedBuffer
			var stream []byte
			for _, n := range tt.writes {
				p := make([]byte, n)
				for i := range p {
					p[i] = byte('a' + (len(stream)+i)%26)
				}
				stream = append(stream, p...)
				if k, err := b.Write(p); k != n || err != nil {
					t.Fatalf("Write = %d, %v", k, err)
				}
			}
			got := b.String()
			if tt.wantDropped == 0 {
				if got != string(stream) {
					t.Fatalf("uncapped output differs")
				}
				return
			}
			marker := "\n… [" + strconv.Itoa(tt.wantDropped) + " bytes of output omitted] …\n"
			want := string(stream[:half]) + marker + string(stream[len(stream)-half:])
			if got != want {
				t.Errorf("capped output wrong: len %d, want %d; marker present: %v", len(got), len(want), strings.Contains(got, marker))
			}
		})
	}
}

func repeat(n, times int) []int {
	s := make([]int, times)
	for i := range s {
		s[i] = n
	}
	return s
}

// TestCheckNamesAreTheDefaultChains: CheckNames lists the default chain's checks in
// the order it runs them, with claims (and without it, the same less claims).
func TestCheckNamesAreTheDefaultChains(t *testing.T) {
	for _, tt := range []struct {
		name   string
		claims ClaimsSource
		want   []string
	}{
		{"with claims", GitDiffClaims{}, CheckNames()},
		{"without claims", nil, CheckNames()[:len(CheckNames())-1]},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, c := range DefaultChain(Options{TaskID: "t", Claims: tt.claims}).Checks {
				got = append(got, c.Name)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("default chain %v, want %v", got, tt.want)
			}
		})
	}
}
