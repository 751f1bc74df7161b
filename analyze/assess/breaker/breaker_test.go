package breaker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/loopwatch/loopwatch/analyze/assess/detect"
	"github.com/loopwatch/loopwatch/analyze/assess/duration"
)

var t0 = time.Date(2025, 12, 30, 14, 0, 0, 0, time.UTC)

func at(d time.Duration) time.Time { return t0.Add(d) }

func sig(k detect.Kind) []detect.Signal { return []detect.Signal{{Kind: k}} }

type step struct {
	at      time.Duration
	signals []detect.Signal
	ema     float64
	want    Intervention // 0: none
}

// run feeds steps through a breaker, delivering and recording interventions as the
// processor does, and checks each step's decision.
func run(t *testing.T, cfg Config, steps []step) *CircuitBreaker {
	t.Helper()
	b := New(cfg)
	for i, s := range steps {
		b.Update(at(s.at), s.signals, s.ema)
		got, ok := b.ShouldIntervene(at(s.at))
		if !ok {
			got = 0
		}
		if got != s.want {
			t.Fatalf("step %d (t+%v): intervention %v, want %v; state %+v", i, s.at, got, s.want, b.State(at(s.at)))
		}
		if ok {
			b.RecordIntervention(at(s.at))
		}
	}
	return b
}

// TestCorrectionStorm checks the seed's storm (SeedConfig: 3 corrections inside 5
// minutes, fired whenever the condition holds).
func TestCorrectionStorm(t *testing.T) {
	cfg := SeedConfig()
	corr := sig(detect.UserCorrection)
	t.Run("three inside five minutes", func(t *testing.T) {
		run(t, cfg, []step{
			{at: 0, signals: corr},
			{at: 2 * time.Minute, signals: corr},
			{at: 4*time.Minute + 59*time.Second, signals: corr, want: ClarificationPause},
		})
	})
	t.Run("exactly five minutes is still inside", func(t *testing.T) {
		run(t, cfg, []step{
			{at: 0, signals: corr},
			{at: time.Minute, signals: corr},
			{at: 5 * time.Minute, signals: corr, want: ClarificationPause},
		})
	})
	t.Run("spread over more than five minutes", func(t *testing.T) {
		b := run(t, cfg, []step{
			{at: 0, signals: corr},
			{at: 3 * time.Minute, signals: corr},
			{at: 5*time.Minute + time.Second, signals: corr},
			{at: 9 * time.Minute, signals: nil},
		})
		if s := b.State(at(9 * time.Minute)); s.CorrectionsInWindow != 1 || s.InterventionCount != 0 {
			t.Errorf("state %+v", s)
		}
	})
	t.Run("interrupts count as corrections", func(t *testing.T) {
		c := cfg
		c.InterruptIsCorrection = true
		run(t, c, []step{
			{at: 0, signals: sig(detect.Interrupt)},
			{at: 30 * time.Second, signals: corr},
			{at: time.Minute, signals: sig(detect.Interrupt), want: ClarificationPause},
		})
	})
	t.Run("interrupts ignored when configured", func(t *testing.T) {
		c := cfg
		c.InterruptIsCorrection = false
		b := run(t, c, []step{
			{at: 0, signals: sig(detect.Interrupt)},
			{at: 30 * time.Second, signals: corr},
			{at: time.Minute, signals: sig(detect.Interrupt)},
		})
		if s := b.State(at(time.Minute)); s.CorrectionsInWindow != 1 || s.ConsecutiveFailures != 1 {
			t.Errorf("state %+v", s)
		}
	})
	t.Run("one event counts once", func(t *testing.T) {
		c := cfg
		c.InterruptIsCorrection = true
		b := New(c)
		b.Update(t0, []detect.Signal{{Kind: detect.UserCorrection}, {Kind: detect.Interrupt}}, 0)
		if s := b.State(t0); s.CorrectionsInWindow != 1 || s.ConsecutiveFailures != 1 {
			t.Errorf("state %+v", s)
		}
	})
}

func TestCooldown(t *testing.T) {
	corr := sig(detect.UserCorrection)
	b := run(t, SeedConfig(), []step{
		{at: 0, signals: corr},
		{at: 10 * time.Second, signals: corr},
		{at: 20 * time.Second, signals: corr, want: ClarificationPause},
		// Inside the cooldown: a fresh storm and a high EMA are both suppressed.
		{at: time.Minute, signals: corr, ema: 0.9},
		{at: 2 * time.Minute, signals: corr, ema: 0.9},
		{at: 5*time.Minute + 19*time.Second, signals: nil, ema: 0.9},
		// The cooldown expires on event time (5m after t+20s); the storm is still on.
		{at: 5*time.Minute + 20*time.Second, signals: nil, ema: 0.9, want: ClarificationPause},
	})
	s := b.State(at(5*time.Minute + 20*time.Second))
	if s.InterventionCount != 2 || !s.CooldownActive || !s.LastIntervention.Equal(at(5*time.Minute+20*time.Second)) {
		t.Errorf("state %+v", s)
	}
	if b.State(at(11 * time.Minute)).CooldownActive {
		t.Error("cooldown still active 11 minutes in")
	}
}

