package main

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// timings records, for --timings, when each step of a replay ended and how much CPU
// time the process had used by then, and prints each step's share: where a replay's
// time goes, and how many cores each step kept busy.
type timings struct {
	mu       sync.Mutex
	start    time.Time
	startCPU time.Duration
	hasCPU   bool // the system gives the process's CPU time
	steps    []step
	// delivery is how long the replay step's delivery was busy, when known (see
	// replay.Options.Delivered).
	delivery    time.Duration
	hasDelivery bool
}

// step is one step's end: its wall and CPU time since the start.
type step struct {
	name      string
	wall, cpu time.Duration
}

func newTimings() *timings {
	cpu, ok := processCPU()
	return &timings{start: time.Now(), startCPU: cpu, hasCPU: ok}
}

// mark records the end of the step named name.
func (t *timings) mark(name string) {
	cpu, _ := processCPU()
	t.mu.Lock()
	defer t.mu.Unlock()
	t.steps = append(t.steps, step{name: name, wall: time.Since(t.start), cpu: cpu - t.startCPU})
}

// delivered records how long the replay step's delivery was busy.
func (t *timings) delivered(busy time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.delivery, t.hasDelivery = busy, true
}

// write prints each step's wall time, CPU time and busy cores (CPU over wall), then
// the whole replay's.
func (t *timings) write(w io.Writer) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	fmt.Fprintf(w, "  %-10s %10s %10s %6s\n", "STEP", "WALL", "CPU", "CORES")
	row := func(name string, wall, cpu time.Duration) {
		c, cores := "—", "—"
		if t.hasCPU {
			c = ms(cpu)
			if wall > 0 {
				cores = fmt.Sprintf("%.2f", float64(cpu)/float64(wall))
			}
		}
		fmt.Fprintf(w, "  %-10s %10s %10s %6s\n", name, ms(wall), c, cores)
	}
	var last step
	var replayWall time.Duration
	for _, s := range t.steps {
		row(s.name, s.wall-last.wall, s.cpu-last.cpu)
		if s.name == "replay" {
			replayWall = s.wall - last.wall
		}
		last = s
	}
	row("total", last.wall, last.cpu)
	if t.hasDelivery && replayWall > 0 && t.delivery > 0 {
		fmt.Fprintf(w, "  the replay step's delivery, one file at a time in order, was busy %s, %.0f%% of the step's %s:\n"+
			"  more workers can make the step at most %.1f× faster (its wall time over the delivery's)\n",
			ms(t.delivery), 100*float64(t.delivery)/float64(replayWall), ms(replayWall), float64(replayWall)/float64(t.delivery))
	}
	return nil
}

// ms renders a duration in milliseconds: a decimal below 10 ms.
func ms(d time.Duration) string {
	v := float64(d) / float64(time.Millisecond)
	if v < 10 {
		return fmt.Sprintf("%.1f ms", v)
	}
	return fmt.Sprintf("%.0f ms", v)
}
