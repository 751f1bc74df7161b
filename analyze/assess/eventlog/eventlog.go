// Package eventlog is the event log the assessment processor consumes (the seed's
// Iggy EventLog consumer): the [Log] interface with Poll and Commit, and an in-memory
// log ([Memory]). A log kept in a file — its line format, its committed offset on
// disk — is package replay/eventlogfile's: analyze knows no file format.
//
// Delivery is at-least-once: events after the last commit are delivered again after
// a restart, or after [Log.Rewind] (a consumer that stopped part-way through a batch),
// and events up to it never are.
//
// What it refuses to do: it makes no assessment decision and reads no clock for one,
// reads and writes no file. The only timing here is Poll's wait for new events (a
// timer), which never changes what is delivered, only when.
package eventlog

import (
	"context"
	"errors"
	"time"

	"github.com/loopwatch/loopwatch/analyze"
)

// Record is one event at its offset in a log. Offsets start at 0 and increase by
// one per stored entry (for a log kept in a file, per line).
type Record struct {
	Offset uint64
	Event  analyze.Event
}

// Log is a consumer's view of an event log.
type Log interface {
	// Poll returns up to max records after the last one returned (or, for a new
	// consumer, after its last commit). When none is available it waits up to wait
	// for some, and returns an empty batch if none came; it returns ctx's error if
	// ctx ends first.
	Poll(ctx context.Context, max int, wait time.Duration) ([]Record, error)
	// Commit records that every record up to and including offset is processed. The
	// offset must be one Poll returned; committing the last committed offset again is
	// a no-op, committing an earlier one an error.
	Commit(offset uint64) error
	// Rewind makes the next Poll start again after the last commit: the records
	// polled since and not committed are delivered again, as to a restarted consumer.
	// A consumer that stops processing a batch part-way calls it, so that the rest of
	// the batch is not lost.
	Rewind() error
}

// ErrNotPolled is returned (wrapped) by Commit for an offset Poll has not returned.
var ErrNotPolled = errors.New("eventlog: offset not polled")

// ErrBackwards is returned (wrapped) by Commit for an offset before the last commit.
var ErrBackwards = errors.New("eventlog: commit before the committed offset")