// sessionPerEvent is the failure side loopwatch had before per-target streaks: one
// session count, per event, unclassified tool errors counted.
func sessionPerEvent() Config {
	cfg := DefaultConfig()
	cfg.FailureConfig = FailureConfig{FailureThreshold: 3, ToolErrorIsFailure: true, CorrectionIsFailure: true, FailureStreaks: StreaksSession}
	return cfg
}

func TestConsecutiveFailures(t *testing.T) {
	cfg := sessionPerEvent()
	fail, ok := sig(detect.BuildFailure), sig(detect.TestSuccess)
	t.Run("threshold", func(t *testing.T) {
		run(t, cfg, []step{
			{at: 0, signals: fail},
			{at: time.Minute, signals: sig(detect.TestFailure)},
			{at: 2 * time.Minute, signals: sig(detect.ToolFailure), want: ApproachPivot},
		})
	})
	t.Run("reset by a success", func(t *testing.T) {
		b := run(t, cfg, []step{
			{at: 0, signals: fail},
			{at: time.Minute, signals: fail},
			{at: 2 * time.Minute, signals: ok},
			{at: 3 * time.Minute, signals: fail},
			{at: 4 * time.Minute, signals: fail},
		})
		if n := b.State(at(4 * time.Minute)).ConsecutiveFailures; n != 2 {
			t.Errorf("failures = %d, want 2", n)
		}
	})
	t.Run("one failing output counts once", func(t *testing.T) {
		b := New(cfg)
		b.Update(t0, []detect.Signal{{Kind: detect.BuildFailure}, {Kind: detect.TestFailure}, {Kind: detect.LintError}}, 0)
		if n := b.State(t0).ConsecutiveFailures; n != 1 {
			t.Errorf("failures = %d, want 1", n)
		}
	})
	t.Run("lint alone and other signals count nothing", func(t *testing.T) {
		b := New(cfg)
		for _, k := range []detect.Kind{detect.LintError, detect.Frustration, detect.Success} {
			b.Update(t0, sig(k), 0)
		}
		if n := b.State(t0).ConsecutiveFailures; n != 0 {
			t.Errorf("failures = %d", n)
		}
	})
	t.Run("tool errors ignored when configured", func(t *testing.T) {
		c := cfg
		c.ToolErrorIsFailure = false
		b := New(c)
		b.Update(t0, sig(detect.ToolFailure), 0)
		if n := b.State(t0).ConsecutiveFailures; n != 0 {
			t.Errorf("failures = %d", n)
		}
	})
	t.Run("corrections are failures too, as in the seed", func(t *testing.T) {
		c := cfg
		c.CorrectionIsFailure = true
		run(t, c, []step{
			{at: 0, signals: fail},
			{at: 10 * time.Minute, signals: sig(detect.UserCorrection)},
			{at: 20 * time.Minute, signals: fail, want: ApproachPivot},
		})
	})
	t.Run("persisting failures fire again after the cooldown", func(t *testing.T) {
		c := cfg
		c.Cooldown = SeedCooldown()
		run(t, c, []step{
			{at: 0, signals: fail},
			{at: time.Minute, signals: fail},
			{at: 2 * time.Minute, signals: fail, want: ApproachPivot},
			{at: 3 * time.Minute, signals: fail},
			{at: 7 * time.Minute, signals: fail, want: ApproachPivot},
		})
	})
}

func TestFrustrationEMAAndPriority(t *testing.T) {
	run(t, SeedConfig(), []step{
		{at: 0, ema: 0.69},
		{at: time.Minute, ema: 0.70, want: ExplicitCheckIn},
	})
	// Storm beats failures beats EMA.
	cfg := SeedConfig()
	cfg.FailureThreshold = 1
	run(t, cfg, []step{{at: 0, signals: sig(detect.BuildFailure), ema: 0.9, want: ApproachPivot}})
	cfg.CorrectionStorm = 1
	run(t, cfg, []step{{at: 0, signals: sig(detect.UserCorrection), ema: 0.9, want: ClarificationPause}})
}

