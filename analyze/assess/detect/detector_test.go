package detect

import (
	"math"
	"slices"
	"testing"

	"github.com/loopwatch/loopwatch/analyze"
)

func user(text string) analyze.Event {
	return analyze.Event{Kind: analyze.KindUserMessage, SessionID: "s", UserContent: text}
}

func TestEmaTracker(t *testing.T) {
	e := NewEmaTracker(0.3)
	want := 0.0
	for i, x := range []float64{1, 1, 0, 0.5, 1} {
		want = 0.3*x + 0.7*want
		if got := e.Update(x); math.Abs(got-want) > 1e-12 {
			t.Fatalf("step %d: %v want %v", i, got, want)
		}
	}
	if e.Updates() != 5 || e.Value() != want {
		t.Errorf("Updates=%d Value=%v", e.Updates(), e.Value())
	}
}

func TestEMAConfigValidate(t *testing.T) {
	for _, c := range []EMAConfig{{Alpha: 0}, {Alpha: 1.5}, {Alpha: math.NaN()}, {Alpha: 0.3, SuccessWeight: -1}} {
		if c.Validate() == nil {
			t.Errorf("%+v accepted", c)
		}
	}
	if err := DefaultEMAConfig().Validate(); err != nil {
		t.Error(err)
	}
}

