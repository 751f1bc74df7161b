package replay

import (
	"context"
	"sync"
)

// window hands out the run files to the workers in order and bounds those handed out
// but not yet delivered: at most maxFiles of them, and at most maxBytes of their sizes
// — but always the first, however large, so that the file the delivery waits for is
// never held back. A worker that would exceed either waits for a delivery.
//
// The bound is what lets the workers run ahead of the delivery: a file delivered
// late (a large session, or a flush of a table in the delivery) leaves the workers
// busy with the files after it, up to the bound, instead of idle.
type window struct {
	mu       sync.Mutex
	cond     sync.Cond
	size     func(k int) int64 // file k's size, in bytes
	n        int               // files to hand out
	next     int               // the next file to hand out
	files    int               // handed out, not delivered
	bytes    int64             // their sizes
	maxFiles int
	maxBytes int64
	stopped  bool
}

// newWindow returns the window over n files; cancelling ctx ends every wait (the
// caller must cancel it once done, or waiting workers stay blocked).
func newWindow(ctx context.Context, n, maxFiles int, maxBytes int64, size func(k int) int64) *window {
	w := &window{size: size, n: n, maxFiles: max(maxFiles, 1), maxBytes: maxBytes}
	w.cond.L = &w.mu
	context.AfterFunc(ctx, func() {
		w.mu.Lock()
		w.stopped = true
		w.mu.Unlock()
		w.cond.Broadcast()
	})
	return w
}

// claim returns the next file to replay, waiting while the window is full; false
// when every file is handed out or the context is cancelled.
func (w *window) claim() (int, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for !w.stopped && w.next < w.n {
		s := w.size(w.next)
		if w.files == 0 || w.files < w.maxFiles && w.bytes+s <= w.maxBytes {
			k := w.next
			w.next++
			w.files++
			w.bytes += s
			return k, true
		}
		w.cond.Wait()
	}
	return 0, false
}

// delivered frees file k's place in the window.
func (w *window) delivered(k int) {
	w.mu.Lock()
	w.files--
	w.bytes -= w.size(k)
	w.mu.Unlock()
	w.cond.Broadcast()
}

// The delivery window per worker, in files, and in all, in bytes of the files' sizes.
// Files of quasar runs take some 0.1 ms to replay and a flush of a table in the
// delivery a few ms: the workers go on through such a pause only with some tens of
// files ahead. The byte bound keeps large sessions from piling up: what a replayed
// file holds until it is delivered grows with its size.
const (
	windowFiles       = 16
	windowBytes int64 = 32 << 20
)
