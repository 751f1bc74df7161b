package session

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/loopwatch/loopwatch/analyze"
	"github.com/loopwatch/loopwatch/analyze/assess/detect"
)

var t0 = time.Date(2025, 12, 30, 14, 0, 0, 0, time.UTC)

func ev(i int, kind analyze.EventKind) analyze.Event {
	return analyze.Event{Kind: kind, SessionID: "s", Time: t0.Add(time.Duration(i) * time.Second), UserContent: fmt.Sprint(i)}
}

func indices(es []Entry) []int {
	var out []int
	for _, e := range es {
		out = append(out, e.Index)
	}
	return out
}

func TestBufferBoundAndSegments(t *testing.T) {
	b := NewBuffer("s", BufferConfig{MaxEvents: 3, MaxTextBytes: 64})
	for i := 1; i <= 2; i++ {
		b.Add(ev(i, analyze.KindUserMessage), nil)
	}
	if seg := b.SinceCheckpoint(); !slices.Equal(indices(seg.Entries), []int{1, 2}) || seg.From != 1 || seg.To != 2 || seg.Omitted != 0 {
		t.Fatalf("segment %+v", seg)
	}
	b.MarkCheckpoint()
	if seg := b.SinceCheckpoint(); len(seg.Entries) != 0 || seg.From != 3 || seg.To != 2 {
		t.Fatalf("empty segment %+v", seg)
	}
	for i := 3; i <= 7; i++ {
		b.Add(ev(i, analyze.KindUserMessage), nil)
	}
	seg := b.SinceCheckpoint()
	if !slices.Equal(indices(seg.Entries), []int{5, 6, 7}) || seg.Omitted != 2 || seg.From != 3 || seg.To != 7 {
		t.Fatalf("wrapped segment %+v", seg)
	}
	tr := b.Transcript(EndFlush, t0)
	if !slices.Equal(indices(tr.Entries), []int{5, 6, 7}) || tr.Omitted != 4 || tr.Stats.Events != 7 || tr.Stats.Checkpoints != 1 {
		t.Fatalf("transcript %+v", tr)
	}
	if tr.Entries[0].Event.UserContent != "5" {
		t.Errorf("entry content %q", tr.Entries[0].Event.UserContent)
	}
	// Mutating a returned slice does not touch the buffer.
	tr.Entries[0].Index = 99
	if b.Transcript(EndFlush, t0).Entries[0].Index != 5 {
		t.Error("Transcript shares the ring")
	}
}

func TestBufferStats(t *testing.T) {
	b := NewBuffer("s", DefaultBufferConfig())
	add := func(e analyze.Event, kinds ...detect.Kind) {
		var sig []detect.Signal
		for _, k := range kinds {
			sig = append(sig, detect.Signal{Kind: k})
		}
		b.Add(e, sig)
	}
	add(ev(1, analyze.KindUserMessage))
	if b.HasFeedback() {
		t.Error("feedback without signals")
	}
	add(ev(2, analyze.KindAssistantMessage))
	add(analyze.Event{Kind: analyze.KindToolResult, Time: t0.Add(3 * time.Second), ToolStatus: analyze.ToolStatusError}, detect.BuildFailure, detect.TestFailure)
	add(analyze.Event{Kind: analyze.KindToolResult, Time: t0.Add(4 * time.Second), Sidechain: true}, detect.TestSuccess)
	add(ev(5, analyze.KindInterrupt), detect.Interrupt)
	add(analyze.Event{Kind: analyze.KindUserMessage, Sidechain: true, Time: t0.Add(6 * time.Second)})
	add(ev(7, analyze.KindHook))
	add(ev(8, analyze.KindUserMessage), detect.Frustration, detect.UserCorrection)
	add(analyze.Event{Kind: analyze.KindToolResult, Time: t0.Add(9 * time.Second)}, detect.BuildSuccess, detect.BuildFailure)
	b.NoteEMAs(0.4, 0.1)
	b.NoteIntervention()

	s := b.Stats()
	want := Stats{
		Events: 9, Messages: 6, UserMessages: 2, Interrupts: 1, AssistantMessages: 1, ToolResults: 3,
		ToolErrors: 1, SidechainEvents: 2, Interventions: 1, First: t0.Add(time.Second), Last: t0.Add(9 * time.Second),
		FrustrationEMA: 0.4, SuccessEMA: 0.1, LastHumanIndex: 8, LastToolIndex: 9, LastToolOutcome: detect.BuildFailure,
	}
	want.Signals[detect.BuildFailure] = 2
	want.Signals[detect.TestFailure] = 1
	want.Signals[detect.TestSuccess] = 1
	want.Signals[detect.Interrupt] = 1
	want.Signals[detect.Frustration] = 1
	want.Signals[detect.UserCorrection] = 1
	want.Signals[detect.BuildSuccess] = 1
	gotSig := s.LastHumanSignals
	s.LastHumanSignals = nil
	if !reflect.DeepEqual(s, want) {
		t.Errorf("stats\n got %+v\nwant %+v", s, want)
	}
	if len(gotSig) != 2 || gotSig[1].Kind != detect.UserCorrection {
		t.Errorf("last human signals %v", gotSig)
	}
	if !b.HasFeedback() || !b.HadIntervention() || b.MessageCount() != 6 {
		t.Error("feedback/intervention/message count")
	}
	if s.Count(detect.Kind(200)) != 0 {
		t.Error("Count out of range")
	}
}

