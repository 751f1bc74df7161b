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

// TestOfflineLegacyRules checks the rules before EndReading (LegacyOfflineConfig).
func TestOfflineLegacyRules(t *testing.T) {
	a := NewOfflineAnalyzer(LegacyOfflineConfig())
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

// entry builds a buffered event with its signals.
type entry struct {
	ev  analyze.Event
	sig []detect.Signal
}

func say(text string, kinds ...detect.Kind) entry {
	e := entry{ev: analyze.Event{Kind: analyze.KindUserMessage, UserContent: text}}
	for _, k := range kinds {
		e.sig = append(e.sig, detect.Signal{Kind: k})
	}
	return e
}

func stop() entry {
	return entry{analyze.Event{Kind: analyze.KindInterrupt, UserContent: "[Request interrupted by user for tool use]"}, []detect.Signal{{Kind: detect.Interrupt}}}
}

func ran(tool, out string, k detect.Kind, target string) entry {
	e := entry{ev: analyze.Event{Kind: analyze.KindToolResult, ToolName: tool, ToolOutput: out}}
	if k != 0 {
		e.sig = []detect.Signal{{Kind: k, Target: target}}
	}
	return e
}

func endTranscript(entries []entry, reason session.EndReason) session.Transcript {
	b := session.NewBuffer("s", session.DefaultBufferConfig())
	for _, e := range entries {
		b.Add(e.ev, e.sig)
	}
	return b.Transcript(reason, time.Time{})
}

func TestOfflineEndReading(t *testing.T) {
	a := NewOfflineAnalyzer(DefaultOfflineConfig())
	F, C, S := detect.Frustration, detect.UserCorrection, detect.Success
	rejected := "The user doesn't want to proceed with this tool use. The tool use was rejected."
	flush, hook := session.EndFlush, session.EndHook
	tests := []struct {
		name    string
		entries []entry
		reason  session.EndReason
		want    Outcome
		conf    float64
	}{
		{"no human turn, work passing", []entry{ran("Bash", "ok", detect.TestSuccess, "go test")}, flush, OutcomeSuccess, 0.5},
		{"no human turn, left failing", []entry{ran("Bash", "FAIL", detect.TestFailure, "go test")}, flush, OutcomeAbandoned, 0.5},
		{"thanks", []entry{say("fix it"), ran("Bash", "ok", detect.TestSuccess, "go test"), say("thanks!")}, flush, OutcomeSuccess, 0.8},
		{"commit is acceptance", []entry{say("fix it"), say("commit and push please")}, flush, OutcomeSuccess, 0.8},
		{"open a PR is acceptance", []entry{say("fix it"), say("ok, open a draft PR")}, flush, OutcomeSuccess, 0.8},
		{"lgtm", []entry{say("fix it"), say("lgtm, ship it")}, flush, OutcomeSuccess, 0.8},
		{"multilingual thanks", []entry{say("arregla esto"), say("perfecto, gracias")}, flush, OutcomeSuccess, 0.8},
		{"chinese thanks", []entry{say("修复这个"), say("好了，谢谢")}, flush, OutcomeSuccess, 0.8},
		{"japanese thanks", []entry{say("直して"), say("ありがとう")}, flush, OutcomeSuccess, 0.8},
		{"it works now", []entry{say("fix it"), say("it works now")}, flush, OutcomeSuccess, 0.8},
		{"not acceptance: a question about works", []entry{say("fix it"), say("how does the worker pool work?")}, flush, OutcomeSuccess, 0.6},
		{"praise with a complaint is friction", []entry{say("fix it"), say("great, but it still doesn't work", F)}, flush, OutcomeAbandoned, 0.6},
		{"friction at the end, hook", []entry{say("fix it"), say("no, that's wrong", C)}, hook, OutcomeFailure, 0.6},
		// loopwatch's friction words at the end, in any language the lexicon reads:
		// friction, unless the agent answered them with a passing check or a report of
		// the work done.
		{"friction words at the end", []entry{say("mach es"), ran("Bash", "ok", detect.TestSuccess, "go test"),
			say("funktioniert immer noch nicht", detect.StillProblem)}, flush, OutcomeAbandoned, 0.6},
		{"friction words with praise are no acceptance", []entry{say("fix it"), say("great, it still crashes", detect.StillProblem)}, hook, OutcomeFailure, 0.6},
		{"friction words then a passing check", []entry{say("fix it"), say("are you sure?", detect.Doubt),
			ran("Bash", "ok", detect.TestSuccess, "go test")}, flush, OutcomeSuccess, 0.7},
		{"friction words then a report of the work done", []entry{say("fix it"), say("no, use the other flag", detect.NegationReply),
			{analyze.Event{Kind: analyze.KindAssistantMessage, AssistantText: "Done: switched to --strict."}, nil}}, flush, OutcomeSuccess, 0.6},
		{"a repeat at the end is no verdict", []entry{say("add the flag"), say("add the flag", detect.RepeatRequest)}, flush, OutcomeSuccess, 0.6},
		{"giving up", []entry{say("fix it"), ran("Bash", "FAIL", detect.TestFailure, "go test"), say("forget it, I'll write it myself", detect.GiveUp),
			ran("Bash", "ok", 0, "rm fit.go")}, flush, OutcomeFailure, 0.7},
		{"giving up, then thanks for the clean-up", []entry{say("fix it"), say("forget it, I'll do it myself", detect.GiveUp),
			say("thanks", S)}, flush, OutcomeSuccess, 0.8},
		{"friction then verified", []entry{say("fix it"), say("no, that's wrong", C), ran("Bash", "ok", detect.TestSuccess, "go test")}, flush, OutcomePartial, 0.5},
		{"friction then still failing", []entry{say("fix it"), say("no, that's wrong", C), ran("Bash", "FAIL", detect.TestFailure, "go test")}, flush, OutcomeAbandoned, 0.6},
		{"plan hand-off", []entry{say("plan it"), ran("Write", "plan written", 0, ""), ran("ExitPlanMode", rejected, detect.ToolRejected, ""), stop()}, flush, OutcomeSuccess, 0.6},
		{"plan hand-off after a rejection with words", []entry{say("plan it"),
			ran("ExitPlanMode", rejected+" To tell you how to proceed, the user said:\nwe do not need that", detect.ToolRejected, ""),
			ran("Edit", "plan edited", 0, ""), ran("ExitPlanMode", rejected, detect.ToolRejected, ""), stop()}, flush, OutcomePartial, 0.5},
		{"a trailing interrupt of other work", []entry{say("do it"), ran("Bash", "", detect.ToolRejected, ""), stop()}, flush, OutcomeAbandoned, 0.5},
		{"a trailing interrupt, hook", []entry{say("do it"), stop()}, hook, OutcomeFailure, 0.5},
		{"left failing", []entry{say("fix it"), ran("Bash", "ok", detect.TestSuccess, "go test"), ran("Bash", "lint", detect.LintError, "npm lint")}, flush, OutcomeAbandoned, 0.5},
		{"left failing, hook", []entry{say("fix it"), ran("Bash", "FAIL", detect.TestFailure, "go test")}, hook, OutcomePartial, 0.5},
		{"a failure fixed later is not left failing", []entry{say("fix it"), ran("Bash", "FAIL", detect.TestFailure, "go test"), ran("Bash", "ok", detect.TestSuccess, "go test")}, flush, OutcomeSuccess, 0.7},
		{"left failing, but the agent fixed it and reports it done", []entry{say("fix it"), ran("Bash", "lint", detect.LintError, "mise lint"),
			ran("Edit", "The file x.go has been updated.", 0, ""),
			{analyze.Event{Kind: analyze.KindAssistantMessage, AssistantText: "Clean. Used filepath.Separator."}, nil}}, flush, OutcomeSuccess, 0.6},
		{"a report of work done right after a failure is contradicted by it", []entry{say("fix it"), ran("Edit", "The file x.go has been updated.", 0, ""),
			ran("Bash", "FAIL", detect.TestFailure, "go test"),
			{analyze.Event{Kind: analyze.KindAssistantMessage, AssistantText: "Done! The parser now skips empty lines."}, nil}}, flush, OutcomeAbandoned, 0.5},
		{"the agent concedes an open problem", []entry{say("it sounds the same"), ran("Bash", "", 0, ""),
			{analyze.Event{Kind: analyze.KindAssistantMessage, AssistantText: "You're absolutely right. I can see the problem: the variations are too subtle."}, nil}}, flush, OutcomeAbandoned, 0.5},
		{"a subagent's words are not the agent's final message", []entry{say("fix it"), ran("Bash", "FAIL", detect.TestFailure, "go test"),
			{analyze.Event{Kind: analyze.KindAssistantMessage, AssistantText: "All done.", Sidechain: true}, nil}}, flush, OutcomeAbandoned, 0.5},
		{"heavy friction", []entry{say("a", F), say("b", C), say("c"), say("d", F), say("e")}, flush, OutcomePartial, 0.5},
		{"friction spread thin is not heavy", []entry{say("a", F), say("b", C), say("c", F), say("d"), say("e"), say("f"), say("g"), say("h")}, flush, OutcomeSuccess, 0.6},
		{"accepted after heavy friction", []entry{say("a", F), say("b", C), say("c", F), say("thanks", S)}, flush, OutcomePartial, 0.6},
	}
	for _, tt := range tests {
		got, err := a.AnalyzeSession(context.Background(), endTranscript(tt.entries, tt.reason))
		if err != nil {
			t.Fatal(err)
		}
		if got.Outcome != tt.want || got.Confidence != tt.conf || !strings.HasPrefix(got.Summary, string(tt.want)+":") {
			t.Errorf("%s: %+v, want %s (%.1f)", tt.name, got, tt.want, tt.conf)
		}
	}
}

func TestOfflineConfigValidate(t *testing.T) {
	for _, c := range []OfflineConfig{DefaultOfflineConfig(), LegacyOfflineConfig()} {
		if err := c.Validate(); err != nil {
			t.Errorf("%+v: %v", c, err)
		}
	}
	bad := DefaultOfflineConfig()
	bad.Acceptance = []string{"(unclosed"}
	for _, c := range []OfflineConfig{bad, {FailureEMA: 0, PartialFriction: 3}, {FailureEMA: 0.7, PartialFriction: 0}, {FailureEMA: 0.7, PartialFriction: 3, PartialFrictionShare: 1.5}} {
		if c.Validate() == nil {
			t.Errorf("%+v validated", c)
		}
	}
}
