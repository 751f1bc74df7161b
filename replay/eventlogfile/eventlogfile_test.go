package eventlogfile

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loopwatch/loopwatch/analyze"
	"github.com/loopwatch/loopwatch/analyze/assess/eventlog"
	"github.com/loopwatch/loopwatch/analyze/assess/eventlog/eventlogtest"
)

var t0 = time.Date(2025, 12, 30, 14, 0, 0, 0, time.UTC)

func TestEncodeDecode(t *testing.T) {
	ev := analyze.Event{
		Kind: analyze.KindToolResult, SessionID: "s1", Time: time.Date(2025, 12, 30, 15, 32, 0, 123e6, time.FixedZone("x", 3600)),
		ID: "u1", ToolName: "Bash", ToolOutput: "a <b> & \"c\"\n", ToolStatus: analyze.ToolStatusError, Sidechain: true,
		ToolCommand: "go test ./...", ExitCode: 0, HasExitCode: true,
	}
	b, err := EncodeEvent(ev)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"kind":"tool_result","session_id":"s1","time":"2025-12-30T14:32:00.123Z","id":"u1","tool_name":"Bash","tool_output":"a <b> & \"c\"\n","tool_status":"error","tool_command":"go test ./...","exit_code":0,"sidechain":true}`
	if string(b) != want {
		t.Errorf("EncodeEvent = %s\nwant %s", b, want)
	}
	back, err := DecodeEvent(b)
	ev.Time = ev.Time.UTC()
	if err != nil || back != ev {
		t.Errorf("round trip %+v, %v", back, err)
	}
	for _, bad := range []string{`{}`, `{"kind":"user_message"}`, `{"time":"2025-12-30T14:32:00Z"}`, `{"kind":"x","time":"2025-12-30T14:32:00Z","tool_status":"maybe"}`, `nope`} {
		if _, err := DecodeEvent([]byte(bad)); err == nil {
			t.Errorf("DecodeEvent(%s) succeeded", bad)
		}
	}
}

func writeLines(t *testing.T, path string, lines ...string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(strings.Join(lines, "")); err != nil {
		t.Fatal(err)
	}
}

func encodeLine(t *testing.T, ev analyze.Event) string {
	t.Helper()
	b, err := EncodeEvent(ev)
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

func openJSONL(t *testing.T, path string) *JSONL {
	t.Helper()
	l, err := OpenJSONL(path, JSONLOptions{PollInterval: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func TestJSONLResumeAfterCommit(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "events.jsonl")
	w, err := OpenJSONLWriter(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Append(eventlogtest.Events(6)...); err != nil {
		t.Fatal(err)
	}
	w.Close()

	l := openJSONL(t, path)
	recs, err := l.Poll(ctx, 4, 0)
	if err != nil || !slices.Equal(eventlogtest.Offsets(recs), []uint64{0, 1, 2, 3}) {
		t.Fatalf("poll %v %v", eventlogtest.Offsets(recs), err)
	}
	if recs[3].Event != eventlogtest.Events(6)[3] {
		t.Errorf("event %+v", recs[3].Event)
	}
	// Crash mid-batch: offsets 0 and 1 processed and committed, 2 and 3 not.
	if err := l.Commit(1); err != nil {
		t.Fatal(err)
	}
	if err := l.Commit(5); !errors.Is(err, eventlog.ErrNotPolled) {
		t.Errorf("commit unpolled: %v", err)
	}
	l.Close()

	l = openJSONL(t, path)
	recs, _ = l.Poll(ctx, 100, 0)
	if !slices.Equal(eventlogtest.Offsets(recs), []uint64{2, 3, 4, 5}) {
		t.Fatalf("after restart %v", eventlogtest.Offsets(recs))
	}
	if err := l.Commit(0); !errors.Is(err, eventlog.ErrBackwards) {
		t.Errorf("backwards: %v", err)
	}
	if err := l.Commit(5); err != nil {
		t.Fatal(err)
	}
	l.Close()
	// Everything committed: a third run sees nothing until new lines come.
	l = openJSONL(t, path)
	if recs, _ := l.Poll(ctx, 100, 0); len(recs) != 0 {
		t.Fatalf("after full commit %v", eventlogtest.Offsets(recs))
	}
	w, _ = OpenJSONLWriter(path)
	w.Append(eventlogtest.Events(7)[6])
	w.Close()
	if recs, _ := l.Poll(ctx, 100, 0); !slices.Equal(eventlogtest.Offsets(recs), []uint64{6}) {
		t.Fatalf("appended %v", eventlogtest.Offsets(recs))
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 2 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}

func TestJSONLTornFinalLine(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "events.jsonl")
	evs := eventlogtest.Events(3)
	full := encodeLine(t, evs[2])
	writeLines(t, path, encodeLine(t, evs[0]), encodeLine(t, evs[1]), full[:20]) // torn write
	l := openJSONL(t, path)
	recs, _ := l.Poll(ctx, 100, 0)
	if !slices.Equal(eventlogtest.Offsets(recs), []uint64{0, 1}) {
		t.Fatalf("with torn tail %v", eventlogtest.Offsets(recs))
	}
	if err := l.Commit(1); err != nil {
		t.Fatal(err)
	}
	if recs, _ := l.Poll(ctx, 100, 0); len(recs) != 0 {
		t.Fatalf("torn line delivered: %v", eventlogtest.Offsets(recs))
	}
	// The writer finishes the line: now it is delivered, exactly once.
	writeLines(t, path, full[20:])
	recs, _ = l.Poll(ctx, 100, 0)
	if !slices.Equal(eventlogtest.Offsets(recs), []uint64{2}) || recs[0].Event != evs[2] {
		t.Fatalf("completed line %v", eventlogtest.Offsets(recs))
	}
	if len(l.Corrupt()) != 0 {
		t.Errorf("corrupt %v", l.Corrupt())
	}
}

func TestJSONLTornLineAfterCrash(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "events.jsonl")
	evs := eventlogtest.Events(3)
	writeLines(t, path, encodeLine(t, evs[0]), encodeLine(t, evs[1])[:15]) // the writer crashed mid-line
	l := openJSONL(t, path)
	if recs, _ := l.Poll(ctx, 100, 0); !slices.Equal(eventlogtest.Offsets(recs), []uint64{0}) {
		t.Fatalf("before restart %v", eventlogtest.Offsets(recs))
	}
	l.Commit(0)
	l.Close()
	// A restarted writer terminates the fragment; the reader skips it as corrupt.
	w, err := OpenJSONLWriter(path)
	if err != nil {
		t.Fatal(err)
	}
	w.Append(evs[2])
	w.Close()
	l = openJSONL(t, path)
	recs, _ := l.Poll(ctx, 100, 0)
	if !slices.Equal(eventlogtest.Offsets(recs), []uint64{2}) || recs[0].Event != evs[2] || !slices.Equal(l.Corrupt(), []uint64{1}) {
		t.Fatalf("after restart %v, corrupt %v", eventlogtest.Offsets(recs), l.Corrupt())
	}
}

func TestJSONLCorruptBlankAndLongLines(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "events.jsonl")
	evs := eventlogtest.Events(3)
	long := encodeLine(t, analyze.Event{Kind: analyze.KindToolResult, Time: t0, ToolOutput: strings.Repeat("x", 300)})
	writeLines(t, path, encodeLine(t, evs[0]), "\n", "not json\n", `{"kind":"user_message"}`+"\n", long, encodeLine(t, evs[1]), "   \r\n", encodeLine(t, evs[2]))
	l, err := OpenJSONL(path, JSONLOptions{MaxLineBytes: 200})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	recs, _ := l.Poll(ctx, 2, 0)
	if !slices.Equal(eventlogtest.Offsets(recs), []uint64{0, 5}) {
		t.Fatalf("first batch %v", eventlogtest.Offsets(recs))
	}
	recs, _ = l.Poll(ctx, 2, 0)
	if !slices.Equal(eventlogtest.Offsets(recs), []uint64{7}) {
		t.Fatalf("second batch %v", eventlogtest.Offsets(recs))
	}
	if !slices.Equal(l.Corrupt(), []uint64{2, 3, 4}) {
		t.Errorf("corrupt %v", l.Corrupt())
	}
	// With the default bound, a line of several read-buffer lengths is read whole.
	bigPath := filepath.Join(t.TempDir(), "big.jsonl")
	big := analyze.Event{Kind: analyze.KindToolResult, Time: t0, ToolOutput: strings.Repeat("y", 300<<10)}
	writeLines(t, bigPath, encodeLine(t, big))
	if recs, _ := openJSONL(t, bigPath).Poll(ctx, 10, 0); len(recs) != 1 || recs[0].Event != big {
		t.Fatalf("big line: %d records", len(recs))
	}
}

func TestJSONLWait(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "events.jsonl")
	writeLines(t, path)
	l := openJSONL(t, path)
	if recs, err := l.Poll(ctx, 10, 20*time.Millisecond); err != nil || len(recs) != 0 {
		t.Fatalf("empty: %v %v", recs, err)
	}
	go func() {
		time.Sleep(20 * time.Millisecond)
		w, _ := OpenJSONLWriter(path)
		w.Append(eventlogtest.Events(1)...)
		w.Close()
	}()
	if recs, err := l.Poll(ctx, 10, 10*time.Second); err != nil || len(recs) != 1 {
		t.Fatalf("woken: %v %v", recs, err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := l.Poll(cctx, 10, time.Minute); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestJSONLOffsetFileChecks(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "events.jsonl")
	writeLines(t, path, encodeLine(t, eventlogtest.Events(1)[0]))
	for name, content := range map[string]string{
		"past the end":  `{"next_offset":1,"byte_offset":100000}`,
		"mid-line":      `{"next_offset":1,"byte_offset":3}`,
		"not json":      `{`,
		"negative byte": `{"next_offset":1,"byte_offset":-1}`,
	} {
		os.WriteFile(path+".offset", []byte(content), 0o644)
		if l, err := OpenJSONL(path, JSONLOptions{}); err == nil {
			l.Close()
			t.Errorf("%s: opened", name)
		}
	}
	os.Remove(path + ".offset")
	l := openJSONL(t, path)
	l.Poll(context.Background(), 1, 0)
	os.Truncate(path, 0)
	if _, err := l.Poll(context.Background(), 1, 0); err == nil {
		t.Error("truncated log not reported")
	}
	if _, err := OpenJSONL(filepath.Join(dir, "missing.jsonl"), JSONLOptions{}); err == nil {
		t.Error("missing log opened")
	}
}

func FuzzDecodeEvent(f *testing.F) {
	f.Add([]byte(`{"kind":"tool_result","session_id":"s1","time":"2025-12-30T14:32:00.123Z","tool_output":"x","tool_status":"error"}`))
	f.Add([]byte(`{"kind":"user_message","time":"2025-12-30T14:32:00Z","user_content":"no, that's wrong"}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		ev, err := DecodeEvent(line)
		if err != nil {
			return
		}
		b, err := EncodeEvent(ev)
		if err != nil {
			t.Fatalf("re-encode: %v", err)
		}
		back, err := DecodeEvent(b)
		if err != nil || !reflect.DeepEqual(back, ev) {
			t.Fatalf("round trip: %+v != %+v (%v)", back, ev, err)
		}
	})
}

