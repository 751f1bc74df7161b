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
// the child's user time, system time and peak RSS as wait4 reported them (its own,
// not its children's). A command that cannot start or exits non-zero is an error,
// never a measurement; when cmd.Stderr is nil, the error quotes the end of its stderr.
func Run(cmd *exec.Cmd) (Measurement, error) {
	var tail *tailBuffer
	if cmd.Stderr == nil {
		tail = &tailBuffer{max: stderrTail}
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
	return Measurement{Wall: wall, User: ps.UserTime(), System: ps.SystemTime(), MaxRSS: maxRSS(ps)}, nil
}

// tailBuffer keeps the last max bytes written to it. It holds its buffer rather than
// embedding it, so io.Copy cannot bypass Write through bytes.Buffer's ReadFrom.
type tailBuffer struct {
	buf bytes.Buffer
	max int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
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

func (t *tailBuffer) String() string { return t.buf.String() }
