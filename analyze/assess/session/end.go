package session

import (
	"slices"
	"strings"
	"time"

	"github.com/loopwatch/loopwatch/analyze"
)

// EndDetector says whether an event ends its session (the seed's SessionEndDetector).
type EndDetector interface {
	IsSessionEnd(ev analyze.Event) bool
}

// SeedEndHooks returns the hook the seed's HookSessionEndDetector ends a session on:
// "Stop".
func SeedEndHooks() []string { return []string{"Stop"} }

// DefaultEndHooks returns the hooks that end a session by default: "SessionEnd".
// Claude Code fires Stop at the end of every agent turn, not of the session; ending
// the session there would reset its breaker after each turn, so that no correction
// storm spanning turns could ever be seen. Sources where Stop is terminal can
// configure [SeedEndHooks].
func DefaultEndHooks() []string { return []string{"SessionEnd"} }

// DefaultEndSystemEvents returns the system event subtypes that end a session by
// default: "session_removed", where vibes records that a session is gone (it fires no
// Claude Code hook, so without it a vibes session would never end online).
func DefaultEndSystemEvents() []string { return []string{"session_removed"} }

// HookEndDetector ends a session on a KindHook event whose HookName is one of Hooks
// (exact, case-sensitive: Claude Code's own spelling), and on a KindSystem event whose
// Subtype is one of Systems (a source's own record of the end).
type HookEndDetector struct {
	Hooks   []string
	Systems []string
}

// IsSessionEnd reports whether ev is one of the end hooks or end records.
func (d HookEndDetector) IsSessionEnd(ev analyze.Event) bool {
	switch ev.Kind {
	case analyze.KindHook:
		return slices.Contains(d.Hooks, ev.HookName)
	case analyze.KindSystem:
		return slices.Contains(d.Systems, ev.Subtype)
	}
	return false
}

// TimeoutEndDetector ends sessions that have been inactive for longer than a timeout
// of event time. It replaces the seed's stub TimeoutSessionEndDetector: the caller
// reports each session's activity with Touch and asks, at each event's time, which
// sessions have expired. Not safe for concurrent use.
type TimeoutEndDetector struct {
	timeout  time.Duration
	last     map[string]time.Time
	earliest time.Time // a lower bound of every last activity (exact after a scan)
}

// NewTimeoutEndDetector returns a detector with the given inactivity timeout.
func NewTimeoutEndDetector(timeout time.Duration) *TimeoutEndDetector {
	return &TimeoutEndDetector{timeout: timeout, last: make(map[string]time.Time)}
}

// Touch records activity of a session at event time at. Time never moves backwards
// for a session: an out-of-order earlier event leaves its last activity alone.
func (d *TimeoutEndDetector) Touch(sessionID string, at time.Time) {
	prev, ok := d.last[sessionID]
	if ok && !at.After(prev) {
		return
	}
	d.last[sessionID] = at
	if len(d.last) == 1 || at.Before(d.earliest) {
		d.earliest = at
	}
}

// Forget stops tracking a session (it ended some other way).
func (d *TimeoutEndDetector) Forget(sessionID string) { delete(d.last, sessionID) }

// LastActivity returns a session's last recorded activity.
func (d *TimeoutEndDetector) LastActivity(sessionID string) (time.Time, bool) {
	t, ok := d.last[sessionID]
	return t, ok
}

// Expired returns the sessions whose last activity is more than the timeout before
// now, oldest activity first (ties by id), and stops tracking them. It costs one
// comparison when nothing can have expired.
func (d *TimeoutEndDetector) Expired(now time.Time) []string {
	if len(d.last) == 0 || now.Sub(d.earliest) <= d.timeout {
		return nil
	}
	var out []string
	first := true
	for id, t := range d.last {
		if now.Sub(t) > d.timeout {
			out = append(out, id)
			continue
		}
		if first || t.Before(d.earliest) {
			d.earliest, first = t, false
		}
	}
	slices.SortFunc(out, func(a, b string) int {
		if c := d.last[a].Compare(d.last[b]); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	for _, id := range out {
		delete(d.last, id)
	}
	return out
}
