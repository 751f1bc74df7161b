package assess

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/loopwatch/loopwatch/analyze"
	"github.com/loopwatch/loopwatch/analyze/assess/breaker"
	"github.com/loopwatch/loopwatch/analyze/assess/checkpoint"
	"github.com/loopwatch/loopwatch/analyze/assess/detect"
	"github.com/loopwatch/loopwatch/analyze/assess/eventlog"
	"github.com/loopwatch/loopwatch/analyze/assess/eventlog/eventlogtest"
	"github.com/loopwatch/loopwatch/analyze/assess/llm"
	"github.com/loopwatch/loopwatch/analyze/assess/session"
)

var t0 = time.Date(2025, 12, 30, 14, 0, 0, 0, time.UTC)

func user(sid string, d time.Duration, text string) analyze.Event {
	return analyze.Event{Kind: analyze.KindUserMessage, SessionID: sid, Time: t0.Add(d), UserContent: text}
}

func tool(sid string, d time.Duration, out string, st analyze.ToolStatus) analyze.Event {
	return analyze.Event{Kind: analyze.KindToolResult, SessionID: sid, Time: t0.Add(d), ToolName: "Bash", ToolOutput: out, ToolStatus: st}
}

// cmd sets the command a tool result ran, and the exit code its output opens with.
func cmd(ev analyze.Event, command string) analyze.Event {
	ev.ToolCommand = command
	ev.ExitCode, ev.HasExitCode = analyze.ExitCodeOf(ev.ToolOutput)
	return ev
}

func hook(sid string, d time.Duration, name string) analyze.Event {
	return analyze.Event{Kind: analyze.KindHook, SessionID: sid, Time: t0.Add(d), HookName: name}
}

// fakeLLM records what it is asked and answers predictably.
type fakeLLM struct {
	mu          sync.Mutex
	segments    []session.Segment
	transcripts []session.Transcript
	err         error
}

func (f *fakeLLM) SummarizeSegment(_ context.Context, seg session.Segment) (llm.SegmentSummary, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.segments = append(f.segments, seg)
	if f.err != nil {
		return llm.SegmentSummary{}, f.err
	}
	return llm.SegmentSummary{Text: fmt.Sprintf("segment %d-%d of %s", seg.From, seg.To, seg.SessionID)}, nil
}

func (f *fakeLLM) AnalyzeSession(_ context.Context, t session.Transcript) (llm.SessionAnalysis, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.transcripts = append(f.transcripts, t)
	if f.err != nil {
		return llm.SessionAnalysis{}, f.err
	}
	return llm.SessionAnalysis{Outcome: llm.OutcomePartial, Confidence: 0.5, Summary: fmt.Sprintf("%d events, %s", t.Stats.Events, t.Reason)}, nil
}

