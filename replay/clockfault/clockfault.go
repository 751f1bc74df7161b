// Package clockfault finds the records of a stream whose timestamps are clock faults:
// the one record a writer stamped seventy years ahead, the cycle logged days before the
// cycles around it. The sources that order records by time (claudecode, vibeslog,
// trace, beads) report those records and place them by file order, and keep their
// neighbours' times as recorded.
//
// The difficulty is telling the fault from its neighbours. A record's time can only be
// checked against the records around it: when a time falls more than a tolerance
// behind the latest trusted time before it, either it is behind or the trusted times
// were ahead. [Find] counts both sides — the trusted records above the low time (at
// most a window of them) and the low record with the records right after it that stay
// low — and blames the smaller side, the earlier one on a tie. So one record ahead is
// found at the record after it, when the times come back; one record behind is found
// at once; and a clock that was set back for good (as many records low as high) blames
// the later records, each reported, as before. Times more than [MaxSpread] from the
// stream's median are faults outright, wherever they are (a first or last record that
// nothing after it can contradict).
package clockfault

import (
	"fmt"
	"slices"
	"time"
)

// Window bounds how many records on each side of a back-step [Find] counts: it costs a
// bounded amount per record, and a run of faults longer than Window is taken for a
// clock change rather than a fault.
const Window = 8

// scanLimit bounds how many records after a back-step Find looks at, records without
// a time included.
const scanLimit = 8 * Window

// MaxSpread is how far from the median of a stream's times a time may be before it is
// a fault whatever its neighbours: no session, run or bead spans a year.
const MaxSpread = 366 * 24 * time.Hour

// A Fault is a record whose time is a clock fault.
type Fault struct {
	Index int  // the record's index in the sequence
	Ahead bool // the time is ahead of the records around it (else behind)
	// From is the index of the trusted record whose time the faulty record is placed
	// at: the last before it, or the first after it when none is before.
	From int
	// Placed is that time.
	Placed time.Time
}

type entry struct {
	idx    int
	runMax time.Time // the latest trusted time up to this entry
	maxIdx int       // … and its record
}

// Find returns the clock faults among times, the record times of one stream in the
// order they were written, in index order. A zero time is no time: it is neither
// checked nor trusted. A time may fall up to tol behind the latest trusted time before
// it without being a fault (writers log parallel work slightly out of order).
func Find(times []time.Time, tol time.Duration) []Fault {
	far := farOff(times)
	ok := func(j int) bool {
		_, isFar := far[j]
		return !times[j].IsZero() && !isFar
	}
	faulty := make(map[int]bool, len(far))
	ahead := make(map[int]bool, len(far))
	for j := range far {
		faulty[j], ahead[j] = true, far[j]
	}
	var stack []entry
	push := func(i int) {
		e := entry{idx: i, runMax: times[i], maxIdx: i}
		if n := len(stack); n > 0 && !stack[n-1].runMax.Before(times[i]) {
			e.runMax, e.maxIdx = stack[n-1].runMax, stack[n-1].maxIdx
		}
		stack = append(stack, e)
	}
	for i := range times {
		if !ok(i) {
			continue
		}
		t := times[i]
		if len(stack) == 0 || !t.Before(stack[len(stack)-1].runMax.Add(-tol)) {
			push(i)
			continue
		}
		// A back-step: blame the smaller side.
		top := stack[len(stack)-1].runMax
		high := 0
		for k := len(stack) - 1; k >= 0 && high <= Window && times[stack[k].idx].After(t.Add(tol)); k-- {
			high++
		}
		low := 1
		for j := i + 1; j < len(times) && j <= i+scanLimit && low <= Window; j++ {
			if !ok(j) {
				continue
			}
			if !times[j].Before(top.Add(-tol)) {
				break
			}
			low++
		}
		if high < low {
			for _, e := range stack[len(stack)-high:] {
				faulty[e.idx], ahead[e.idx] = true, true
			}
			stack = stack[:len(stack)-high]
			if len(stack) == 0 || !t.Before(stack[len(stack)-1].runMax.Add(-tol)) {
				push(i)
				continue
			}
		}
		faulty[i] = true
	}
	if len(faulty) == 0 {
		return nil
	}
	// Place each fault at its trusted predecessor's time, or its successor's.
	good := func(k int) bool { return ok(k) && !faulty[k] }
	from := make(map[int]int, len(faulty))
	last := -1
	for k := range times {
		if faulty[k] {
			from[k] = last
		}
		if good(k) {
			last = k
		}
	}
	next := -1
	for k := len(times) - 1; k >= 0; k-- {
		if faulty[k] && from[k] < 0 {
			from[k] = next
		}
		if good(k) {
			next = k
		}
	}
	out := make([]Fault, 0, len(faulty))
	for k := range times {
		if !faulty[k] {
			continue
		}
		f := Fault{Index: k, Ahead: ahead[k], From: from[k]}
		if f.From < 0 {
			f.From = k // nothing to trust: leave it where it is
		}
		f.Placed = times[f.From]
		out = append(out, f)
	}
	return out
}