func FuzzJSONLReader(f *testing.F) {
	good, _ := EncodeEvent(eventlogtest.Events(1)[0])
	f.Add(append(append([]byte{}, good...), '\n'), uint8(3))
	f.Add(append(append(append([]byte{}, good...), "\nnot json\n\n"...), good[:10]...), uint8(1))
	f.Add([]byte("\n\n\r\n"), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, max uint8) {
		path := filepath.Join(t.TempDir(), "log.jsonl")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		l, err := OpenJSONL(path, JSONLOptions{MaxLineBytes: 256})
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		var got []eventlog.Record
		for i := 0; ; i++ {
			recs, err := l.Poll(context.Background(), int(max%8)+1, 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) == 0 {
				break
			}
			got = append(got, recs...)
			if err := l.Commit(recs[len(recs)-1].Offset); err != nil {
				t.Fatal(err)
			}
		}
		// Offsets increase; every complete line is consumed; the torn tail is not.
		for i := 1; i < len(got); i++ {
			if got[i].Offset <= got[i-1].Offset {
				t.Fatalf("offsets %v", eventlogtest.Offsets(got))
			}
		}
		lines := bytes.Count(data, []byte{'\n'})
		if l.next != uint64(lines) || l.pos != int64(bytes.LastIndexByte(data, '\n')+1) {
			t.Fatalf("next=%d pos=%d, want %d lines", l.next, l.pos, lines)
		}
		if len(got)+len(l.Corrupt()) > lines {
			t.Fatalf("%d records + %d corrupt > %d lines", len(got), len(l.Corrupt()), lines)
		}
		// Reopening after the last commit delivers nothing again.
		l2, err := OpenJSONL(path, JSONLOptions{MaxLineBytes: 256})
		if err != nil {
			t.Fatal(err)
		}
		defer l2.Close()
		if again, _ := l2.Poll(context.Background(), 1000, 0); len(got) > 0 && len(again) > 0 {
			t.Fatalf("redelivered %v after commit of %v", eventlogtest.Offsets(again), eventlogtest.Offsets(got))
		}
	})
}