func TestClip(t *testing.T) {
	long := strings.Repeat("a", 100) + strings.Repeat("é", 500) + "test result: FAILED"
	got := clip(long, 200)
	if len(got) > 200 || !utf8.ValidString(got) || !strings.HasSuffix(got, "test result: FAILED") || !strings.HasPrefix(got, "aaaa") || !strings.Contains(got, clipMarker) {
		t.Errorf("clip = %q (%d bytes)", got, len(got))
	}
	if clip("short", 200) != "short" {
		t.Error("short text changed")
	}
	// Every text field of a buffered event is clipped: a buffer holds at most
	// MaxEvents × MaxTextBytes of each, whatever the events carry.
	big := strings.Repeat("x", 10000)
	fields := []struct {
		name string
		f    func(*analyze.Event) *string
	}{
		{"user content", func(e *analyze.Event) *string { return &e.UserContent }},
		{"assistant text", func(e *analyze.Event) *string { return &e.AssistantText }},
		{"tool output", func(e *analyze.Event) *string { return &e.ToolOutput }},
		{"tool command", func(e *analyze.Event) *string { return &e.ToolCommand }},
		{"session id", func(e *analyze.Event) *string { return &e.SessionID }},
		{"record id", func(e *analyze.Event) *string { return &e.ID }},
		{"tool name", func(e *analyze.Event) *string { return &e.ToolName }},
		{"hook name", func(e *analyze.Event) *string { return &e.HookName }},
		{"subtype", func(e *analyze.Event) *string { return &e.Subtype }},
	}
	for _, fd := range fields {
		b := NewBuffer("s", BufferConfig{MaxEvents: 2, MaxTextBytes: 100})
		ev := analyze.Event{Kind: analyze.KindToolResult}
		*fd.f(&ev) = big
		b.Add(ev, nil)
		got := b.Transcript(EndFlush, t0).Entries[0].Event
		if n := len(*fd.f(&got)); n > 100 {
			t.Errorf("buffered %s: %d bytes", fd.name, n)
		}
	}
}

func TestBufferConfigValidate(t *testing.T) {
	if DefaultBufferConfig().Validate() != nil {
		t.Error("default invalid")
	}
	for _, c := range []BufferConfig{{MaxEvents: 0, MaxTextBytes: 100}, {MaxEvents: 1, MaxTextBytes: 10}} {
		if c.Validate() == nil {
			t.Errorf("%+v accepted", c)
		}
	}
}