func TestDetectorEventRouting(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Friction.SkipFirstMessage = false // each event is a fresh detector's first
	rules := MustCompile(cfg)
	tests := []struct {
		name string
		ev   analyze.Event
		want []Kind
	}{
		{"user frustration+correction", user("no, that's wrong"), []Kind{Frustration, Frustration, UserCorrection, NegationReply, CorrectionPhrase}},
		{"assistant text never scanned", analyze.Event{Kind: analyze.KindAssistantMessage, AssistantText: "Perfect! No, that's wrong"}, nil},
		{"sidechain prompt is not the human", analyze.Event{Kind: analyze.KindUserMessage, Sidechain: true, UserContent: "no, that's wrong"}, nil},
		{"interrupt before the agent acted is the human's own", analyze.Event{Kind: analyze.KindInterrupt, UserContent: "[Request interrupted by user]"}, nil},
		{"sidechain interrupt ignored", analyze.Event{Kind: analyze.KindInterrupt, Sidechain: true}, nil},
		{"tool output", analyze.Event{Kind: analyze.KindToolResult, ToolOutput: cargoTestOK}, []Kind{TestSuccess}},
		{"sidechain tool output", analyze.Event{Kind: analyze.KindToolResult, Sidechain: true, ToolOutput: "x", ToolStatus: analyze.ToolStatusError}, []Kind{ToolFailure}},
		{"user content on a tool event is not read", analyze.Event{Kind: analyze.KindToolResult, UserContent: "try again", ToolOutput: "fine"}, nil},
		{"tool output on a user event is not read", analyze.Event{Kind: analyze.KindUserMessage, UserContent: "ok", ToolOutput: "error:"}, nil},
		{"hook", analyze.Event{Kind: analyze.KindHook, HookName: "Stop"}, nil},
	}
	for _, tt := range tests {
		d := NewLightweightDetector(rules)
		if got := kinds(d.Detect(tt.ev)); !slices.Equal(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
	d := NewLightweightDetector(rules)
	d.Detect(analyze.Event{Kind: analyze.KindAssistantMessage, AssistantText: "Running the tests."})
	if got := kinds(d.Detect(analyze.Event{Kind: analyze.KindInterrupt})); !slices.Equal(got, []Kind{Interrupt}) {
		t.Errorf("interrupt after the agent acted: %v", got)
	}
	noSide := DefaultConfig()
	noSide.SidechainToolSignals = false
	d = NewLightweightDetector(MustCompile(noSide))
	if got := d.Detect(analyze.Event{Kind: analyze.KindToolResult, Sidechain: true, ToolStatus: analyze.ToolStatusError}); got != nil {
		t.Errorf("SidechainToolSignals=false: %v", got)
	}
}

// TestDetectorEMAs checks the EMA arithmetic on human turns only, with the seed's
// weights and an interrupt weight of 1.
func TestDetectorEMAs(t *testing.T) {
	cfg := DefaultConfig()
	cfg.EMA = SeedEMAConfig()
	cfg.EMA.EveryEvent, cfg.EMA.InterruptWeight = false, 1
	cfg.Friction = SeedFrictionConfig()
	d := NewLightweightDetector(MustCompile(cfg))
	steps := []struct {
		ev         analyze.Event
		fr, su     float64
		frAfterMsg string
	}{
		{ev: user("add a flag"), fr: 0, su: 0},
		{ev: user("no, that's wrong"), fr: 0.3, su: 0},                                                  // value min(1, .5+.5+.5)=1
		{ev: analyze.Event{Kind: analyze.KindToolResult, ToolStatus: analyze.ToolStatusError}, fr: 0.3}, // tools leave EMAs alone
		{ev: analyze.Event{Kind: analyze.KindAssistantMessage, AssistantText: "sorry"}, fr: 0.3},
		{ev: analyze.Event{Kind: analyze.KindInterrupt}, fr: 0.51}, // 0.3*1 + 0.7*0.3
		{ev: user("try again"), fr: 0.507},                         // 0.3*0.5 + 0.7*0.51
		{ev: user("perfect, thanks"), fr: 0.3549, su: 0.3},         // success value 1
		{ev: analyze.Event{Kind: analyze.KindUserMessage, Sidechain: true, UserContent: "try again"}, fr: 0.3549, su: 0.3},
	}
	for i, s := range steps {
		d.Detect(s.ev)
		if math.Abs(d.FrustrationEMA()-s.fr) > 1e-9 || math.Abs(d.SuccessEMA()-s.su) > 1e-9 {
			t.Fatalf("step %d: frustration %v success %v, want %v %v", i, d.FrustrationEMA(), d.SuccessEMA(), s.fr, s.su)
		}
	}
}

// TestEMAEveryEvent checks the seed's EMAs: every event moves them, so tool results
// and assistant text decay the frustration of the human's last turn.
func TestEMAEveryEvent(t *testing.T) {
	d := NewLightweightDetector(MustCompile(SeedConfig()))
	steps := []struct {
		ev analyze.Event
		fr float64
	}{
		{user("no, that's wrong"), 0.3}, // value min(1, .5 + .5): one seed pattern and a correction
		{analyze.Event{Kind: analyze.KindToolResult, ToolStatus: analyze.ToolStatusOK}, 0.21},
		{analyze.Event{Kind: analyze.KindAssistantMessage, AssistantText: "sorry"}, 0.147},
		{analyze.Event{Kind: analyze.KindInterrupt}, 0.1029}, // the seed gives an interrupt no weight
	}
	for i, s := range steps {
		d.Detect(s.ev)
		if math.Abs(d.FrustrationEMA()-s.fr) > 1e-9 {
			t.Fatalf("step %d: frustration %v, want %v", i, d.FrustrationEMA(), s.fr)
		}
	}
}

// TestDefaultEMAWeights checks that each friction signal moves the default EMA by its
// weight, and that the seed's patterns do not.
func TestDefaultEMAWeights(t *testing.T) {
	c := DefaultEMAConfig()
	for _, k := range []Kind{RepeatRequest, InterruptRedirect, NegationReply, StillProblem, Doubt, CorrectionPhrase, Exasperation, GiveUp} {
		if v := c.FrustrationValue([]Signal{{Kind: k}}); v != 0.5 {
			t.Errorf("%v: value %v, want 0.5", k, v)
		}
	}
	for _, k := range []Kind{Frustration, UserCorrection, Interrupt, Success, BuildFailure} {
		if v := c.FrustrationValue([]Signal{{Kind: k}}); v != 0 {
			t.Errorf("%v: value %v, want 0", k, v)
		}
	}
	if v := c.FrustrationValue([]Signal{{Kind: StillProblem}, {Kind: Doubt}, {Kind: NegationReply}}); v != 1 {
		t.Errorf("capped value %v", v)
	}
	bad := c
	bad.DoubtWeight = -1
	if bad.Validate() == nil {
		t.Error("negative doubt weight accepted")
	}
}

func TestCompileErrors(t *testing.T) {
	bad := DefaultConfig()
	bad.EMA.Alpha = 0
	if _, err := Compile(bad); err == nil {
		t.Error("alpha 0 accepted")
	}
	bad = DefaultConfig()
	bad.Patterns.Correction = []string{"("}
	if _, err := Compile(bad); err == nil {
		t.Error("bad pattern accepted")
	}
	bad = DefaultConfig()
	bad.ExtraToolRules = []ToolRule{{Name: "x", Signal: TestSuccess}}
	if _, err := Compile(bad); err == nil {
		t.Error("empty rule accepted")
	}
	for name, mut := range map[string]func(*Config){
		"negative window":          func(c *Config) { c.Window.Head = -1 },
		"repeat history 0":         func(c *Config) { c.Friction.Repeat.History = 0 },
		"repeat history 65":        func(c *Config) { c.Friction.Repeat.History = 65 },
		"repeat threshold 0":       func(c *Config) { c.Friction.Repeat.Threshold = 0 },
		"repeat threshold 1.5":     func(c *Config) { c.Friction.Repeat.Threshold = 1.5 },
		"repeat min tokens 0":      func(c *Config) { c.Friction.Repeat.MinTokens = 0 },
		"redirect within negative": func(c *Config) { c.Friction.Redirect.Within = -1 },
		"redirect resubmit 0":      func(c *Config) { c.Friction.Redirect.ResubmitOverlap = 0 },
		"one question mark":        func(c *Config) { c.Friction.DoubtQuestionMarks = 1 },
		"negative negation tokens": func(c *Config) { c.Friction.NegationMaxTokens = -1 },
		"bad lexicon phrase":       func(c *Config) { c.Friction.Lexicon.Still = append(c.Friction.Lexicon.Still, "* still") },
		"negative exasperation":    func(c *Config) { c.EMA.ExasperationWeight = -0.5 },
	} {
		bad := DefaultConfig()
		mut(&bad)
		if _, err := Compile(bad); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
	// Switched-off signals are not validated.
	off := DefaultConfig()
	off.Friction.Repeat = RepeatConfig{}
	off.Friction.Redirect = RedirectConfig{}
	if _, err := Compile(off); err != nil {
		t.Errorf("repeat and redirect off: %v", err)
	}
}

func TestSignalsDoNotAllocateWithoutHits(t *testing.T) {
	rules := MustCompile(DefaultConfig())
	d := NewLightweightDetector(rules)
	evs := []analyze.Event{
		user("please add a --verbose flag to the replay command"),
		{Kind: analyze.KindToolResult, ToolOutput: "total 8\ndrwxr-xr-x 2 root root 4096 main.go", ToolStatus: analyze.ToolStatusOK},
		{Kind: analyze.KindAssistantMessage, AssistantText: "Done."},
	}
	for _, ev := range evs {
		// forget: the same message again would be a repeated request, a signal.
		if n := testing.AllocsPerRun(100, func() { d.Detect(ev); d.forget() }); n != 0 {
			t.Errorf("%s: %v allocs per Detect", ev.Kind, n)
		}
	}
	// A session's history of distinct requests, compared at every message, allocates
	// nothing either.
	var msgs []analyze.Event
	for _, task := range []string{"add a flag for verbose output", "rename the parser package", "document the config fields",
		"split the replay command into files", "write a benchmark for the tokenizer"} {
		for _, where := range []string{"in cmd", "in eval", "in reports", "in replay"} {
			msgs = append(msgs, user(task+" "+where+" then run every test"))
		}
	}
	i := 0
	if n := testing.AllocsPerRun(200, func() { d.Detect(msgs[i%len(msgs)]); i++ }); n != 0 {
		t.Errorf("history: %v allocs per Detect", n)
	}
}

func TestDetectorKeepsToolSuccessThatEndsAFailure(t *testing.T) {
	d := NewLightweightDetector(MustCompile(DefaultConfig()))
	bash := func(cmd, out string, st analyze.ToolStatus) analyze.Event {
		return analyze.Event{Kind: analyze.KindToolResult, ToolName: "Bash", ToolCommand: cmd, ToolOutput: out, ToolStatus: st}
	}
	ok, bad := analyze.ToolStatusOK, analyze.ToolStatusError
	for i, tt := range []struct {
		ev   analyze.Event
		want string
	}{
		{bash("git add -A", "", ok), "none"},
		{bash("git push", "Exit code 1\nrejected", bad), "tool_failure@git push"},
		{bash("git add -A", "", ok), "none"},
		{bash("git push", "done", ok), "tool_success@git push"},
		{bash("git push", "done", ok), "none"},
		{bash("go test ./...", "ok  \tx\t1s", ok), "test_success@go test"},
		// A run no verdict can be read for is kept only where it ends a failure.
		{bash("go test ./... 2>&1 | tail -3", "(output cut)", ok), "none"},
		{bash("go test ./...", "Exit code 1\n--- FAIL: TestX\nFAIL\tx", bad), "test_failure@go test"},
		{bash("go test ./... 2>&1 | tail -3", "(output cut)", ok), "tool_inconclusive@go test"},
		{bash("go test ./... 2>&1 | tail -3", "(output cut)", ok), "none"},
	} {
		if got := renderSignals(d.Detect(tt.ev)); got != tt.want {
			t.Errorf("event %d: %s, want %s", i, got, tt.want)
		}
	}
}
