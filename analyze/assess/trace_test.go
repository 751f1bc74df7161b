package assess

import (
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/loopwatch/loopwatch/analyze"
	"github.com/loopwatch/loopwatch/analyze/assess/detect"
	"github.com/loopwatch/loopwatch/analyze/assess/internal/benchdata"
)

// at places an event at a time of its own.
func at(ev analyze.Event, tm time.Time) analyze.Event {
	ev.Time = tm
	return ev
}

// TestTraceKeepsEveryStep holds the compact trace to what the processor did: the same
// steps with the same signals, each step's time read back as the same instant in the
// same zone, and the same interventions and frustration — for times far apart,
// backwards, at the edges of what a time holds and in several zones, and for more
// distinct signal lists than are searched one by one.
func TestTraceKeepsEveryStep(t *testing.T) {
	plus2a, plus2b := time.FixedZone("", 2*3600), time.FixedZone("", 2*3600) // two parses, one zone
	cet := time.FixedZone("CET", 3600)
	other := time.FixedZone("X", 2*3600) // another name, the same offset
	var many []analyze.Event
	for i := range 24 { // 24 commands failing, twice each: 24 distinct lists, each met again
		ev := cmd(tool("s", time.Duration(i)*time.Second, "exit status 1\nFAIL", analyze.ToolStatusError), fmt.Sprintf("make target%d", i%12))
		many = append(many, ev, user("s", time.Duration(i)*time.Second+time.Millisecond, fmt.Sprintf("no, that is wrong again %d", i)))
	}
	tests := []struct {
		name   string
		events []analyze.Event
	}{
		{"empty", nil},
		{"an ordinary session", []analyze.Event{
			hook("s", 0, "SessionStart"),
			user("s", time.Second, "fix the build"),
			cmd(tool("s", 2*time.Second+5*time.Millisecond, "exit status 1\nFAIL", analyze.ToolStatusError), "go test ./..."),
			user("s", 3*time.Second, "no, that's wrong, I told you not to do that!!"),
			user("s", 4*time.Second+123456789, "no, that's wrong, I told you not to do that!!"),
			user("s", 5*time.Second, "this is still broken, stop"),
			cmd(tool("s", 6*time.Second, "ok", analyze.ToolStatusOK), "go test ./..."),
			hook("s", 7*time.Second, "Stop"),
			hook("s", 8*time.Second, "SessionEnd"),
			hook("s", 9*time.Second, "Notification"),
			user("s", 10*time.Second, "again: no, wrong"),
		}},
		{"times far apart and backwards", []analyze.Event{
			at(user("s", 0, "start"), time.Time{}),
			at(user("s", 0, "no, wrong"), time.Date(1, 1, 1, 0, 0, 0, 1, time.UTC)),
			at(user("s", 0, "no, wrong!!"), time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC)),
			at(user("s", 0, "no, wrong!!"), time.Date(1969, 12, 31, 23, 59, 59, 5, time.UTC)),
			at(user("s", 0, "no, wrong!!"), time.Unix(1<<62, 7).UTC()),
			at(user("s", 0, "no, wrong!!"), time.Unix(-(1<<62), 0).UTC()),
			at(user("s", 0, "no, wrong!!"), t0),
			at(user("s", 0, "no, wrong!!"), t0.Add(-time.Hour)),
		}},
		{"zones", []analyze.Event{
			at(user("s", 0, "start"), t0.In(plus2a)),
			at(user("s", 0, "no, wrong"), t0.Add(time.Second).In(plus2b)),
			at(user("s", 0, "no, wrong"), t0.Add(2*time.Second).In(cet)),
			at(user("s", 0, "no, wrong"), t0.Add(3*time.Second).In(other)),
			at(user("s", 0, "no, wrong"), t0.Add(4*time.Second)),
			at(user("s", 0, "no, wrong"), t0.Add(5*time.Second).In(plus2b)),
			at(user("s", 0, "no, wrong"), t0.Add(6*time.Second).In(cet)),
		}},
		{"many distinct signal lists", many},
	}
	intervened := 0
	for _, tt := range tests {
		for _, preset := range PresetNames() {
			t.Run(tt.name+"/"+preset, func(t *testing.T) {
				cfg, err := Preset(preset)
				if err != nil {
					t.Fatal(err)
				}
				tr, err := TraceSession(tt.events, cfg, nil)
				if err != nil {
					t.Fatal(err)
				}
				p, err := New(cfg, Options{})
				if err != nil {
					t.Fatal(err)
				}
				var want []Step
				var interventions []int
				peak := 0.0
				for i, ev := range tt.events {
					st, err := p.Process(context.Background(), ev)
					if err != nil {
						t.Fatal(err)
					}
					want = append(want, st)
					if st.Intervention != nil {
						interventions = append(interventions, i)
					}
					peak = max(peak, st.FrustrationEMA)
				}
				if tr.Len() != len(tt.events) {
					t.Fatalf("%d steps for %d events", tr.Len(), len(tt.events))
				}
				n := 0
				for i, st := range tr.Steps() {
					n++
					ev := tt.events[i]
					if !st.Time.Equal(ev.Time) || st.Time.Format(time.RFC3339Nano) != ev.Time.Format(time.RFC3339Nano) {
						t.Errorf("step %d: time %s, the event's %s", i, st.Time.Format(time.RFC3339Nano), ev.Time.Format(time.RFC3339Nano))
					}
					gotName, gotOffset := st.Time.Zone()
					if name, offset := ev.Time.Zone(); gotName != name || gotOffset != offset {
						t.Errorf("step %d: zone %q %+d, the event's %q %+d", i, gotName, gotOffset, name, offset)
					}
					if st.Skipped != want[i].Skipped || !slices.Equal(st.Signals, want[i].Signals) || (st.Signals == nil) != (len(want[i].Signals) == 0) {
						t.Errorf("step %d: skipped %v, signals %v; the processor's %v, %v", i, st.Skipped, st.Signals, want[i].Skipped, want[i].Signals)
					}
				}
				if n != len(tt.events) {
					t.Errorf("%d steps read, %d events", n, len(tt.events))
				}
				var d Decision
				tr.Decide(cfg.Detect.EMA, cfg.Breaker, &d)
				if !slices.Equal(d.Interventions, interventions) || d.PeakFrustration != peak || len(d.Times) != len(d.Interventions) {
					t.Errorf("interventions %v (%d times), peak %v; the processor's %v, %v", d.Interventions, len(d.Times), d.PeakFrustration, interventions, peak)
				}
				intervened += len(d.Interventions)
				for k, i := range d.Interventions {
					if !d.Times[k].Equal(tt.events[i].Time) {
						t.Errorf("intervention %d at event %d: time %v, the event's %v", k, i, d.Times[k], tt.events[i].Time)
					}
				}
				for i, f := range tr.Frustration(cfg.Detect.EMA) {
					if f != want[i].FrustrationEMA {
						t.Errorf("step %d: frustration %v, the processor's %v", i, f, want[i].FrustrationEMA)
					}
				}
			})
		}
	}
	// The cases above must reach what they claim to.
	if intervened == 0 {
		t.Error("no case intervened: the decisions compare nothing")
	}
	tr, err := TraceSession(many, DefaultConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	distinct := map[string]bool{}
	for _, st := range tr.Steps() {
		if len(st.Signals) > 0 {
			distinct[fmt.Sprint(st.Signals)] = true
		}
	}
	if len(tr.signals) == 0 || listsKept(tr) <= 8 || listsKept(tr) != len(distinct) {
		t.Errorf("%d signal lists kept for %d distinct lists in %q (the hashed search begins past 8)", listsKept(tr), len(distinct), "many distinct signal lists")
	}
	tr, err = TraceSession(tests[3].events, DefaultConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.zones) != 3 {
		t.Errorf("%d zones besides UTC in %q, want 3 (+02:00 parsed twice is one)", len(tr.zones), tests[3].name)
	}
}