// TestLoopwatchCorrectionSide checks loopwatch's extensions of the correction and
// frustration side, each against the seed's behaviour it switches off.
func TestLoopwatchCorrectionSide(t *testing.T) {
	cfg := DefaultConfig()
	tests := []struct {
		name  string
		cfg   func(*Config)
		steps []step
		check func(*testing.T, State)
	}{
		{
			name: "every push-back kind is a correction",
			steps: []step{
				{at: 0, signals: sig(detect.NegationReply), ema: 0.1},
				{at: time.Minute, signals: sig(detect.RepeatRequest), ema: 0.1, want: ClarificationPause},
			},
		},
		{
			name: "redirects and correction phrases too",
			steps: []step{
				{at: 0, signals: sig(detect.InterruptRedirect), ema: 0.1},
				{at: time.Minute, signals: sig(detect.CorrectionPhrase), ema: 0.1, want: ClarificationPause},
			},
		},
		{
			name: "the seed counts only user_correction",
			cfg:  func(c *Config) { c.CorrectionKinds = []detect.Kind{detect.UserCorrection} },
			steps: []step{
				{at: 0, signals: sig(detect.NegationReply), ema: 0.1},
				{at: time.Minute, signals: sig(detect.RepeatRequest), ema: 0.1},
			},
			check: func(t *testing.T, s State) {
				if s.CorrectionsInWindow != 0 {
					t.Errorf("state %+v", s)
				}
			},
		},
		{
			name: "doubt, still and exasperation raise the EMA but are not corrections",
			steps: []step{
				{at: 0, signals: sig(detect.StillProblem), ema: 0.1},
				{at: time.Minute, signals: sig(detect.Doubt), ema: 0.15},
				{at: 2 * time.Minute, signals: sig(detect.Exasperation), ema: 0.1},
			},
			check: func(t *testing.T, s State) {
				if s.CorrectionsInWindow != 0 {
					t.Errorf("state %+v", s)
				}
			},
		},
		{
			name: "with correction_is_failure off, corrections are no failure",
			cfg:  func(c *Config) { c.FailureThreshold, c.CorrectionIsFailure = 1, false },
			steps: []step{
				{at: 0, signals: sig(detect.UserCorrection)},
			},
			check: func(t *testing.T, s State) {
				if s.ConsecutiveFailures != 0 {
					t.Errorf("state %+v", s)
				}
			},
		},
		{
			name: "the check-in answers the turn that raised the EMA, not a level left over",
			steps: []step{
				{at: 0, ema: 0.5, want: ExplicitCheckIn},
				{at: time.Minute, ema: 0.5},     // inside the cooldown
				{at: 6 * time.Minute, ema: 0.5}, // after it, but the EMA did not rise
				{at: 7 * time.Minute, ema: 0},   // calm
				{at: 8 * time.Minute, ema: 0.3, want: ExplicitCheckIn},
			},
		},
		{
			name: "a second friction turn is fresh friction even at the level the first left",
			cfg:  func(c *Config) { c.Cooldown = duration.Duration(time.Minute) },
			steps: []step{
				{at: 0, signals: sig(detect.StillProblem), ema: 1, want: ExplicitCheckIn},
				{at: 30 * time.Second, signals: sig(detect.Doubt), ema: 1}, // inside the cooldown
				{at: 2 * time.Minute, signals: sig(detect.TestFailure), ema: 1},
				{at: 3 * time.Minute, signals: sig(detect.StillProblem), ema: 1, want: ExplicitCheckIn},
				{at: 5 * time.Minute, signals: sig(detect.Success), ema: 1}, // not friction
			},
		},
		{
			name: "edge triggering off: a held level fires again after the cooldown, as in the seed",
			cfg:  func(c *Config) { c.EdgeTriggered = false },
			steps: []step{
				{at: 0, ema: 0.5, want: ExplicitCheckIn},
				{at: 6 * time.Minute, ema: 0.5, want: ExplicitCheckIn},
			},
		},
		{
			name: "a storm fires at the correction that completes it, not at a later tool result",
			cfg:  func(c *Config) { c.Cooldown = duration.Duration(time.Minute) },
			steps: []step{
				{at: 0, signals: sig(detect.UserCorrection), ema: 0.1},
				{at: 10 * time.Second, signals: sig(detect.UserCorrection), ema: 0.1, want: ClarificationPause},
				{at: 2 * time.Minute, signals: sig(detect.TestSuccess), ema: 0.1},
				{at: 3 * time.Minute, signals: sig(detect.UserCorrection), ema: 0.1, want: ClarificationPause},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := cfg
			if tt.cfg != nil {
				tt.cfg(&c)
			}
			b := run(t, c, tt.steps)
			if tt.check != nil {
				tt.check(t, b.State(at(tt.steps[len(tt.steps)-1].at)))
			}
		})
	}
}

func TestSeedConfig(t *testing.T) {
	s := SeedConfig()
	if s.CorrectionStorm != 3 || s.FrustrationThreshold != 0.70 || s.InterruptIsCorrection || s.ToolErrorIsFailure ||
		!s.CorrectionIsFailure || s.EdgeTriggered || len(s.CorrectionKinds) != 1 || s.CorrectionKinds[0] != detect.UserCorrection {
		t.Errorf("SeedConfig() = %+v", s)
	}
	if err := s.Validate(); err != nil {
		t.Error(err)
	}
	// The two sides compose: each With… sets its side and keeps the other.
	mixed := WithSeedCorrections(DefaultConfig())
	if !reflect.DeepEqual(mixed.FailureConfig, DefaultFailures()) || mixed.CorrectionStorm != 3 || mixed.EdgeTriggered {
		t.Errorf("WithSeedCorrections(DefaultConfig()) = %+v", mixed)
	}
	back := WithDefaultCorrections(SeedConfig())
	if !reflect.DeepEqual(back.FailureConfig, SeedFailures()) || !reflect.DeepEqual(WithSeedFailures(back), WithSeedFailures(DefaultConfig())) {
		t.Errorf("WithDefaultCorrections(SeedConfig()) = %+v", back)
	}
}

