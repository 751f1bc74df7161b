package filter

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// MaxCommandOutput is the most output a command check keeps: when a command writes
// more, the first and the last MaxCommandOutput/2 bytes are kept with one marker line
// between them saying how many bytes were dropped. Go tools print their first errors
// first and test summaries last, so both ends matter.
const MaxCommandOutput = 1 << 20

// WaitDelay is how long a command check waits, once its command has exited or been
// killed at the context's end, for the processes it started that still hold its
// output (see [exec.Cmd.WaitDelay]); the command's own exit status judges the check.
// On Unix the command runs in a process group of its own, which the context's end
// kills whole, as it kills the processes that still hold the output WaitDelay after
// the command exited.
const WaitDelay = 5 * time.Second

// CommandCheck returns a check that runs program with args in the work directory,
// without a shell, under the context (whose deadline is the timeout), capturing stdout
// and stderr together. The check passes when the command exits 0, and fails when it
// exits with another status. A command that cannot be started, or that a signal
// killed (the system out of memory, an operator; the context's end is the chain's
// to report) did not judge the code: its error wraps [ErrInfrastructure].
func CommandCheck(name, program string, args ...string) Check {
	return Check{Name: name, Fn: func(ctx context.Context, workDir string) (string, error) {
		return runCommand(ctx, workDir, program, args)
	}}
}

// BuildCheck runs `go build ./...`.
func BuildCheck() Check { return CommandCheck(CheckBuild, "go", "build", "./...") }

// VetCheck runs `go vet ./...`.
func VetCheck() Check { return CommandCheck(CheckVet, "go", "vet", "./...") }

// TestCheck runs `go test ./...`.
func TestCheck() Check { return CommandCheck(CheckTest, "go", "test", "./...") }

// LintSkippedOutput is the output of the lint check when golangci-lint is absent.
const LintSkippedOutput = "golangci-lint not found on PATH; lint check skipped"

// LintCheck runs `golangci-lint run`. When lookPath (nil means exec.LookPath) finds no
// golangci-lint ([exec.ErrNotFound]), the check passes with [LintSkippedOutput], as in
// quasar; any other error of lookPath (a golangci-lint that is not executable) is the
// check failing to run, an error wrapping [ErrInfrastructure], not a pass.
func LintCheck(lookPath func(file string) (string, error)) Check {
	if lookPath == nil {
		lookPath = exec.LookPath
	}
	return Check{Name: CheckLint, Fn: func(ctx context.Context, workDir string) (string, error) {
		bin, err := lookPath("golangci-lint")
		switch {
		case errors.Is(err, exec.ErrNotFound):
			return LintSkippedOutput, nil
		case err != nil:
			return "", fmt.Errorf("%w: golangci-lint: %v", ErrInfrastructure, err)
		}
		return runCommand(ctx, workDir, bin, []string{"run"})
	}}
}

// Options configures [DefaultChain].
type Options struct {
	// TaskID is the task (bead) whose claims the claims check enforces.
	TaskID string
	// Claims provides modified and claimed files; nil leaves the claims check out.
	Claims ClaimsSource
	// LookPath finds golangci-lint; nil means exec.LookPath.
	LookPath func(file string) (string, error)
	// Now is the chain's clock (see [Chain.Now]); nil leaves CheckResult.Elapsed 0.
	Now func() time.Time
}

// DefaultChain returns quasar's pre-reviewer chain: build, vet, lint (skipped when
// golangci-lint is absent), test, and claims when opts.Claims is set.
func DefaultChain(opts Options) *Chain {
	checks := []Check{BuildCheck(), VetCheck(), LintCheck(opts.LookPath), TestCheck()}
	if opts.Claims != nil {
		checks = append(checks, ClaimsCheck(opts.TaskID, opts.Claims))
	}
	return &Chain{Checks: checks, Now: opts.Now}
}

func runCommand(ctx context.Context, workDir, program string, args []string) (string, error) {
	cmd := exec.CommandContext(ctx, program, args...)
	cmd.Dir = workDir
	cmd.WaitDelay = WaitDelay
	ownProcessGroup(cmd)
	var out cappedBuffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	err := cmd.Run()
	output := strings.TrimRight(out.String(), " \t\r\n")
	if errors.Is(err, exec.ErrWaitDelay) && cmd.ProcessState != nil {
		// The command exited; processes it left held its output past WaitDelay: they
		// are killed (their group lives on while they do, so it is theirs), and the
		// command's own status judges the check.
		killGroup(cmd)
		err = nil
		if !cmd.ProcessState.Success() {
			err = &exec.ExitError{ProcessState: cmd.ProcessState}
		}
	}
	if err == nil {
		return output, nil
	}
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) && exitErr.ExitCode() >= 0 {
		if output == "" {
			output = err.Error()
		}
		return output, err
	}
	return output, fmt.Errorf("%w: %s: %v", ErrInfrastructure, program, err)
}

// cappedBuffer keeps the first MaxCommandOutput/2 bytes written to it and the last
// MaxCommandOutput/2 bytes, counting what falls between. exec.Cmd serialises writes
// when Stdout and Stderr are the same writer.
type cappedBuffer struct {
	head, tail []byte
	total      int
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	const half = MaxCommandOutput / 2
	b.total += len(p)
	n := len(p)
	if room := half - len(b.head); room > 0 {
		k := min(room, len(p))
		b.head = append(b.head, p[:k]...)
		p = p[k:]
	}
	if len(p) == 0 {
		return n, nil
	}
	b.tail = append(b.tail, p...)
	if len(b.tail) > 2*half {
		b.tail = append(b.tail[:0], b.tail[len(b.tail)-half:]...)
	}
	return n, nil
}

func (b *cappedBuffer) String() string {
	const half = MaxCommandOutput / 2
	tail := b.tail
	if len(tail) > half {
		tail = tail[len(tail)-half:]
	}
	dropped := b.total - len(b.head) - len(tail)
	if dropped == 0 {
		return string(b.head) + string(tail)
	}
	return string(b.head) + "\n… [" + strconv.Itoa(dropped) + " bytes of output omitted] …\n" + string(tail)
}
