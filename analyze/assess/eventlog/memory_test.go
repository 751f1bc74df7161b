package eventlog_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/loopwatch/loopwatch/analyze/assess/eventlog"
	"github.com/loopwatch/loopwatch/analyze/assess/eventlog/eventlogtest"
)

func TestMemoryResume(t *testing.T) {
	ctx := context.Background()
	m := eventlog.NewMemory(eventlogtest.Events(5)...)
	c := m.Consumer("assessment")
	recs, err := c.Poll(ctx, 3, 0)
	if err != nil || !slices.Equal(eventlogtest.Offsets(recs), []uint64{0, 1, 2}) {
		t.Fatalf("poll %v %v", eventlogtest.Offsets(recs), err)
	}
	if err := c.Commit(3); !errors.Is(err, eventlog.ErrNotPolled) {
		t.Errorf("commit of an unpolled offset: %v", err)
	}
	if err := c.Commit(1); err != nil { // a restart mid-batch: offset 2 was not processed
		t.Fatal(err)
	}
	if err := c.Commit(1); err != nil {
		t.Errorf("re-commit: %v", err)
	}
	if err := c.Commit(0); !errors.Is(err, eventlog.ErrBackwards) {
		t.Errorf("backwards commit: %v", err)
	}
	// Restart: a new consumer of the same name resumes after offset 1.
	c = m.Consumer("assessment")
	recs, _ = c.Poll(ctx, 10, 0)
	if !slices.Equal(eventlogtest.Offsets(recs), []uint64{2, 3, 4}) || recs[0].Event.UserContent != "msg 2" {
		t.Fatalf("after restart %v", eventlogtest.Offsets(recs))
	}
	// Another consumer name starts at 0.
	if recs, _ := m.Consumer("other").Poll(ctx, 1, 0); !slices.Equal(eventlogtest.Offsets(recs), []uint64{0}) {
		t.Errorf("other consumer %v", eventlogtest.Offsets(recs))
	}
	if recs, _ := c.Poll(ctx, 10, 0); len(recs) != 0 {
		t.Errorf("drained poll %v", eventlogtest.Offsets(recs))
	}
	if _, err := c.Poll(ctx, 0, 0); err == nil {
		t.Error("max 0 accepted")
	}
}

func TestMemoryWait(t *testing.T) {
	ctx := context.Background()
	m := eventlog.NewMemory()
	c := m.Consumer("a")
	if recs, err := c.Poll(ctx, 10, 20*time.Millisecond); err != nil || len(recs) != 0 {
		t.Fatalf("empty wait: %v %v", recs, err)
	}
	go func() {
		time.Sleep(20 * time.Millisecond)
		m.Append(eventlogtest.Events(2)...)
	}()
	recs, err := c.Poll(ctx, 10, 10*time.Second)
	if err != nil || len(recs) == 0 {
		t.Fatalf("woken poll: %v %v", recs, err)
	}
	cctx, cancel := context.WithCancel(ctx)
	go cancel()
	if _, err := m.Consumer("b2").Poll(cctx, 10, 0); err != nil && !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	cctx, cancel = context.WithCancel(ctx)
	cancel()
	if _, err := c.Poll(cctx, 10, time.Minute); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled wait: %v", err)
	}
}
