package eventlog

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/loopwatch/loopwatch/analyze"
)

// Memory is an in-memory event log with named consumers whose committed offsets it
// keeps, so a consumer that is dropped and re-created (a restart) resumes after its
// last commit. It is safe for concurrent use.
type Memory struct {
	mu        sync.Mutex
	events    []analyze.Event
	committed map[string]uint64 // consumer name → next offset
	notify    chan struct{}     // closed and replaced on every append
}

// NewMemory returns a log holding events at offsets 0, 1, ….
func NewMemory(events ...analyze.Event) *Memory {
	return &Memory{events: append([]analyze.Event(nil), events...), committed: make(map[string]uint64), notify: make(chan struct{})}
}

// Append adds events and wakes waiting consumers. It returns the offset the next
// append will get.
func (m *Memory) Append(events ...analyze.Event) uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.events = append(m.events, events...)
	if len(events) > 0 {
		close(m.notify)
		m.notify = make(chan struct{})
	}
	return uint64(len(m.events))
}

// Committed returns the offset a new consumer of that name starts at: one past its
// last commit, or 0.
func (m *Memory) Committed(consumer string) uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.committed[consumer]
}

// Consumer returns a new consumer that starts after the named consumer's last commit.
func (m *Memory) Consumer(name string) *MemoryConsumer {
	next := m.Committed(name)
	return &MemoryConsumer{m: m, name: name, pos: next}
}

// MemoryConsumer is one consumer of a [Memory] log; it implements [Log]. Use it from
// one goroutine.
type MemoryConsumer struct {
	m    *Memory
	name string
	pos  uint64 // next offset to return
}

// Poll implements [Log].
func (c *MemoryConsumer) Poll(ctx context.Context, max int, wait time.Duration) ([]Record, error) {
	if max < 1 {
		return nil, fmt.Errorf("eventlog: poll max %d < 1", max)
	}
	var timer *time.Timer
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c.m.mu.Lock()
		if n := uint64(len(c.m.events)); c.pos < n {
			end := min(n, c.pos+uint64(max))
			recs := make([]Record, 0, end-c.pos)
			for o := c.pos; o < end; o++ {
				recs = append(recs, Record{Offset: o, Event: c.m.events[o]})
			}
			c.pos = end
			c.m.mu.Unlock()
			return recs, nil
		}
		notify := c.m.notify
		c.m.mu.Unlock()
		if wait <= 0 {
			return nil, nil
		}
		if timer == nil {
			timer = time.NewTimer(wait)
			defer timer.Stop()
		}
		select {
		case <-notify:
		case <-timer.C:
			return nil, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Rewind implements [Log].
func (c *MemoryConsumer) Rewind() error {
	c.pos = c.m.Committed(c.name)
	return nil
}

// Commit implements [Log].
func (c *MemoryConsumer) Commit(offset uint64) error {
	if offset >= c.pos {
		return fmt.Errorf("%w: %d (polled up to %d)", ErrNotPolled, offset, c.pos)
	}
	c.m.mu.Lock()
	defer c.m.mu.Unlock()
	next := offset + 1
	switch cur := c.m.committed[c.name]; {
	case next == cur:
		return nil
	case next < cur:
		return fmt.Errorf("%w: %d < %d", ErrBackwards, offset, cur-1)
	}
	c.m.committed[c.name] = next
	return nil
}
