package eventlogfile

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/loopwatch/loopwatch/analyze"
	"github.com/loopwatch/loopwatch/analyze/assess/eventlog"
)

// JSONLOptions configures [OpenJSONL].
type JSONLOptions struct {
	// OffsetPath is the committed-offset file. Default: the log's path + ".offset".
	OffsetPath string
	// MaxLineBytes bounds one line; a longer line is skipped as corrupt without being
	// held in memory. Default 64 MiB (Claude Code lines reach several megabytes).
	MaxLineBytes int
	// PollInterval is how often a waiting Poll looks at the file again. Default 50ms.
	PollInterval time.Duration
}

// JSONL is a [eventlog.Log] over a JSONL file of events (one [EncodeEvent] line each), possibly
// still being appended to. Offsets are line numbers from 0. The committed position is
// kept in a separate offset file, replaced atomically on each Commit (written aside,
// fsynced, renamed, directory fsynced), so opening the log again resumes exactly
// after the last commit.
//
// Lines are read only once complete: a final line without its newline (a torn or
// in-progress write) is left for a later Poll. A complete line that is blank is
// skipped; one that does not decode, or is longer than MaxLineBytes, is skipped and
// its offset reported by [JSONL.Corrupt] — one bad line never blocks the consumer.
// Use a JSONL from one goroutine.
type JSONL struct {
	f          *os.File
	offsetPath string
	opts       JSONLOptions

	pos  int64  // byte position of the next unread line
	next uint64 // offset of the next unread line

	committedNext uint64
	committedPos  int64  // byte position after the last commit
	pending       []mark // records returned since the last commit
	corrupt       []uint64
	line          []byte
}

type mark struct {
	offset uint64
	end    int64 // byte position just after the record's line
}

type offsetFile struct {
	NextOffset uint64 `json:"next_offset"`
	ByteOffset int64  `json:"byte_offset"`
}

// OpenJSONL opens the log at path for consuming, resuming after the commit recorded
// in the offset file (or at the start if there is none). It fails if the offset file
// does not fit the log (the log was truncated or replaced).
func OpenJSONL(path string, opts JSONLOptions) (*JSONL, error) {
	if opts.OffsetPath == "" {
		opts.OffsetPath = path + ".offset"
	}
	if opts.MaxLineBytes <= 0 {
		opts.MaxLineBytes = 64 << 20
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = 50 * time.Millisecond
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("eventlog: %w", err)
	}
	l := &JSONL{f: f, offsetPath: opts.OffsetPath, opts: opts}
	if err := l.loadOffset(); err != nil {
		f.Close()
		return nil, err
	}
	return l, nil
}

func (l *JSONL) loadOffset() error {
	b, err := os.ReadFile(l.offsetPath)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("eventlog: %w", err)
	}
	var o offsetFile
	if err := json.Unmarshal(b, &o); err != nil {
		return fmt.Errorf("eventlog: offset file %s: %w", l.offsetPath, err)
	}
	fi, err := l.f.Stat()
	if err != nil {
		return fmt.Errorf("eventlog: %w", err)
	}
	if o.ByteOffset < 0 || o.ByteOffset > fi.Size() {
		return fmt.Errorf("eventlog: offset file %s points past the end of the log (byte %d of %d)", l.offsetPath, o.ByteOffset, fi.Size())
	}
	if o.ByteOffset > 0 {
		var c [1]byte
		if _, err := l.f.ReadAt(c[:], o.ByteOffset-1); err != nil || c[0] != '\n' {
			return fmt.Errorf("eventlog: offset file %s does not point at a line start of the log", l.offsetPath)
		}
	}
	l.pos, l.next, l.committedNext, l.committedPos = o.ByteOffset, o.NextOffset, o.NextOffset, o.ByteOffset
	return nil
}

// Close closes the log file.
func (l *JSONL) Close() error { return l.f.Close() }

// Corrupt returns the offsets of the lines skipped as corrupt so far.
func (l *JSONL) Corrupt() []uint64 { return append([]uint64(nil), l.corrupt...) }

// Poll implements [eventlog.Log].
func (l *JSONL) Poll(ctx context.Context, max int, wait time.Duration) ([]eventlog.Record, error) {
	if max < 1 {
		return nil, fmt.Errorf("eventlog: poll max %d < 1", max)
	}
	var deadline <-chan time.Time
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		recs, err := l.read(max)
		if err != nil || len(recs) > 0 || wait <= 0 {
			return recs, err
		}
		if deadline == nil {
			t := time.NewTimer(wait)
			defer t.Stop()
			deadline = t.C
		}
		tick := time.NewTimer(l.opts.PollInterval)
		select {
		case <-tick.C:
		case <-deadline:
			tick.Stop()
			return nil, nil
		case <-ctx.Done():
			tick.Stop()
			return nil, ctx.Err()
		}
	}
}

