package session

import (
	"errors"
	"time"
	"unicode/utf8"

	"github.com/loopwatch/loopwatch/analyze"
	"github.com/loopwatch/loopwatch/analyze/assess/checkpoint"
	"github.com/loopwatch/loopwatch/analyze/assess/detect"
)

// BufferConfig bounds a [Buffer]. The seed's SessionBuffer is unbounded; a replay of
// a log with many open sessions, and tool outputs of several megabytes, need a bound.
type BufferConfig struct {
	// MaxEvents is how many of the most recent events a buffer keeps; older ones are
	// dropped (and counted as omitted), while the session's statistics keep counting
	// everything. Default 500: several times the seed's long-session sample (89
	// messages) and the corpus's typical session, at a bounded cost.
	MaxEvents int `json:"max_events"`
	// MaxTextBytes caps each text field of a buffered event (user content, assistant
	// text, tool output, the tool's command — a heredoc can carry a whole file — and
	// its ids and names): longer text keeps its first quarter and its end, where
	// build and test summaries sit. Default 8192: enough for a prompt to show what
	// happened, while 500 events stay within a few megabytes whatever they carry.
	MaxTextBytes int `json:"max_text_bytes"`
}

// DefaultBufferConfig returns the defaults documented on [BufferConfig].
func DefaultBufferConfig() BufferConfig { return BufferConfig{MaxEvents: 500, MaxTextBytes: 8192} }

// Validate checks the bounds.
func (c BufferConfig) Validate() error {
	if c.MaxEvents < 1 {
		return errors.New("session: max_events must be ≥ 1")
	}
	if c.MaxTextBytes < 64 {
		return errors.New("session: max_text_bytes must be ≥ 64")
	}
	return nil
}

// Entry is one buffered event with the signals detected in it.
type Entry struct {
	// Index is the event's 1-based position in its session.
	Index   int             `json:"index"`
	Event   analyze.Event   `json:"event"`
	Signals []detect.Signal `json:"signals,omitempty"`
}

// Stats summarises a whole session, including events the buffer no longer holds.
type Stats struct {
	Events            int `json:"events"`
	Messages          int `json:"messages"` // see checkpoint.IsMessage
	UserMessages      int `json:"user_messages"`
	Interrupts        int `json:"interrupts"`
	AssistantMessages int `json:"assistant_messages"`
	ToolResults       int `json:"tool_results"`
	ToolErrors        int `json:"tool_errors"` // results with ToolStatusError
	SidechainEvents   int `json:"sidechain_events"`
	// Signals counts signals by kind, indexed by detect.Kind (index 0 is unused);
	// use Count.
	Signals       [detect.NumKinds]int `json:"signals"`
	Interventions int                  `json:"interventions"`
	Checkpoints   int                  `json:"checkpoints"`
	First         time.Time            `json:"first"`
	Last          time.Time            `json:"last"`
	// FrustrationEMA and SuccessEMA are the detector's EMAs after the last event.
	FrustrationEMA float64 `json:"frustration_ema"`
	SuccessEMA     float64 `json:"success_ema"`
	// LastHumanIndex and LastHumanSignals describe the last human turn.
	LastHumanIndex   int             `json:"last_human_index"`
	LastHumanSignals []detect.Signal `json:"last_human_signals,omitempty"`
	// LastToolIndex and LastToolOutcome describe the last tool result that raised a
	// build/test/tool failure or a build/test success; LastToolOutcome is that
	// result's most telling signal kind (a failure over a success), 0 if none.
	LastToolIndex   int         `json:"last_tool_index"`
	LastToolOutcome detect.Kind `json:"last_tool_outcome,omitempty"`
}

// Count returns the number of signals of kind k.
func (s *Stats) Count(k detect.Kind) int {
	if int(k) >= len(s.Signals) {
		return 0
	}
	return s.Signals[k]
}

// Segment is the part of a session since its last checkpoint, for summarisation.
type Segment struct {
	SessionID string `json:"session_id"`
	// From and To are the 1-based indices of the segment's first and last events.
	From int `json:"from"`
	To   int `json:"to"`
	// Entries are the segment's buffered events; Omitted counts the segment's events
	// the buffer had already dropped (they precede Entries).
	Entries []Entry `json:"entries"`
	Omitted int     `json:"omitted"`
}

// EndReason says how a session ended.
type EndReason string

