package assess

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/loopwatch/loopwatch/analyze"
	"github.com/loopwatch/loopwatch/analyze/assess/breaker"
	"github.com/loopwatch/loopwatch/analyze/assess/checkpoint"
	"github.com/loopwatch/loopwatch/analyze/assess/detect"
	"github.com/loopwatch/loopwatch/analyze/assess/eventlog"
	"github.com/loopwatch/loopwatch/analyze/assess/llm"
	"github.com/loopwatch/loopwatch/analyze/assess/session"
)

// Options are the processor's collaborators.
type Options struct {
	// LLM summarises checkpoints and analyses ended sessions. Nil: an
	// llm.OfflineAnalyzer with Config.Offline, so nothing needs a network. When it is
	// set, Config.Offline is neither read nor validated: an OfflineAnalyzer is safe for
	// concurrent use, so a replay builds one per configuration and shares it.
	LLM llm.AssessmentLLM
	// Sink receives interventions. Nil: interventions are only reported in Steps.
	Sink breaker.Sink
	// OnStep, if set, is called by Run and Drain after each processed record.
	OnStep func(eventlog.Record, Step)
	// Clock is the online loop's clock (time.Now): when the log has nothing new, Run
	// ends the sessions that have been inactive for longer than the inactivity
	// timeout at Clock's time ([Processor.ExpireIdle]), so that a session whose events
	// simply stop still ends and is assessed. Everything else runs on event time. Run
	// refuses to start without a Clock; Process, Drain and the replay never read it.
	Clock func() time.Time
	// OnIdleEnd, if set, is called by Run with the sessions it ended while the log was
	// idle (sessions ended at an event's arrival are in that event's Step.TimedOut).
	OnIdleEnd func([]SessionEnd)
	// Rules, if set, are the detection rules to use instead of compiling
	// Config.Detect: compile them once with detect.Compile(cfg.Detect) and share them
	// across processors (compiled rules are immutable and safe for concurrent use),
	// e.g. when a replay opens one processor per session. Config.Detect is then not
	// read; the caller keeps the two consistent.
	Rules *detect.Rules
}

// Step is everything the processor decided for one event: what the replay records
// per event.
type Step struct {
	SessionID string `json:"session_id"`
	// Index is the event's 1-based position in its session; 0 when Skipped.
	Index int `json:"index"`
	// Skipped: the event has no session id, or is a hook/system record of a session
	// that is not open (a late Stop after the session ended, say); nothing was done.
	Skipped bool            `json:"skipped,omitempty"`
	Signals []detect.Signal `json:"signals,omitempty"`
	// FrustrationEMA and SuccessEMA are the session's EMAs after the event.
	FrustrationEMA float64 `json:"frustration_ema"`
	SuccessEMA     float64 `json:"success_ema"`
	// Breaker is the breaker state after the event (and after its intervention).
	Breaker breaker.State `json:"breaker"`
	// Intervention is the intervention this event triggered and that was delivered.
	Intervention *breaker.Message `json:"intervention,omitempty"`
	// Checkpoint is the checkpoint this event triggered.
	Checkpoint *Checkpoint `json:"checkpoint,omitempty"`
	// End is set when this event ended its session (an end hook).
	End *SessionEnd `json:"end,omitempty"`
	// TimedOut lists other sessions (or an earlier run of this one) that this event's
	// time showed to have been inactive past the timeout; they ended before it.
	TimedOut []SessionEnd `json:"timed_out,omitempty"`
}

// Checkpoint is one medium assessment.
type Checkpoint struct {
	Trigger checkpoint.Trigger `json:"trigger"`
	// From and To are the 1-based indices of the segment's first and last events.
	From    int                `json:"from"`
	To      int                `json:"to"`
	Summary llm.SegmentSummary `json:"summary"`
	// Err is the summariser's error, if it failed (the checkpoint still counts).
	Err string `json:"error,omitempty"`
}

// SessionEnd is how a session ended and, if it was sampled, its heavy assessment.
type SessionEnd struct {
	SessionID string            `json:"session_id"`
	Reason    session.EndReason `json:"reason"`
	// At is the event time the session ended: the end hook's time, the last event's
	// time for a timeout, the caller's time for a flush.
	At       time.Time        `json:"at"`
	Stats    session.Stats    `json:"stats"`
	Sampling session.Decision `json:"sampling"`
	// Analysis is the session analysis when Sampling.Assess and the analyzer succeeded.
	Analysis *llm.SessionAnalysis `json:"analysis,omitempty"`
	// Err is the analyzer's error, if it failed (an error, a timeout, an answer that
	// is no analysis, a cancellation): then Analysis is nil and the session's outcome
	// is unknown — never to be read as a good outcome (see Failed).
	Err string `json:"error,omitempty"`
}

