package assess

import (
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
	Steps []TraceStep
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
	// Signals are the detector's signals for the event.
	Signals []detect.Signal
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
		st.Time = ev.Time
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
		st.Signals = det.Detect(*ev)
		st.Human = detect.IsHumanTurn(ev)
		if ends.IsSessionEnd(*ev) {
			det = nil
			timeout.Forget(id)
		}
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
		if ema.EveryEvent || st.Human {
			frustration.Update(ema.FrustrationValue(st.Signals))
		}
		f := frustration.Value()
		d.PeakFrustration = max(d.PeakFrustration, f)
		br.Update(st.Time, st.Signals, f)
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
			frustration.Update(ema.FrustrationValue(st.Signals))
		}
		out[i] = frustration.Value()
	}
	return out
}
