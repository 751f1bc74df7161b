package assess

import (
	"encoding/binary"
	"iter"
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
//
// A tuning sweep holds a trace of every session of its input at once, so a trace is
// kept compact: its steps are encoded one after another in a few bytes each (flags,
// the time as a difference from the step before, which of the trace's distinct
// signal lists the detector gave), and are read in order ([Trace.Steps]), not by
// index: a few bytes an event and the distinct signal lists (BenchmarkTraceDecide),
// where a step took 32 bytes and a signal 40. Times read back as the same instant in
// the same zone (name and offset) as the events'.
type Trace struct {
	n    int
	data []byte // the steps, encoded (see traceWriter.add)
	// signals holds the trace's distinct non-empty signal lists, one after another,
	// in order of first use; a step names its list by its start and length.
	signals []detect.Signal
	// zones are the time zones the steps' times are in, other than UTC, in order of
	// first use.
	zones []*time.Location
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
	// Signals are the detector's signals for the event (nil for none). The slice is
	// the trace's: it must not be modified.
	Signals []detect.Signal
}

// The flags byte that starts each encoded step.
const (
	stepSkipped = 1 << iota
	stepOpens
	stepHuman
	stepSignals // the start and length of the step's signals follow
	stepZone    // the step's zone differs from the step before's: its index follows (0: UTC)
	stepMillis  // the time's fraction of a second, in whole milliseconds, follows
	stepNanos   // the time's fraction of a second, in nanoseconds, follows
)

// Len returns the number of steps: the session's events.
func (t *Trace) Len() int { return t.n }

// Steps returns the trace's steps in order with their indices (the events' 0-based
// positions). A step's Signals are the trace's own and stay valid.
func (t *Trace) Steps() iter.Seq2[int, TraceStep] {
	return func(yield func(int, TraceStep) bool) {
		r := t.reader()
		for i := range t.n {
			flags, tm, signals := r.next()
			st := TraceStep{Time: tm, Skipped: flags&stepSkipped != 0, Opens: flags&stepOpens != 0, Human: flags&stepHuman != 0, Signals: signals}
			if !yield(i, st) {
				return
			}
		}
	}
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
	w := traceWriter{t: &Trace{n: len(events), data: make([]byte, 0, 4*len(events))}}
	var det *detect.LightweightDetector
	opened := false // the session was open before: a detector made now resumes it
	for i := range events {
		ev := &events[i]
		st := TraceStep{Time: ev.Time}
		if len(timeout.Expired(ev.Time)) > 0 {
			det = nil
		}
		if det == nil {
			if ev.Kind == analyze.KindHook || ev.Kind == analyze.KindSystem {
				st.Skipped = true
				w.add(st)
				continue
			}
			det, st.Opens = detect.NewLightweightDetector(rules), true
			if opened {
				det.Resume()
			}
			opened = true
		}
		timeout.Touch(id, ev.Time)
		st.Signals = det.Detect(*ev) // copied into the trace's lists when new
		st.Human = detect.IsHumanTurn(ev)
		w.add(st)
		if ends.IsSessionEnd(*ev) {
			det = nil
			timeout.Forget(id)
		}
	}
	// Held as long as the trace: no room to grow.
	t := w.t
	t.data, t.zones = slices.Clone(t.data), slices.Clone(t.zones)
	t.signals = slices.Clone(w.flat)
	return t, nil
}

// traceWriter encodes a trace's steps.
type traceWriter struct {
	t    *Trace
	sec  int64 // the time of the step before, in Unix seconds
	zone int   // the zone of the step before: 0 UTC, k zones[k-1]
	// flat holds the distinct signal lists met so far, one after another: list k is
	// flat[ends[k-1]:ends[k]] (ends[-1] = 0).
	flat   []detect.Signal
	ends   []int
	byHash map[uint64][]int
	byZone map[zoneKey]int
}

// add appends step st. A step is: the flags byte; the seconds since the step
// before's as a zigzag varint (wrapping, so that any two times round-trip); the
// fraction of a second when there is one, in milliseconds in 2 bytes (stepMillis) or
// in nanoseconds in 4 (stepNanos), little-endian; the zone's index as a varint when
// stepZone; and when stepSignals, the start and the length of the step's list in the
// trace's signals, as varints.
func (w *traceWriter) add(st TraceStep) {
	t := w.t
	var flags byte
	if st.Skipped {
		flags |= stepSkipped
	}
	if st.Opens {
		flags |= stepOpens
	}
	if st.Human {
		flags |= stepHuman
	}
	if len(st.Signals) > 0 {
		flags |= stepSignals
	}
	zone := w.zoneOf(st.Time)
	if zone != w.zone {
		flags |= stepZone
	}
	nsec := st.Time.Nanosecond()
	frac := uint64(nsec)
	switch {
	case nsec == 0:
	case nsec%1e6 == 0:
		flags, frac = flags|stepMillis, uint64(nsec/1e6)
	default:
		flags |= stepNanos
	}
	sec := st.Time.Unix()
	t.data = append(t.data, flags)
	t.data = binary.AppendVarint(t.data, int64(uint64(sec)-uint64(w.sec)))
	w.sec = sec
	switch {
	case flags&stepMillis != 0:
		t.data = binary.LittleEndian.AppendUint16(t.data, uint16(frac))
	case flags&stepNanos != 0:
		t.data = binary.LittleEndian.AppendUint32(t.data, uint32(frac))
	}
	if zone != w.zone {
		t.data = binary.AppendUvarint(t.data, uint64(zone))
		w.zone = zone
	}
	if len(st.Signals) > 0 {
		k := w.listOf(st.Signals)
		start := 0
		if k > 0 {
			start = w.ends[k-1]
		}
		t.data = binary.AppendUvarint(t.data, uint64(start))
		t.data = binary.AppendUvarint(t.data, uint64(len(st.Signals)))
	}
}

// zoneOf returns the index of tm's zone: 0 for UTC, k for zones[k-1]. Two locations
// are one zone when they have the same name and give tm the same zone name and
// offset (a parser makes a fixed zone of every time it reads), so that tm read back
// in the first of them formats as tm does.
func (w *traceWriter) zoneOf(tm time.Time) int {
	loc := tm.Location()
	if loc == time.UTC {
		return 0
	}
	if w.zone > 0 && w.t.zones[w.zone-1] == loc {
		return w.zone
	}
	name, offset := tm.Zone()
	key := zoneKey{loc.String(), name, offset}
	if k, ok := w.byZone[key]; ok {
		if n, o := tm.In(w.t.zones[k-1]).Zone(); n == name && o == offset {
			return k
		}
	}
	w.t.zones = append(w.t.zones, loc)
	if w.byZone == nil {
		w.byZone = map[zoneKey]int{}
	}
	w.byZone[key] = len(w.t.zones)
	return len(w.t.zones)
}

// zoneKey tells zones apart: a location's name, and the zone's name and offset at a
// time.
type zoneKey struct {
	loc, name string
	offset    int
}

// listOf returns the index of signals among the trace's distinct lists, adding it.
func (w *traceWriter) listOf(signals []detect.Signal) int {
	// A few lists are searched one by one; past them, by a hash of their signals.
	const linear = 8
	if len(w.ends) <= linear {
		for k := range w.ends {
			if slices.Equal(w.list(k), signals) {
				return k
			}
		}
	} else {
		if w.byHash == nil {
			w.byHash = make(map[uint64][]int, 2*linear)
			for k := range w.ends {
				h := hashSignals(w.list(k))
				w.byHash[h] = append(w.byHash[h], k)
			}
		}
		for _, k := range w.byHash[hashSignals(signals)] {
			if slices.Equal(w.list(k), signals) {
				return k
			}
		}
	}
	w.flat = append(w.flat, signals...)
	w.ends = append(w.ends, len(w.flat))
	k := len(w.ends) - 1
	if w.byHash != nil {
		h := hashSignals(signals)
		w.byHash[h] = append(w.byHash[h], k)
	}
	return k
}

// list returns the k-th distinct signal list met so far.
func (w *traceWriter) list(k int) []detect.Signal {
	start := 0
	if k > 0 {
		start = w.ends[k-1]
	}
	return w.flat[start:w.ends[k]:w.ends[k]]
}

// hashSignals hashes a signal list: FNV-1a over each signal's kind, test counts,
// source and target, each string followed by a 0 (a list of test failures differing
// only in their counts must not fall in one bucket: a session's every test run would). (hash/fnv would take the strings as bytes, a
// copy each; maphash's seed is random, and analyze keeps even its buckets
// deterministic.)
func hashSignals(signals []detect.Signal) uint64 {
	const prime = 1099511628211
	h := uint64(14695981039346656037)
	b := func(c byte) { h = (h ^ uint64(c)) * prime }
	for _, s := range signals {
		b(byte(s.Kind))
		b(byte(s.Failed))
		b(byte(s.Failed >> 8))
		b(byte(s.Passed))
		b(byte(s.Passed >> 8))
		for i := range len(s.Source) {
			b(s.Source[i])
		}
		b(0)
		for i := range len(s.Target) {
			b(s.Target[i])
		}
		b(0)
	}
	return h
}

// traceReader decodes a trace's steps in order.
type traceReader struct {
	d       []byte
	signals []detect.Signal
	zones   []*time.Location
	pos     int
	sec     int64
	zone    int
}

func (t *Trace) reader() traceReader {
	return traceReader{d: t.data, signals: t.signals, zones: t.zones}
}

// next decodes the next step: its flags, its time and its signals (values, not a
// TraceStep written through a pointer: they come back in registers). The encoding is
// the trace's own, written by TraceSession: it is well formed.
func (r *traceReader) next() (flags byte, tm time.Time, signals []detect.Signal) {
	d := r.d
	flags = d[r.pos]
	r.pos++
	u := r.uvarint()
	delta := int64(u >> 1) // zigzag, as binary.AppendVarint writes it
	if u&1 != 0 {
		delta = ^delta
	}
	r.sec = int64(uint64(r.sec) + uint64(delta))
	var nsec int64
	switch {
	case flags&stepMillis != 0:
		nsec = int64(binary.LittleEndian.Uint16(d[r.pos:])) * 1e6
		r.pos += 2
	case flags&stepNanos != 0:
		nsec = int64(binary.LittleEndian.Uint32(d[r.pos:]))
		r.pos += 4
	}
	if flags&stepZone != 0 {
		r.zone = int(r.uvarint())
	}
	if r.zone == 0 {
		tm = time.Unix(r.sec, nsec).UTC()
	} else {
		tm = time.Unix(r.sec, nsec).In(r.zones[r.zone-1])
	}
	if flags&stepSignals != 0 {
		start := int(r.uvarint())
		end := start + int(r.uvarint())
		signals = r.signals[start:end:end]
	}
	return flags, tm, signals
}

// uvarint reads the next varint. Its one-byte case is inlined; uvarintLong reads the
// others.
func (r *traceReader) uvarint() uint64 {
	if b := r.d[r.pos]; b < 0x80 {
		r.pos++
		return uint64(b)
	}
	return r.uvarintLong()
}

func (r *traceReader) uvarintLong() uint64 {
	v, n := binary.Uvarint(r.d[r.pos:])
	r.pos += n
	return v
}

// Decision is what the EMA and the breaker decided over a trace.
type Decision struct {
	// Interventions are the steps (event indices) that triggered an intervention, in
	// order, Kinds their kinds and Times their events' times.
	Interventions []int
	Kinds         []breaker.Intervention
	Times         []time.Time
	// PeakFrustration is the highest frustration EMA after any event read.
	PeakFrustration float64

	br breaker.CircuitBreaker // reset for each session state the trace opens
}

// Decide runs the frustration EMA (ema) and the breaker (bc) over the trace as the
// processor does, into d (reset first; its slices, and the breaker it keeps, are reused).
func (t *Trace) Decide(ema detect.EMAConfig, bc breaker.Config, d *Decision) {
	d.Interventions, d.Kinds, d.Times, d.PeakFrustration = d.Interventions[:0], d.Kinds[:0], d.Times[:0], 0
	var br *breaker.CircuitBreaker
	var frustration detect.EmaTracker
	r := t.reader()
	for i := range t.n {
		flags, tm, signals := r.next()
		if flags&stepSkipped != 0 {
			continue
		}
		if flags&stepOpens != 0 {
			br, frustration = &d.br, detect.NewEmaTracker(ema.Alpha)
			br.Reset(bc)
		}
		if ema.EveryEvent || flags&stepHuman != 0 {
			frustration.Update(ema.FrustrationValue(signals))
		}
		f := frustration.Value()
		d.PeakFrustration = max(d.PeakFrustration, f)
		br.Update(tm, signals, f)
		if kind, ok := br.ShouldIntervene(tm); ok {
			br.RecordIntervention(tm)
			d.Interventions = append(d.Interventions, i)
			d.Kinds = append(d.Kinds, kind)
			d.Times = append(d.Times, tm)
		}
	}
}

// Frustration returns the frustration EMA after each event of the trace under ema,
// as the processor reports it (Step.FrustrationEMA): 0 for a skipped event, and
// starting again from 0 wherever a fresh session state opens.
func (t *Trace) Frustration(ema detect.EMAConfig) []float64 {
	out := make([]float64, t.n)
	var frustration detect.EmaTracker
	r := t.reader()
	for i := range t.n {
		flags, _, signals := r.next()
		if flags&stepSkipped != 0 {
			continue
		}
		if flags&stepOpens != 0 {
			frustration = detect.NewEmaTracker(ema.Alpha)
		}
		if ema.EveryEvent || flags&stepHuman != 0 {
			frustration.Update(ema.FrustrationValue(signals))
		}
		out[i] = frustration.Value()
	}
	return out
}