func TestHookEndDetector(t *testing.T) {
	def := HookEndDetector{Hooks: DefaultEndHooks()}
	seed := HookEndDetector{Hooks: SeedEndHooks()}
	hook := func(name string) analyze.Event { return analyze.Event{Kind: analyze.KindHook, HookName: name} }
	for _, tt := range []struct {
		ev        analyze.Event
		def, seed bool
	}{
		{hook("SessionEnd"), true, false},
		{hook("Stop"), false, true},
		{hook("stop"), false, false},
		{hook("SubagentStop"), false, false},
		{analyze.Event{Kind: analyze.KindSystem, HookName: "Stop"}, false, false},
	} {
		if def.IsSessionEnd(tt.ev) != tt.def || seed.IsSessionEnd(tt.ev) != tt.seed {
			t.Errorf("%+v: default %v seed %v", tt.ev, def.IsSessionEnd(tt.ev), seed.IsSessionEnd(tt.ev))
		}
	}
}

func TestTimeoutEndDetector(t *testing.T) {
	d := NewTimeoutEndDetector(30 * time.Minute)
	if d.Expired(t0) != nil {
		t.Error("expired with no sessions")
	}
	d.Touch("b", t0)
	d.Touch("a", t0)
	d.Touch("c", t0.Add(10*time.Minute))
	d.Touch("c", t0.Add(5*time.Minute)) // out of order: ignored
	if got := d.Expired(t0.Add(30 * time.Minute)); got != nil {
		t.Errorf("expired at exactly the timeout: %v", got)
	}
	if got := d.Expired(t0.Add(30*time.Minute + time.Second)); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("expired %v", got)
	}
	if _, ok := d.LastActivity("a"); ok {
		t.Error("expired session still tracked")
	}
	if last, _ := d.LastActivity("c"); !last.Equal(t0.Add(10 * time.Minute)) {
		t.Errorf("c last activity %v", last)
	}
	if got := d.Expired(t0.Add(40 * time.Minute)); got != nil {
		t.Errorf("c expired early: %v", got)
	}
	d.Touch("d", t0.Add(45*time.Minute))
	d.Forget("d")
	if got := d.Expired(t0.Add(2 * time.Hour)); !slices.Equal(got, []string{"c"}) {
		t.Errorf("expired %v", got)
	}
}