func newProc(t *testing.T, cfg Config, opts Options) *Processor {
	t.Helper()
	p, err := New(cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func process(t *testing.T, p *Processor, evs ...analyze.Event) []Step {
	t.Helper()
	steps := make([]Step, 0, len(evs))
	for _, ev := range evs {
		s, err := p.Process(context.Background(), ev)
		if err != nil {
			t.Fatal(err)
		}
		steps = append(steps, s)
	}
	return steps
}

// beforeFriction sets the human-text side as it was before loopwatch's friction
// signals — the seed's patterns with loopwatch's extra ones, an EMA on human turns
// (alpha 0.3, weights 0.5, interrupts 1), the seed's storm of 3 and threshold of 0.70,
// interrupts and corrections counted as the seed counts a correction — so the tests
// of the processor's mechanics keep the figures they were written for.
func beforeFriction(c *Config) {
	c.Detect.Friction = detect.SeedFrictionConfig()
	c.Detect.EMA = detect.SeedEMAConfig()
	c.Detect.EMA.EveryEvent, c.Detect.EMA.InterruptWeight = false, 1
	c.Breaker.CorrectionStorm, c.Breaker.FrustrationThreshold = 3, 0.70
	c.Breaker.CorrectionKinds = []detect.Kind{detect.UserCorrection}
	c.Breaker.InterruptIsCorrection, c.Breaker.CorrectionIsFailure, c.Breaker.EdgeTriggered = true, true, false
	c.Breaker.Cooldown = breaker.SeedCooldown()
}

func legacyConfig() Config {
	c := DefaultConfig()
	beforeFriction(&c)
	return c
}

func interventions(steps []Step) []string {
	var out []string
	for _, s := range steps {
		if s.Intervention != nil {
			out = append(out, fmt.Sprintf("%s@%d:%v", s.SessionID, s.Index, s.Intervention.Type))
		}
	}
	return out
}

func TestInterventions(t *testing.T) {
	min := time.Minute
	cfg := legacyConfig()
	tests := []struct {
		name string
		evs  []analyze.Event
		want []string
	}{
		{"correction storm", []analyze.Event{
			user("a", 0, "add a flag"),
			user("a", 1*min, "no, that's wrong"),
			user("a", 2*min, "I meant the other file"),
			user("a", 3*min, "actually it should not print"),
		}, []string{"a@4:clarification_pause"}},
		{"corrections spread over more than five minutes", []analyze.Event{
			user("a", 0, "no, that's wrong"),
			user("a", 4*min, "I meant the other file"),
			user("a", 9*min, "no, use the helper"),
			user("a", 15*min, "I meant the config"),
		}, nil},
		{"storms are per session", []analyze.Event{
			user("a", 0, "no, that's wrong"),
			user("b", 10*time.Second, "I meant the other file"),
			user("a", 20*time.Second, "I meant the other file"),
			user("b", 30*time.Second, "no, use the helper"),
		}, nil},
		{"subagent prompts are not corrections", []analyze.Event{
			user("a", 0, "no, that's wrong"),
			{Kind: analyze.KindUserMessage, SessionID: "a", Sidechain: true, Time: t0.Add(min), UserContent: "No, do not edit tests. I meant: search only."},
			{Kind: analyze.KindUserMessage, SessionID: "a", Sidechain: true, Time: t0.Add(2 * min), UserContent: "no, that's wrong"},
		}, nil},
		{"interrupts feed the storm", []analyze.Event{
			{Kind: analyze.KindInterrupt, SessionID: "a", Time: t0, UserContent: "[Request interrupted by user]"},
			user("a", min, "no, use the helper"),
			{Kind: analyze.KindInterrupt, SessionID: "a", Time: t0.Add(2 * min), UserContent: "[Request interrupted by user for tool use]"},
		}, []string{"a@3:clarification_pause"}},
		{"consecutive failures of one kind of command", []analyze.Event{
			user("a", 0, "make the tests pass"),
			cmd(tool("a", 1*min, "Exit code 101\ntest result: FAILED. 1 passed; 1 failed", analyze.ToolStatusError), "cargo test"),
			cmd(tool("a", 2*min, "Exit code 101\nerror[E0308]: mismatched types\nerror: could not compile", analyze.ToolStatusError), "cargo test"),
			cmd(tool("a", 3*min, "Exit code 1", analyze.ToolStatusError), "cargo test --lib"),
			cmd(tool("a", 4*min, "Exit code 1\nsome output", analyze.ToolStatusError), "cd crate && cargo test"),
			cmd(tool("a", 5*min, "error: aborting", analyze.ToolStatusUnknown), "cargo test 2>&1 | tail"),
		}, []string{"a@6:approach_pivot"}},
		{"failures of different kinds of command are different streaks", []analyze.Event{
			user("a", 0, "make the tests pass"),
			cmd(tool("a", 1*min, "Exit code 101\ntest result: FAILED. 1 passed; 1 failed", analyze.ToolStatusError), "cargo test"),
			cmd(tool("a", 2*min, "Exit code 1\nrejected", analyze.ToolStatusError), "git push"),
			cmd(tool("a", 3*min, "Exit code 1", analyze.ToolStatusError), "npm run lint"),
			cmd(tool("a", 4*min, "Exit code 1\n--- FAIL: TestX", analyze.ToolStatusError), "go test ./..."),
			cmd(tool("a", 5*min, "Exit code 2", analyze.ToolStatusError), "make build"),
		}, nil},
		{"failures reset by a success", []analyze.Event{
			tool("a", 1*min, "Exit code 1", analyze.ToolStatusError),
			tool("a", 2*min, "Exit code 1", analyze.ToolStatusError),
			tool("a", 3*min, "Exit code 1", analyze.ToolStatusError),
			tool("a", 4*min, "Exit code 1", analyze.ToolStatusError),
			tool("a", 5*min, "test result: ok. 3 passed", analyze.ToolStatusOK),
			tool("a", 6*min, "Exit code 1", analyze.ToolStatusError),
			tool("a", 7*min, "Exit code 1", analyze.ToolStatusError),
		}, nil},
		{"source text with error: is no failure when the status says ok", []analyze.Event{
			tool("a", 1*min, "return fmt.Errorf(\"error: %w\")", analyze.ToolStatusOK),
			tool("a", 2*min, "return fmt.Errorf(\"error: %w\")", analyze.ToolStatusOK),
			tool("a", 3*min, "return fmt.Errorf(\"error: %w\")", analyze.ToolStatusOK),
			tool("a", 4*min, "return fmt.Errorf(\"error: %w\")", analyze.ToolStatusOK),
			tool("a", 5*min, "return fmt.Errorf(\"error: %w\")", analyze.ToolStatusOK),
		}, nil},
		{"frustration EMA", []analyze.Event{
			user("a", 0*min, "why did you delete that? try again"),
			user("a", 6*min, "still didnt work, try again"),
			user("a", 12*min, "why are you still doing that, try again"),
			user("a", 18*min, "it still doesnt work. i already said so"),
		}, []string{"a@4:explicit_check_in"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var sink breaker.RecordingSink
			steps := process(t, newProc(t, cfg, Options{Sink: &sink}), tt.evs...)
			if got := interventions(steps); !slices.Equal(got, tt.want) {
				t.Fatalf("interventions %v, want %v", got, tt.want)
			}
			if got := len(sink.Messages()); got != len(tt.want) {
				t.Fatalf("sink got %d messages", got)
			}
			for _, m := range sink.Messages() {
				if m.Content != m.Type.Message() {
					t.Errorf("message %q", m.Content)
				}
			}
		})
	}
}

// TestFrictionInterventions checks the default configuration end to end: an
// intervention lands at the friction turn itself, a second push-back inside the
// window asks for clarification, and what is not friction stays quiet.
func TestFrictionInterventions(t *testing.T) {
	min := time.Minute
	agent := func(d time.Duration, text string) analyze.Event {
		return analyze.Event{Kind: analyze.KindAssistantMessage, SessionID: "a", Time: t0.Add(d), AssistantText: text}
	}
	interrupt := func(d time.Duration) analyze.Event {
		return analyze.Event{Kind: analyze.KindInterrupt, SessionID: "a", Time: t0.Add(d), UserContent: "[Request interrupted by user]"}
	}
	tests := []struct {
		name string
		evs  []analyze.Event
		cfg  func(*Config)
		want []string
	}{
		{"one friction turn checks in at once", []analyze.Event{
			user("a", 0, "make the parser accept empty lines"), agent(min, "Done."),
			user("a", 2*min, "still not working"),
		}, nil, []string{"a@3:explicit_check_in"}},
		{"a second push-back inside the window asks for clarification", []analyze.Event{
			user("a", 0, "make the parser accept empty lines"), agent(min, "Done."),
			user("a", 2*min, "actually it should not print them"), // a seed correction: no weight of its own
			agent(3*min, "Changed."), user("a", 4*min, "no, keep the trailing ones"),
		}, nil, []string{"a@5:clarification_pause"}},
		{"an interrupt the agent had acted on is read from the message after it: a redirect checks in", []analyze.Event{
			user("a", 0, "refactor the parser"), agent(min, "Refactoring."), interrupt(2 * min),
			user("a", 2*min+10*time.Second, "use the lexer we already have"),
		}, nil, []string{"a@4:explicit_check_in"}},
		{"with an interrupt weight, the interrupt itself checks in", []analyze.Event{
			user("a", 0, "refactor the parser"), agent(min, "Refactoring."), interrupt(2 * min),
			user("a", 2*min+10*time.Second, "use the lexer we already have"),
		}, func(c *Config) { c.Detect.EMA.InterruptWeight = 0.5 }, []string{"a@3:explicit_check_in"}},
		{"a push-back a minute after a check-in is fresh friction", []analyze.Event{
			user("a", 0, "make the parser accept empty lines"), agent(min, "Done."),
			user("a", 2*min, "still not working"), agent(2*min+20*time.Second, "Fixed the check."),
			user("a", 2*min+40*time.Second, "are you sure? it still fails"), agent(3*min, "Rewrote it."),
			user("a", 3*min+30*time.Second, "same error again"),
		}, nil, []string{"a@3:explicit_check_in", "a@7:explicit_check_in"}},
		{"an interrupt before the agent acted is the human's own", []analyze.Event{
			user("a", 0, "refactor the parser"), interrupt(5 * time.Second),
			user("a", 20*time.Second, "refactor the lexer, not the parser"),
		}, nil, nil},
		{"approval after an interrupt is no redirect", []analyze.Event{
			user("a", 0, "refactor the parser"), agent(min, "Refactoring."), interrupt(2 * min),
			user("a", 2*min+10*time.Second, "ok, continue"),
		}, nil, nil},
		{"politeness and new requests stay quiet", []analyze.Event{
			user("a", 0, "add a --verbose flag"), agent(min, "Added. Want me to add tests too?"),
			user("a", 2*min, "no, thanks"), user("a", 3*min, "now add a changelog entry"),
			user("a", 4*min, "no problem, error handling looks great"), user("a", 5*min, "can you also bump the version?"),
		}, nil, nil},
		{"a paste that opens with No is not a negation", []analyze.Event{
			user("a", 0, "run the server"), agent(min, "Started."),
			user("a", 2*min, "No such file or directory: config.toml\nwhat does this mean"),
		}, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultConfig()
			if tt.cfg != nil {
				tt.cfg(&cfg)
			}
			steps := process(t, newProc(t, cfg, Options{}), tt.evs...)
			if got := interventions(steps); !slices.Equal(got, tt.want) {
				t.Fatalf("interventions %v, want %v", got, tt.want)
			}
		})
	}
}

// TestSharedRules checks that processors given one set of compiled rules decide as
// processors that compile their own.
func TestSharedRules(t *testing.T) {
	cfg := DefaultConfig()
	rules := detect.MustCompile(cfg.Detect)
	evs := []analyze.Event{
		user("a", 0, "make the parser accept empty lines"), tool("a", time.Minute, "ok", analyze.ToolStatusOK),
		user("a", 2*time.Minute, "still not working, are you sure?"), user("a", 3*time.Minute, "make the parser accept empty lines"),
	}
	own := process(t, newProc(t, cfg, Options{}), evs...)
	shared := process(t, newProc(t, cfg, Options{Rules: rules}), evs...)
	again := process(t, newProc(t, cfg, Options{Rules: rules}), evs...)
	a, _ := json.Marshal(own)
	b, _ := json.Marshal(shared)
	c, _ := json.Marshal(again)
	if string(a) != string(b) || string(b) != string(c) {
		t.Errorf("shared rules decide differently:\n%s\n%s", a, b)
	}
}

// TestOfflineConfigCheckedOnlyWhenUsed checks that New validates Config.Offline when
// it builds the offline analyzer, and not when it is given an analyzer (the replay
// shares one per configuration): the rest of the configuration is checked either way.
func TestOfflineConfigCheckedOnlyWhenUsed(t *testing.T) {
	badOffline := DefaultConfig()
	badOffline.Offline.Acceptance = []string{"(unclosed"}
	badTimeout := DefaultConfig()
	badTimeout.InactivityTimeout = 0
	given := llm.NewOfflineAnalyzer(DefaultConfig().Offline)
	for _, tt := range []struct {
		name    string
		cfg     Config
		llm     llm.AssessmentLLM
		wantErr bool
	}{
		{"bad offline, built", badOffline, nil, true},
		{"bad offline, given", badOffline, given, false},
		{"bad timeout, built", badTimeout, nil, true},
		{"bad timeout, given", badTimeout, given, true},
		{"valid, built", DefaultConfig(), nil, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.cfg, Options{LLM: tt.llm})
			if (err != nil) != tt.wantErr {
				t.Fatalf("New: %v, want an error: %v", err, tt.wantErr)
			}
		})
	}
}

