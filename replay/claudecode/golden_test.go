package claudecode

import (
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopwatch/loopwatch/internal/sessiontext"

	"github.com/loopwatch/loopwatch/analyze"
	"github.com/loopwatch/loopwatch/internal/golden"
	"github.com/loopwatch/loopwatch/replay/input"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// render writes a session and its problems as text, one event a line, for golden files.
func render(s *input.Session, probs []input.Problem) string {
	var b strings.Builder
	if s == nil {
		b.WriteString("no session\n")
	} else {
		fmt.Fprintf(&b, "session %s source=%s file=%s line=%d subagents=%d\n", s.Key, s.Source, s.File, s.Line, s.Subagents)
		fmt.Fprintf(&b, "title=%q project=%q version=%q\n", s.Title, s.Project, s.Version)
		fmt.Fprintf(&b, "start=%s end=%s\n", sessiontext.Time(s.Start), sessiontext.Time(s.End))
		b.WriteString("records:" + sessiontext.Counts(s.Records) + "\nevents:\n")
		for _, ev := range s.Events {
			b.WriteString("  " + sessiontext.Event(ev) + "\n")
		}
	}
	b.WriteString("problems:\n")
	for _, p := range probs {
		b.WriteString("  " + p.String() + "\n")
	}
	return b.String()
}

// checkGolden compares got with testdata/name, or rewrites it under -update.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name), []byte(got), *update)
}

// TestGolden maps every main transcript under testdata/ (subagents included) and
// compares the sessions with their golden renderings.
func TestGolden(t *testing.T) {
	fsys := os.DirFS("testdata")
	var mains []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".jsonl") && !IsSubagentFile(p) {
			mains = append(mains, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(mains) < 3 {
		t.Fatalf("only %d fixtures found", len(mains))
	}
	for _, name := range mains {
		t.Run(name, func(t *testing.T) {
			s, probs := Read(fsys, name)
			checkGolden(t, strings.TrimSuffix(name, ".jsonl")+".golden", render(s, probs))
			checkInvariants(t, s)
		})
	}
}

// checkInvariants checks what every session must satisfy whatever its input.
func checkInvariants(t *testing.T, s *input.Session) {
	t.Helper()
	if s == nil {
		return
	}
	if s.Key == "" || s.Source != SourceName {
		t.Fatalf("session without key or source: %+v", s)
	}
	for i, ev := range s.Events {
		if ev.SessionID != s.Key {
			t.Fatalf("event %d has session %q, not %q", i, ev.SessionID, s.Key)
		}
		if i > 0 && ev.Time.Before(s.Events[i-1].Time) {
			t.Fatalf("event %d at %s before event %d at %s", i, ev.Time, i-1, s.Events[i-1].Time)
		}
		if !ev.Time.IsZero() && (ev.Time.Before(s.Start) || ev.Time.After(s.End)) {
			t.Fatalf("event %d at %s outside the session's %s – %s", i, ev.Time, s.Start, s.End)
		}
		if ev.Time.Location() != time.UTC {
			t.Fatalf("event %d time %s not in UTC", i, ev.Time)
		}
		switch ev.Kind {
		case analyze.KindUserMessage, analyze.KindInterrupt:
			if strings.TrimSpace(ev.UserContent) == "" {
				t.Fatalf("event %d: %s without content", i, ev.Kind)
			}
		case analyze.KindAssistantMessage:
			if ev.AssistantText == "" {
				t.Fatalf("event %d: assistant message without text", i)
			}
		case analyze.KindToolResult, analyze.KindHook, analyze.KindSystem:
		default:
			t.Fatalf("event %d: unknown kind %q", i, ev.Kind)
		}
		if (ev.Kind == analyze.KindSystem) != (ev.Subtype != "") && !ev.MidTurn() {
			t.Fatalf("event %d: kind %s with subtype %q", i, ev.Kind, ev.Subtype)
		}
		if (ev.Kind == analyze.KindHook) != (ev.HookName != "") {
			t.Fatalf("event %d: kind %s with hook name %q", i, ev.Kind, ev.HookName)
		}
	}
}