// The ways a session ends.
const (
	// EndHook: an end hook (SessionEnd, or whatever the configuration names).
	EndHook EndReason = "hook"
	// EndSystem: a source's own record of the session's end (vibes's
	// session_removed; see HookEndDetector.Systems).
	EndSystem EndReason = "system"
	// EndTimeout: no event for longer than the inactivity timeout, in event time
	// (online, also at the loop's clock while the log is idle).
	EndTimeout EndReason = "timeout"
	// EndFlush: the caller ended it, e.g. at the end of a replayed transcript.
	EndFlush EndReason = "flush"
)

// Transcript is a whole ended session, for session analysis.
type Transcript struct {
	SessionID string    `json:"session_id"`
	Reason    EndReason `json:"reason"`
	// End is the event time the session ended at.
	End time.Time `json:"end"`
	// Entries are the buffered events; Omitted counts the earlier ones dropped.
	Entries []Entry `json:"entries"`
	Omitted int     `json:"omitted"`
	Stats   Stats   `json:"stats"`
}

// Buffer collects one session's events and signals (the seed's SessionBuffer),
// keeping the most recent MaxEvents with text clipped to MaxTextBytes. Not safe for
// concurrent use.
type Buffer struct {
	id  string
	cfg BufferConfig
	// chunks hold the entries, bufferChunk to a chunk (the last one cut to
	// MaxEvents), and held counts them: in order until MaxEvents are held, then a
	// ring whose oldest entry is at head.
	chunks     [][]Entry
	held       int
	head       int
	segStart   int // index (1-based) of the first event after the last checkpoint
	stats      Stats
	lastHuman  [4]detect.Signal
	lastHumanN int
}

// bufferChunk is how many entries a buffer makes room for at a time. Growing by whole
// chunks, it never copies what it holds: growing one slice by appending copied every
// entry each time it doubled, and allocated two to five times a short session's events.
const bufferChunk = 16

// slot is the place of the i-th held entry in chunk order.
func (b *Buffer) slot(i int) *Entry { return &b.chunks[i/bufferChunk][i%bufferChunk] }

// NewBuffer returns an empty buffer for a session. cfg should have passed
// [BufferConfig.Validate].
func NewBuffer(sessionID string, cfg BufferConfig) *Buffer {
	return &Buffer{id: sessionID, cfg: cfg, segStart: 1}
}

// SessionID returns the session's id.
func (b *Buffer) SessionID() string { return b.id }

// Add appends an event and its signals, and returns the event's 1-based index.
func (b *Buffer) Add(ev analyze.Event, signals []detect.Signal) int {
	st := &b.stats
	st.Events++
	idx := st.Events
	if st.Events == 1 {
		st.First = ev.Time
	}
	if ev.Time.After(st.Last) {
		st.Last = ev.Time
	}
	if checkpoint.IsMessage(&ev) {
		st.Messages++
	}
	if ev.Sidechain {
		st.SidechainEvents++
	}
	switch ev.Kind {
	case analyze.KindUserMessage:
		if !ev.Sidechain {
			st.UserMessages++
		}
	case analyze.KindInterrupt:
		if !ev.Sidechain {
			st.Interrupts++
		}
	case analyze.KindAssistantMessage:
		st.AssistantMessages++
	case analyze.KindToolResult:
		st.ToolResults++
		if ev.ToolStatus == analyze.ToolStatusError {
			st.ToolErrors++
		}
	}
	outcome := detect.Kind(0)
	for _, s := range signals {
		if int(s.Kind) < len(st.Signals) {
			st.Signals[s.Kind]++
		}
		switch {
		case s.Kind == detect.BuildFailure || s.Kind == detect.TestFailure || s.Kind == detect.ToolFailure:
			if !outcome.IsToolFailure() {
				outcome = s.Kind
			}
		case s.Kind.IsToolSuccess() && outcome == 0:
			outcome = s.Kind
		}
	}
	if outcome != 0 {
		st.LastToolIndex, st.LastToolOutcome = idx, outcome
	}
	if detect.IsHumanTurn(&ev) {
		st.LastHumanIndex = idx
		b.lastHumanN = copy(b.lastHuman[:], signals)
	}

	for _, f := range []*string{&ev.UserContent, &ev.AssistantText, &ev.ToolOutput, &ev.ToolCommand, &ev.SessionID,
		&ev.ID, &ev.ToolName, &ev.HookName, &ev.Subtype} {
		*f = clip(*f, b.cfg.MaxTextBytes)
	}
	e := Entry{Index: idx, Event: ev, Signals: signals}
	if b.held < b.cfg.MaxEvents {
		if b.held%bufferChunk == 0 {
			b.chunks = append(b.chunks, make([]Entry, min(bufferChunk, b.cfg.MaxEvents-b.held)))
		}
		*b.slot(b.held) = e
		b.held++
	} else {
		*b.slot(b.head) = e
		b.head = (b.head + 1) % b.held
	}
	return idx
}

