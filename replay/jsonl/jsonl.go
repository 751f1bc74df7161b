// Package jsonl reads line-oriented input — JSON Lines, TSV — of any line length,
// one line at a time, with line numbers, without holding the whole file in memory.
//
// The [Reader] does not parse JSON and does not decide what a bad line is: it reports
// what it saw (the line's bytes, whether the line ended without a newline at end of
// file, whether it was longer than the configured limit, whether it is valid UTF-8) and
// leaves the verdict to the source reading the format. It drops a UTF-8 byte order mark
// at the start of the input, which is no part of the first line.
//
// Beside the reader are the few JSON helpers every JSON Lines source shares, so that
// they all treat bad input alike: [HeadObjects] and [FirstObject] look at a file's
// opening records to recognise its format; [SplitJoined] recovers the complete records
// of a line that holds more than one (a lost newline, or a record cut off mid-write and
// the next one written straight after it); [DecodeObject] decodes a record field by
// field, so that one field of the wrong JSON type loses that field, not the record;
// [Scanner] validates a line in one pass while a source decodes only the fields it
// uses: the fast path of a source that leaves every line it is not sure of to
// encoding/json.
package jsonl

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"sync"
	"unicode/utf8"
)

// Line is one line of input. Bytes excludes the line terminator ("\n" or "\r\n") and is
// valid only until the next call to [Reader.Next].
type Line struct {
	Num   int    // 1-based line number
	Bytes []byte // the line without its terminator; nil when Oversize
	// Len is the line's length in bytes without its terminator, also when Oversize.
	Len int
	// Unterminated reports that this is the last line and it does not end in a newline:
	// the file may have been cut off mid-write.
	Unterminated bool
	// Oversize reports that the line exceeded the reader's limit; its bytes were
	// discarded while reading, never held in memory.
	Oversize bool
}

// Blank reports whether the line holds only white space.
func (l Line) Blank() bool { return !l.Oversize && len(bytes.TrimSpace(l.Bytes)) == 0 }

// ValidUTF8 reports whether the line's bytes are valid UTF-8.
func (l Line) ValidUTF8() bool { return utf8.Valid(l.Bytes) }

// bom is the UTF-8 encoding of U+FEFF, the byte order mark some editors write at the
// start of a file.
var bom = []byte("\xef\xbb\xbf")

// Reader reads lines of any length. The zero value is not usable; call [NewReader].
type Reader struct {
	r     *bufio.Reader
	limit int
	buf   []byte
	num   int
	off   int64 // bytes of input the returned lines took, terminators included
	err   error
}

// NewReader returns a Reader over r. A positive limit caps the length of a line held in
// memory: longer lines are returned with Oversize set and no bytes. A limit ≤ 0 means no
// limit. It reuses the buffers of a closed Reader when there is one.
func NewReader(r io.Reader, limit int) *Reader {
	if rd, ok := closed.Get().(*Reader); ok {
		rd.r.Reset(r)
		rd.limit, rd.buf, rd.num, rd.off, rd.err = limit, rd.buf[:0], 0, 0, nil
		return rd
	}
	return &Reader{r: bufio.NewReaderSize(r, 16<<10), limit: limit}
}

// closed holds closed Readers, whose buffers the next NewReader reuses: a replay of
// many small files would otherwise allocate a read buffer and a line buffer per file.
var closed sync.Pool

// maxKeptLine is the longest line buffer a closed Reader keeps for reuse.
const maxKeptLine = 1 << 20

// Close ends the reading: r must not be used again, nor the Line it returned last, and
// its buffers serve a later NewReader. It does not close the underlying reader.
// Closing is optional: a Reader never closed is collected as any value is.
func (r *Reader) Close() {
	r.r.Reset(nil) // hold on to no input
	if cap(r.buf) > maxKeptLine {
		r.buf = nil
	}
	r.err = errClosed
	closed.Put(r)
}

var errClosed = errors.New("jsonl: reader closed")

// Next returns the next line. It returns io.EOF after the last line, and any other
// error from the underlying reader as it happens (the lines before it have been
// returned).
func (r *Reader) Next() (Line, error) {
	if r.err != nil {
		return Line{}, r.err
	}
	r.buf = r.buf[:0]
	n := 0
	oversize := false
	for {
		chunk, err := r.r.ReadSlice('\n')
		n += len(chunk)
		r.off += int64(len(chunk))
		if !oversize {
			if r.limit > 0 && n > r.limit+2 { // +2: the terminator is not part of the line
				oversize = true
				r.buf = r.buf[:0]
			} else {
				r.buf = append(r.buf, chunk...)
			}
		}
		switch {
		case err == nil:
			r.num++
			return r.finish(n, oversize, false), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == io.EOF:
			r.err = io.EOF
			if n == 0 {
				return Line{}, io.EOF
			}
			r.num++
			return r.finish(n, oversize, true), nil
		default:
			r.err = err
			return Line{}, err
		}
	}
}

// InputOffset returns the offset in the input of the end of the last line Next returned,
// its terminator included: a line is the input's bytes from the previous InputOffset to
// this one (as csv.Reader.InputOffset tells of its records).
func (r *Reader) InputOffset() int64 { return r.off }

// Line returns the number of the last line returned by Next.
func (r *Reader) Line() int { return r.num }

// finish trims the terminator and builds the Line for a line of n raw bytes.
func (r *Reader) finish(n int, oversize, atEOF bool) Line {
	l := Line{Num: r.num, Unterminated: atEOF}
	length := n
	if !atEOF {
		length-- // "\n"
	}
	if oversize {
		// The raw bytes are gone; a trailing "\r" cannot be seen, so Len may count it.
		l.Len, l.Oversize = length, true
		return l
	}
	b := r.buf[:length]
	if len(b) > 0 && b[len(b)-1] == '\r' {
		b = b[:len(b)-1]
	}
	if r.num == 1 {
		b = bytes.TrimPrefix(b, bom)
	}
	l.Bytes, l.Len = b, len(b)
	if r.limit > 0 && l.Len > r.limit {
		l.Bytes, l.Oversize = nil, true
	}
	return l
}
