package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"

	"github.com/loopwatch/loopwatch/internal/benchcmp"
)

// onCoresCommand is the hidden subcommand that runs a command as n processes at once,
// each on a core of its own: "on-cores N BIN ARG...".
const onCoresCommand = "on-cores"

// onCores runs n processes of BIN ARG... at once — in process i, every "{i}" of the
// arguments replaced by i — process i pinned to the i-th CPU this process may run on
// (counting round) by self's one-core subcommand, and waits for them all. With each
// process given its part of an input (splitInput), it is a replay over n cores that
// shares nothing — no runtime, no heap, no delivery in order — each process on one
// core as on a one-core machine. The first process that fails stops the others; the
// error names it and quotes the end of its stderr. Every process's stdout goes to
// stdout. With $BENCHCOMPARE_RSS_SUM naming a file, it writes there the sum of the
// processes' peak RSS in bytes: what they held at once, at most — wait4 gives the
// caller only the largest.
func onCores(ctx context.Context, self string, args []string, stdout io.Writer) error {
	if len(args) < 2 {
		return errors.New("usage: on-cores N COMMAND [ARG...]")
	}
	n, err := strconv.Atoi(args[0])
	if err != nil || n < 1 {
		return fmt.Errorf("the number of processes %q is not a number ≥ 1", args[0])
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu     sync.Mutex // first, rssSum, and the processes' stdout a write at a time
		first  error      // the first process to fail; the others are then killed
		rssSum int64      // the processes' peak RSS, summed
		wg     sync.WaitGroup
	)
	fail := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		if first == nil {
			first = err
			cancel() // the set is not a result without it
		}
	}
	for i := range n {
		cmd := onOneCore(ctx, self, i, exec.Command(args[1], partArgs(args[2:], i)...))
		cmd.Stdout = lockedWriter{&mu, stdout}
		tail := benchcmp.NewTail(2048)
		cmd.Stderr = tail
		if err := cmd.Start(); err != nil {
			fail(fmt.Errorf("process %d of %d: %w", i, n, err))
			break
		}
		wg.Go(func() {
			if err := cmd.Wait(); err != nil {
				fail(fmt.Errorf("process %d of %d: %w; its stderr ends:\n%s", i, n, err, strings.TrimRight(tail.String(), "\n")))
				return
			}
			mu.Lock()
			rssSum += benchcmp.MaxRSS(cmd.ProcessState)
			mu.Unlock()
		})
	}
	wg.Wait()
	if first == nil && ctx.Err() != nil {
		return ctx.Err()
	}
	if first == nil {
		if p := os.Getenv(rssSumEnv); p != "" {
			return os.WriteFile(p, []byte(strconv.FormatInt(rssSum, 10)), 0o644)
		}
	}
	return first
}

// rssSumEnv names the file on-cores writes its processes' summed peak RSS to.
const rssSumEnv = "BENCHCOMPARE_RSS_SUM"

// lockedWriter writes to w holding mu.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