func TestConfig(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatal(err)
	}
	for _, mut := range []func(*Config){
		func(c *Config) { c.CorrectionStorm = 0 },
		func(c *Config) { c.CorrectionWindow = 0 },
		func(c *Config) { c.FailureThreshold = 0 },
		func(c *Config) { c.FrustrationThreshold = 0 },
		func(c *Config) { c.FrustrationThreshold = 1.5 }, // the EMA never gets there
		func(c *Config) { c.FrustrationThreshold = math.NaN() },
		func(c *Config) { c.CorrectionKinds = []detect.Kind{0} },
		func(c *Config) { c.CorrectionKinds = []detect.Kind{detect.Kind(detect.NumKinds)} },
	} {
		c := DefaultConfig()
		mut(&c)
		if c.Validate() == nil {
			t.Errorf("%+v accepted", c)
		}
	}
	var c Config
	in := `{"correction_storm":4,"correction_window":"2m","failure_threshold":2,"frustration_threshold":0.5,"cooldown":"90s",
		"correction_kinds":["user_correction","repeat_request"],"correction_is_failure":true,"edge_triggered":true}`
	if err := json.Unmarshal([]byte(in), &c); err != nil {
		t.Fatal(err)
	}
	if c.CorrectionWindow != duration.Duration(2*time.Minute) || c.Cooldown != duration.Duration(90*time.Second) || c.CorrectionStorm != 4 ||
		len(c.CorrectionKinds) != 2 || c.CorrectionKinds[1] != detect.RepeatRequest || !c.CorrectionIsFailure || !c.EdgeTriggered {
		t.Errorf("decoded %+v", c)
	}
	if err := json.Unmarshal([]byte(`{"correction_kinds":["no_such_kind"]}`), &c); err == nil {
		t.Error("unknown correction kind accepted")
	}
}

func TestMessagesVerbatim(t *testing.T) {
	want := map[Intervention]string{
		ClarificationPause: "Before we continue: I want to make sure I understand what you're looking for. Could you help me understand which part isn't matching your expectations?",
		ApproachPivot:      "I notice my current approach isn't working well. Let me step back and try a different strategy. What would be most helpful right now?",
		ExplicitCheckIn:    "I sense some friction in our session. Would you like to pause and reassess our approach, or should I continue with adjustments?",
	}
	for i, w := range want {
		if i.Message() != w {
			t.Errorf("%v: %q", i, i.Message())
		}
		b, err := i.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back Intervention
		if err := back.UnmarshalText(b); err != nil || back != i {
			t.Errorf("round trip %v: %v %v", i, back, err)
		}
	}
	if Intervention(0).Message() != "" {
		t.Error("zero intervention has a message")
	}
	if _, err := Intervention(9).MarshalText(); err == nil {
		t.Error("invalid intervention marshalled")
	}
}

func TestSinks(t *testing.T) {
	ctx := context.Background()
	m := NewMessage("s1", ApproachPivot, t0)
	var rec RecordingSink
	if err := rec.Deliver(ctx, m); err != nil {
		t.Fatal(err)
	}
	if got := rec.Messages(); len(got) != 1 || got[0] != m {
		t.Errorf("recorded %+v", got)
	}

	ch := make(chan Message, 1)
	if err := (ChannelSink{C: ch}).Deliver(ctx, m); err != nil {
		t.Fatal(err)
	}
	if got := <-ch; got.Content != ApproachPivot.Message() || got.SessionID != "s1" {
		t.Errorf("received %+v", got)
	}
	// A full channel blocks until the context ends.
	full := make(chan Message)
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := (ChannelSink{C: full}).Deliver(cctx, m); !errors.Is(err, context.Canceled) {
		t.Errorf("blocked deliver: %v", err)
	}
}

func TestSeedFailuresLiteral(t *testing.T) {
	cfg := WithSeedFailures(DefaultConfig())
	cfg.FailureThreshold = 3
	t.Run("per signal, in order", func(t *testing.T) {
		b := New(cfg)
		b.Update(t0, []detect.Signal{{Kind: detect.BuildFailure}, {Kind: detect.TestFailure}}, 0)
		if n := b.State(t0).ConsecutiveFailures; n != 2 {
			t.Errorf("a failing cargo test counts %d, want 2 as in the seed's loop", n)
		}
		b.Update(t0, []detect.Signal{{Kind: detect.BuildFailure}, {Kind: detect.TestSuccess}}, 0)
		if n := b.State(t0).ConsecutiveFailures; n != 0 {
			t.Errorf("a success after a failure in one list leaves %d, want 0", n)
		}
		b.Update(t0, []detect.Signal{{Kind: detect.TestSuccess}, {Kind: detect.BuildFailure}}, 0)
		if n := b.State(t0).ConsecutiveFailures; n != 1 {
			t.Errorf("a failure after a success leaves %d, want 1", n)
		}
	})
	t.Run("lint and tool errors count nothing", func(t *testing.T) {
		b := New(cfg)
		b.Update(t0, []detect.Signal{{Kind: detect.LintError}, {Kind: detect.ToolFailure}}, 0)
		if n := b.State(t0).ConsecutiveFailures; n != 0 {
			t.Errorf("failures = %d", n)
		}
	})
	t.Run("the condition persists: ApproachPivot after every cooldown", func(t *testing.T) {
		fail := sig(detect.BuildFailure)
		run(t, cfg, []step{
			{at: 0, signals: fail},
			{at: time.Minute, signals: fail},
			{at: 2 * time.Minute, signals: fail, want: ApproachPivot},
			{at: 7 * time.Minute, signals: nil, want: ApproachPivot},
			{at: 12 * time.Minute, signals: nil, want: ApproachPivot},
		})
	})
}

