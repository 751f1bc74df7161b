package llm

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/loopwatch/loopwatch/analyze"
	"github.com/loopwatch/loopwatch/analyze/assess/session"
)

// SegmentInstruction is the seed's segment summarisation prompt, verbatim.
const SegmentInstruction = "Summarize this conversation segment in 2-3 sentences. " +
	"Focus on: what was attempted, what succeeded/failed, " +
	"and any friction points."

// AnalysisInstruction is the seed's session analysis prompt, verbatim.
const AnalysisInstruction = "Analyze this coding session and classify the outcome. " +
	"Consider: goal achievement, efficiency, friction points.\n\n" +
	"Respond with JSON: {\"outcome\": \"success|partial|failure|abandoned\", " +
	"\"confidence\": 0.0-1.0, \"summary\": \"...\"}"

// PromptLimits bound a prompt's transcript.
type PromptLimits struct {
	// MaxBytes bounds the whole formatted transcript; when it does not fit, the
	// earliest events are left out (and counted), since the end of a session says
	// most about its outcome.
	MaxBytes int `json:"max_bytes"`
	// MaxEntryBytes bounds one event's text (its beginning and end are kept).
	MaxEntryBytes int `json:"max_entry_bytes"`
}

// DefaultPromptLimits returns 100,000 bytes per prompt (about 25k tokens, far inside
// the model's context and quick to answer) and 2,000 bytes per event.
func DefaultPromptLimits() PromptLimits { return PromptLimits{MaxBytes: 100_000, MaxEntryBytes: 2_000} }

// SegmentPrompt returns the seed's summarisation prompt for a segment.
func SegmentPrompt(seg session.Segment, lim PromptLimits) string {
	var b strings.Builder
	b.WriteString(SegmentInstruction)
	b.WriteString("\n\n")
	FormatEntries(&b, seg.Entries, seg.Omitted, lim)
	return b.String()
}

// AnalysisPrompt returns the seed's session analysis prompt for a transcript.
func AnalysisPrompt(t session.Transcript, lim PromptLimits) string {
	var b strings.Builder
	b.WriteString(AnalysisInstruction)
	b.WriteString("\n\n")
	st := &t.Stats
	fmt.Fprintf(&b, "Session %s: %d events, %d messages (%d from the human, %d interrupts), %d tool results (%d errors), %d interventions; ended by %s after %s.\n\n",
		t.SessionID, st.Events, st.Messages, st.UserMessages, st.Interrupts, st.ToolResults, st.ToolErrors,
		st.Interventions, t.Reason, st.Last.Sub(st.First).Round(1e9))
	FormatEntries(&b, t.Entries, t.Omitted, lim)
	return b.String()
}

// FormatEntries writes one line block per entry: "[#12 user] text",
// "[#13 tool Bash error] output", "[#14 subagent assistant] text", "[#15 interrupt]",
// "[#16 hook Stop]", followed by the signals detected in it. Earlier events that do
// not fit lim.MaxBytes, and the omitted ones, are summarised in one leading line.
func FormatEntries(b *strings.Builder, entries []session.Entry, omitted int, lim PromptLimits) {
	blocks := make([]string, len(entries))
	total := 0
	for i := range entries {
		blocks[i] = formatEntry(&entries[i], lim.MaxEntryBytes)
		total += len(blocks[i])
	}
	start := 0
	for start < len(blocks) && total > lim.MaxBytes {
		total -= len(blocks[start])
		start++
	}
	if n := omitted + start; n > 0 {
		fmt.Fprintf(b, "[… %d earlier events not shown …]\n", n)
	}
	for _, blk := range blocks[start:] {
		b.WriteString(blk)
	}
}

func formatEntry(e *session.Entry, max int) string {
	ev := &e.Event
	var b strings.Builder
	fmt.Fprintf(&b, "[#%d ", e.Index)
	if ev.Sidechain {
		b.WriteString("subagent ")
	}
	var text string
	switch ev.Kind {
	case analyze.KindUserMessage:
		b.WriteString("user")
		text = ev.UserContent
	case analyze.KindAssistantMessage:
		b.WriteString("assistant")
		text = ev.AssistantText
	case analyze.KindToolResult:
		b.WriteString("tool")
		if ev.ToolName != "" {
			b.WriteString(" " + ev.ToolName)
		}
		if ev.ToolStatus != analyze.ToolStatusUnknown {
			b.WriteString(" " + ev.ToolStatus.String())
		}
		text = ev.ToolOutput
	case analyze.KindInterrupt:
		b.WriteString("interrupt")
	case analyze.KindHook:
		b.WriteString("hook " + ev.HookName)
	default:
		b.WriteString(string(ev.Kind))
	}
	b.WriteString("]")
	if text = strings.TrimSpace(text); text != "" {
		b.WriteString(" ")
		b.WriteString(shorten(text, max))
	}
	if len(e.Signals) > 0 {
		b.WriteString("\n  signals:")
		for _, s := range e.Signals {
			b.WriteString(" " + s.Kind.String())
		}
	}
	b.WriteString("\n")
	return b.String()
}

// shorten keeps the beginning and end of s within about max bytes.
func shorten(s string, max int) string {
	if len(s) <= max || max < 16 {
		return s
	}
	const mark = " […] "
	h := (max - len(mark)) / 2
	for h > 0 && !utf8.RuneStart(s[h]) {
		h--
	}
	t := len(s) - (max - len(mark) - h)
	for t < len(s) && !utf8.RuneStart(s[t]) {
		t++
	}
	return s[:h] + mark + s[t:]
}