func TestCooldownOnEventTime(t *testing.T) {
	var sink breaker.RecordingSink
	p := newProc(t, legacyConfig(), Options{Sink: &sink})
	var evs []analyze.Event
	for i := range 12 { // a correction every 40 s of event time
		evs = append(evs, user("a", time.Duration(i)*40*time.Second, "no, use the helper"))
	}
	steps := process(t, p, evs...)
	// Storm at the 3rd (t=80s); cooldown until t=380s; next at the 11th (t=400s).
	if got := interventions(steps); !slices.Equal(got, []string{"a@3:clarification_pause", "a@11:clarification_pause"}) {
		t.Fatalf("interventions %v", got)
	}
	if s := steps[4].Breaker; !s.CooldownActive || s.InterventionCount != 1 || s.CorrectionsInWindow != 5 || s.ConsecutiveFailures != 5 {
		t.Errorf("breaker after 5th: %+v", s)
	}
	if s := steps[11].Breaker; s.InterventionCount != 2 || !s.LastIntervention.Equal(t0.Add(400*time.Second)) {
		t.Errorf("breaker after 12th: %+v", s)
	}
}

func TestStepRecordsEMAsAndSignals(t *testing.T) {
	p := newProc(t, legacyConfig(), Options{})
	steps := process(t, p,
		user("a", 0, "no, that's wrong"),
		tool("a", time.Second, "test result: ok", analyze.ToolStatusOK),
		user("a", 2*time.Second, "perfect, thanks"),
	)
	if steps[0].FrustrationEMA != 0.3 || steps[0].SuccessEMA != 0 || steps[0].Index != 1 {
		t.Errorf("step 1: %+v", steps[0])
	}
	if !detect.Has(steps[1].Signals, detect.TestSuccess) || steps[1].FrustrationEMA != 0.3 {
		t.Errorf("step 2: %+v", steps[1])
	}
	if steps[2].SuccessEMA != 0.3 || steps[2].FrustrationEMA <= 0.2 || steps[2].FrustrationEMA >= 0.3 {
		t.Errorf("step 3: %+v", steps[2])
	}
}