func TestTargetStreaks(t *testing.T) {
	cfg := DefaultConfig()
	cfg.FailureThreshold = 3
	on := func(k detect.Kind, target string) []detect.Signal { return []detect.Signal{{Kind: k, Target: target}} }
	goFail, goOK := on(detect.TestFailure, "go test"), on(detect.TestSuccess, "go test")
	t.Run("a success of the same kind of command ends the streak", func(t *testing.T) {
		b := run(t, cfg, []step{
			{at: 0, signals: goFail},
			{at: time.Minute, signals: goFail},
			{at: 2 * time.Minute, signals: goOK},
			{at: 3 * time.Minute, signals: goFail},
			{at: 4 * time.Minute, signals: goFail},
		})
		if s := b.State(at(4 * time.Minute)); s.ConsecutiveFailures != 2 || s.FailureTarget != "go test" {
			t.Errorf("state %+v", s)
		}
	})
	t.Run("a run whose outcome could not be read ends the streak too: it may have passed", func(t *testing.T) {
		b := run(t, cfg, []step{
			{at: 0, signals: goFail},
			{at: time.Minute, signals: goFail},
			{at: 2 * time.Minute, signals: on(detect.ToolInconclusive, "go test")},
			{at: 3 * time.Minute, signals: goFail},
			{at: 4 * time.Minute, signals: goFail},
		})
		if s := b.State(at(4 * time.Minute)); s.ConsecutiveFailures != 2 || s.FailureTarget != "go test" {
			t.Errorf("state %+v", s)
		}
	})
	t.Run("another command's success does not", func(t *testing.T) {
		run(t, cfg, []step{
			{at: 0, signals: goFail},
			{at: time.Minute, signals: on(detect.BuildSuccess, "npm build")},
			{at: 2 * time.Minute, signals: on(detect.ToolSuccess, "git push")},
			{at: 2 * time.Minute, signals: on(detect.ToolInconclusive, "npm test")},
			{at: 3 * time.Minute, signals: goFail},
			{at: 4 * time.Minute, signals: goFail, want: ApproachPivot},
		})
	})
	t.Run("different commands make different streaks", func(t *testing.T) {
		b := run(t, cfg, []step{
			{at: 0, signals: goFail},
			{at: time.Minute, signals: on(detect.ToolFailure, "gh pr")},
			{at: 2 * time.Minute, signals: on(detect.LintError, "npm lint")},
			{at: 3 * time.Minute, signals: goFail},
		})
		if s := b.State(at(3 * time.Minute)); s.ConsecutiveFailures != 2 || s.FailureTarget != "go test" {
			t.Errorf("state %+v", s)
		}
	})
	t.Run("one output counts once per target", func(t *testing.T) {
		b := New(cfg)
		b.Update(t0, []detect.Signal{{Kind: detect.BuildFailure, Target: "go test"}, {Kind: detect.TestFailure, Target: "go test"}}, 0)
		if n := b.State(t0).ConsecutiveFailures; n != 1 {
			t.Errorf("failures = %d", n)
		}
	})
	t.Run("one output counts once per target, however many signals it has", func(t *testing.T) {
		c := cfg
		c.LintErrorIsFailure = false // a lint error of a target neither counts nor hides its failures
		kinds := []detect.Kind{detect.BuildFailure, detect.LintError, detect.TestFailure, detect.ToolFailure, detect.ToolSuccess}
		for _, n := range []int{1, 2, lookBack - 1, lookBack, lookBack + 1, 3 * lookBack, 10 * lookBack} {
			var signals []detect.Signal
			want, succeeded := map[string]int{}, map[string]bool{}
			for i := range n {
				sg := detect.Signal{Kind: kinds[i%len(kinds)], Target: fmt.Sprint("cmd ", i%7)}
				signals = append(signals, sg)
				if sg.Kind.IsToolFailure() && sg.Kind != detect.LintError {
					want[sg.Target] = 2 // once an update, two updates
				}
				succeeded[sg.Target] = succeeded[sg.Target] || sg.Kind == detect.ToolSuccess
			}
			for target := range want {
				if succeeded[target] {
					want[target] = 1 // its success ended the first update's streak, before its failure
				}
			}
			b := New(c)
			b.Update(t0, signals, 0)
			b.Update(t0, signals, 0)
			got := map[string]int{}
			for _, st := range b.failures.streaks {
				got[st.target] = st.count
			}
			if !maps.Equal(got, want) {
				t.Errorf("%d signals: streaks %v, want %v", n, got, want)
			}
		}
	})
	t.Run("a passing test run or build ends the toolchain's build streak", func(t *testing.T) {
		b := New(cfg)
		b.Update(t0, on(detect.BuildFailure, "go build"), 0)
		b.Update(t0, on(detect.BuildFailure, "go build"), 0)
		b.Update(t0, goOK, 0)
		if n := b.State(t0).ConsecutiveFailures; n != 0 {
			t.Errorf("failures = %d", n)
		}
	})
	t.Run("ApproachPivot once per streak", func(t *testing.T) {
		run(t, cfg, []step{
			{at: 0, signals: goFail},
			{at: time.Minute, signals: goFail},
			{at: 2 * time.Minute, signals: goFail, want: ApproachPivot},
			{at: 8 * time.Minute, signals: goFail},
			{at: 20 * time.Minute, signals: goFail},
			{at: 21 * time.Minute, signals: goOK},
			{at: 22 * time.Minute, signals: goFail},
			{at: 23 * time.Minute, signals: goFail},
			{at: 24 * time.Minute, signals: goFail, want: ApproachPivot},
		})
	})
	t.Run("ApproachPivot again after the cooldown when switched off", func(t *testing.T) {
		c := cfg
		c.PivotOncePerStreak = false
		run(t, c, []step{
			{at: 0, signals: goFail},
			{at: time.Minute, signals: goFail},
			{at: 2 * time.Minute, signals: goFail, want: ApproachPivot},
			{at: 8 * time.Minute, signals: nil, want: ApproachPivot},
		})
	})
	t.Run("corrections make a streak of their own, ended by a build or test success", func(t *testing.T) {
		b := New(cfg)
		b.Update(t0, sig(detect.UserCorrection), 0)
		b.Update(t0.Add(10*time.Minute), sig(detect.UserCorrection), 0)
		b.Update(t0.Add(20*time.Minute), goFail, 0)
		if s := b.State(t0); s.ConsecutiveFailures != 2 || s.FailureTarget != humanTarget {
			t.Errorf("state %+v", s)
		}
		b.Update(t0.Add(21*time.Minute), on(detect.BuildSuccess, "cargo build"), 0)
		if s := b.State(t0); s.ConsecutiveFailures != 1 || s.FailureTarget != "go test" {
			t.Errorf("state %+v", s)
		}
	})
	t.Run("the human's words of success end the corrections' streak too", func(t *testing.T) {
		b := New(cfg)
		b.Update(t0, sig(detect.UserCorrection), 0)
		b.Update(t0.Add(10*time.Minute), sig(detect.UserCorrection), 0)
		b.Update(t0.Add(20*time.Minute), sig(detect.Success), 0) // "perfect, that works"
		b.Update(t0.Add(30*time.Minute), sig(detect.UserCorrection), 0)
		if s := b.State(t0); s.ConsecutiveFailures != 1 || s.FailureTarget != humanTarget {
			t.Errorf("state %+v", s)
		}
		// Words of success in a correction ("thanks but no, that's wrong") or beside
		// friction ("great, it broke again 😤") end nothing.
		b.Update(t0.Add(40*time.Minute), []detect.Signal{{Kind: detect.Success}, {Kind: detect.UserCorrection}}, 0)
		b.Update(t0.Add(50*time.Minute), []detect.Signal{{Kind: detect.Success}, {Kind: detect.Exasperation}}, 0)
		if s := b.State(t0); s.ConsecutiveFailures != 2 {
			t.Errorf("state %+v", s)
		}
	})
	t.Run("lint and tool errors ignored when configured", func(t *testing.T) {
		c := cfg
		c.LintErrorIsFailure, c.ToolErrorIsFailure = false, false
		b := New(c)
		for i := 0; i < 5; i++ {
			b.Update(t0, []detect.Signal{{Kind: detect.LintError, Target: "npm lint"}, {Kind: detect.ToolFailure, Target: "git push"}}, 0)
		}
		if n := b.State(t0).ConsecutiveFailures; n != 0 {
			t.Errorf("failures = %d", n)
		}
	})
	t.Run("a passing test run ends every test streak, whatever command ran it", func(t *testing.T) {
		b := run(t, cfg, []step{
			{at: 0, signals: on(detect.TestFailure, "node test")}, // npx vitest run
			{at: time.Minute, signals: on(detect.TestFailure, "node test")},
			{at: 2 * time.Minute, signals: on(detect.BuildFailure, "node build")},
			{at: 2 * time.Minute, signals: on(detect.BuildFailure, "node build")},
			{at: 2 * time.Minute, signals: on(detect.TestFailure, "git commit")}, // refused by its hook's tests
			{at: 2 * time.Minute, signals: on(detect.TestFailure, "git commit")},
			{at: 3 * time.Minute, signals: on(detect.TestSuccess, "npm test")}, // pnpm test
			{at: 4 * time.Minute, signals: on(detect.TestFailure, "node test")},
		})
		if s := b.State(at(4 * time.Minute)); s.ConsecutiveFailures != 2 || s.FailureTarget != "node build" {
			t.Errorf("state %+v: the test streak goes on, or the build streak ended", s)
		}
		if n := b.failures.streaks[b.failures.find("git commit")].count; n != 2 {
			t.Errorf("git commit's streak %d, want 2: a passing suite is no passing commit", n)
		}
		// Another toolchain's suite passing says nothing of this one; a task runner's
		// may run it.
		run(t, cfg, []step{
			{at: 0, signals: goFail},
			{at: time.Minute, signals: goFail},
			{at: 2 * time.Minute, signals: on(detect.TestSuccess, "npm test")},
			{at: 3 * time.Minute, signals: goFail, want: ApproachPivot},
		})
		b = run(t, cfg, []step{
			{at: 0, signals: goFail},
			{at: time.Minute, signals: goFail},
			{at: 2 * time.Minute, signals: on(detect.TestSuccess, "make test")},
			{at: 3 * time.Minute, signals: goFail},
		})
		if n := b.State(at(3 * time.Minute)).ConsecutiveFailures; n != 1 {
			t.Errorf("after a passing make test, go test's streak is %d, want 1", n)
		}
		c := cfg
		c.TestSuccessEndsTests = false
		run(t, c, []step{
			{at: 0, signals: on(detect.TestFailure, "node test")},
			{at: time.Minute, signals: on(detect.TestFailure, "node test")},
			{at: 3 * time.Minute, signals: on(detect.TestSuccess, "npm test")},
			{at: 4 * time.Minute, signals: on(detect.TestFailure, "node test"), want: ApproachPivot},
		})
	})
	counts := func(failed, passed uint16) []detect.Signal {
		return []detect.Signal{{Kind: detect.TestFailure, Target: "rspec", Failed: failed, Passed: passed}}
	}
	for _, tc := range []struct {
		name  string
		steps [][2]uint16 // failed, passed
		pivot bool        // at the last step
	}{
		{"fewer tests failing each run is progress, not a streak", [][2]uint16{{5, 1}, {4, 2}, {3, 3}, {2, 4}, {1, 5}}, false},
		{"more tests passing, as tests are added one by one, is progress", [][2]uint16{{1, 0}, {1, 1}, {1, 2}, {1, 3}, {1, 4}}, false},
		{"the same failures again is a streak", [][2]uint16{{2, 3}, {2, 3}, {2, 3}}, true},
		{"back and forth between the same counts is a streak", [][2]uint16{{3, 1}, {2, 2}, {3, 1}, {2, 2}}, true},
		{"worse is a streak", [][2]uint16{{1, 4}, {2, 3}, {4, 1}}, true},
		{"failures without counts lengthen it as before", [][2]uint16{{0, 0}, {2, 3}, {0, 0}}, true},
		{"a larger subset with the same test failing is no progress", [][2]uint16{{3, 97}, {1, 10}, {1, 20}}, true},
		{"fewer failing where no passes are counted is progress", [][2]uint16{{6, 0}, {5, 0}, {3, 0}, {2, 0}, {1, 0}}, false},
		{"one test's run and the suite's in turn are no progress", [][2]uint16{{1, 0}, {3, 97}, {1, 0}}, true},
		{"… nor the suite's and one test's", [][2]uint16{{3, 97}, {1, 0}, {3, 97}}, true},
		{"two suites of one target in turn are no progress", [][2]uint16{{2, 10}, {1, 3}, {2, 10}}, true},
		{"the suite failing less after a single test's run is", [][2]uint16{{3, 97}, {1, 0}, {2, 98}, {2, 98}, {1, 99}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var steps []step
			for i, c := range tc.steps {
				steps = append(steps, step{at: time.Duration(i) * time.Minute, signals: counts(c[0], c[1])})
			}
			if tc.pivot {
				steps[len(steps)-1].want = ApproachPivot
			}
			run(t, cfg, steps)
			// The seed's literal side and the option off count every failure.
			c := cfg
			c.ProgressRestartsStreak = false
			steps[len(steps)-1].want = 0
			if len(steps) >= c.FailureThreshold {
				steps[c.FailureThreshold-1].want = ApproachPivot
			}
			run(t, c, steps)
		})
	}
	t.Run("progress in one file after the whole suite failed is progress", func(t *testing.T) {
		// A session of the corpus (mix test): one file's test failing (1 of 58), the
		// suite (12 of 127), then a file's 12 tests failing 12, 11, 2.
		var steps []step
		for i, c := range [][2]uint16{{1, 57}, {12, 115}, {12, 0}, {11, 1}, {2, 10}} {
			steps = append(steps, step{at: time.Duration(i) * time.Minute, signals: counts(c[0], c[1])})
		}
		b := run(t, DefaultConfig(), steps)
		if n := b.State(at(4 * time.Minute)).ConsecutiveFailures; n != 1 {
			t.Errorf("streak %d, want 1", n)
		}
	})
	t.Run("one test's pass ends no streak of the suite failing around it", func(t *testing.T) {
		pass := func(n uint16, target string) []detect.Signal {
			return []detect.Signal{{Kind: detect.TestSuccess, Target: target, Passed: n}}
		}
		suite := func() []detect.Signal {
			return []detect.Signal{{Kind: detect.TestFailure, Target: "python test", Failed: 3, Passed: 97}}
		}
		run(t, cfg, []step{
			{at: 0, signals: suite()},
			{at: time.Minute, signals: pass(1, "python test")}, // pytest t.py::test_a
			{at: 2 * time.Minute, signals: suite()},
			{at: 3 * time.Minute, signals: pass(1, "make test")},
			{at: 4 * time.Minute, signals: suite(), want: ApproachPivot},
		})
		// The whole suite passing, or a pass of unknown size, ends it.
		for _, p := range [][]detect.Signal{pass(100, "python test"), pass(0, "python test")} {
			b := New(cfg)
			b.Update(t0, suite(), 0)
			b.Update(t0, suite(), 0)
			b.Update(t0, p, 0)
			if n := b.State(t0).ConsecutiveFailures; n != 0 {
				t.Errorf("%v: streak %d, want 0", p, n)
			}
		}
		c := cfg
		c.ProgressRestartsStreak = false
		b := New(c)
		b.Update(t0, suite(), 0)
		b.Update(t0, pass(1, "python test"), 0)
		if n := b.State(t0).ConsecutiveFailures; n != 0 {
			t.Errorf("without the switch, any pass ends it: streak %d", n)
		}
	})
	t.Run("a streak ended by a success forgets its counts", func(t *testing.T) {
		b := New(cfg)
		b.Update(t0, counts(2, 3), 0)
		b.Update(t0, on(detect.TestSuccess, "rspec"), 0)
		b.Update(t0, counts(3, 2), 0)
		b.Update(t0, counts(2, 3), 0) // progress over this streak's run, though the old streak had it
		if n := b.State(t0).ConsecutiveFailures; n != 1 {
			t.Errorf("streak %d, want 1", n)
		}
	})
	t.Run("the streaks kept are bounded", func(t *testing.T) {
		b := New(cfg)
		for i := 0; i < 10*maxStreaks; i++ {
			b.Update(t0, on(detect.ToolFailure, fmt.Sprint("cmd ", i)), 0)
		}
		b.Update(t0, goFail, 0)
		b.Update(t0, goFail, 0)
		if len(b.failures.streaks) > maxStreaks || b.State(t0).ConsecutiveFailures != 2 {
			t.Errorf("%d streaks, state %+v", len(b.failures.streaks), b.State(t0))
		}
	})
}

