package eval

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/loopwatch/loopwatch/analyze"
)

// The outcomes of an agent session, as the session labels give them (LABELS.md of the
// Claude Code corpus): judged from the user's point of view where the session ends.
const (
	OutcomeSuccess   = "success"   // carried out, and accepted or moved on from
	OutcomePartial   = "partial"   // part of it, only after heavy friction, or less than asked
	OutcomeFailure   = "failure"   // the session ended with the goal not met
	OutcomeAbandoned = "abandoned" // the transcript stops mid-work, nothing resolved
	OutcomeNone      = "none"      // no task to judge: never scored
)

// SessionOutcomes returns the session outcomes in rubric order.
func SessionOutcomes() []string {
	return []string{OutcomeSuccess, OutcomePartial, OutcomeFailure, OutcomeAbandoned, OutcomeNone}
}

// IsSessionOutcome reports whether s (case-insensitive, trimmed) is a session outcome.
func IsSessionOutcome(s string) bool {
	return slices.Contains(SessionOutcomes(), strings.ToLower(strings.TrimSpace(s)))
}

// OutcomeClass turns a session outcome into the binary label a detector is scored
// against: the outcomes of its positive set are Positive, "none" is Excluded (kept,
// not scored), the other outcomes are Negative. The zero value is
// [DefaultOutcomeClass].
type OutcomeClass struct {
	positive []string // sorted in rubric order; nil means the default
}

// DefaultOutcomeClass returns the class the breaker is scored with by default: failure
// and abandoned are positive (the session went wrong and an intervention was due),
// success and partial negative, none excluded.
func DefaultOutcomeClass() OutcomeClass {
	return OutcomeClass{positive: []string{OutcomeFailure, OutcomeAbandoned}}
}

// NewOutcomeClass returns the class whose positive outcomes are positive. Each must be
// a session outcome other than "none"; at least one is needed, and not all four.
func NewOutcomeClass(positive ...string) (OutcomeClass, error) {
	set := map[string]bool{}
	for _, p := range positive {
		o := strings.ToLower(strings.TrimSpace(p))
		switch {
		case o == OutcomeNone:
			return OutcomeClass{}, fmt.Errorf("outcome %q cannot be positive: it marks sessions with no task, never scored", p)
		case !IsSessionOutcome(o):
			return OutcomeClass{}, fmt.Errorf("outcome %q is not one of success, partial, failure, abandoned", p)
		}
		set[o] = true
	}
	if len(set) == 0 || len(set) == 4 {
		return OutcomeClass{}, fmt.Errorf("the positive outcomes must leave both classes non-empty (got %d of 4)", len(set))
	}
	var c OutcomeClass
	for _, o := range SessionOutcomes() {
		if set[o] {
			c.positive = append(c.positive, o)
		}
	}
	return c, nil
}

// ParseOutcomeClass parses a flag value: positive outcomes separated by commas, e.g.
// "failure,abandoned" (white space ignored).
func ParseOutcomeClass(s string) (OutcomeClass, error) {
	var parts []string
	for p := range strings.SplitSeq(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			parts = append(parts, p)
		}
	}
	return NewOutcomeClass(parts...)
}

// Positive returns the positive outcomes in rubric order.
func (c OutcomeClass) Positive() []string {
	if c.positive == nil {
		return DefaultOutcomeClass().positive
	}
	return slices.Clone(c.positive)
}

// String returns the positive outcomes joined by commas, as ParseOutcomeClass reads
// them.
func (c OutcomeClass) String() string { return strings.Join(c.Positive(), ",") }

// Label returns the label of a session with this outcome (case-insensitive, trimmed):
// Positive, Negative, Excluded for "none", Unlabelled for anything that is not a
// session outcome.
func (c OutcomeClass) Label(outcome string) Label {
	o := strings.ToLower(strings.TrimSpace(outcome))
	switch {
	case o == OutcomeNone:
		return Excluded
	case !IsSessionOutcome(o):
		return Unlabelled
	case slices.Contains(c.Positive(), o):
		return Positive
	}
	return Negative
}

// Moment is an event-level label: a point of a run or session where the labelled
// condition shows — for sessions, a human message (or interrupt) that expresses
// friction. A moment is given by the id of its record (ID, matched against
// analyze.Event.ID) or by its time (Time, UTC); exactly one is set.
type Moment struct {
	ID   string
	Time time.Time
}

// String returns the id, or the time in RFC 3339.
func (m Moment) String() string {
	if m.ID != "" {
		return m.ID
	}
	return m.Time.UTC().Format(time.RFC3339Nano)
}

// Find returns the index in events (in time order) of the event the moment
// designates, or -1: by ID the first event with that id (the events of one record
// share it), by time the first event at or after it.
func (m Moment) Find(events []analyze.Event) int {
	for i, ev := range events {
		if m.ID != "" && ev.ID == m.ID || m.ID == "" && !ev.Time.Before(m.Time) {
			return i
		}
	}
	return -1
}

// parseMoments reads a list of moments separated by ";" (white space ignored). Each
// entry is an RFC 3339 time when asTime, an id when asID, and whichever it parses as
// when both are set. It returns the moments and the entries that are not valid times
// where only a time will do.
func parseMoments(entries []string, asID, asTime bool) ([]Moment, []string) {
	var out []Moment
	var bad []string
	for _, field := range entries {
		for e := range strings.SplitSeq(field, ";") {
			e = strings.TrimSpace(e)
			if e == "" {
				continue
			}
			if asTime {
				if t, err := time.Parse(time.RFC3339Nano, e); err == nil {
					out = append(out, Moment{Time: t.UTC()})
					continue
				}
				if !asID {
					bad = append(bad, e)
					continue
				}
			}
			out = append(out, Moment{ID: e})
		}
	}
	return out, bad
}