// Failed reports whether the session was to be analysed and the analysis failed: its
// outcome is unknown, and Err says why. A scorer leaves such a session out.
func (e SessionEnd) Failed() bool { return e.Sampling.Assess && e.Analysis == nil }

// Processor is the seed's AssessmentProcessor: detect → breaker → intervention →
// buffer → checkpoint → session end → sampled heavy assessment, for every event, with
// all state kept per session. Feed it synchronously with [Processor.Process] (the
// replay) or let [Processor.Run] consume an [eventlog.Log] (the online loop); both
// run the same code. Not safe for concurrent use.
type Processor struct {
	cfg       Config
	rules     *detect.Rules
	policy    *checkpoint.Policy
	ends      session.HookEndDetector
	timeout   *session.TimeoutEndDetector
	sampler   *session.Sampler
	llm       llm.AssessmentLLM
	sink      breaker.Sink
	onStep    func(eventlog.Record, Step)
	clock     func() time.Time
	onIdleEnd func([]SessionEnd)
	sessions  map[string]*sessionState
	ended     endedSessions // sessions finished, which an event may resume
}

// maxEnded bounds the finished sessions a processor remembers to tell a resumed
// session from a new one (detect.LightweightDetector.Resume): the oldest is forgotten
// first, and a processor started afresh knows none.
const maxEnded = 4096

// endedSessions is a bounded set of finished sessions' ids, oldest first out.
type endedSessions struct {
	set  map[string]struct{}
	ring []string // in the order they ended; len ≤ maxEnded
	next int      // where the next id goes once ring is full
}

func (e *endedSessions) add(id string) {
	if _, ok := e.set[id]; ok {
		return
	}
	if e.set == nil {
		e.set = map[string]struct{}{}
	}
	if len(e.ring) < maxEnded {
		e.ring = append(e.ring, id)
	} else {
		delete(e.set, e.ring[e.next])
		e.ring[e.next] = id
		e.next = (e.next + 1) % maxEnded
	}
	e.set[id] = struct{}{}
}

func (e *endedSessions) has(id string) bool {
	_, ok := e.set[id]
	return ok
}

type sessionState struct {
	det *detect.LightweightDetector
	br  *breaker.CircuitBreaker
	cp  *checkpoint.Manager
	buf *session.Buffer
}

// New validates and compiles cfg and returns a processor with no open session.
func New(cfg Config, opts Options) (*Processor, error) {
	if err := cfg.validate(opts.LLM == nil); err != nil {
		return nil, err
	}
	rules := opts.Rules
	if rules == nil {
		var err error
		if rules, err = detect.Compile(cfg.Detect); err != nil {
			return nil, err
		}
	}
	policy, err := checkpoint.NewPolicy(cfg.Checkpoint)
	if err != nil {
		return nil, err
	}
	sampler, err := session.NewSampler(cfg.Sampling)
	if err != nil {
		return nil, err
	}
	p := &Processor{
		cfg:      cfg,
		rules:    rules,
		policy:   policy,
		ends:     session.HookEndDetector{Hooks: slices.Clone(cfg.EndHooks), Systems: slices.Clone(cfg.EndSystemEvents)},
		timeout:  session.NewTimeoutEndDetector(cfg.InactivityTimeout.Std()),
		sampler:  sampler,
		llm:      opts.LLM,
		sink:     opts.Sink,
		onStep:   opts.OnStep,
		clock:    opts.Clock,
		sessions: make(map[string]*sessionState),
	}
	p.onIdleEnd = opts.OnIdleEnd
	if p.llm == nil {
		p.llm = llm.NewOfflineAnalyzer(cfg.Offline)
	}
	return p, nil
}

// Process runs the whole pipeline for one event, at the event's time, and reports
// what it decided. In order:
//
//  1. sessions inactive for longer than the timeout at ev.Time are ended
//     (Step.TimedOut), each with its sampled analysis;
//  2. the event's session is found or opened (hook and system records do not open
//     one);
//  3. the session's detector reads the event and moves its EMAs;
//  4. its breaker folds in the signals; if an intervention is due it is delivered to
//     the sink and recorded (cooldown, count);
//  5. the event and its signals are buffered;
//  6. if a checkpoint is due, the segment since the last one is summarised;
//  7. if the event ends its session (an end hook, or a source's end record such as
//     vibes's session_removed), the session ends and, if sampled, is analysed.
//
// Errors of the summariser or analyzer are reported in the Step, not returned: the
// assessment goes on without them. Process returns an error when ctx has ended or the
// sink fails to take an intervention. An event is processed whole or not at all: with
// ctx already done, Process returns its error and changes nothing; once begun, every
// step is done whatever fails — a summary or analysis that ctx cut short is recorded
// as failed, and an intervention the sink refused is not recorded, so it is due again
// at the session's next event — and the error is returned with the Step. So a consumer
// that gets an error with a Step has processed the event and must count it as done
// (Run and Drain commit it), or it would be processed twice.
func (p *Processor) Process(ctx context.Context, ev analyze.Event) (Step, error) {
	if err := ctx.Err(); err != nil {
		return Step{}, err
	}
	return p.apply(ctx, ev)
}

