package baseline

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loopwatch/loopwatch/analyze"
)

func user(text string) analyze.Event {
	return analyze.Event{Kind: analyze.KindUserMessage, UserContent: text}
}
func assistant(text string) analyze.Event {
	return analyze.Event{Kind: analyze.KindAssistantMessage, AssistantText: text}
}
func tool(status analyze.ToolStatus) analyze.Event {
	return analyze.Event{Kind: analyze.KindToolResult, ToolName: "Bash", ToolOutput: "error: it failed", ToolStatus: status}
}
func system(subtype string) analyze.Event {
	return analyze.Event{Kind: analyze.KindSystem, Subtype: subtype}
}
func hook(name string) analyze.Event { return analyze.Event{Kind: analyze.KindHook, HookName: name} }
func sidechain(ev analyze.Event) analyze.Event {
	ev.Sidechain = true
	return ev
}

func TestVibesSignalsOf(t *testing.T) {
	tests := []struct {
		name      string
		ev        analyze.Event
		sidechain bool
		want      VibesSignals
	}{
		{"a user message is scanned", user("this is wrong and broken, thanks"), true,
			VibesSignals{Buffered: true, Relevant: true, Negative: 2, Positive: 1}},
		{"assistant text is scanned too", assistant("Done! The error is fixed and it works."), true,
			VibesSignals{Buffered: true, Relevant: true, Negative: 1, Positive: 2}},
		{"a failed tool result is a tool failure; its output is not scanned", tool(analyze.ToolStatusError), true,
			VibesSignals{Buffered: true, Relevant: true, ToolFailure: true}},
		{"a tool result that succeeded is relevant without signal", tool(analyze.ToolStatusOK), true,
			VibesSignals{Buffered: true, Relevant: true}},
		{"a tool result without status is no failure", tool(analyze.ToolStatusUnknown), true,
			VibesSignals{Buffered: true, Relevant: true}},
		{"vibes' error event", system("error"), true, VibesSignals{Buffered: true, Relevant: true, ErrorEvent: true}},
		{"Claude Code's API error", system("api_error"), true, VibesSignals{Buffered: true, Relevant: true, ErrorEvent: true}},
		{"another system record is buffered only", system("compact_boundary"), true, VibesSignals{Buffered: true}},
		{"a prompt-less UserPromptSubmit is relevant and empty", hook("UserPromptSubmit"), true,
			VibesSignals{Buffered: true, Relevant: true}},
		{"a Stop hook is buffered only", hook("Stop"), true, VibesSignals{Buffered: true}},
		{"an interrupt is buffered only", analyze.Event{Kind: analyze.KindInterrupt, UserContent: "[Request interrupted by user]"}, true,
			VibesSignals{Buffered: true}},
		{"a subagent's prompt does not reach vibes", sidechain(user("error")), true, VibesSignals{}},
		{"nor does its text", sidechain(assistant("error")), true, VibesSignals{}},
		{"nor its API errors", sidechain(system("api_error")), true, VibesSignals{}},
		{"its tool results do by default", sidechain(tool(analyze.ToolStatusError)), true,
			VibesSignals{Buffered: true, Relevant: true, ToolFailure: true}},
		{"and not when switched off", sidechain(tool(analyze.ToolStatusError)), false, VibesSignals{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := VibesSignalsOf(&tt.ev, tt.sidechain); got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

// at returns evs with times: the i-th at t0 plus secs[i] seconds.
func at(secs []float64, evs ...analyze.Event) []analyze.Event {
	for i := range evs {
		evs[i].Time = t0.Add(time.Duration(secs[i] * float64(time.Second)))
	}
	return evs
}

func TestVibesEMA(t *testing.T) {
	cfg := DefaultVibesConfig()
	evs := at([]float64{0, 1, 2, 3, 4, 5},
		user("error"),                           // 1 signal: 0.3
		tool(analyze.ToolStatusError),           // 1 signal: 0.3
		hook("Stop"),                            // not relevant: unchanged
		user("error, failed, wrong and broken"), // 4 signals: min(1.2, 1)
		system("api_error"),                     // the error event: 0.3
		user("thanks, perfect"),                 // 2 positive: 0.6; frustration 0
	)
	res, err := VibesSession(evs, cfg)
	if err != nil {
		t.Fatal(err)
	}
	f, s := 0.0, 0.0
	var wantF, wantS []float64
	for _, v := range [][2]float64{{0.3, 0}, {0.3, 0}, {-1, -1}, {1, 0}, {0.3, 0}, {0, 0.6}} {
		if v[0] >= 0 {
			f, s = 0.2*v[0]+0.8*f, 0.2*v[1]+0.8*s
		}
		wantF, wantS = append(wantF, f), append(wantS, s)
	}
	for i, st := range res.Steps {
		if math.Abs(st.FrustrationEMA-wantF[i]) > 1e-12 || math.Abs(st.SuccessEMA-wantS[i]) > 1e-12 {
			t.Errorf("event %d: EMAs %v, %v; want %v, %v", i, st.FrustrationEMA, st.SuccessEMA, wantF[i], wantS[i])
		}
	}
	if res.PeakFrustration != slices.Max(wantF) || res.Relevant != 5 {
		t.Errorf("peak %v relevant %d, want %v 5", res.PeakFrustration, res.Relevant, slices.Max(wantF))
	}
	cfg.Alpha = 7 // clamped to 1: the EMA is the last value
	res, _ = VibesSession(evs[:1], cfg)
	if got := res.Steps[0].FrustrationEMA; got != 0.3 {
		t.Errorf("alpha clamped to 1: %v, want 0.3", got)
	}
}

type breakerCase struct {
	name          string
	secs          []float64
	evs           []analyze.Event
	cfg           func(*VibesConfig)
	transitions   string // one letter an event: . none, O opened, R reopened, H half-opened, C closed, ½ halved
	interventions []int
	scores        []float64 // the score after each event (nil: not checked)
	peak          float64
}

func TestVibesBreaker(t *testing.T) {
	neg, neg2, pos, fail := user("wrong"), user("wrong, broken"), user("great"), tool(analyze.ToolStatusError)
	stop := hook("Stop")
	tests := []breakerCase{
		{name: "two hits in one message open it at once (1.6)", secs: []float64{0}, evs: []analyze.Event{neg2},
			transitions: "O", interventions: []int{0}, scores: []float64{0}, peak: 1.6},
		{name: "a hit and a tool failure add up to 1.3", secs: []float64{0, 5}, evs: []analyze.Event{neg, fail},
			transitions: ".O", interventions: []int{1}, scores: []float64{0.8, 0}, peak: 1.3},
		{name: "two tool failures reach 1.0 exactly", secs: []float64{0, 5}, evs: []analyze.Event{fail, fail},
			transitions: ".O", interventions: []int{1}, peak: 1},
		{name: "an error event alone scores 1.0", secs: []float64{0}, evs: []analyze.Event{system("error")},
			transitions: "O", interventions: []int{0}, peak: 1},
		{name: "positive text does not lower the closed score", secs: []float64{0, 1, 2}, evs: []analyze.Event{neg, pos, fail},
			transitions: "..O", interventions: []int{2}, scores: []float64{0.8, 0.8, 0}, peak: 1.3},
		{name: "the score never decays while closed", secs: []float64{0, 36000}, evs: []analyze.Event{neg, neg},
			transitions: ".O", interventions: []int{1}, peak: 1.6},
		{name: "while open, signals are ignored", secs: []float64{0, 10, 20, 119}, evs: []analyze.Event{neg2, neg2, neg2, neg2},
			transitions: "O...", interventions: []int{0}, scores: []float64{0, 0, 0, 0}, peak: 1.6},
		{name: "just before the cooldown's end it stays open", secs: []float64{0, 119.999}, evs: []analyze.Event{neg2, pos},
			transitions: "O.", interventions: []int{0}},
		{name: "at the cooldown's end it half-opens and discards the event's signals", secs: []float64{0, 120, 121},
			evs: []analyze.Event{neg2, pos, neg}, transitions: "OHR", interventions: []int{0}},
		{name: "an event that is not relevant does not half-open it", secs: []float64{0, 500, 501}, evs: []analyze.Event{neg2, stop, pos},
			transitions: "O.H", interventions: []int{0}},
		{name: "half-open: a success closes it and clears the score", secs: []float64{0, 130, 131, 132}, evs: []analyze.Event{neg2, pos, pos, neg},
			transitions: "OHC.", interventions: []int{0}, scores: []float64{0, 0, 0, 0.8}},
		{name: "half-open: a success wins over a failure in the same event", secs: []float64{0, 130, 131},
			evs: []analyze.Event{neg2, pos, user("wrong, broken, but thanks")}, transitions: "OHC", interventions: []int{0}},
		{name: "half-open: a neutral event keeps it half-open", secs: []float64{0, 130, 131, 132}, evs: []analyze.Event{neg2, pos, tool(analyze.ToolStatusOK), pos},
			transitions: "OH.C", interventions: []int{0}},
		{name: "a failure in half-open re-opens it without an intervention and restarts the cooldown",
			secs: []float64{0, 130, 131, 250, 251, 252}, evs: []analyze.Event{neg2, pos, fail, pos, pos, neg2},
			transitions: "OHR.HR", interventions: []int{0}},
		{name: "reopened: the next cooldown runs from the re-opening", secs: []float64{0, 130, 131, 251, 252}, evs: []analyze.Event{neg2, pos, fail, pos, pos},
			transitions: "OHRHC", interventions: []int{0}},
		{name: "at most three interventions; then reaching the threshold halves the score",
			secs: []float64{0, 200, 201, 202, 400, 401, 402, 600, 601, 602, 603, 604},
			evs:  []analyze.Event{neg2, pos, pos, neg2, pos, pos, neg2, pos, pos, neg2, neg, neg},
			// opens, half, closes, opens(2), half, closes, opens(3), half, closes, 1.6 → 0.8, 1.6 → 0.8, 1.6 → 0.8
			transitions: "OHCOHCOHC½½½", interventions: []int{0, 3, 6},
			scores: []float64{0, 0, 0, 0, 0, 0, 0, 0, 0, 0.8, 0.8, 0.8}, peak: 1.6},
		{name: "with a cap of 0 every reach of the threshold halves the score", secs: []float64{0, 1, 2}, evs: []analyze.Event{neg, neg, fail},
			cfg:         func(c *VibesConfig) { c.MaxInterventions = 0 },
			transitions: ".½½", scores: []float64{0.8, 0.8, 0.65}, peak: 1.6},
		{name: "a higher threshold", secs: []float64{0, 1, 2}, evs: []analyze.Event{neg2, neg, neg},
			cfg: func(c *VibesConfig) { c.Threshold = 3 }, transitions: "..O", interventions: []int{2}, peak: 3.2},
		{name: "a cooldown of 0 half-opens on the next relevant event", secs: []float64{0, 0, 0}, evs: []analyze.Event{neg2, neg2, neg2},
			cfg: func(c *VibesConfig) { c.Cooldown = 0 }, transitions: "OHR", interventions: []int{0}},
		{name: "the breaker switched off never opens", secs: []float64{0}, evs: []analyze.Event{neg2},
			cfg: func(c *VibesConfig) { c.BreakerEnabled = false }, transitions: ".", scores: []float64{0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkBreaker(t, tt) })
	}
}

var transitionLetter = map[Transition]string{TransitionNone: ".", TransitionOpened: "O", TransitionReopened: "R",
	TransitionHalfOpened: "H", TransitionClosed: "C", TransitionHalved: "½"}

func checkBreaker(t *testing.T, tt breakerCase) {
	t.Helper()
	cfg := DefaultVibesConfig()
	cfg.CheckpointsEnabled = false
	if tt.cfg != nil {
		tt.cfg(&cfg)
	}
	evs := at(tt.secs, slices.Clone(tt.evs[:len(tt.secs)])...)
	res, err := VibesSession(evs, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	for _, st := range res.Steps {
		got.WriteString(transitionLetter[st.Transition])
	}
	if got.String() != tt.transitions {
		t.Errorf("transitions %s, want %s", got.String(), tt.transitions)
	}
	if !slices.Equal(res.Interventions, tt.interventions) {
		t.Errorf("interventions %v, want %v", res.Interventions, tt.interventions)
	}
	for i, want := range tt.scores {
		if math.Abs(res.Steps[i].Score-want) > 1e-12 {
			t.Errorf("score after event %d: %v, want %v", i, res.Steps[i].Score, want)
		}
	}
	if tt.peak != 0 && math.Abs(res.PeakScore-tt.peak) > 1e-12 {
		t.Errorf("peak score %v, want %v", res.PeakScore, tt.peak)
	}
	var reopens []int
	for i, st := range res.Steps {
		if st.Transition == TransitionReopened {
			reopens = append(reopens, i)
		}
	}
	if !slices.Equal(res.Reopens, reopens) {
		t.Errorf("reopens %v, steps say %v", res.Reopens, reopens)
	}
}

func TestVibesBreakerStates(t *testing.T) {
	evs := at([]float64{0, 130, 131}, user("wrong, broken"), user("great"), user("great"))
	res, _ := VibesSession(evs, DefaultVibesConfig())
	var states []string
	for _, st := range res.Steps {
		states = append(states, st.State.String()+"/"+st.Transition.String())
	}
	if got := strings.Join(states, " "); got != "open/opened half_open/half_opened closed/closed" {
		t.Errorf("states %s", got)
	}
}

func TestVibesCheckpoints(t *testing.T) {
	quiet := user("hello")
	tests := []struct {
		name  string
		secs  []float64
		evs   []analyze.Event
		cfg   func(*VibesConfig)
		want  []int
		kinds string // i interval, f frustration
	}{
		{name: "the first needs five buffered events and fires at once",
			secs: []float64{0, 1, 2, 3, 4, 5}, evs: []analyze.Event{quiet, quiet, quiet, quiet, quiet, quiet},
			want: []int{4}, kinds: "i"},
		{name: "buffered events count, but only a relevant event fires",
			secs: []float64{0, 1, 2, 3, 4, 5}, evs: []analyze.Event{quiet, hook("Stop"), hook("Stop"), hook("Stop"), hook("Stop"), quiet},
			want: []int{5}, kinds: "i"},
		{name: "a sidechain message is not buffered",
			secs: []float64{0, 1, 2, 3, 4, 5}, evs: []analyze.Event{quiet, quiet, quiet, sidechain(user("x")), quiet, quiet},
			want: []int{5}, kinds: "i"},
		{name: "then one every 300 s, and a checkpoint empties the buffer",
			secs: []float64{0, 1, 2, 3, 4, 299, 300, 301, 302, 303, 304, 305},
			evs:  []analyze.Event{quiet, quiet, quiet, quiet, quiet, quiet, quiet, quiet, quiet, quiet, quiet, quiet},
			want: []int{4, 10}, kinds: "ii"},
		{name: "at exactly 300 s with five events buffered",
			secs: []float64{0, 1, 2, 3, 4, 100, 101, 102, 103, 304},
			evs:  []analyze.Event{quiet, quiet, quiet, quiet, quiet, quiet, quiet, quiet, quiet, quiet},
			want: []int{4, 9}, kinds: "ii"},
		{name: "a frustration EMA of 0.7 fires between intervals",
			secs: []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13},
			evs: append(slices.Repeat([]analyze.Event{quiet}, 5),
				slices.Repeat([]analyze.Event{user("error failed wrong broken")}, 9)...),
			cfg: func(c *VibesConfig) { c.BreakerEnabled = false },
			// EMA after k loud messages: 1 − 0.8^k ≥ 0.7 from k = 6 (0.738); five buffered by then
			want: []int{4, 10}, kinds: "if"},
		{name: "switched off", secs: []float64{0, 1, 2, 3, 4}, evs: []analyze.Event{quiet, quiet, quiet, quiet, quiet},
			cfg: func(c *VibesConfig) { c.CheckpointsEnabled = false }},
		{name: "a buffer of three never reaches five", secs: []float64{0, 1, 2, 3, 4, 5}, evs: slices.Repeat([]analyze.Event{quiet}, 6),
			cfg: func(c *VibesConfig) { c.BufferEvents = 3 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultVibesConfig()
			if tt.cfg != nil {
				tt.cfg(&cfg)
			}
			res, err := VibesSession(at(tt.secs, slices.Clone(tt.evs)...), cfg)
			if err != nil {
				t.Fatal(err)
			}
			var kinds strings.Builder
			for _, i := range res.Checkpoints {
				kinds.WriteString(map[CheckpointTrigger]string{CheckpointInterval: "i", CheckpointFrustration: "f"}[res.Steps[i].Checkpoint])
			}
			if !slices.Equal(res.Checkpoints, tt.want) || kinds.String() != tt.kinds {
				t.Errorf("checkpoints %v %q, want %v %q", res.Checkpoints, kinds.String(), tt.want, tt.kinds)
			}
		})
	}
}

func TestVibesConfigErrors(t *testing.T) {
	for name, f := range map[string]func(*VibesConfig){
		"NaN alpha":          func(c *VibesConfig) { c.Alpha = math.NaN() },
		"NaN threshold":      func(c *VibesConfig) { c.Threshold = math.NaN() },
		"negative cooldown":  func(c *VibesConfig) { c.Cooldown = -time.Second },
		"negative cap":       func(c *VibesConfig) { c.MaxInterventions = -1 },
		"an empty buffer":    func(c *VibesConfig) { c.BufferEvents = 0 },
		"negative interval":  func(c *VibesConfig) { c.CheckpointInterval = -1 },
		"NaN checkpoint EMA": func(c *VibesConfig) { c.CheckpointFrustration = math.NaN() },
	} {
		cfg := DefaultVibesConfig()
		f(&cfg)
		if _, err := VibesSession(nil, cfg); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if res, err := VibesSession(nil, DefaultVibesConfig()); err != nil || len(res.Steps) != 0 {
		t.Errorf("no events: %v %v", res, err)
	}
}
