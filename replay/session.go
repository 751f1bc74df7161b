package replay

import (
	"context"
	"sync"

	"github.com/loopwatch/loopwatch/analyze"
	"github.com/loopwatch/loopwatch/analyze/assess"
	"github.com/loopwatch/loopwatch/analyze/assess/breaker"
	"github.com/loopwatch/loopwatch/analyze/assess/detect"
	"github.com/loopwatch/loopwatch/analyze/assess/llm"
	"github.com/loopwatch/loopwatch/replay/input"
)

// SessionOptions configure how sessions are replayed through the assessment.
type SessionOptions struct {
	// Assess configures the assessment processor (assess.DefaultConfig when zero).
	Assess *assess.Config
	// LLM is the session analyzer and segment summariser; nil means the processor's
	// deterministic offline analyzer.
	LLM llm.AssessmentLLM
}

// SessionResult is the replay of one session through the assessment processor:
// every event's step, and the session's ends.
type SessionResult struct {
	Session *input.Session
	// Steps holds the processor's step for each event, aligned with Session.Events.
	Steps []assess.Step
	// Ends are the session's ends in order: end hooks and inactivity timeouts during
	// the replay (after which later events open the session again, as online), and the
	// final end at the session's last record.
	Ends []assess.SessionEnd

	// Summary figures, over the whole session.
	HumanMessages int // non-sidechain user messages
	ToolFailures  int // tool results the detector saw fail (build, test or tool failure)
	Interventions int
	// FirstIntervention is the index (into Steps) of the first event that triggered an
	// intervention; -1 when none did.
	FirstIntervention int
	PeakFrustration   float64

	// Variants holds the session's outcome under each of Options.Variants.
	Variants []SessionOutcome
	// Extra is the caller's, set by Options.SessionHook; the replay never reads it.
	Extra any
}

// SessionOutcome is what the scoring needs of a session's replay: the events that
// triggered interventions, the peak frustration and the final analysis.
type SessionOutcome struct {
	Interventions   []int // indices into Session.Events, in order
	PeakFrustration float64
	// Analysis is the final end's session analysis; nil when there is none.
	Analysis *llm.SessionAnalysis
	// AnalysisFailed: the final analysis was due and failed (a problem of its own);
	// the session's outcome is unknown, not predicted good.
	AnalysisFailed bool
}

// Outcome condenses the session's replay into a SessionOutcome.
func (r *SessionResult) Outcome() SessionOutcome {
	o := SessionOutcome{PeakFrustration: r.PeakFrustration, Analysis: r.Final().Analysis, AnalysisFailed: r.AnalysisFailed()}
	for i, st := range r.Steps {
		if st.Intervention != nil {
			o.Interventions = append(o.Interventions, i)
		}
	}
	return o
}

// Final returns the session's last end: its analysis is the session's predicted
// outcome.
func (r *SessionResult) Final() assess.SessionEnd {
	if len(r.Ends) == 0 {
		return assess.SessionEnd{}
	}
	return r.Ends[len(r.Ends)-1]
}

// AnalysisFailed reports whether the session's final analysis was due (the session
// was sampled) and the analyzer failed on it — an error, a timeout, an answer that
// was no analysis; Final().Err says why. Its predicted outcome is then unknown: it
// must be left out of outcome scoring, never read as a good outcome.
func (r *SessionResult) AnalysisFailed() bool {
	f := r.Final()
	return f.Sampling.Assess && f.Analysis == nil
}

// ReplaySession drives one session through a fresh assessment processor, event by
// event on the recorded event time, exactly as the online plugin would consume it,
// and ends it at its last record. Every event is given the session's key as its
// session id, so the session is one unit whatever ids its records carry. A fresh
// processor per session keeps sessions independent of each other and of the order
// they are replayed in. [Replay] prepares each configuration once for all its
// sessions; ReplaySession prepares it for this one — validating the configuration,
// compiling its detection rules (some milliseconds) — so a caller replaying many
// sessions under one configuration uses a [SessionReplayer].
func ReplaySession(ctx context.Context, s *input.Session, opts SessionOptions) (*SessionResult, error) {
	return NewSessionReplayer(opts).Replay(ctx, s)
}

