// Package benchdata builds the realistic events the assessment benchmarks run on, so
// the detector's and the processor's figures are measured on the same inputs. It is
// for benchmarks only.
package benchdata

import (
	"fmt"
	"strings"

	"github.com/loopwatch/loopwatch/analyze"
)

// Names lists the events of [Events] in benchmark order.
func Names() []string {
	return []string{"prompt", "prompt_plain", "paste_100KB", "paste_1MB", "assistant", "tool_4KB", "tool_200KB_ok", "tool_200KB_unk"}
}

// Extremes lists the events of [Events] that bound the detector's cost rather than
// stand for a session's events: the detector's benchmark reads them, the benchmarks
// of whole sessions do not.
func Extremes() []string { return []string{"tool_200KB_errors", "tool_200KB_near", "ide_1MB"} }

// Events returns, by name: a frustrated prompt and a plain one (from the shared
// corpus), two human messages that paste a log of 100 KB and 1 MB between a
// complaint and a question, an assistant message, a 4 KB cargo test output, and four
// 200 KB tool outputs: a Read of Go source flagged ok; a cargo build log whose status
// the source did not give (every tool rule reads it); a service log that says error
// on every line, status unknown (the rules' literals are everywhere: the costliest
// real output known); and a made one, line after line of near misses of pytest's
// summary pattern, which only that pattern can settle (the costliest output known);
// and a human message whose words follow an IDE's 1 MB selection and precede 64 KB
// of blank lines.
func Events() map[string]analyze.Event {
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
	var errs, near strings.Builder
	for i := 0; errs.Len() < 200<<10; i++ {
		fmt.Fprintf(&errs, "2026-01-01T00:00:%02dZ ERROR request failed: error=timeout error_count=%d\n", i%60, i)
	}
	for near.Len() < 200<<10 {
		near.WriteString("=== 1 failed in ")
	}
	paste := func(size int) string {
		var b strings.Builder
		b.WriteString("still failing, here is the whole log:\n")
		for i := 0; b.Len() < size; i++ {
			fmt.Fprintf(&b, "2026-02-08T21:51:%02d.%03dZ DEBUG hook invoked hook=stop session_id=28c304f6 attempt=%d no error\n", i%60, i%1000, i)
		}
		b.WriteString("why does it not pick up the session?")
		return b.String()
	}
	return map[string]analyze.Event{
		"prompt":            {Kind: analyze.KindUserMessage, SessionID: "s", UserContent: "scrolling back in xterm.js still does not work (maybe because outer web catches it)? websearch xterm.js tmux interactions"},
		"prompt_plain":      {Kind: analyze.KindUserMessage, SessionID: "s", UserContent: "Work on bead spotter-dov. Run bd show spotter-dov to see the issue details and bd ready to find available subtasks."},
		"paste_100KB":       {Kind: analyze.KindUserMessage, SessionID: "s", UserContent: paste(100 << 10)},
		"paste_1MB":         {Kind: analyze.KindUserMessage, SessionID: "s", UserContent: paste(1 << 20)},
		"assistant":         {Kind: analyze.KindAssistantMessage, SessionID: "s", AssistantText: "I'll update the parser to handle the empty-line case and re-run the tests."},
		"tool_4KB":          {Kind: analyze.KindToolResult, SessionID: "s", ToolName: "Bash", ToolOutput: cargo.String(), ToolStatus: analyze.ToolStatusOK},
		"tool_200KB_ok":     {Kind: analyze.KindToolResult, SessionID: "s", ToolName: "Read", ToolOutput: src.String(), ToolStatus: analyze.ToolStatusOK},
		"tool_200KB_unk":    {Kind: analyze.KindToolResult, SessionID: "s", ToolName: "Bash", ToolOutput: build.String()},
		"tool_200KB_errors": {Kind: analyze.KindToolResult, SessionID: "s", ToolName: "Bash", ToolOutput: errs.String()},
		"tool_200KB_near":   {Kind: analyze.KindToolResult, SessionID: "s", ToolName: "Bash", ToolOutput: near.String()},
		// An IDE's 1 MB selection before the human's words, and 64 KB of blank
		// lines after them: where the words are is looked for at both ends only.
		"ide_1MB": {Kind: analyze.KindUserMessage, SessionID: "s", UserContent: "<ide_selection>" + paste(1<<20) + "</ide_selection>\nstill failing" + strings.Repeat("\n", 64<<10)},
	}
}
