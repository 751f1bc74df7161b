package assess

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/loopwatch/loopwatch/analyze"
	"github.com/loopwatch/loopwatch/analyze/assess/breaker"
	"github.com/loopwatch/loopwatch/analyze/assess/detect"
	"github.com/loopwatch/loopwatch/analyze/assess/session"
)

// Trace is what the detector read of one session's events under one detection
// configuration, event by event: everything the breaker's decisions depend on that
// the EMA and breaker settings do not change. A session is traced once per detection
// configuration ([TraceSession]) and decided under any number of EMA and breaker
// settings ([Trace.Decide]); each decision gives the interventions and the peak
// frustration a [Processor] gives with the whole configuration, because it runs the
// same detector, EMA tracker, breaker and session-end rules in the same order (the
// tuning of thresholds relies on it, and a test holds it).
type Trace struct {
	// Steps are the session's events as the processor met them, in order.
	Steps []TraceStep
	// signals holds every step's signals, step after step: step i's end at
	// Steps[i].end. One slice a trace instead of one a step, since a tuning sweep holds
	// a trace of every session of its input at once.
	signals []detect.Signal
}

// TraceStep is one event as the processor met it.
type TraceStep struct {
	Time time.Time
	// Skipped: a hook or system record while no session state was open; the
	// processor does nothing with it.
	Skipped bool
	// Opens: a fresh session state (detector, EMAs, breaker) opens at this event —
	// the first event, or the first after an end hook, an end record or an inactivity
	// timeout.
	Opens bool
	// Human: a human turn ([detect.IsHumanTurn]), at which the EMAs move by default.
	Human bool
	end   uint32 // the end of the step's signals in Trace.signals
}

// Signals returns the detector's signals for step i (nil for none). The slice is the
// trace's: it must not be modified.
func (t *Trace) Signals(i int) []detect.Signal {
	start := uint32(0)
	if i > 0 {
		start = t.Steps[i-1].end
	}
	if start == t.Steps[i].end {
		return nil
	}
	return t.signals[start:t.Steps[i].end:t.Steps[i].end]
}

// TraceSession reads events — one session's, in order — as a processor with cfg does:
// a fresh detector whenever the session (re)opens, closing at cfg's end hooks, end
// records and inactivity timeout. rules are cfg.Detect compiled ([detect.Compile]);
// nil compiles them. The events' session ids are not read: they are one session.
func TraceSession(events []analyze.Event, cfg Config, rules *detect.Rules) (*Trace, error) {
	if rules == nil {
		var err error
		if rules, err = detect.Compile(cfg.Detect); err != nil {
			return nil, err
		}
	}
	const id = "session"
	ends := session.HookEndDetector{Hooks: cfg.EndHooks, Systems: cfg.EndSystemEvents}
	timeout := session.NewTimeoutEndDetector(cfg.InactivityTimeout.Std())
	t := &Trace{Steps: make([]TraceStep, len(events))}
	var det *detect.LightweightDetector
	for i := range events {
		ev := &events[i]
		st := &t.Steps[i]
		st.Time, st.end = ev.Time, uint32(len(t.signals))
		if len(timeout.Expired(ev.Time)) > 0 {
			det = nil
		}
		if det == nil {
			if ev.Kind == analyze.KindHook || ev.Kind == analyze.KindSystem {
				st.Skipped = true
				continue
			}
			det, st.Opens = detect.NewLightweightDetector(rules), true
		}
		timeout.Touch(id, ev.Time)
		t.signals = append(t.signals, det.Detect(*ev)...)
		if uint64(len(t.signals)) > math.MaxUint32 {
			return nil, fmt.Errorf("event %d: more than %d signals in one session", i+1, uint64(math.MaxUint32))
		}
		st.end = uint32(len(t.signals))
		st.Human = detect.IsHumanTurn(ev)
		if ends.IsSessionEnd(*ev) {
			det = nil
			timeout.Forget(id)
		}
	}
	if cap(t.signals) > len(t.signals) {
		t.signals = slices.Clone(t.signals) // held as long as the trace: no room to grow
	}
	return t, nil
}

// Decision is what the EMA and the breaker decided over a trace.
type Decision struct {
	// Interventions are the steps (event indices) that triggered an intervention, in
	// order, and Kinds their kinds.
	Interventions []int
	Kinds         []breaker.Intervention
	// PeakFrustration is the highest frustration EMA after any event read.
	PeakFrustration float64
}

// Decide runs the frustration EMA (ema) and the breaker (bc) over the trace as the
// processor does, into d (reset first; its slices are reused).
func (t *Trace) Decide(ema detect.EMAConfig, bc breaker.Config, d *Decision) {
	d.Interventions, d.Kinds, d.PeakFrustration = d.Interventions[:0], d.Kinds[:0], 0
	var br *breaker.CircuitBreaker
	var frustration detect.EmaTracker
	for i := range t.Steps {
		st := &t.Steps[i]
		if st.Skipped {
			continue
		}
		if st.Opens {
			br, frustration = breaker.New(bc), detect.NewEmaTracker(ema.Alpha)
		}
		signals := t.Signals(i)
		if ema.EveryEvent || st.Human {
			frustration.Update(ema.FrustrationValue(signals))
		}
		f := frustration.Value()
		d.PeakFrustration = max(d.PeakFrustration, f)
		br.Update(st.Time, signals, f)
		if kind, ok := br.ShouldIntervene(st.Time); ok {
			br.RecordIntervention(st.Time)
			d.Interventions = append(d.Interventions, i)
			d.Kinds = append(d.Kinds, kind)
		}
	}
}

// Frustration returns the frustration EMA after each event of the trace under ema,
// as the processor reports it (Step.FrustrationEMA): 0 for a skipped event, and
// starting again from 0 wherever a fresh session state opens.
func (t *Trace) Frustration(ema detect.EMAConfig) []float64 {
	out := make([]float64, len(t.Steps))
	var frustration detect.EmaTracker
	for i := range t.Steps {
		st := &t.Steps[i]
		if st.Skipped {
			continue
		}
		if st.Opens {
			frustration = detect.NewEmaTracker(ema.Alpha)
		}
		if ema.EveryEvent || st.Human {
			frustration.Update(ema.FrustrationValue(t.Signals(i)))
		}
		out[i] = frustration.Value()
	}
	return out
}
