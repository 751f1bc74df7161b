// Package eventlogtest holds what the tests of an eventlog.Log and of its consumers
// share: a log's events, the offsets a poll returned, and a consumer stopped and
// restarted that must process every event exactly once. It is for tests only.
package eventlogtest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/loopwatch/loopwatch/analyze"
	"github.com/loopwatch/loopwatch/analyze/assess/eventlog"
)

// T0 returns the time of the first event of Events.
func T0() time.Time { return time.Date(2025, 12, 30, 14, 0, 0, 0, time.UTC) }

// Events returns n user messages a second apart from T0() in two interleaved sessions,
// "s0" and "s1", with ids "e0", "e1", … and contents "msg 0", "msg 1", ….
func Events(n int) []analyze.Event {
	out := make([]analyze.Event, n)
	for i := range out {
		out[i] = analyze.Event{Kind: analyze.KindUserMessage, SessionID: fmt.Sprintf("s%d", i%2), Time: T0().Add(time.Duration(i) * time.Second),
			ID: fmt.Sprintf("e%d", i), UserContent: fmt.Sprint("msg ", i)}
	}
	return out
}

// Offsets returns the offsets of records.
func Offsets(records []eventlog.Record) []uint64 {
	var out []uint64
	for _, r := range records {
		out = append(out, r.Offset)
	}
	return out
}

// RunUntil runs a consumer over the log — run starts it, calling seen for each record
// it processes, until ctx ends or, with drain, the log is drained — and stops it after
// stopAfter processed records (0: drains it). It returns the ids of the events
// processed.
func RunUntil(t testing.TB, stopAfter int, run func(ctx context.Context, drain bool, seen func(eventlog.Record)) error) []string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var ids []string
	err := run(ctx, stopAfter == 0, func(r eventlog.Record) {
		ids = append(ids, r.Event.ID)
		if len(ids) == stopAfter {
			cancel()
		}
	})
	if stopAfter > 0 && !errors.Is(err, context.Canceled) || stopAfter == 0 && err != nil {
		t.Fatalf("run: %v", err)
	}
	return ids
}

// ExactlyOnce checks that the runs processed the n events of Events(n) once each, in
// order.
func ExactlyOnce(t testing.TB, runs [][]string, n int) {
	t.Helper()
	all := slices.Concat(runs...)
	want := make([]string, n)
	for i := range want {
		want[i] = fmt.Sprintf("e%d", i)
	}
	if !slices.Equal(all, want) {
		t.Fatalf("processed %v\nwant %v", all, want)
	}
}
