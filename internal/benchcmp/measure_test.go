package benchcmp

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"
)

// childEnv makes the test binary a child process for Run: "alloc" holds 64 MiB
// resident and burns some CPU; "fail" writes to stderr and exits 3.
const childEnv = "BENCHCMP_TEST_CHILD"

func TestMain(m *testing.M) {
	switch os.Getenv(childEnv) {
	case "alloc":
		b := make([]byte, 64<<20)
		for i := range b {
			b[i] = byte(i)
		}
		sum := 0
		for i := 0; i < len(b); i += 4096 {
			sum += int(b[i])
		}
		fmt.Println(sum)
		os.Exit(0)
	case "fail":
		fmt.Fprintln(os.Stderr, strings.Repeat("x", 5000))
		fmt.Fprintln(os.Stderr, "boom: the input is bad")
		os.Exit(3)
	}
	os.Exit(m.Run())
}

func child(t *testing.T, mode string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run", "^$")
	cmd.Env = append(os.Environ(), childEnv+"="+mode)
	return cmd
}

func TestRunMeasures(t *testing.T) {
	m, err := Run(child(t, "alloc"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Wall <= 0 || m.CPU() <= 0 || m.CPU() > m.Wall*time.Duration(runtime.NumCPU()+1) {
		t.Errorf("wall %v cpu %v", m.Wall, m.CPU())
	}
	switch runtime.GOOS {
	case "linux", "darwin":
		// The child touched 64 MiB; the test binary itself is far smaller than 1 GiB.
		if m.MaxRSS < 64<<20 || m.MaxRSS > 1<<30 {
			t.Errorf("peak RSS %d bytes, want 64 MiB or a little more", m.MaxRSS)
		}
	}
}

func TestRunFails(t *testing.T) {
	m, err := Run(child(t, "fail"))
	if err == nil {
		t.Fatalf("a child exiting 3 gave a measurement: %+v", m)
	}
	msg := err.Error()
	if !strings.Contains(msg, "exit status 3") || !strings.HasSuffix(msg, "boom: the input is bad") {
		t.Errorf("error %q lacks the exit status or the end of stderr", msg)
	}
	if strings.Count(msg, "x") > stderrTail {
		t.Errorf("error quotes %d bytes of stderr, more than the tail", strings.Count(msg, "x"))
	}
	if m != (Measurement{}) {
		t.Errorf("a failed run measured %+v", m)
	}
	if _, err := Run(exec.Command("/nonexistent/benchcmp-child")); err == nil {
		t.Error("a command that cannot start gave a measurement")
	}
}

func TestTailBuffer(t *testing.T) {
	tb := NewTail(5)
	for _, s := range []string{"ab", "cdef", "", "ghijklmn", "o"} {
		if n, err := tb.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", s, n, err)
		}
	}
	if got := tb.String(); got != "klmno" {
		t.Errorf("tail %q, want klmno", got)
	}
}
