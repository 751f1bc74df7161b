package screens

import (
	"encoding/json"
	"time"

	"github.com/loopwatch/loopwatch/reports"
)

// Session is one session as the screens show it: the history table's row, the
// status screen's active session and the head of the detail screen. Its JSON keys are
// always present; a value the replay does not know is null.
type Session struct {
	ID      string `json:"id"`
	ShortID string `json:"short_id"` // shortest unique prefix, ≥ 8 characters
	Source  string `json:"source"`
	File    string `json:"file"`
	Title   string `json:"title"`
	Project string `json:"project"`

	StartedAt       *time.Time `json:"started_at"`
	EndedAt         *time.Time `json:"ended_at"`
	DurationSeconds *float64   `json:"duration_seconds"`

	Events        int `json:"events"`
	HumanMessages int `json:"human_messages"`
	ToolFailures  int `json:"tool_failures"`
	Interrupts    int `json:"interrupts"`
	Checkpoints   int `json:"checkpoints"`
	Interventions int `json:"interventions"`

	PeakFrustrationEMA  float64 `json:"peak_frustration_ema"`
	FinalFrustrationEMA float64 `json:"final_frustration_ema"`
	FinalSuccessEMA     float64 `json:"final_success_ema"`

	FirstIntervention *FirstIntervention `json:"first_intervention"`

	// Outcome and Confidence are the session analysis's prediction; null when the
	// session was not analysed.
	Outcome    *string  `json:"outcome"`
	Confidence *float64 `json:"confidence"`

	// Label is what the labels file says of the session; null when unlabelled.
	Label *Label `json:"label"`
}

// FirstIntervention is the session's first intervention.
type FirstIntervention struct {
	Type       string     `json:"type"`
	EventIndex *int       `json:"event_index"`
	At         *time.Time `json:"at"`
}

// Label is a session's label.
type Label struct {
	Outcome    *string `json:"outcome"`    // success, partial, failure, abandoned, …
	Confidence *string `json:"confidence"` // the labeller's
	Class      *string `json:"class"`      // positive, negative, excluded, ambiguous
	Source     *string `json:"source"`
}

// session is the run-table row of a session as the screens show it, with its short id.
func session(row *reports.RunRow, shortID string) Session {
	s := Session{
		ID: row.RunKey, ShortID: shortID, Source: row.Source, File: row.File, Title: row.Title,
		Project: deref(row.Project), StartedAt: utc(row.StartedAt), EndedAt: utc(row.EndedAt),
		Events: num(row.Events), HumanMessages: num(row.HumanMessages), ToolFailures: num(row.ToolFailures),
		Interrupts: num(row.Interrupts), Checkpoints: num(row.Checkpoints), Interventions: num(row.Interventions),
		PeakFrustrationEMA: deref(row.PeakFrustrationEMA), FinalFrustrationEMA: deref(row.FinalFrustrationEMA),
		FinalSuccessEMA: deref(row.FinalSuccessEMA), Outcome: row.PredictedOutcome, Confidence: row.PredictedConfidence,
	}
	if s.StartedAt != nil && s.EndedAt != nil {
		d := s.EndedAt.Sub(*s.StartedAt).Seconds()
		s.DurationSeconds = &d
	}
	if row.FirstInterventionTy != nil {
		fi := &FirstIntervention{Type: *row.FirstInterventionTy, At: utc(row.FirstInterventionAt)}
		if row.FirstInterventionIx != nil {
			ix := int(*row.FirstInterventionIx)
			fi.EventIndex = &ix
		}
		s.FirstIntervention = fi
	}
	if row.Label != nil || row.LabelOutcome != nil {
		s.Label = &Label{Outcome: row.LabelOutcome, Confidence: row.LabelConfidence, Class: row.Label, Source: row.LabelSource}
	}
	return s
}

// Status is the status screen.
type Status struct {
	Results string `json:"results"`
	// Enabled: the replay ran the assessment on at least one session.
	Enabled bool    `json:"enabled"`
	Breaker Breaker `json:"breaker"`
	// ActiveSession is the newest session of the replay (by start time); null when
	// there is none.
	ActiveSession *Session `json:"active_session"`
	Replay        Replay   `json:"replay"`
}

// Breaker is the circuit breaker's state in the active session and its thresholds.
type Breaker struct {
	// State is "ok" (the breaker never intervened in the active session), "tripped"
	// (it intervened at least once) or "none" (no session).
	State          string   `json:"state"`
	Interventions  int      `json:"interventions"`
	FrustrationEMA *float64 `json:"frustration_ema"` // the active session's final EMA
	// Thresholds come from the replay's loopwatch.assess_config; null when the file
	// does not record it.
	Thresholds *Thresholds `json:"thresholds"`
}

// Thresholds are the breaker's configured thresholds (assess.Config.Breaker).
type Thresholds struct {
	Frustration         float64 `json:"frustration"`
	ConsecutiveFailures int     `json:"consecutive_failures"`
	CorrectionStorm     int     `json:"correction_storm"`
	CorrectionWindow    string  `json:"correction_window"`
	Cooldown            string  `json:"cooldown"`
}