func TestCheckpointSummariesFlow(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Checkpoint.MessageThreshold = 3
	fake := &fakeLLM{}
	p := newProc(t, cfg, Options{LLM: fake})
	steps := process(t, p,
		user("a", 0, "add a flag"),                                                     // 1
		tool("a", time.Minute, "ok", analyze.ToolStatusOK),                             // 2
		user("a", 2*time.Minute, "done, now let's do the parser"),                      // 3 boundary (also count 3)
		tool("a", 3*time.Minute, "[main 1a2b3c4] commit parser", analyze.ToolStatusOK), // 4 git
		user("a", 20*time.Minute, "back again"),                                        // 5 time
		hook("a", 20*time.Minute, "PostToolUse"),                                       // 6 not a message
	)
	var got []string
	for _, s := range steps {
		if c := s.Checkpoint; c != nil {
			got = append(got, fmt.Sprintf("%d:%v:%d-%d:%s", s.Index, c.Trigger, c.From, c.To, c.Summary.Text))
		}
	}
	want := []string{
		"3:message_count:1-3:segment 1-3 of a",
		"4:git_commit:4-4:segment 4-4 of a",
		"5:time:5-5:segment 5-5 of a",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("checkpoints\n got %q\nwant %q", got, want)
	}
	if len(fake.segments) != 3 || len(fake.segments[0].Entries) != 3 {
		t.Errorf("segments %+v", fake.segments)
	}
	// A boundary on its own.
	p = newProc(t, DefaultConfig(), Options{LLM: fake})
	if s := process(t, p, user("b", 0, "moving on to the CLI")); s[0].Checkpoint == nil || s[0].Checkpoint.Trigger != checkpoint.TaskBoundary {
		t.Errorf("boundary step %+v", s[0])
	}
}

