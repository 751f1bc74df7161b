package benchcmp

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// Measurement is what one run of a command cost.
type Measurement struct {
	Wall   time.Duration `json:"wall_ns"`
	User   time.Duration `json:"user_ns"`
	System time.Duration `json:"sys_ns"`
	// MaxRSS is the child's peak resident set size in bytes (rusage ru_maxrss); 0
	// where the platform does not report it.
	MaxRSS int64 `json:"max_rss_bytes"`
}

// CPU is the user and system time together.
func (m Measurement) CPU() time.Duration { return m.User + m.System }

// stderrTail is how much of a failed child's stderr an error quotes.
const stderrTail = 2048

// Run runs cmd to completion and measures it: the wall time from start to exit, and
// the child's user time, system time and peak RSS as wait4 reported them. The times
// include those of the descendants it waited for; the peak RSS is the largest single
// process's ([MaxRSS]), so for a command that runs several processes at once it is
// not what they held together (benchcompare's on-cores sums them itself). A command that cannot start or exits non-zero is an error,
// never a measurement; when cmd.Stderr is nil, the error quotes the end of its stderr.
func Run(cmd *exec.Cmd) (Measurement, error) {
	var tail *Tail
	if cmd.Stderr == nil {
		tail = NewTail(stderrTail)
		cmd.Stderr = tail
	}
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		msg := fmt.Sprintf("%s: %v", strings.Join(cmd.Args, " "), err)
		if tail != nil && tail.buf.Len() > 0 {
			msg += "; its stderr ends:\n" + strings.TrimRight(tail.String(), "\n")
		}
		return Measurement{}, fmt.Errorf("%s", msg)
	}
	ps := cmd.ProcessState
	return Measurement{Wall: wall, User: ps.UserTime(), System: ps.SystemTime(), MaxRSS: MaxRSS(ps)}, nil
}

// Tail keeps the last bytes written to it, as many as NewTail was given: a child's
// stderr, to quote when it fails. It holds its buffer rather than embedding it, so
// io.Copy cannot bypass Write through bytes.Buffer's ReadFrom.
type Tail struct {
	buf bytes.Buffer
	max int
}

// NewTail returns a Tail that keeps the last max bytes.
func NewTail(max int) *Tail { return &Tail{max: max} }

// Write keeps the end of p, dropping what falls out of the last max bytes.
func (t *Tail) Write(p []byte) (int, error) {
	n := len(p)
	if len(p) > t.max {
		p = p[len(p)-t.max:]
	}
	if over := t.buf.Len() + len(p) - t.max; over > 0 {
		t.buf.Next(over)
	}
	t.buf.Write(p)
	return n, nil
}

// String is the last bytes written, at most max.
func (t *Tail) String() string { return t.buf.String() }