// Replay describes the replay that wrote the file (instead of the seed's consumer
// offsets, which a replay does not have).
type Replay struct {
	Sessions         int    `json:"sessions"`
	OtherRuns        int    `json:"other_runs"` // rows that are not sessions (quasar runs)
	Events           int    `json:"events"`
	InputFingerprint string `json:"input_fingerprint"`
	// Shards is the number of shards of a folder output read together (absent for one).
	Shards   int    `json:"shards,omitempty"`
	Analyzer string `json:"analyzer"` // loopwatch.llm: offline or claude
	Labels   string `json:"labels"`
	Version  string `json:"version"`
}

// History is the session list screen.
type History struct {
	Results string `json:"results"`
	// Days is the window: sessions that started at most this many days before the
	// newest session; 0 means every session.
	Days int `json:"days"`
	// Since and Until bound the window (Until is the newest session's start); both
	// are null when Days is 0 or no session has a start time.
	Since *time.Time `json:"since"`
	Until *time.Time `json:"until"`
	// Limit caps the rows shown (0: no cap).
	Limit int `json:"limit"`
	// TotalSessions is every session in the file; InWindow those inside the window;
	// Undated those without a start time, which only an unlimited window (days 0)
	// shows.
	TotalSessions int       `json:"total_sessions"`
	InWindow      int       `json:"in_window"`
	Undated       int       `json:"undated"`
	Sessions      []Session `json:"sessions"`
}

// Detail is the screen of one session.
type Detail struct {
	Results       string         `json:"results"`
	Session       Session        `json:"session"`
	Analysis      Analysis       `json:"analysis"`
	Trajectory    Trajectory     `json:"trajectory"`
	Checkpoints   []Checkpoint   `json:"checkpoints"`
	Signals       []Signal       `json:"signals"`
	Interventions []Intervention `json:"interventions"`
	// LabelledFriction are the event indices the labels mark as friction moments;
	// null when the session is unlabelled.
	LabelledFriction []int `json:"labelled_friction"`
}

// Analysis is the session analysis at the session's end.
type Analysis struct {
	Outcome    *string  `json:"outcome"`
	Confidence *float64 `json:"confidence"`
	Summary    *string  `json:"summary"`
	Error      *string  `json:"error"`
	EndReason  *string  `json:"end_reason"` // hook, timeout or flush
}

// Trajectory is the frustration EMA over the session's events, bucketed into cells.
type Trajectory struct {
	// Cells is the number of cells: min(Width, events).
	Cells int `json:"cells"`
	// Values holds each cell's value: the highest frustration EMA among the events it
	// covers (events split evenly by position).
	Values    []float64 `json:"values"`
	Sparkline string    `json:"sparkline"`
	// Peak is the highest EMA and PeakEvent the first event index reaching it; Final
	// is the last event's EMA. All null without events.
	Peak      *float64 `json:"peak"`
	PeakEvent *int     `json:"peak_event"`
	Final     *float64 `json:"final"`
}

// Checkpoint is one checkpoint of the session.
type Checkpoint struct {
	Seq        int        `json:"seq"`
	Trigger    string     `json:"trigger"`
	EventIndex int        `json:"event_index"` // the event at which it fired
	FirstEvent int        `json:"first_event"` // the segment it summarises, as event indices
	LastEvent  int        `json:"last_event"`
	At         *time.Time `json:"at"`
	Summary    string     `json:"summary"`
	Error      *string    `json:"error"`
}

// Signal is one kind of signal the detector found in the session.
type Signal struct {
	Kind  string `json:"kind"`
	Count int    `json:"count"`
	// Events are the event indices of the signals, one per signal, ascending (an
	// event with two signals of the kind appears twice).
	Events []int `json:"events"`
}

// Intervention is one intervention of the circuit breaker.
type Intervention struct {
	Type                string     `json:"type"`
	EventIndex          int        `json:"event_index"`
	At                  *time.Time `json:"at"`
	FrustrationEMA      float64    `json:"frustration_ema"`
	ConsecutiveFailures int        `json:"consecutive_failures"`
	CorrectionsInWindow int        `json:"corrections_in_window"`
	Content             string     `json:"content"`
	AfterFriction       *bool      `json:"after_friction"`
}

// thresholds reads the breaker thresholds from loopwatch.assess_config.
func thresholds(assessConfig string) *Thresholds {
	if assessConfig == "" {
		return nil
	}
	var cfg struct {
		Breaker *struct {
			FrustrationThreshold *float64 `json:"frustration_threshold"`
			FailureThreshold     int      `json:"failure_threshold"`
			CorrectionStorm      int      `json:"correction_storm"`
			CorrectionWindow     string   `json:"correction_window"`
			Cooldown             string   `json:"cooldown"`
		} `json:"breaker"`
	}
	if err := json.Unmarshal([]byte(assessConfig), &cfg); err != nil || cfg.Breaker == nil || cfg.Breaker.FrustrationThreshold == nil {
		return nil
	}
	b := cfg.Breaker
	return &Thresholds{Frustration: *b.FrustrationThreshold, ConsecutiveFailures: b.FailureThreshold,
		CorrectionStorm: b.CorrectionStorm, CorrectionWindow: b.CorrectionWindow, Cooldown: b.Cooldown}
}

func num(p *int32) int {
	if p == nil {
		return 0
	}
	return int(*p)
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
