package assess

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopwatch/loopwatch/internal/corpus"

	"github.com/loopwatch/loopwatch/analyze"
	"github.com/loopwatch/loopwatch/analyze/assess/detect"
)

// corpusDir returns ../shared/corpora/claude-code beside the module root (the
// directory holding go.mod), or skips the test.
func corpusDir(t *testing.T) string {
	t.Helper()
	dir, err := corpus.Dir("claude-code")
	if err != nil {
		t.Skip(err)
	}
	return dir
}

// ccRecord is the part of a Claude Code transcript record this test reads.
type ccRecord struct {
	Type        string    `json:"type"`
	UUID        string    `json:"uuid"`
	SessionID   string    `json:"sessionId"`
	Timestamp   time.Time `json:"timestamp"`
	IsSidechain bool      `json:"isSidechain"`
	IsMeta      bool      `json:"isMeta"`
	Message     struct {
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

type ccBlock struct {
	Type    string          `json:"type"`
	Text    string          `json:"text"`
	Content json.RawMessage `json:"content"`
	IsError bool            `json:"is_error"`
}

// readTranscript is a minimal mapping of a Claude Code transcript onto events (the
// replay has the real adapter); it follows formats/claude-code.md.
func readTranscript(t *testing.T, path string) []analyze.Event {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var evs []analyze.Event
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var r ccRecord
		if json.Unmarshal(sc.Bytes(), &r) != nil || r.Timestamp.IsZero() || r.SessionID == "" {
			continue
		}
		base := analyze.Event{SessionID: r.SessionID, Time: r.Timestamp.UTC(), ID: r.UUID, Sidechain: r.IsSidechain}
		var text string
		if json.Unmarshal(r.Message.Content, &text) == nil {
			if r.Type == "user" && !r.IsMeta && !strings.HasPrefix(text, "<command-") && !strings.HasPrefix(text, "<local-command") && !strings.HasPrefix(text, "Caveat:") {
				ev := base
				ev.Kind, ev.UserContent = analyze.KindUserMessage, text
				evs = append(evs, ev)
			}
			continue
		}
		var blocks []ccBlock
		if json.Unmarshal(r.Message.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			ev := base
			switch {
			case r.Type == "user" && b.Type == "tool_result":
				ev.Kind, ev.ToolStatus = analyze.KindToolResult, analyze.ToolStatusOK
				if b.IsError {
					ev.ToolStatus = analyze.ToolStatusError
				}
				if json.Unmarshal(b.Content, &ev.ToolOutput) != nil {
					var inner []ccBlock
					json.Unmarshal(b.Content, &inner)
					for _, ib := range inner {
						ev.ToolOutput += ib.Text
					}
				}
			case r.Type == "user" && b.Type == "text" && strings.HasPrefix(b.Text, "[Request interrupted by user"):
				ev.Kind, ev.UserContent = analyze.KindInterrupt, b.Text
			case r.Type == "user" && b.Type == "text" && !r.IsMeta:
				ev.Kind, ev.UserContent = analyze.KindUserMessage, b.Text
			case r.Type == "assistant" && b.Type == "text":
				ev.Kind, ev.AssistantText = analyze.KindAssistantMessage, b.Text
			default:
				continue
			}
			evs = append(evs, ev)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return evs
}

// TestCorpusReplay replays the real Claude Code sessions through the processor: the
// result must be deterministic, respect the event routing, stay well inside the
// seed's 10 ms per event, and flag some of the labelled friction messages.
func TestCorpusReplay(t *testing.T) {
	dir := corpusDir(t)
	f, err := os.Open(filepath.Join(dir, "labels.csv"))
	if err != nil {
		t.Skipf("labels.csv: %v", err)
	}
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	friction := map[string]bool{}
	var files []string
	for _, row := range rows[1:] {
		files = append(files, row[1])
		for _, id := range strings.Split(row[5], ";") {
			if id != "" {
				friction[id] = true
			}
		}
	}

	replay := func() (string, map[string]bool, int, time.Duration) {
		p := newProc(t, DefaultConfig(), Options{})
		var out strings.Builder
		enc := json.NewEncoder(&out)
		flagged := map[string]bool{}
		events := 0
		var spent time.Duration
		for _, file := range files {
			evs := readTranscript(t, filepath.Join(dir, file))
			for _, ev := range evs {
				start := time.Now()
				step, err := p.Process(context.Background(), ev)
				spent += time.Since(start)
				if err != nil {
					t.Fatal(err)
				}
				events++
				if len(step.Signals) > 0 && !detect.IsHumanTurn(&ev) && ev.Kind != analyze.KindToolResult {
					t.Fatalf("%s: signals %v on a %s event", file, step.Signals, ev.Kind)
				}
				for _, s := range step.Signals {
					if s.Kind == detect.Frustration || s.Kind == detect.UserCorrection || s.Kind == detect.Interrupt {
						flagged[ev.ID] = true
					}
				}
				enc.Encode(step)
			}
			if len(evs) > 0 {
				end, _, err := p.EndSession(context.Background(), evs[0].SessionID, evs[len(evs)-1].Time)
				if err != nil {
					t.Fatal(err)
				}
				enc.Encode(end)
			}
		}
		return out.String(), flagged, events, spent
	}
	a, flagged, events, spent := replay()
	b, _, _, _ := replay()
	if a != b {
		t.Fatal("two replays of the corpus differ")
	}
	if events == 0 {
		t.Fatal("no events read from the corpus")
	}
	if per := spent / time.Duration(events); per > 10*time.Millisecond {
		t.Errorf("%v per event, over the seed's 10 ms", per)
	}
	hit := 0
	for id := range friction {
		if flagged[id] {
			hit++
		}
	}
	if hit == 0 {
		t.Errorf("none of the %d labelled friction messages was flagged", len(friction))
	}
	t.Logf("%d events, %v per event; %d of %d labelled friction messages flagged, %d messages flagged in all",
		events, spent/time.Duration(events), hit, len(friction), len(flagged))
}