// A SessionReplayer replays sessions under one configuration prepared once, at its
// first session: the configuration validated, its detection rules compiled and its
// offline analyzer built, then shared by the processor of every session (compiled
// rules and the offline analyzer are immutable and safe for concurrent use) — per
// session, that preparation was most of the cost of a short session. Each session is
// replayed exactly as [ReplaySession] would, through a fresh processor of its own, so
// the results do not depend on the order of the sessions or on which goroutine
// replays them. It is safe for concurrent use when opts.LLM is (the offline analyzer,
// the default, is). [Replay] prepares one for its configuration and one for each
// variant; waiting for the first session, an invalid configuration fails where it
// always did.
type SessionReplayer struct {
	opts SessionOptions
	once sync.Once
	cfg  assess.Config
	proc assess.Options
	err  error
}

// NewSessionReplayer returns a replayer of sessions under opts, which it reads at its
// first Replay (the configuration opts.Assess points to included). An invalid
// configuration is reported by each Replay.
func NewSessionReplayer(opts SessionOptions) *SessionReplayer {
	return &SessionReplayer{opts: opts}
}

// sessionPlans are a replay's session configurations: the configured one and each
// variant's, in order.
type sessionPlans struct {
	main     *SessionReplayer
	variants []*SessionReplayer
}

func newSessionPlans(opts Options) *sessionPlans {
	p := &sessionPlans{main: NewSessionReplayer(opts.Sessions)}
	for _, v := range opts.Variants {
		vopts := opts.Sessions
		vopts.Assess = v.Assess
		p.variants = append(p.variants, NewSessionReplayer(vopts))
	}
	return p
}

func (p *SessionReplayer) prepare() error {
	p.once.Do(func() {
		p.cfg = assess.DefaultConfig()
		if p.opts.Assess != nil {
			p.cfg = *p.opts.Assess
		}
		if p.err = p.cfg.Validate(); p.err != nil {
			return
		}
		rules, err := detect.Compile(p.cfg.Detect)
		if err != nil {
			p.err = err
			return
		}
		analyzer := p.opts.LLM
		if analyzer == nil {
			analyzer = llm.NewOfflineAnalyzer(p.cfg.Offline)
		}
		p.proc = assess.Options{LLM: analyzer, Sink: discardSink{}, Rules: rules}
	})
	return p.err
}

// Replay replays one session (see [ReplaySession]).
func (p *SessionReplayer) Replay(ctx context.Context, s *input.Session) (*SessionResult, error) {
	if err := p.prepare(); err != nil {
		return nil, err
	}
	proc, err := assess.New(p.cfg, p.proc)
	if err != nil {
		return nil, err
	}
	res := &SessionResult{Session: s, Steps: make([]assess.Step, 0, len(s.Events)), FirstIntervention: -1}
	for i := range s.Events {
		ev := s.Events[i]
		ev.SessionID = s.Key
		step, err := proc.Process(ctx, ev)
		if err != nil {
			return nil, err
		}
		res.Ends = append(res.Ends, step.TimedOut...)
		if step.End != nil {
			res.Ends = append(res.Ends, *step.End)
		}
		if ev.Kind == analyze.KindUserMessage && !ev.Sidechain {
			res.HumanMessages++
		}
		if isToolFailure(step.Signals) {
			res.ToolFailures++
		}
		if step.Intervention != nil {
			res.Interventions++
			if res.FirstIntervention < 0 {
				res.FirstIntervention = i
			}
		}
		res.PeakFrustration = max(res.PeakFrustration, step.FrustrationEMA)
		res.Steps = append(res.Steps, step)
	}
	end := s.End
	if end.IsZero() && len(s.Events) > 0 {
		end = s.Events[len(s.Events)-1].Time
	}
	final, err := proc.EndAll(ctx, end)
	if err != nil {
		return nil, err
	}
	res.Ends = append(res.Ends, final...)
	return res, nil
}

func isToolFailure(signals []detect.Signal) bool {
	for _, s := range signals {
		switch s.Kind {
		case detect.BuildFailure, detect.TestFailure, detect.ToolFailure:
			return true
		}
	}
	return false
}

// discardSink accepts interventions: a replay records them in its steps and delivers
// them nowhere.
type discardSink struct{}

func (discardSink) Deliver(context.Context, breaker.Message) error { return nil }
