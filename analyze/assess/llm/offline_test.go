package llm

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/loopwatch/loopwatch/analyze"
	"github.com/loopwatch/loopwatch/analyze/assess/detect"
	"github.com/loopwatch/loopwatch/analyze/assess/session"
)

type item struct {
	ev    analyze.Event
	kinds []detect.Kind
}

func human(kinds ...detect.Kind) item {
	return item{analyze.Event{Kind: analyze.KindUserMessage, UserContent: "x"}, kinds}
}

func tool(kinds ...detect.Kind) item {
	return item{analyze.Event{Kind: analyze.KindToolResult, ToolOutput: "x"}, kinds}
}

func build(items []item, fr float64, interventions int, reason session.EndReason) session.Transcript {
	b := session.NewBuffer("s", session.DefaultBufferConfig())
	for _, it := range items {
		var sig []detect.Signal
		for _, k := range it.kinds {
			sig = append(sig, detect.Signal{Kind: k})
		}
		b.Add(it.ev, sig)
	}
	b.NoteEMAs(fr, 0)
	for range interventions {
		b.NoteIntervention()
	}
	return b.Transcript(reason, time.Time{})
}

func TestOfflineAnalyzeSession(t *testing.T) {
	a := NewOfflineAnalyzer(DefaultOfflineConfig())
	F, C, S, I := detect.Frustration, detect.UserCorrection, detect.Success, detect.Interrupt
	tests := []struct {
		name          string
		items         []item
		fr            float64
		interventions int
		reason        session.EndReason
		want          Outcome
	}{
		{"no human", []item{tool(detect.BuildFailure)}, 0, 0, session.EndFlush, OutcomeAbandoned},
		{"frustrated at the end", []item{human(), human(F, C)}, 0.75, 0, session.EndFlush, OutcomeFailure},
		{"last turn friction, hook end", []item{human(), human(C)}, 0.2, 0, session.EndHook, OutcomeFailure},
		{"last turn friction, stops", []item{human(), human(I)}, 0.3, 0, session.EndFlush, OutcomeAbandoned},
		{"broken at end, hook", []item{human(), tool(detect.TestFailure)}, 0, 0, session.EndHook, OutcomePartial},
		{"broken at end, stops", []item{human(), tool(detect.ToolFailure)}, 0, 0, session.EndTimeout, OutcomeAbandoned},
		{"failure before the last human turn", []item{tool(detect.TestFailure), human()}, 0, 0, session.EndFlush, OutcomeSuccess},
		{"approved", []item{human(), tool(detect.TestSuccess), human(S)}, 0, 0, session.EndFlush, OutcomeSuccess},
		{"approved after friction", []item{human(F), human(C), human(S)}, 0.3, 1, session.EndFlush, OutcomePartial},
		{"heavy friction", []item{human(F), human(F), human(I), human()}, 0.4, 0, session.EndFlush, OutcomePartial},
		{"quiet", []item{human(), tool(), human()}, 0, 0, session.EndFlush, OutcomeSuccess},
	}
	for _, tt := range tests {
		got, err := a.AnalyzeSession(context.Background(), build(tt.items, tt.fr, tt.interventions, tt.reason))
		if err != nil {
			t.Fatal(err)
		}
		if got.Outcome != tt.want || got.Confidence <= 0 || got.Confidence > 1 || !strings.HasPrefix(got.Summary, string(tt.want)+":") {
			t.Errorf("%s: %+v, want %s", tt.name, got, tt.want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := a.AnalyzeSession(ctx, session.Transcript{}); err == nil {
		t.Error("cancelled context ignored")
	}
}

func TestOfflineSummarizeSegment(t *testing.T) {
	a := NewOfflineAnalyzer(DefaultOfflineConfig())
	tr := build([]item{human(detect.Frustration), {analyze.Event{Kind: analyze.KindToolResult, ToolStatus: analyze.ToolStatusError, ToolOutput: "boom"}, []detect.Kind{detect.ToolFailure}}}, 0, 0, session.EndFlush)
	got, err := a.SummarizeSegment(context.Background(), session.Segment{From: 1, To: 2, Entries: tr.Entries, Omitted: 3})
	if err != nil {
		t.Fatal(err)
	}
	want := "Events 1–2: 1 from the human, 1 tool results (1 errors). 3 events not buffered. Signals: 1 frustration, 1 tool_failure."
	if got.Text != want || got.Metrics.Events != 2 {
		t.Errorf("got %q %+v\nwant %q", got.Text, got.Metrics, want)
	}
	empty, _ := a.SummarizeSegment(context.Background(), session.Segment{From: 3, To: 2})
	if !strings.HasSuffix(empty.Text, "No signals.") {
		t.Errorf("empty: %q", empty.Text)
	}
}

func TestPrompts(t *testing.T) {
	b := session.NewBuffer("s9", session.DefaultBufferConfig())
	b.Add(analyze.Event{Kind: analyze.KindUserMessage, UserContent: "add a flag", Time: time.Unix(0, 0)}, nil)
	b.Add(analyze.Event{Kind: analyze.KindAssistantMessage, AssistantText: "Adding it.", Sidechain: true}, nil)
	b.Add(analyze.Event{Kind: analyze.KindInterrupt, UserContent: "[Request interrupted by user]"}, []detect.Signal{{Kind: detect.Interrupt}})
	b.Add(analyze.Event{Kind: analyze.KindHook, HookName: "Stop"}, nil)
	b.Add(analyze.Event{Kind: analyze.KindSystem}, nil)
	tr := b.Transcript(session.EndFlush, time.Time{})
	p := AnalysisPrompt(tr, DefaultPromptLimits())
	for _, want := range []string{
		"Analyze this coding session and classify the outcome. Consider: goal achievement, efficiency, friction points.\n\nRespond with JSON: {\"outcome\": \"success|partial|failure|abandoned\", \"confidence\": 0.0-1.0, \"summary\": \"...\"}\n\n",
		"Session s9: 5 events",
		"[#1 user] add a flag\n",
		"[#2 subagent assistant] Adding it.\n",
		"[#3 interrupt]\n  signals: interrupt\n",
		"[#4 hook Stop]\n",
		"[#5 system]\n",
	} {
		if !strings.Contains(p, want) {
			t.Errorf("analysis prompt lacks %q:\n%s", want, p)
		}
	}
	// Over the byte limit the earliest events go first.
	small := AnalysisPrompt(tr, PromptLimits{MaxBytes: 40, MaxEntryBytes: 100})
	if strings.Contains(small, "[#1 user]") || !strings.Contains(small, "[… 3 earlier events not shown …]") || !strings.Contains(small, "[#5 system]") {
		t.Errorf("limited prompt:\n%s", small)
	}
	if sp := SegmentPrompt(session.Segment{Entries: tr.Entries[:1]}, DefaultPromptLimits()); !strings.HasPrefix(sp, "Summarize this conversation segment in 2-3 sentences. Focus on: what was attempted, what succeeded/failed, and any friction points.\n\n[#1 user]") {
		t.Errorf("segment prompt %q", sp)
	}
}

func TestParseOutcome(t *testing.T) {
	for _, s := range []string{"success", "PARTIAL", " failure ", "Abandoned"} {
		if _, err := ParseOutcome(s); err != nil {
			t.Error(err)
		}
	}
	if _, err := ParseOutcome("none"); err == nil {
		t.Error("none accepted")
	}
}