// NoteEMAs records the detector's EMAs after the latest event.
func (b *Buffer) NoteEMAs(frustration, success float64) {
	b.stats.FrustrationEMA, b.stats.SuccessEMA = frustration, success
}

// NoteIntervention records that an intervention fired in the session.
func (b *Buffer) NoteIntervention() { b.stats.Interventions++ }

// SinceCheckpoint returns the segment since the last checkpoint (or the start).
func (b *Buffer) SinceCheckpoint() Segment {
	entries, omitted := b.entriesFrom(b.segStart)
	return Segment{SessionID: b.id, From: b.segStart, To: b.stats.Events, Entries: entries, Omitted: omitted}
}

// MarkCheckpoint records a checkpoint after the latest event: the next segment
// starts after it.
func (b *Buffer) MarkCheckpoint() {
	b.segStart = b.stats.Events + 1
	b.stats.Checkpoints++
}

// HadIntervention reports whether an intervention fired in the session (the seed's
// had_intervention, the sampler's "circuit breaker triggered").
func (b *Buffer) HadIntervention() bool { return b.stats.Interventions > 0 }

// HasFeedback reports whether the human gave explicit feedback: a human turn with a
// frustration, success or correction signal, or one of detect's friction signals read
// from the human's words (a repeated request, a negation, "still not working", doubt,
// a correction phrase, exasperation, giving up). The seed's has_feedback is undefined; this
// reads "explicit feedback" as the human saying how it is going, which is exactly
// what those signals look for. Interrupts and redirects are turn-taking, not words.
func (b *Buffer) HasFeedback() bool {
	s := &b.stats
	n := s.Count(detect.Frustration) + s.Count(detect.Success) + s.Count(detect.UserCorrection) + s.Count(detect.RepeatRequest)
	for k := range detect.Kind(detect.NumKinds) {
		if k.Lexical() {
			n += s.Count(k)
		}
	}
	return n > 0
}

// MessageCount returns the session's message count (see checkpoint.IsMessage).
func (b *Buffer) MessageCount() int { return b.stats.Messages }

// Stats returns the session's statistics so far.
func (b *Buffer) Stats() Stats {
	s := b.stats
	if b.lastHumanN > 0 {
		s.LastHumanSignals = append([]detect.Signal(nil), b.lastHuman[:b.lastHumanN]...)
	}
	return s
}

// Transcript returns the whole session for analysis, ended for reason at event
// time end.
func (b *Buffer) Transcript(reason EndReason, end time.Time) Transcript {
	entries, omitted := b.entriesFrom(1)
	return Transcript{SessionID: b.id, Reason: reason, End: end, Entries: entries, Omitted: omitted, Stats: b.Stats()}
}

// entriesFrom copies the held entries with Index ≥ from, and counts the events with
// Index ≥ from that are no longer held.
func (b *Buffer) entriesFrom(from int) ([]Entry, int) {
	n := b.held
	oldest := b.stats.Events - n + 1 // index of the oldest held entry
	omitted := max(0, oldest-from)
	skip := max(0, from-oldest)
	if skip >= n {
		return nil, omitted
	}
	out := make([]Entry, 0, n-skip)
	for i := skip; i < n; i++ {
		out = append(out, *b.slot((b.head + i) % n))
	}
	return out, omitted
}

const clipMarker = "\n…[clipped]…\n"

// clip shortens s to about max bytes, keeping its first quarter and its end, cut on
// rune boundaries. The result never shares memory with a clipped s, so a buffered
// event does not pin a multi-megabyte tool output.
func clip(s string, max int) string {
	if len(s) <= max {
		return s
	}
	keep := max - len(clipMarker)
	h := keep / 4
	for h > 0 && !utf8.RuneStart(s[h]) {
		h--
	}
	t := len(s) - (keep - h)
	for t < len(s) && !utf8.RuneStart(s[t]) {
		t++
	}
	return s[:h] + clipMarker + s[t:]
}
