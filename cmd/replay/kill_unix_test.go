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
