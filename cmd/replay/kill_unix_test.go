//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loopwatch/loopwatch/datasets/synth"
	"github.com/loopwatch/loopwatch/reports"
)

// asReplay makes the test binary the replay command when the variable is set, so a
// test can run a replay in a process of its own and kill it.
const asReplay = "LOOPWATCH_TEST_AS_REPLAY"

func TestMain(m *testing.M) {
	if os.Getenv(asReplay) == "1" {
		main()
	}
	os.Exit(m.Run())
}

// TestKilledReplay: a replay killed outright (SIGKILL) mid-run leaves its hidden
// temporaries and nothing else — no table, no manifest; the next replay to the same
// output removes them, says so, and commits a complete set.
func TestKilledReplay(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	dataset := synth.DatasetFiles(synth.DatasetConfig{Runs: 200, Sessions: 10, Seed: 3})
	for name, data := range dataset {
		p := filepath.Join(in, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	outDir := filepath.Join(dir, "out")
	os.Mkdir(outDir, 0o755)
	out := filepath.Join(outDir, "r.parquet")
	args := []string{"--in", filepath.Join(in, synth.InputsDir), "--out", out, "--workers", "1"}

	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), asReplay+"=1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	temporaries := func() []string {
		var tmp []string
		for _, e := range files(t, outDir) {
			if strings.HasPrefix(e, ".r.") && strings.Contains(e, ".tmp-") {
				tmp = append(tmp, e)
			}
		}
		return tmp
	}
	deadline := time.Now().Add(60 * time.Second)
	for len(temporaries()) == 0 && time.Now().Before(deadline) {
		time.Sleep(2 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	left := files(t, outDir)
	tmp := temporaries()
	if len(tmp) == 0 || len(tmp) != len(left) {
		t.Fatalf("after SIGKILL the output folder holds %v; want only temporaries (the replay may have finished before the kill)", left)
	}

	code, stdout, stderr := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("the next replay: exit %d\n%s%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "stale temporary files an interrupted replay left beside "+out) {
		t.Errorf("the cleaning is not reported:\n%s", stderr)
	}
	after := files(t, outDir)
	for _, n := range tmp {
		if slices.Contains(after, n) {
			t.Errorf("%s is still there", n)
		}
	}
	if _, err := reports.ReadManifest(out); err != nil {
		t.Errorf("no complete output after the second replay: %v (%v)", err, after)
	}
	for _, n := range after {
		if strings.Contains(n, ".tmp-") {
			t.Errorf("temporary %s left after a complete replay", n)
		}
	}
}

// TestSignalledWhileBlockedOnAFIFO: a replay whose input is a named pipe nobody
// writes to blocks opening it; SIGTERM (and SIGINT) end it promptly, with exit status
// 130 and no file written.
func TestSignalledWhileBlockedOnAFIFO(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			fifo := filepath.Join(dir, "stream")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Fatal(err)
			}
			outDir := filepath.Join(dir, "out")
			os.Mkdir(outDir, 0o755)
			cmd := exec.Command(os.Args[0], "--in", fifo, "--out", filepath.Join(outDir, "r.parquet"))
			cmd.Env = append(os.Environ(), asReplay+"=1")
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Its temporaries appear once the output is open, long after the signal
			// handler is installed, and before the input is opened.
			for deadline := time.Now().Add(30 * time.Second); len(files(t, outDir)) == 0 && time.Now().Before(deadline); {
				time.Sleep(5 * time.Millisecond)
			}
			time.Sleep(100 * time.Millisecond)
			cmd.Process.Signal(sig)
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("the replay ignored %v while blocked on a FIFO", sig)
			}
			if code := cmd.ProcessState.ExitCode(); code != 130 || stderr.String() != "replay: interrupted; no table was written\n" {
				t.Errorf("exit %d, stderr %q; want 130 and that it was interrupted", code, stderr.String())
			}
			if left := files(t, outDir); len(left) != 0 {
				t.Errorf("left %v", left)
			}
		})
	}
}