func TestSessionEnds(t *testing.T) {
	fake := &fakeLLM{}
	cfg := DefaultConfig()
	p := newProc(t, cfg, Options{LLM: fake})
	steps := process(t, p,
		user("a", 0, "add a flag"),
		hook("a", time.Minute, "Stop"), // per turn: not an end by default
		user("a", 2*time.Minute, "thanks"),
		hook("a", 3*time.Minute, "SessionEnd"),
		hook("a", 3*time.Minute, "Stop"), // late hook of an ended session: skipped
	)
	if steps[1].End != nil || steps[4].End != nil || !steps[4].Skipped {
		t.Fatalf("Stop ended the session: %+v %+v", steps[1], steps[4])
	}
	end := steps[3].End
	if end == nil || end.Reason != session.EndHook || !end.At.Equal(t0.Add(3*time.Minute)) || end.Analysis == nil ||
		end.Analysis.Summary != "4 events, hook" || end.Sampling != (session.Decision{Assess: true, Reason: session.ReasonBurnIn}) {
		t.Fatalf("end %+v", end)
	}
	if len(p.OpenSessions()) != 0 {
		t.Errorf("open %v", p.OpenSessions())
	}

	// The seed's Stop hook, when configured.
	cfg.EndHooks = session.SeedEndHooks()
	p = newProc(t, cfg, Options{LLM: fake})
	if s := process(t, p, user("b", 0, "x"), hook("b", time.Minute, "Stop")); s[1].End == nil {
		t.Error("Stop did not end the session with SeedEndHooks")
	}

	// Inactivity, on event time: a's gap ends it before b's event is processed.
	p = newProc(t, DefaultConfig(), Options{LLM: fake})
	steps = process(t, p,
		user("a", 0, "x"),
		user("b", 10*time.Minute, "y"),
		user("b", 30*time.Minute, "y"),
		user("b", 30*time.Minute+time.Second, "z"),
	)
	if len(steps[2].TimedOut) != 0 || len(steps[3].TimedOut) != 1 {
		t.Fatalf("timeouts %+v / %+v", steps[2].TimedOut, steps[3].TimedOut)
	}
	if to := steps[3].TimedOut[0]; to.SessionID != "a" || to.Reason != session.EndTimeout || !to.At.Equal(t0) || to.Analysis == nil {
		t.Errorf("timed out %+v", to)
	}
	// A session that comes back after the timeout starts afresh.
	steps = process(t, p, user("b", 2*time.Hour, "hello again"))
	if len(steps[0].TimedOut) != 1 || steps[0].TimedOut[0].SessionID != "b" || steps[0].Index != 1 {
		t.Errorf("restarted session %+v", steps[0])
	}

	// Flush at the end of input.
	end2, ok, err := p.EndSession(context.Background(), "b", t0.Add(3*time.Hour))
	if err != nil || !ok || end2.Reason != session.EndFlush || end2.Stats.Events != 1 {
		t.Errorf("EndSession %+v %v %v", end2, ok, err)
	}
	if _, ok, _ := p.EndSession(context.Background(), "b", t0); ok {
		t.Error("EndSession of a closed session")
	}
}

