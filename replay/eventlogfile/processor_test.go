package eventlogfile

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/loopwatch/loopwatch/analyze/assess"
	"github.com/loopwatch/loopwatch/analyze/assess/eventlog"
	"github.com/loopwatch/loopwatch/analyze/assess/eventlog/eventlogtest"
)

// The assessment processor over a file log: a consumer stopped and restarted
// processes every event exactly once, across a torn final line.

// runUntil runs a fresh processor over log and cancels it after stopAfter processed
// events (0: drain). It returns the ids of the events processed.
func runUntil(t *testing.T, log eventlog.Log, stopAfter int) []string {
	t.Helper()
	return eventlogtest.RunUntil(t, stopAfter, func(ctx context.Context, drain bool, seen func(eventlog.Record)) error {
		cfg := assess.DefaultConfig()
		cfg.PollMax = 7
		p, err := assess.New(cfg, assess.Options{Clock: func() time.Time { return t0 }, OnStep: func(r eventlog.Record, _ assess.Step) { seen(r) }})
		if err != nil {
			return err
		}
		if drain {
			return p.Drain(ctx, log)
		}
		return p.Run(ctx, log)
	})
}

func appendRaw(t *testing.T, path string, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
}

func TestRunResumesFromCommittedOffsetJSONL(t *testing.T) {
	const n = 30
	path := filepath.Join(t.TempDir(), "events.jsonl")
	w, err := OpenJSONLWriter(path)
	if err != nil {
		t.Fatal(err)
	}
	evs := eventlogtest.Events(n + 1)
	if err := w.Append(evs[:n]...); err != nil {
		t.Fatal(err)
	}
	w.Close()
	// A torn final line: the writer died mid-event.
	line, _ := EncodeEvent(evs[n])
	appendRaw(t, path, line[:len(line)/2])

	open := func() *JSONL {
		l, err := OpenJSONL(path, JSONLOptions{PollInterval: time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		return l
	}
	r1 := runUntil(t, open(), 3)
	r2 := runUntil(t, open(), 16)
	r3 := runUntil(t, open(), 0)
	eventlogtest.ExactlyOnce(t, [][]string{r1, r2, r3}, n)
	// The writer comes back: the fragment is skipped, the new event read once.
	w, err = OpenJSONLWriter(path)
	if err != nil {
		t.Fatal(err)
	}
	w.Append(evs[n])
	w.Close()
	l := open()
	if r4 := runUntil(t, l, 0); !slices.Equal(r4, []string{fmt.Sprintf("e%d", n)}) || len(l.Corrupt()) != 1 {
		t.Errorf("after the writer's restart: %v, corrupt %v", r4, l.Corrupt())
	}
}
