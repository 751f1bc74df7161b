package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loopwatch/loopwatch/analyze"
	"github.com/loopwatch/loopwatch/analyze/assess/duration"
	"github.com/loopwatch/loopwatch/analyze/assess/session"
)

// fakeEnv selects the fake claude's behaviour when the test binary re-executes
// itself as the harness's subprocess.
const fakeEnv = "LOOPWATCH_FAKE_CLAUDE"

func TestMain(m *testing.M) {
	if mode := os.Getenv(fakeEnv); mode != "" {
		os.Exit(fakeClaude(mode))
	}
	os.Exit(m.Run())
}

// fakeClaude behaves like `claude --print --output-format json` in the given mode.
func fakeClaude(mode string) int {
	prompt, _ := io.ReadAll(os.Stdin)
	if want := append([]string{"--print", "--output-format", "json"}, RestrictArgs()...); !slices.Equal(os.Args[1:], want) {
		fmt.Fprintf(os.Stderr, "fake claude: args %q, want %q\n", os.Args[1:], want)
		return 3
	}
	envelope := func(result string) {
		b, _ := json.Marshal(map[string]any{"type": "result", "subtype": "success", "is_error": false, "result": result, "total_cost_usd": 0.001})
		os.Stdout.Write(b)
	}
	switch mode {
	case "good":
		envelope(`{"outcome":"partial","confidence":0.55,"summary":"Parser fixed after two corrections."}`)
	case "fenced":
		envelope("Here is the analysis.\n```json\n{\"outcome\": \"success\", \"confidence\": 0.9, \"summary\": \"Done.\"}\n```\n")
	case "garbage":
		os.Stdout.WriteString("Segmentation fault (core dumped)?? {{{")
	case "echo": // answers with the prompt it read on stdin
		envelope(string(prompt))
	case "is_error":
		os.Stdout.WriteString(`{"type":"result","subtype":"success","is_error":true,"result":"Invalid API key · Please run /login"}`)
		return 1
	case "crash":
		os.Stderr.WriteString("fatal: out of cheese\n")
		return 2
	case "sleep":
		time.Sleep(time.Minute)
	}
	return 0
}

func fakeHarness(t *testing.T, mode string, timeout time.Duration) *HarnessLLM {
	t.Helper()
	t.Setenv(fakeEnv, mode)
	return NewHarnessLLM(HarnessConfig{Binary: os.Args[0], Timeout: duration.Duration(timeout)})
}

func transcript() session.Transcript {
	b := session.NewBuffer("s1", session.DefaultBufferConfig())
	b.Add(analyze.Event{Kind: analyze.KindUserMessage, UserContent: "fix the parser; it's `broken` $(rm -rf /) \"quoted\""}, nil)
	b.Add(analyze.Event{Kind: analyze.KindToolResult, ToolName: "Bash", ToolOutput: "test result: ok", ToolStatus: analyze.ToolStatusOK}, nil)
	return b.Transcript(session.EndHook, time.Time{})
}

func TestHarnessAnalyzeSession(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		mode    string
		want    SessionAnalysis
		wantErr string
	}{
		{mode: "good", want: SessionAnalysis{OutcomePartial, 0.55, "Parser fixed after two corrections."}},
		{mode: "fenced", want: SessionAnalysis{OutcomeSuccess, 0.9, "Done."}},
		{mode: "garbage", wantErr: "no JSON object"},
		{mode: "is_error", wantErr: "Invalid API key"},
		{mode: "crash", wantErr: "out of cheese"},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			got, err := fakeHarness(t, tt.mode, 30*time.Second).AnalyzeSession(ctx, transcript())
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

func TestHarnessPromptOnStdin(t *testing.T) {
	h := fakeHarness(t, "echo", 30*time.Second)
	seg := transcript()
	sum, err := h.SummarizeSegment(context.Background(), session.Segment{SessionID: "s1", From: 1, To: 2, Entries: seg.Entries})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{SegmentInstruction, "[#1 user] fix the parser; it's `broken` $(rm -rf /) \"quoted\"", "[#2 tool Bash ok] test result: ok"} {
		if !strings.Contains(sum.Text, want) {
			t.Errorf("prompt read by claude lacks %q:\n%s", want, sum.Text)
		}
	}
	if sum.Metrics.Events != 2 || sum.Metrics.EstimatedTokens == 0 {
		t.Errorf("metrics %+v", sum.Metrics)
	}
}

func TestHarnessTimeout(t *testing.T) {
	h := fakeHarness(t, "sleep", 300*time.Millisecond)
	start := time.Now()
	_, err := h.Complete(context.Background(), "hi")
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "timed out") {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("timeout took %v", d)
	}
	// A cancelled parent context is reported as such, not as a timeout.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := h.Complete(ctx, "hi"); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestHarnessMissingBinary(t *testing.T) {
	for _, bin := range []string{"loopwatch-no-such-claude", filepath.Join(t.TempDir(), "claude")} {
		h := NewHarnessLLM(HarnessConfig{Binary: bin})
		_, err := h.Complete(context.Background(), "hi")
		if !errors.Is(err, ErrBinaryNotFound) || !strings.Contains(err.Error(), bin) {
			t.Errorf("%s: err = %v", bin, err)
		}
	}
}

func TestNewHarnessDefaults(t *testing.T) {
	h := NewHarnessLLM(HarnessConfig{})
	if def := DefaultHarnessConfig(); h.cfg.Binary != def.Binary || !slices.Equal(h.cfg.Args, def.Args) || h.cfg.Timeout != def.Timeout || h.cfg.Limits != def.Limits {
		t.Errorf("defaults %+v", h.cfg)
	}
}