// listsKept counts the distinct signal lists a trace keeps: the starts its steps
// name.
func listsKept(tr *Trace) int {
	starts := map[*detect.Signal]bool{}
	for _, st := range tr.Steps() {
		if len(st.Signals) > 0 {
			starts[&st.Signals[0]] = true
		}
	}
	return len(starts)
}

// BenchmarkTraceDecide measures deciding a traced session, per event, and what the
// trace holds per event: a tuning sweep keeps a trace of every session of its input
// and decides each under every configuration.
//
//	go test -run '^$' -bench TraceDecide -benchmem ./analyze/assess
func BenchmarkTraceDecide(b *testing.B) {
	evs := benchdata.Events()
	var events []analyze.Event
	tm := t0
	for i := range 10000 {
		for _, name := range benchdata.Names() {
			ev := evs[name]
			ev.SessionID = "s"
			tm = tm.Add(time.Duration(1+i%7) * 1500 * time.Millisecond)
			ev.Time = tm
			events = append(events, ev)
		}
	}
	cfg := DefaultConfig()
	tr, err := TraceSession(events, cfg, nil)
	if err != nil {
		b.Fatal(err)
	}
	size := len(tr.data) + len(tr.signals)*40 + len(tr.zones)*8
	var d Decision
	b.ReportAllocs()
	for b.Loop() {
		tr.Decide(cfg.Detect.EMA, cfg.Breaker, &d)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(events)), "ns/event")
	b.ReportMetric(float64(size)/float64(len(events)), "trace-bytes/event")
}

