package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"

	"github.com/loopwatch/loopwatch/internal/benchcmp"
)

// onCoresCommand is the hidden subcommand that runs a replay split into shards, each
// shard a process of its own on a core of its own, all at once:
// "on-cores N BIN ARG...".
const onCoresCommand = "on-cores"

// onCores runs BIN ARG... --shard i/N for every i < N at once, shard i pinned to the
// i-th CPU this process may run on (counting round) by self's one-core subcommand, and
// waits for them all. It is the most n cores can give a replay: the shards share
// nothing — no runtime, no heap, no delivery in order — and each runs on one core
// as on a one-core machine. The first shard that fails stops the others; the error
// names it and quotes the end of its stderr. Every shard's stdout goes to stdout.
func onCores(ctx context.Context, self string, args []string, stdout io.Writer) error {
	if len(args) < 2 {
		return errors.New("usage: on-cores N COMMAND [ARG...]")
	}
	n, err := strconv.Atoi(args[0])
	if err != nil || n < 1 {
		return fmt.Errorf("the number of shards %q is not a number ≥ 1", args[0])
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu    sync.Mutex // first, and the shards' stdout a write at a time
		first error      // the first shard to fail; the others are then killed
		wg    sync.WaitGroup
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
		shard := exec.Command(args[1], append(args[2:], "--shard", fmt.Sprintf("%d/%d", i, n))...)
		cmd := onOneCore(ctx, self, i, shard)
		cmd.Stdout = lockedWriter{&mu, stdout}
		tail := benchcmp.NewTail(2048)
		cmd.Stderr = tail
		if err := cmd.Start(); err != nil {
			fail(fmt.Errorf("shard %d/%d: %w", i, n, err))
			break
		}
		wg.Go(func() {
			if err := cmd.Wait(); err != nil {
				fail(fmt.Errorf("shard %d/%d: %w; its stderr ends:\n%s", i, n, err, strings.TrimRight(tail.String(), "\n")))
			}
		})
	}
	wg.Wait()
	if first == nil && ctx.Err() != nil {
		return ctx.Err()
	}
	return first
}

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