// TestSubtypeRoundTrip: a system event's subtype (vibes's session_removed ends a
// session) survives the JSONL log.
func TestSubtypeRoundTrip(t *testing.T) {
	ev := analyze.Event{Kind: analyze.KindSystem, SessionID: "v", Time: t0, Subtype: "session_removed"}
	b, err := EncodeEvent(ev)
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeEvent(b)
	if err != nil || back != ev || !strings.Contains(string(b), `"subtype":"session_removed"`) {
		t.Errorf("%s → %+v, %v", b, back, err)
	}
}

// TestRewind: after a rewind, the records polled and not committed are delivered
// again, by both logs; corrupt lines are listed once.
func TestRewind(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "events.jsonl")
	evs := eventlogtest.Events(5)
	writeLines(t, path, encodeLine(t, evs[0]), encodeLine(t, evs[1]), "not json\n", encodeLine(t, evs[2]), encodeLine(t, evs[3]))
	mem := eventlog.NewMemory(evs[:4]...)
	for name, l := range map[string]eventlog.Log{"memory": mem.Consumer("c"), "jsonl": openJSONL(t, path)} {
		t.Run(name, func(t *testing.T) {
			recs, _ := l.Poll(ctx, 3, 0)
			if err := l.Commit(recs[0].Offset); err != nil {
				t.Fatal(err)
			}
			if err := l.Rewind(); err != nil {
				t.Fatal(err)
			}
			again, _ := l.Poll(ctx, 10, 0)
			if len(again) == 0 || again[0].Event != evs[1] || again[len(again)-1].Event != evs[3] {
				t.Fatalf("after rewind: %v", eventlogtest.Offsets(again))
			}
			if j, ok := l.(*JSONL); ok && !slices.Equal(j.Corrupt(), []uint64{2}) {
				t.Errorf("corrupt %v", j.Corrupt())
			}
		})
	}
}
