package assess

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/loopwatch/loopwatch/analyze"
)

// benchEvents mirrors the detect benchmarks' events: a short prompt, a 4 KB cargo
// test output, and 200 KB tool outputs.
func benchEvents() map[string]analyze.Event {
	var cargo strings.Builder
	for i := 0; cargo.Len() < 4<<10-200; i++ {
		fmt.Fprintf(&cargo, "test parser::tests::case_%03d ... ok\n", i)
	}
	cargo.WriteString("\ntest result: ok. 112 passed; 0 failed; 0 ignored; finished in 0.41s\n")
	var src strings.Builder
	for i := 1; src.Len() < 200<<10; i++ {
		fmt.Fprintf(&src, "%6d→\tif err := s.parse(line); err != nil {\n%6d→\t\treturn fmt.Errorf(\"parse error: %%w\", err)\n", i, i+1)
	}
	var build strings.Builder
	for i := 0; build.Len() < 200<<10; i++ {
		fmt.Fprintf(&build, "   Compiling crate-%d v0.%d.0 (/home/user/work/crate-%d)\n", i, i%9, i)
	}
	build.WriteString("warning: unused variable: `x`\n    Finished `release` profile [optimized] target(s) in 41.3s\n")
	return map[string]analyze.Event{
		"prompt":         {Kind: analyze.KindUserMessage, SessionID: "s", UserContent: "scrolling back in xterm.js still does not work (maybe because outer web catches it)? websearch xterm.js tmux interactions"},
		"assistant":      {Kind: analyze.KindAssistantMessage, SessionID: "s", AssistantText: "I'll update the parser to handle the empty-line case and re-run the tests."},
		"tool_4KB":       {Kind: analyze.KindToolResult, SessionID: "s", ToolName: "Bash", ToolOutput: cargo.String(), ToolStatus: analyze.ToolStatusOK},
		"tool_200KB_ok":  {Kind: analyze.KindToolResult, SessionID: "s", ToolName: "Read", ToolOutput: src.String(), ToolStatus: analyze.ToolStatusOK},
		"tool_200KB_unk": {Kind: analyze.KindToolResult, SessionID: "s", ToolName: "Bash", ToolOutput: build.String()},
	}
}

// BenchmarkProcess measures the whole processor step (detection, breaker, buffer,
// checkpoints with the offline summariser every 20 messages, timeout bookkeeping) on
// one long-running session, one event per iteration, a second of event time apart.
func BenchmarkProcess(b *testing.B) {
	evs := benchEvents()
	ctx := context.Background()
	for _, name := range []string{"prompt", "assistant", "tool_4KB", "tool_200KB_ok", "tool_200KB_unk"} {
		b.Run(name, func(b *testing.B) {
			p, err := New(DefaultConfig(), Options{})
			if err != nil {
				b.Fatal(err)
			}
			ev := evs[name]
			ev.Time = time.Date(2025, 12, 30, 14, 0, 0, 0, time.UTC)
			b.SetBytes(int64(len(ev.UserContent) + len(ev.AssistantText) + len(ev.ToolOutput)))
			b.ReportAllocs()
			for b.Loop() {
				ev.Time = ev.Time.Add(time.Second)
				if _, err := p.Process(ctx, ev); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