// apply processes one event whole; see Process.
func (p *Processor) apply(ctx context.Context, ev analyze.Event) (Step, error) {
	var firstErr error
	fail := func(err error) {
		if err != nil && firstErr == nil {
			firstErr = err
		}
	}
	step := Step{SessionID: ev.SessionID}
	if ev.SessionID == "" {
		step.Skipped = true
		return step, nil
	}
	for _, id := range p.timeout.Expired(ev.Time) {
		st := p.sessions[id]
		end, err := p.finish(ctx, id, st, session.EndTimeout, st.buf.Stats().Last)
		step.TimedOut = append(step.TimedOut, end)
		fail(err)
	}
	st := p.sessions[ev.SessionID]
	if st == nil {
		if ev.Kind == analyze.KindHook || ev.Kind == analyze.KindSystem {
			step.Skipped = true
			return step, firstErr
		}
		st = &sessionState{
			det: detect.NewLightweightDetector(p.rules),
			br:  breaker.New(p.cfg.Breaker),
			cp:  p.policy.NewManager(),
			buf: session.NewBuffer(ev.SessionID, p.cfg.Buffer),
		}
		if p.ended.has(ev.SessionID) {
			st.det.Resume()
		}
		p.sessions[ev.SessionID] = st
	}
	p.timeout.Touch(ev.SessionID, ev.Time)

	// Detection and breaker.
	step.Signals = st.det.Detect(ev)
	step.FrustrationEMA, step.SuccessEMA = st.det.FrustrationEMA(), st.det.SuccessEMA()
	st.br.Update(ev.Time, step.Signals, step.FrustrationEMA)

	// Intervention.
	var sinkErr error
	if kind, ok := st.br.ShouldIntervene(ev.Time); ok {
		msg := breaker.NewMessage(ev.SessionID, kind, ev.Time)
		if p.sink != nil {
			sinkErr = p.sink.Deliver(ctx, msg)
		}
		if sinkErr == nil {
			st.br.RecordIntervention(ev.Time)
			st.buf.NoteIntervention()
			step.Intervention = &msg
		} else {
			sinkErr = fmt.Errorf("assess: delivering %v to session %s: %w", kind, ev.SessionID, sinkErr)
		}
	}
	step.Breaker = st.br.State(ev.Time)

	// Buffer.
	step.Index = st.buf.Add(ev, step.Signals)
	st.buf.NoteEMAs(step.FrustrationEMA, step.SuccessEMA)

	// Checkpoint.
	if trig, ok := st.cp.ShouldCheckpoint(ev); ok {
		seg := st.buf.SinceCheckpoint()
		cp := &Checkpoint{Trigger: trig, From: seg.From, To: seg.To}
		sum, err := p.llm.SummarizeSegment(ctx, seg)
		if err != nil {
			cp.Err = err.Error()
			fail(ctx.Err())
		} else {
			cp.Summary = sum
		}
		st.cp.RecordCheckpoint(ev.Time)
		st.buf.MarkCheckpoint()
		step.Checkpoint = cp
	}

	// Session end.
	if p.ends.IsSessionEnd(ev) {
		reason := session.EndHook
		if ev.Kind == analyze.KindSystem {
			reason = session.EndSystem
		}
		end, err := p.finish(ctx, ev.SessionID, st, reason, ev.Time)
		step.End = &end
		fail(err)
	}
	fail(sinkErr)
	return step, firstErr
}

// EndSession ends an open session at event time at (reason flush), e.g. when a
// replayed transcript ends without an end hook, and returns its end and analysis.
// ok is false when the session is not open.
func (p *Processor) EndSession(ctx context.Context, sessionID string, at time.Time) (end SessionEnd, ok bool, err error) {
	st := p.sessions[sessionID]
	if st == nil {
		return SessionEnd{}, false, nil
	}
	end, err = p.finish(ctx, sessionID, st, session.EndFlush, at)
	return end, true, err
}

// EndAll ends every open session at event time at (reason flush), in session-id
// order, and returns their ends.
func (p *Processor) EndAll(ctx context.Context, at time.Time) ([]SessionEnd, error) {
	var ends []SessionEnd
	for _, id := range p.OpenSessions() {
		end, _, err := p.EndSession(ctx, id, at)
		ends = append(ends, end)
		if err != nil {
			return ends, err
		}
	}
	return ends, nil
}