// Consistent reports whether n times, at(0) … at(n-1) (a zero time is none), hold
// nothing [Find] would call a fault: no time more than tol behind the latest before
// it, and none more than MaxSpread from another. It allocates nothing: a source checks
// its usual, consistent stream with it before building what Find needs.
func Consistent(n int, at func(int) time.Time, tol time.Duration) bool {
	var lo, hi time.Time
	seen := false
	for i := 0; i < n; i++ {
		t := at(i)
		if t.IsZero() {
			continue
		}
		if !seen {
			lo, hi, seen = t, t, true
			continue
		}
		if t.Before(hi.Add(-tol)) {
			return false
		}
		if t.Before(lo) {
			lo = t
		}
		if t.After(hi) {
			hi = t
		}
	}
	return hi.Sub(lo) <= MaxSpread
}

// Far returns, in index order, the indices of the times more than MaxSpread from the
// median of times (zero times aside): the faults a stream whose order says nothing of
// time can still tell.
func Far(times []time.Time) []int {
	far := farOff(times)
	out := make([]int, 0, len(far))
	for j := range far {
		out = append(out, j)
	}
	slices.Sort(out)
	return out
}

// farOff marks the times more than MaxSpread from the median of the stream's times,
// true when ahead of it.
func farOff(times []time.Time) map[int]bool {
	var lo, hi time.Time
	n := 0
	for _, t := range times {
		if t.IsZero() {
			continue
		}
		if n == 0 || t.Before(lo) {
			lo = t
		}
		if n == 0 || t.After(hi) {
			hi = t
		}
		n++
	}
	if n < 2 || hi.Sub(lo) <= MaxSpread {
		return nil // the common case: nothing can be that far from the median
	}
	sorted := make([]time.Time, 0, n)
	for _, t := range times {
		if !t.IsZero() {
			sorted = append(sorted, t)
		}
	}
	if len(sorted) < 2 {
		return nil
	}
	slices.SortFunc(sorted, func(a, b time.Time) int { return a.Compare(b) })
	med := sorted[len(sorted)/2]
	if sorted[0].After(med.Add(-MaxSpread)) && sorted[len(sorted)-1].Before(med.Add(MaxSpread)) {
		return nil
	}
	far := map[int]bool{}
	for j, t := range times {
		switch {
		case t.IsZero():
		case t.After(med.Add(MaxSpread)):
			far[j] = true
		case t.Before(med.Add(-MaxSpread)):
			far[j] = false
		}
	}
	return far
}

// Describe says where the faulty time t of the record lies against its neighbours,
// for a problem's detail: "25567 days ahead of" or "3m20s behind".
func (f Fault) Describe(t time.Time) string {
	if f.Ahead {
		return Span(t.Sub(f.Placed)) + " ahead of"
	}
	return Span(f.Placed.Sub(t)) + " behind"
}

// Span renders how far apart a fault is for a problem's detail: "3m20s", "14h0m0s",
// or in days from two days on ("25567 days").
func Span(d time.Duration) string {
	if d < 0 {
		d = -d
	}
	if d >= 48*time.Hour {
		return fmt.Sprintf("%.0f days", d.Hours()/24)
	}
	return d.Round(time.Second).String()
}

// zero is what [Recorded] reads Go's zero time as.
var zero = time.Time{}.Add(time.Nanosecond)

// Recorded returns the time a timestamp that parsed to t is read as: t in UTC, and
// Go's zero time, 0001-01-01T00:00:00Z, one nanosecond later. The sources and this
// package take the zero time for no time; a record that bears it has a time, a far-off
// one, and is told as a clock fault against the records around it as
// 0001-01-01T00:00:01Z is, not lost among the records without one.
func Recorded(t time.Time) time.Time {
	if t.IsZero() {
		return zero
	}
	return t.UTC()
}

// Format formats a time as a problem's detail shows it, RFC 3339 to the nanosecond: a
// time [Recorded] read from the zero time as it was written.
func Format(t time.Time) string {
	if t.Equal(zero) {
		t = time.Time{}
	}
	return t.Format(time.RFC3339Nano)
}