// FuzzTrace feeds sessions of any times — seconds anywhere in ±2⁶¹, any fraction of
// a second, five zones (two of them the same zone made twice) — and of hooks, plain
// and frustrated messages to TraceSession: every step reads back the event's time
// (instant, zone and text) and the processor's signals, and deciding gives each
// intervention its event's time.
func FuzzTrace(f *testing.F) {
	f.Add([]byte("0123456789abc0123456789abd"))
	f.Add(make([]byte, 13*5))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 1, 2, 3, 4, 0x13, 0, 0, 0, 0, 0, 0, 0, 0x80, 0, 0, 0, 0, 0x22})
	zones := func(k byte) *time.Location {
		switch k % 5 {
		case 1, 2:
			return time.FixedZone("", 2*3600) // as a parser makes one per time
		case 3:
			return time.FixedZone("CET", 3600)
		case 4:
			return time.FixedZone("X", -7*3600-30*60)
		}
		return time.UTC
	}
	texts := []string{"fix it", "no, that's wrong, stop!!", "this is still broken"}
	cfg := DefaultConfig()
	rules := detect.MustCompile(cfg.Detect) // compiled once: compiling is most of a run
	f.Fuzz(func(t *testing.T, data []byte) {
		var events []analyze.Event
		for ; len(data) >= 13 && len(events) < 200; data = data[13:] {
			sec := int64(binary.LittleEndian.Uint64(data)) >> 2
			nsec := int64(binary.LittleEndian.Uint32(data[8:]) % 1e9)
			if data[12]&0x80 != 0 {
				nsec -= nsec % 1e6 // whole milliseconds, as transcripts write them
			}
			tm := time.Unix(sec, nsec).In(zones(data[12] & 7))
			ev := analyze.Event{Kind: analyze.KindUserMessage, SessionID: "s", Time: tm, UserContent: texts[int(data[12]>>3&3)%len(texts)]}
			if data[12]>>5&3 == 3 {
				ev = analyze.Event{Kind: analyze.KindHook, SessionID: "s", Time: tm, HookName: "Stop"}
			}
			events = append(events, ev)
		}
		tr, err := TraceSession(events, cfg, rules)
		if err != nil {
			t.Fatal(err)
		}
		p, err := New(cfg, Options{Rules: rules})
		if err != nil {
			t.Fatal(err)
		}
		want := make([]Step, len(events))
		for i, ev := range events {
			if want[i], err = p.Process(context.Background(), ev); err != nil {
				t.Fatal(err)
			}
		}
		if tr.Len() != len(events) {
			t.Fatalf("%d steps for %d events", tr.Len(), len(events))
		}
		for i, st := range tr.Steps() {
			ev := events[i]
			gotName, gotOffset := st.Time.Zone()
			name, offset := ev.Time.Zone()
			if !st.Time.Equal(ev.Time) || gotName != name || gotOffset != offset || st.Time.Format(time.RFC3339Nano) != ev.Time.Format(time.RFC3339Nano) {
				t.Fatalf("step %d: time %s (%q %+d), the event's %s (%q %+d)", i, st.Time.Format(time.RFC3339Nano), gotName, gotOffset, ev.Time.Format(time.RFC3339Nano), name, offset)
			}
			if !slices.Equal(st.Signals, want[i].Signals) || st.Skipped != want[i].Skipped {
				t.Fatalf("step %d: signals %v skipped %v; the processor's %v, %v", i, st.Signals, st.Skipped, want[i].Signals, want[i].Skipped)
			}
		}
		var d Decision
		tr.Decide(cfg.Detect.EMA, cfg.Breaker, &d)
		for k, i := range d.Interventions {
			if !d.Times[k].Equal(events[i].Time) || want[i].Intervention == nil {
				t.Fatalf("intervention %d at event %d, time %v: the event's time %v, the processor's intervention %v", k, i, d.Times[k], events[i].Time, want[i].Intervention)
			}
		}
	})
}

// TestHashSignalsCounts: test failures differing only in their counts hash apart, so
// a session of many test runs does not put every list in one bucket (listOf would
// compare each new list with all of them: quadratic in the session's events).
func TestHashSignalsCounts(t *testing.T) {
	seen := map[uint64]bool{}
	for f := range uint16(40) {
		for p := range uint16(40) {
			h := hashSignals([]detect.Signal{{Kind: detect.TestFailure, Source: "test_summary", Target: "python test", Failed: f + 1, Passed: p << 8}})
			if seen[h] {
				t.Fatalf("counts %d/%d hash as another list's", f+1, p<<8)
			}
			seen[h] = true
		}
	}
}