func TestFailureConfigValidate(t *testing.T) {
	for _, c := range []FailureConfig{
		{FailureThreshold: 0, FailureStreaks: StreaksTarget},
		{FailureThreshold: 3, FailureStreaks: "global"},
		{FailureThreshold: 3, FailureStreaks: StreaksTarget, CountPerSignal: true},
	} {
		if c.Validate() == nil {
			t.Errorf("%+v validated", c)
		}
	}
	for _, c := range []FailureConfig{SeedFailures(), DefaultFailures()} {
		if err := c.Validate(); err != nil {
			t.Errorf("%+v: %v", c, err)
		}
	}
}

// TestReset checks that a breaker reset after a session decides the next one as a new
// breaker does, whatever the first left in it: corrections in the window, an
// intervention in its cooldown, more failure streaks than it keeps.
func TestReset(t *testing.T) {
	var busy []step // a session that leaves everything set
	for i := range 3 * maxStreaks {
		busy = append(busy, step{at: time.Duration(i) * time.Second, signals: []detect.Signal{
			{Kind: detect.UserCorrection}, {Kind: detect.TestFailure, Target: fmt.Sprint("go test ./", i%(2*maxStreaks))}}, ema: 0.9})
	}
	goFail := []detect.Signal{{Kind: detect.TestFailure, Target: "go test ./0"}}
	for i := range 5 {
		busy = append(busy, step{at: time.Duration(3*maxStreaks+i) * time.Second, signals: goFail, ema: 0.9})
	}
	end := busy[len(busy)-1].at
	next := []step{ // the next session: the same target, at once
		{at: end + time.Second, signals: goFail, ema: 0.1},
		{at: end + time.Minute, signals: sig(detect.UserCorrection), ema: 0.2},
		{at: end + 2*time.Minute, signals: goFail, ema: 0.3},
		{at: end + 3*time.Minute, signals: goFail, ema: 0.95},
		{at: end + 4*time.Minute, signals: sig(detect.UserCorrection)},
		{at: end + 5*time.Minute, signals: sig(detect.UserCorrection)},
		{at: end + 40*time.Minute, signals: goFail, ema: 0.95},
	}
	for name, cfg := range map[string]Config{"default": DefaultConfig(), "seed": SeedConfig()} {
		t.Run(name, func(t *testing.T) {
			feed := func(b *CircuitBreaker, steps []step) []State { // as the processor does
				var states []State
				for _, s := range steps {
					b.Update(at(s.at), s.signals, s.ema)
					if _, ok := b.ShouldIntervene(at(s.at)); ok {
						b.RecordIntervention(at(s.at))
					}
					states = append(states, b.State(at(s.at)))
				}
				return states
			}
			used := New(cfg)
			if st := feed(used, busy)[len(busy)-1]; st.InterventionCount == 0 || st.CorrectionsInWindow == 0 || st.ConsecutiveFailures < 2 || !st.CooldownActive {
				t.Fatalf("the first session left nothing to reset: %+v", st)
			}
			used.Reset(cfg)
			got, want := feed(used, next), feed(New(cfg), next)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("after Reset:\n%+v\nnew:\n%+v", got, want)
			}
			var interventions int
			for _, st := range want {
				interventions = max(interventions, st.InterventionCount)
			}
			if interventions == 0 {
				t.Errorf("the next session intervenes nowhere: it checks too little")
			}
		})
	}
}