func TestSamplerRules(t *testing.T) {
	s, err := NewSampler(SamplingConfig{BurnInSessions: 2, LongSessionThreshold: 10, BaseRate: 0, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	for i, tt := range []struct {
		c    SamplingContext
		want Decision
	}{
		{SamplingContext{SessionID: "a"}, Decision{true, ReasonBurnIn}},
		{SamplingContext{SessionID: "b"}, Decision{true, ReasonBurnIn}},
		{SamplingContext{SessionID: "c"}, Decision{false, ReasonNotSampled}},
		{SamplingContext{SessionID: "d", CircuitBreakerTriggered: true, HasExplicitFeedback: true}, Decision{true, ReasonCircuitBreaker}},
		{SamplingContext{SessionID: "e", HasExplicitFeedback: true, MessageCount: 50}, Decision{true, ReasonExplicitFeedback}},
		{SamplingContext{SessionID: "f", MessageCount: 11}, Decision{true, ReasonLongSession}},
		{SamplingContext{SessionID: "g", MessageCount: 10}, Decision{false, ReasonNotSampled}},
	} {
		if got := s.ShouldAssess(tt.c); got != tt.want {
			t.Errorf("call %d: %+v, want %+v", i, got, tt.want)
		}
	}
	if s.Seen() != 7 {
		t.Errorf("Seen = %d", s.Seen())
	}
	all, _ := NewSampler(SamplingConfig{BaseRate: 1})
	if d := all.ShouldAssess(SamplingContext{SessionID: "x"}); d != (Decision{true, ReasonBaseRate}) {
		t.Errorf("rate 1: %+v", d)
	}
}

func TestSamplerReproducibleBySeed(t *testing.T) {
	cfg := SamplingConfig{BaseRate: 0.3, Seed: 42}
	ids := make([]string, 2000)
	for i := range ids {
		ids[i] = fmt.Sprintf("session-%04d", i)
	}
	decide := func(cfg SamplingConfig, ids []string) map[string]bool {
		s, err := NewSampler(cfg)
		if err != nil {
			t.Fatal(err)
		}
		out := make(map[string]bool)
		for _, id := range ids {
			out[id] = s.ShouldAssess(SamplingContext{SessionID: id}).Assess
		}
		return out
	}
	a := decide(cfg, ids)
	reversed := slices.Clone(ids)
	slices.Reverse(reversed)
	b := decide(cfg, reversed) // another order: same fate per session
	other := cfg
	other.Seed = 43
	c := decide(other, ids)
	sampled, differ := 0, 0
	for _, id := range ids {
		if a[id] != b[id] {
			t.Fatalf("%s: decision depends on order", id)
		}
		if a[id] {
			sampled++
		}
		if a[id] != c[id] {
			differ++
		}
	}
	if frac := float64(sampled) / float64(len(ids)); math.Abs(frac-0.3) > 0.04 {
		t.Errorf("sampled fraction %.3f, want about 0.3", frac)
	}
	if differ == 0 {
		t.Error("another seed gives the same decisions")
	}
}

func TestSamplingConfigValidate(t *testing.T) {
	for _, c := range []SamplingConfig{{BaseRate: 1.1}, {BaseRate: math.NaN()}, {BurnInSessions: -1}} {
		if _, err := NewSampler(c); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
}

func TestHasFeedbackFromFrictionSignals(t *testing.T) {
	for _, tt := range []struct {
		kind detect.Kind
		want bool
	}{
		{detect.StillProblem, true}, {detect.NegationReply, true}, {detect.RepeatRequest, true}, {detect.Doubt, true},
		{detect.CorrectionPhrase, true}, {detect.Exasperation, true}, {detect.GiveUp, true},
		{detect.Interrupt, false}, {detect.InterruptRedirect, false}, {detect.ToolFailure, false},
	} {
		b := NewBuffer("s", DefaultBufferConfig())
		b.Add(ev(1, analyze.KindUserMessage), []detect.Signal{{Kind: tt.kind}})
		if got := b.HasFeedback(); got != tt.want {
			t.Errorf("%v: feedback %v", tt.kind, got)
		}
	}
}

// TestBufferHoldsTheLatest holds the buffer, across its chunks and once it wraps, to
// a model that keeps every event: the latest MaxEvents, in order, for the whole
// session and since each checkpoint.
func TestBufferHoldsTheLatest(t *testing.T) {
	for _, held := range []int{1, 2, bufferChunk - 1, bufferChunk, bufferChunk + 1, 3*bufferChunk + 5, 500} {
		for _, events := range []int{0, 1, bufferChunk, bufferChunk + 1, 2*held + 3, 700} {
			t.Run(fmt.Sprintf("max=%d/events=%d", held, events), func(t *testing.T) {
				b := NewBuffer("s", BufferConfig{MaxEvents: held, MaxTextBytes: 64})
				checkpoint := 1 // the first event of the segment, as the model keeps it
				check := func(n int) {
					t.Helper()
					for _, from := range []int{1, checkpoint} {
						var want []int
						for i := max(from, n-held+1); i <= n; i++ {
							want = append(want, i)
						}
						got, omitted := b.entriesFrom(from)
						if !slices.Equal(indices(got), want) || omitted != max(0, n-held+1-from) {
							t.Fatalf("after %d events, from %d: %v (omitted %d), want %v", n, from, indices(got), omitted, want)
						}
						for _, e := range got {
							if e.Event.UserContent != fmt.Sprint(e.Index) {
								t.Fatalf("entry %d holds event %q", e.Index, e.Event.UserContent)
							}
						}
					}
				}
				check(0)
				for i := 1; i <= events; i++ {
					b.Add(ev(i, analyze.KindUserMessage), nil)
					if i%7 == 0 {
						b.MarkCheckpoint()
						checkpoint = i + 1
					}
					check(i)
				}
			})
		}
	}
}

func BenchmarkBufferAdd(b *testing.B) {
	for _, events := range []int{20, 300} {
		b.Run(fmt.Sprintf("events=%d", events), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				buf := NewBuffer("s", DefaultBufferConfig())
				for i := 1; i <= events; i++ {
					buf.Add(ev(i, analyze.KindUserMessage), nil)
				}
			}
		})
	}
}
