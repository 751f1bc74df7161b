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

// CommandCheck returns a check that runs program with args in the work directory,
// without a shell, under the context (whose deadline is the timeout), capturing stdout
// and stderr together. The check passes when the command exits 0. A command that
// cannot be started fails with an error wrapping [ErrInfrastructure].
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

// LintCheck runs `golangci-lint run`. When lookPath (nil means exec.LookPath) cannot
// find golangci-lint, the check passes with [LintSkippedOutput], as in quasar.
func LintCheck(lookPath func(file string) (string, error)) Check {
	if lookPath == nil {
		lookPath = exec.LookPath
	}
	return Check{Name: CheckLint, Fn: func(ctx context.Context, workDir string) (string, error) {
		bin, err := lookPath("golangci-lint")
		if err != nil {
			return LintSkippedOutput, nil
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
	var out cappedBuffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	err := cmd.Run()
	output := strings.TrimRight(out.String(), " \t\r\n")
	if err == nil {
		return output, nil
	}
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
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