func TestEndAllAndSampling(t *testing.T) {
	cfg := legacyConfig() // one correction: feedback, no intervention
	cfg.Sampling = session.SamplingConfig{BurnInSessions: 0, LongSessionThreshold: 100, BaseRate: 0, Seed: 1}
	fake := &fakeLLM{}
	p := newProc(t, cfg, Options{LLM: fake})
	process(t, p,
		user("c", 0, "add a flag"),
		user("a", 0, "add a flag"),
		user("b", 0, "no, that's wrong"), // feedback: always assessed
	)
	ends, err := p.EndAll(context.Background(), t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ends {
		got = append(got, fmt.Sprintf("%s:%s:%v", e.SessionID, e.Sampling.Reason, e.Analysis != nil))
	}
	if want := []string{"a:not_sampled:false", "b:explicit_feedback:true", "c:not_sampled:false"}; !slices.Equal(got, want) {
		t.Errorf("ends %v, want %v", got, want)
	}
	if len(fake.transcripts) != 1 {
		t.Errorf("analysed %d sessions", len(fake.transcripts))
	}
}

func TestLLMErrorsDoNotStopTheAssessment(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Checkpoint.MessageThreshold = 1
	p := newProc(t, cfg, Options{LLM: &fakeLLM{err: errors.New("claude: overloaded")}})
	steps := process(t, p, user("a", 0, "x"), hook("a", time.Minute, "SessionEnd"))
	if c := steps[0].Checkpoint; c == nil || c.Err != "claude: overloaded" {
		t.Errorf("checkpoint %+v", c)
	}
	if e := steps[1].End; e == nil || e.Err != "claude: overloaded" || e.Analysis != nil {
		t.Errorf("end %+v", e)
	}
}

type failingSink struct{ fail bool }

func (s *failingSink) Deliver(context.Context, breaker.Message) error {
	if s.fail {
		return errors.New("hook channel closed")
	}
	return nil
}

func TestSinkFailure(t *testing.T) {
	sink := &failingSink{fail: true}
	p := newProc(t, legacyConfig(), Options{Sink: sink})
	process(t, p, user("a", 0, "no, use x"), user("a", time.Second, "no, use y"))
	step, err := p.Process(context.Background(), user("a", 2*time.Second, "no, use z"))
	if err == nil || step.Intervention != nil || step.Breaker.InterventionCount != 0 || step.Index != 3 {
		t.Fatalf("step %+v, err %v", step, err)
	}
	sink.fail = false
	step, err = p.Process(context.Background(), user("a", 3*time.Second, "ok"))
	if err != nil || step.Intervention == nil || step.Intervention.Type != breaker.ClarificationPause {
		t.Fatalf("retry: step %+v, err %v", step, err)
	}
}

func TestSkipped(t *testing.T) {
	p := newProc(t, DefaultConfig(), Options{})
	steps := process(t, p,
		analyze.Event{Kind: analyze.KindUserMessage, Time: t0, UserContent: "no session"},
		hook("a", 0, "SessionStart"),
		analyze.Event{Kind: analyze.KindSystem, SessionID: "a", Time: t0},
	)
	for i, s := range steps {
		if !s.Skipped || s.Index != 0 {
			t.Errorf("step %d: %+v", i, s)
		}
	}
	if len(p.OpenSessions()) != 0 {
		t.Errorf("open %v", p.OpenSessions())
	}
}

func TestDeterministic(t *testing.T) {
	var evs []analyze.Event
	texts := []string{"add a flag", "no, that's wrong", "still didnt work", "perfect, thanks", "I meant the other one", "done, next"}
	for i := range 300 {
		sid := fmt.Sprintf("s%d", i%4)
		d := time.Duration(i) * 37 * time.Second
		switch i % 3 {
		case 0:
			evs = append(evs, user(sid, d, texts[i%len(texts)]))
		case 1:
			evs = append(evs, tool(sid, d, "test result: FAILED", analyze.ToolStatus(i%3)))
		default:
			evs = append(evs, hook(sid, d, []string{"Stop", "SessionEnd", "PostToolUse"}[i%3]))
		}
	}
	run := func() []byte {
		cfg := DefaultConfig()
		cfg.Sampling.BurnInSessions = 2
		p := newProc(t, cfg, Options{})
		steps := process(t, p, evs...)
		ends, err := p.EndAll(context.Background(), t0.Add(10*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(struct {
			Steps []Step
			Ends  []SessionEnd
		}{steps, ends})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if a, b := run(), run(); string(a) != string(b) {
		t.Fatal("two runs over the same events differ")
	}
}

func TestConfigJSON(t *testing.T) {
	def := DefaultConfig()
	b, err := json.Marshal(def)
	if err != nil {
		t.Fatal(err)
	}
	var back Config
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, def) {
		t.Errorf("round trip differs:\n%s", b)
	}
	// A partial file overrides only what it names.
	cfg := DefaultConfig()
	if err := json.Unmarshal([]byte(`{"breaker":{"cooldown":"2m","failure_threshold":3},"detect":{"extra_tool_rules":[]},"end_hooks":["Stop"]}`), &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.Breaker.Cooldown.Std() != 2*time.Minute || cfg.Breaker.FailureThreshold != 3 || cfg.Breaker.CorrectionStorm != 2 ||
		len(cfg.Detect.ExtraToolRules) != 0 || len(cfg.Detect.ToolRules) != 5 || !slices.Equal(cfg.EndHooks, []string{"Stop"}) {
		t.Errorf("overridden config %+v", cfg)
	}
	if _, err := New(cfg, Options{}); err != nil {
		t.Error(err)
	}
	for _, mut := range []func(*Config){
		func(c *Config) { c.InactivityTimeout = 0 },
		func(c *Config) { c.PollMax = 0 },
		func(c *Config) { c.Breaker.FailureThreshold = 0 },
		func(c *Config) { c.Buffer.MaxEvents = 0 },
		func(c *Config) { c.Sampling.BaseRate = 2 },
		func(c *Config) { c.Detect.Patterns.Success = []string{"("} },
		func(c *Config) { c.Checkpoint.MessageThreshold = 0 },
	} {
		c := DefaultConfig()
		mut(&c)
		if _, err := New(c, Options{}); err == nil {
			t.Errorf("invalid config accepted: %+v", c)
		}
	}
}

// consumerEvents is a log of two interleaved sessions with ids "e0", "e1", …, each a
// correction.
func consumerEvents(n int) []analyze.Event {
	evs := eventlogtest.Events(n)
	for i := range evs {
		evs[i].UserContent = "no, use the helper"
	}
	return evs
}

// runUntil runs a fresh processor over log and cancels it after stopAfter processed
// events (0: drain). It returns the ids of the events processed.
func runUntil(t *testing.T, log eventlog.Log, stopAfter int) []string {
	t.Helper()
	return eventlogtest.RunUntil(t, stopAfter, func(ctx context.Context, drain bool, seen func(eventlog.Record)) error {
		cfg := DefaultConfig()
		cfg.PollMax = 7
		p := newProc(t, cfg, Options{Clock: func() time.Time { return t0 }, OnStep: func(r eventlog.Record, _ Step) { seen(r) }})
		if drain {
			return p.Drain(ctx, log)
		}
		return p.Run(ctx, log)
	})
}

func TestRunResumesFromCommittedOffsetMemory(t *testing.T) {
	const n = 30
	mem := eventlog.NewMemory(consumerEvents(n)...)
	// Stop mid-batch (batches of 7: the 10th event is the 3rd of the second batch),
	// restart twice.
	r1 := runUntil(t, mem.Consumer("assessment"), 10)
	if got := mem.Committed("assessment"); got != 10 {
		t.Fatalf("committed next offset %d, want 10", got)
	}
	r2 := runUntil(t, mem.Consumer("assessment"), 11)
	r3 := runUntil(t, mem.Consumer("assessment"), 0)
	eventlogtest.ExactlyOnce(t, [][]string{r1, r2, r3}, n)
	if r4 := runUntil(t, mem.Consumer("assessment"), 0); len(r4) != 0 {
		t.Errorf("redelivered %v", r4)
	}
}

// TestProcessingErrorCommitsTheEventAndKeepsTheRest: when the sink fails on an
// event, the event has been processed: it is committed, so that neither a restarted
// consumer nor this one processes it twice, and the rest of the batch is delivered
// again, not skipped.
func TestProcessingErrorCommitsTheEventAndKeepsTheRest(t *testing.T) {
	for _, restart := range []bool{false, true} {
		t.Run(fmt.Sprintf("restart=%v", restart), func(t *testing.T) {
			mem := eventlog.NewMemory(consumerEvents(8)...)
			// s0 gets corrections at offsets 0, 2, 4, 6: the storm at offset 4 cannot be delivered.
			sink := &failingSink{fail: true}
			processed := map[uint64]int{}
			corrections := 0
			p := newProc(t, legacyConfig(), Options{Sink: sink, OnStep: func(r eventlog.Record, s Step) {
				processed[r.Offset]++
				if r.Event.SessionID == "s0" {
					corrections = s.Breaker.CorrectionsInWindow
				}
			}})
			c := mem.Consumer("c")
			if err := p.Drain(context.Background(), c); err == nil {
				t.Fatal("no error from a failing sink")
			}
			if got := mem.Committed("c"); got != 5 {
				t.Errorf("committed next %d, want 5 (the failed event is processed and committed)", got)
			}
			sink.fail = false
			if restart {
				c = mem.Consumer("c")
			}
			if err := p.Drain(context.Background(), c); err != nil {
				t.Fatal(err)
			}
			for off := uint64(0); off < 8; off++ {
				if processed[off] != 1 {
					t.Errorf("offset %d processed %d times", off, processed[off])
				}
			}
			if mem.Committed("c") != 8 || corrections != 4 {
				t.Errorf("committed %d, s0's corrections %d; want 8 and 4", mem.Committed("c"), corrections)
			}
		})
	}
}

// cancellingLLM cancels the run's context while it analyses a session, as a SIGINT
// arriving mid-event would.
type cancellingLLM struct {
	fakeLLM
	cancel context.CancelFunc
}

func (c *cancellingLLM) AnalyzeSession(ctx context.Context, _ session.Transcript) (llm.SessionAnalysis, error) {
	c.cancel()
	<-ctx.Done()
	return llm.SessionAnalysis{}, ctx.Err()
}

// TestCancelledMidEvent: an event cut short by a cancellation is processed (its
// analysis recorded as failed) and committed; a restarted consumer goes on after it.
func TestCancelledMidEvent(t *testing.T) {
	mem := eventlog.NewMemory(user("a", 0, "fix it"), hook("a", time.Minute, "SessionEnd"), user("b", 2*time.Minute, "next"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var ends []SessionEnd
	p := newProc(t, DefaultConfig(), Options{LLM: &cancellingLLM{cancel: cancel}, OnStep: func(_ eventlog.Record, s Step) {
		if s.End != nil {
			ends = append(ends, *s.End)
		}
	}})
	if err := p.Drain(ctx, mem.Consumer("c")); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if mem.Committed("c") != 2 || len(ends) != 1 || !ends[0].Failed() || ends[0].Err == "" {
		t.Fatalf("committed %d, ends %+v", mem.Committed("c"), ends)
	}
	var seen []string
	p2 := newProc(t, DefaultConfig(), Options{OnStep: func(r eventlog.Record, _ Step) { seen = append(seen, r.Event.SessionID) }})
	if err := p2.Drain(context.Background(), mem.Consumer("c")); err != nil || fmt.Sprint(seen) != "[b]" {
		t.Errorf("after the restart: %v, %v", seen, err)
	}
}

// TestVibesSessionsEndOnline: session_removed ends a session (the file log keeps the
// subtype that says so: replay/eventlogfile's TestSubtypeRoundTrip), and Run ends a
// session that goes idle at its clock's time.
func TestVibesSessionsEndOnline(t *testing.T) {
	removed := analyze.Event{Kind: analyze.KindSystem, SessionID: "v", Time: t0.Add(time.Minute), Subtype: "session_removed"}
	l := eventlog.NewMemory(user("v", 0, "hello"), removed).Consumer("c")
	var ends []SessionEnd
	p := newProc(t, DefaultConfig(), Options{OnStep: func(_ eventlog.Record, s Step) {
		if s.End != nil {
			ends = append(ends, *s.End)
		}
	}})
	if err := p.Drain(context.Background(), l); err != nil {
		t.Fatal(err)
	}
	if len(ends) != 1 || ends[0].Reason != session.EndSystem || ends[0].Analysis == nil || len(p.OpenSessions()) != 0 {
		t.Errorf("session_removed read from the log: ends %+v, open %v", ends, p.OpenSessions())
	}

	// A session whose events stop: Run ends it at the clock's time.
	mem := eventlog.NewMemory(user("idle", 0, "one message and gone"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg := DefaultConfig()
	cfg.PollWait = 0
	var idle []SessionEnd
	now := t0
	p = newProc(t, cfg, Options{Clock: func() time.Time { now = now.Add(10 * time.Minute); return now },
		OnIdleEnd: func(e []SessionEnd) { idle = append(idle, e...); cancel() }})
	if err := p.Run(ctx, mem.Consumer("c")); !errors.Is(err, context.Canceled) {
		t.Fatalf("run: %v", err)
	}
	if len(idle) != 1 || idle[0].SessionID != "idle" || idle[0].Reason != session.EndTimeout || !idle[0].At.Equal(t0) {
		t.Errorf("idle ends %+v", idle)
	}
	if err := newProc(t, cfg, Options{}).Run(ctx, mem.Consumer("c")); err == nil {
		t.Error("Run without a clock started")
	}
}

// TestSkipFirstMessageOfTheSession: with SkipFirstMessage, only the session's very
// first human message goes unread; where the processor reopens the session after an
// inactivity timeout or an end hook, the first message after the pause answers the
// work before it and is read.
func TestSkipFirstMessageOfTheSession(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Detect.Friction.SkipFirstMessage = true
	p := newProc(t, cfg, Options{})
	steps := process(t, p,
		user("a", 0, "why did the deploy stop halfway?? it still doesn't work"),
		analyze.Event{Kind: analyze.KindAssistantMessage, SessionID: "a", Time: t0.Add(time.Minute), AssistantText: "Fixed the lint errors."},
		user("a", 40*time.Minute, "lint still fails 😭"), // after the inactivity timeout
		hook("a", 41*time.Minute, "SessionEnd"),
		user("a", 50*time.Minute, "no, that's wrong"), // after an end hook
		user("b", 51*time.Minute, "no, that's wrong"), // another session's first
	)
	// The friction signals SkipFirstMessage keeps off (the seed's patterns are not).
	human := func(s Step) bool {
		return slices.ContainsFunc(s.Signals, func(g detect.Signal) bool { return g.Kind >= detect.RepeatRequest && g.Kind <= detect.GiveUp })
	}
	if human(steps[0]) || human(steps[5]) {
		t.Errorf("a session's first message read: %v / %v", steps[0].Signals, steps[5].Signals)
	}
	if len(steps[2].TimedOut) != 1 || !human(steps[2]) || !human(steps[4]) {
		t.Errorf("a resumed session's first message not read: %+v / %v", steps[2], steps[4].Signals)
	}
}

// TestEndedSessionsBounded: the processor remembers at most maxEnded finished
// sessions, forgetting the oldest first.
func TestEndedSessionsBounded(t *testing.T) {
	var e endedSessions
	for i := range maxEnded + 10 {
		e.add(fmt.Sprint("s", i))
		e.add(fmt.Sprint("s", i)) // twice: kept once
	}
	if len(e.set) != maxEnded || len(e.ring) != maxEnded || e.has("s0") || e.has("s9") || !e.has("s10") || !e.has(fmt.Sprint("s", maxEnded+9)) {
		t.Errorf("%d kept, s0 %v, s10 %v", len(e.set), e.has("s0"), e.has("s10"))
	}
}