// OpenSessions returns the ids of the open sessions, sorted.
func (p *Processor) OpenSessions() []string {
	ids := make([]string, 0, len(p.sessions))
	for id := range p.sessions {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// finish closes a session: sampling decision, then the heavy assessment if sampled.
func (p *Processor) finish(ctx context.Context, id string, st *sessionState, reason session.EndReason, at time.Time) (SessionEnd, error) {
	delete(p.sessions, id)
	p.ended.add(id)
	p.timeout.Forget(id)
	end := SessionEnd{SessionID: id, Reason: reason, At: at, Stats: st.buf.Stats()}
	end.Sampling = p.sampler.ShouldAssess(session.SamplingContext{
		SessionID:               id,
		CircuitBreakerTriggered: st.buf.HadIntervention(),
		HasExplicitFeedback:     st.buf.HasFeedback(),
		MessageCount:            st.buf.MessageCount(),
	})
	if !end.Sampling.Assess {
		return end, nil
	}
	a, err := p.llm.AnalyzeSession(ctx, st.buf.Transcript(reason, at))
	if err != nil {
		// A failed analysis leaves the outcome unknown: Analysis stays nil and Err says
		// why (see SessionEnd.Failed). A cancelled one is that too, and ctx's error
		// goes back to the caller.
		end.Err = err.Error()
		return end, ctx.Err()
	}
	end.Analysis = &a
	return end, nil
}

// ExpireIdle ends the open sessions that have been inactive for longer than the
// inactivity timeout at now (the online loop's clock; see Options.Clock), each at its
// last event's time (reason timeout), with its sampled analysis, oldest first. Run
// calls it whenever the log has nothing new.
func (p *Processor) ExpireIdle(ctx context.Context, now time.Time) ([]SessionEnd, error) {
	var ends []SessionEnd
	var firstErr error
	for _, id := range p.timeout.Expired(now) {
		st := p.sessions[id]
		end, err := p.finish(ctx, id, st, session.EndTimeout, st.buf.Stats().Last)
		ends = append(ends, end)
		if err != nil && firstErr == nil {
			firstErr = err
		}
	}
	return ends, firstErr
}

// Run consumes log until ctx ends (the seed's run loop): it polls batches of up to
// PollMax records waiting up to PollWait, processes each record, and commits the
// batch's last offset; when a poll finds nothing, it ends the sessions idle for
// longer than the inactivity timeout at Options.Clock's time. When ctx ends or
// processing fails mid-batch, it commits the records processed so far — the one that
// failed included, as Process did it — and rewinds the log to that commit before
// returning, so that neither a restarted consumer nor this one calling Run again
// processes an event twice or skips the rest of the batch. It returns ctx's error, or
// the first processing or log error; without Options.Clock it returns an error at once.
func (p *Processor) Run(ctx context.Context, log eventlog.Log) error {
	if p.clock == nil {
		return errors.New("assess: Run needs Options.Clock (time.Now online) to end the sessions that go idle")
	}
	return p.consume(ctx, log, p.cfg.PollWait.Std(), false)
}

// Drain is Run for a finite log: it returns nil once a poll finds no record,
// without waiting for more and without a clock. Sessions still open stay open (see
// EndAll).
func (p *Processor) Drain(ctx context.Context, log eventlog.Log) error {
	return p.consume(ctx, log, 0, true)
}

func (p *Processor) consume(ctx context.Context, log eventlog.Log, wait time.Duration, stopWhenIdle bool) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		recs, err := log.Poll(ctx, p.cfg.PollMax, wait)
		if err != nil {
			return err
		}
		if len(recs) == 0 {
			if stopWhenIdle {
				return nil
			}
			ends, err := p.ExpireIdle(ctx, p.clock())
			if len(ends) > 0 && p.onIdleEnd != nil {
				p.onIdleEnd(ends)
			}
			if err != nil {
				return err
			}
			continue
		}
		done := -1
		var procErr error
		for i, r := range recs {
			if procErr = ctx.Err(); procErr != nil {
				break
			}
			// Once applied the event is processed, even when an error comes back with
			// its step: it is committed, never processed again.
			step, err := p.apply(ctx, r.Event)
			done = i
			if p.onStep != nil {
				p.onStep(r, step)
			}
			if err != nil {
				procErr = err
				break
			}
		}
		if done >= 0 {
			if err := log.Commit(recs[done].Offset); err != nil {
				return err
			}
		}
		if procErr != nil {
			// The records polled after the failure were not processed: deliver them
			// again.
			if err := log.Rewind(); err != nil {
				return errors.Join(procErr, err)
			}
			return procErr
		}
	}
}
