package breaker

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Intervention is the kind of intervention the breaker calls for.
type Intervention uint8

// The seed's three interventions.
const (
	// ClarificationPause answers a correction storm.
	ClarificationPause Intervention = iota + 1
	// ApproachPivot answers a run of failures.
	ApproachPivot
	// ExplicitCheckIn answers a high frustration EMA.
	ExplicitCheckIn
)

// String returns "clarification_pause", "approach_pivot" or "explicit_check_in".
func (i Intervention) String() string {
	switch i {
	case ClarificationPause:
		return "clarification_pause"
	case ApproachPivot:
		return "approach_pivot"
	case ExplicitCheckIn:
		return "explicit_check_in"
	}
	return fmt.Sprintf("intervention(%d)", uint8(i))
}

// MarshalText encodes i by name.
func (i Intervention) MarshalText() ([]byte, error) {
	if i < ClarificationPause || i > ExplicitCheckIn {
		return nil, fmt.Errorf("breaker: invalid intervention %d", uint8(i))
	}
	return []byte(i.String()), nil
}

// UnmarshalText decodes a name written by MarshalText.
func (i *Intervention) UnmarshalText(b []byte) error {
	for v := ClarificationPause; v <= ExplicitCheckIn; v++ {
		if v.String() == string(b) {
			*i = v
			return nil
		}
	}
	return fmt.Errorf("breaker: unknown intervention %q", b)
}

// Message returns the text the seed's HookIntervention injects for i, verbatim
// (the seed's Rust string continuations joined with single spaces), or "" for an
// invalid value.
func (i Intervention) Message() string {
	switch i {
	case ClarificationPause:
		return "Before we continue: I want to make sure I understand what you're looking for. " +
			"Could you help me understand which part isn't matching your expectations?"
	case ApproachPivot:
		return "I notice my current approach isn't working well. " +
			"Let me step back and try a different strategy. " +
			"What would be most helpful right now?"
	case ExplicitCheckIn:
		return "I sense some friction in our session. Would you like to " +
			"pause and reassess our approach, or should I continue " +
			"with adjustments?"
	}
	return ""
}

// Message is one intervention to inject into a session (the seed's
// InterventionMessage, plus the session and the event time it fired at).
type Message struct {
	SessionID string       `json:"session_id"`
	Type      Intervention `json:"type"`
	Content   string       `json:"content"`
	At        time.Time    `json:"at"`
}

// NewMessage builds the message for intervention i in a session at event time at.
func NewMessage(sessionID string, i Intervention, at time.Time) Message {
	return Message{SessionID: sessionID, Type: i, Content: i.Message(), At: at}
}

// Sink receives interventions (the seed's HookIntervention). Deliver must honour ctx.
type Sink interface {
	Deliver(ctx context.Context, m Message) error
}

// ChannelSink delivers each message on a channel, blocking until it is received or
// ctx is done (the seed's mpsc sender).
type ChannelSink struct {
	C chan<- Message
}

// Deliver sends m on s.C.
func (s ChannelSink) Deliver(ctx context.Context, m Message) error {
	select {
	case s.C <- m:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("breaker: delivering %v: %w", m.Type, ctx.Err())
	}
}

// RecordingSink keeps every delivered message in memory. It is safe for concurrent
// use; the zero value is ready.
type RecordingSink struct {
	mu   sync.Mutex
	msgs []Message
}

// Deliver records m.
func (s *RecordingSink) Deliver(_ context.Context, m Message) error {
	s.mu.Lock()
	s.msgs = append(s.msgs, m)
	s.mu.Unlock()
	return nil
}

// Messages returns a copy of the messages delivered so far, in order.
func (s *RecordingSink) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.msgs...)
}
