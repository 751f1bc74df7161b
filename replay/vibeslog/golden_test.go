package vibeslog

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopwatch/loopwatch/internal/sessiontext"

	"github.com/loopwatch/loopwatch/analyze"
	"github.com/loopwatch/loopwatch/internal/golden"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// render writes a log's sessions and problems as text, one event a line.
func render(lg *Log) string {
	var b strings.Builder
	for _, s := range lg.Sessions {
		fmt.Fprintf(&b, "session %s source=%s file=%s line=%d\n", s.Key, s.Source, s.File, s.Line)
		fmt.Fprintf(&b, "title=%q project=%q\n", s.Title, s.Project)
		fmt.Fprintf(&b, "start=%s end=%s\n", sessiontext.Time(s.Start), sessiontext.Time(s.End))
		b.WriteString("records:" + sessiontext.Counts(s.Records) + "\nevents:\n")
		for _, ev := range s.Events {
			b.WriteString("  " + sessiontext.Event(ev) + "\n")
		}
	}
	b.WriteString("unattributed:" + sessiontext.Counts(lg.Unattributed) + "\nproblems:\n")
	for _, p := range lg.Problems {
		b.WriteString("  " + p.String() + "\n")
	}
	return b.String()
}

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name), []byte(got), *update)
}

// TestGolden maps every log under testdata/ and compares it with its golden rendering.
func TestGolden(t *testing.T) {
	logs, err := filepath.Glob(filepath.Join("testdata", "*.jsonl"))
	if err != nil || len(logs) < 2 {
		t.Fatalf("fixtures: %v %v", logs, err)
	}
	for _, path := range logs {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			lg := ReadLog(name, f)
			checkGolden(t, strings.TrimSuffix(name, ".jsonl")+".golden", render(lg))
			checkLog(t, lg)
		})
	}
}

// checkLog checks what every log must satisfy whatever its input.
func checkLog(t *testing.T, lg *Log) {
	t.Helper()
	for i, s := range lg.Sessions {
		if s.Key == "" || s.Source != SourceName {
			t.Fatalf("session without key or source: %+v", s)
		}
		if i > 0 && lg.Sessions[i-1].Key >= s.Key {
			t.Fatalf("sessions not sorted by key: %s, %s", lg.Sessions[i-1].Key, s.Key)
		}
		for j, ev := range s.Events {
			if ev.SessionID != s.Key {
				t.Fatalf("event %d of %s has session %q", j, s.Key, ev.SessionID)
			}
			if j > 0 && ev.Time.Before(s.Events[j-1].Time) {
				t.Fatalf("%s: event %d before event %d", s.Key, j, j-1)
			}
			if !ev.Time.IsZero() && (ev.Time.Before(s.Start) || ev.Time.After(s.End)) {
				t.Fatalf("%s: event %d at %s outside %s – %s", s.Key, j, ev.Time, s.Start, s.End)
			}
			if ev.Time.Location() != time.UTC {
				t.Fatalf("event time %s not UTC", ev.Time)
			}
			switch ev.Kind {
			case analyze.KindUserMessage:
				if strings.TrimSpace(ev.UserContent) == "" {
					t.Fatalf("%s: empty user message %d", s.Key, j)
				}
			case analyze.KindAssistantMessage:
				if strings.TrimSpace(ev.AssistantText) == "" {
					t.Fatalf("%s: empty assistant message %d", s.Key, j)
				}
			case analyze.KindHook:
				if ev.HookName == "" {
					t.Fatalf("%s: hook %d without a name", s.Key, j)
				}
			case analyze.KindSystem:
				if ev.Subtype == "" {
					t.Fatalf("%s: system event %d without a subtype", s.Key, j)
				}
			case analyze.KindToolResult:
			default:
				t.Fatalf("%s: event %d of kind %q", s.Key, j, ev.Kind)
			}
		}
	}
	for i, p := range lg.Problems {
		if p.Detail == "" || (i > 0 && p.Line < lg.Problems[i-1].Line) {
			t.Fatalf("problems out of order or without detail: %v", lg.Problems)
		}
	}
}