func (l *JSONL) read(max int) ([]eventlog.Record, error) {
	fi, err := l.f.Stat()
	if err != nil {
		return nil, fmt.Errorf("eventlog: %w", err)
	}
	size := fi.Size()
	if size < l.pos {
		return nil, fmt.Errorf("eventlog: log shrank below the read position (%d < %d)", size, l.pos)
	}
	if size == l.pos {
		return nil, nil
	}
	r := bufio.NewReaderSize(io.NewSectionReader(l.f, l.pos, size-l.pos), 64<<10)
	var recs []eventlog.Record
	for len(recs) < max {
		n, ok, tooLong, err := l.readLine(r)
		if err != nil {
			return recs, err
		}
		if !ok {
			break // end of the file, or a final line still without its newline
		}
		l.pos += n
		off := l.next
		l.next++
		if tooLong {
			l.noteCorrupt(off)
			continue
		}
		body := bytes.TrimSpace(l.line)
		if len(body) == 0 {
			continue
		}
		ev, err := DecodeEvent(body)
		if err != nil {
			l.noteCorrupt(off)
			continue
		}
		recs = append(recs, eventlog.Record{Offset: off, Event: ev})
		l.pending = append(l.pending, mark{offset: off, end: l.pos})
	}
	return recs, nil
}

// noteCorrupt records a corrupt line once, also when a rewind reads it again.
func (l *JSONL) noteCorrupt(off uint64) {
	if n := len(l.corrupt); n == 0 || l.corrupt[n-1] < off {
		l.corrupt = append(l.corrupt, off)
	}
}

// Rewind implements [eventlog.Log]: the next Poll reads again from the last commit.
func (l *JSONL) Rewind() error {
	l.pos, l.next = l.committedPos, l.committedNext
	l.pending = l.pending[:0]
	return nil
}

// readLine reads one newline-terminated line into l.line. It returns the bytes
// consumed (newline included), whether a complete line was read, and whether it was
// longer than MaxLineBytes (then l.line holds only its start).
func (l *JSONL) readLine(r *bufio.Reader) (n int64, ok, tooLong bool, err error) {
	l.line = l.line[:0]
	for {
		chunk, err := r.ReadSlice('\n')
		n += int64(len(chunk))
		if !tooLong {
			if len(l.line)+len(chunk) > l.opts.MaxLineBytes+1 {
				tooLong = true
			} else {
				l.line = append(l.line, chunk...)
			}
		}
		switch {
		case err == nil:
			return n, true, tooLong, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			return 0, false, false, nil
		default:
			return 0, false, false, fmt.Errorf("eventlog: read: %w", err)
		}
	}
}

// Commit implements [eventlog.Log]: it atomically replaces the offset file.
func (l *JSONL) Commit(offset uint64) error {
	if offset+1 == l.committedNext {
		return nil
	}
	if offset+1 < l.committedNext {
		return fmt.Errorf("%w: %d < %d", eventlog.ErrBackwards, offset, l.committedNext-1)
	}
	i := -1
	for j, m := range l.pending {
		if m.offset == offset {
			i = j
			break
		}
	}
	if i < 0 {
		return fmt.Errorf("%w: %d", eventlog.ErrNotPolled, offset)
	}
	o := offsetFile{NextOffset: offset + 1, ByteOffset: l.pending[i].end}
	if err := writeFileAtomic(l.offsetPath, o); err != nil {
		return err
	}
	l.committedNext, l.committedPos = o.NextOffset, o.ByteOffset
	l.pending = append(l.pending[:0], l.pending[i+1:]...)
	return nil
}

func writeFileAtomic(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("eventlog: %w", err)
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("eventlog: commit: %w", err)
	}
	_, werr := tmp.Write(append(b, '\n'))
	if werr == nil {
		werr = tmp.Sync()
	}
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), path)
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("eventlog: commit: %w", werr)
	}
	// Make the rename durable. Some filesystems cannot fsync a directory; the
	// rename itself is still atomic there.
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// JSONLWriter appends events to a JSONL log file.
type JSONLWriter struct {
	f *os.File
}

// OpenJSONLWriter opens (creating if needed) a JSONL log for appending. If the file
// ends with a torn line (no final newline, say after a crash), a newline is written
// first, so the fragment becomes one corrupt line that readers skip instead of
// merging with the next event.
func OpenJSONLWriter(path string) (*JSONLWriter, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("eventlog: %w", err)
	}
	fi, err := f.Stat()
	if err == nil && fi.Size() > 0 {
		var c [1]byte
		if _, err = f.ReadAt(c[:], fi.Size()-1); err == nil && c[0] != '\n' {
			_, err = f.Write([]byte{'\n'})
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("eventlog: %w", err)
	}
	return &JSONLWriter{f: f}, nil
}

// Append writes each event as one line, with a single write per event.
func (w *JSONLWriter) Append(events ...analyze.Event) error {
	for _, ev := range events {
		b, err := EncodeEvent(ev)
		if err != nil {
			return err
		}
		if _, err := w.f.Write(append(b, '\n')); err != nil {
			return fmt.Errorf("eventlog: append: %w", err)
		}
	}
	return nil
}

// Sync flushes the file to stable storage.
func (w *JSONLWriter) Sync() error { return w.f.Sync() }

// Close closes the file.
func (w *JSONLWriter) Close() error { return w.f.Close() }
