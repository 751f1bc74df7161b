package jsonl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Joined is what [SplitJoined] recovered from a line holding more than one record.
type Joined struct {
	// Records are the complete JSON objects of the line, in line order; each is a
	// sub-slice of the line.
	Records [][]byte
	// CutOff is how many bytes of the line (white space aside) belong to no complete
	// record: a record cut off mid-write, or garbage, before the next record. 0 when
	// the line is only complete records written without a newline between them.
	CutOff int
}

// Detail describes the line for a problem's detail, the same in every source.
func (j Joined) Detail() string {
	if j.CutOff == 0 {
		return fmt.Sprintf("%d records on one line, without a newline between them; each is read", len(j.Records))
	}
	return fmt.Sprintf("%d bytes of a cut-off record run together with %d complete record(s) on this line; the cut-off part is skipped, the complete records are read",
		j.CutOff, len(j.Records))
}

// Split is [SplitJoined] for a line of a [Reader]: the complete records as lines of
// the same number, and the problem's detail. ok is false when the line is not
// several records run together.
func (l Line) Split() (records []Line, detail string, ok bool) {
	j, ok := SplitJoined(l.Bytes)
	if !ok {
		return nil, "", false
	}
	records = make([]Line, len(j.Records))
	for i, r := range j.Records {
		records[i] = Line{Num: l.Num, Bytes: r, Len: len(r)}
	}
	return records, j.Detail(), true
}

// maxJoinTries bounds the record starts SplitJoined tries after a bad value, so that a
// long line full of '{' costs a bounded number of passes.
const maxJoinTries = 24

// SplitJoined recovers the records of a line that does not decode as one JSON value
// because writes ran together on it: complete records without a newline between them,
// or a record cut off mid-write followed straight away by complete ones (a writer died
// mid-record and the next write went on on the same line), or complete records
// followed by a cut-off one. It returns the complete objects and how many bytes were
// lost. ok is false when the line is not of that shape: no complete record, or a single
// one with nothing lost (a line that decodes as it is).
//
// Where a cut-off part ends is found by trying, after the value that fails to decode,
// the '{' positions just before the point the decoder stumbled (a cut-off string runs
// on into the next record's first key, `…"abc{"parentUuid":…`), then the `{"`s after
// the bad value's start that open with the same key as it (a record cut off just after
// a ':' takes the next record in as its value); the first position from which the rest
// of the line decodes as complete objects, and nothing else, starts the next record. At
// most [maxJoinTries] positions are tried.
func SplitJoined(line []byte) (j Joined, ok bool) {
	pos := 0
	for {
		recs, end, err := objects(line, pos)
		j.Records = append(j.Records, recs...)
		if err == nil {
			break
		}
		// The value starting at end is bad: find where the next record starts. With
		// none, the rest of the line is a cut-off record after complete ones.
		next := resync(line, end, err)
		if next < 0 {
			j.CutOff += len(bytes.TrimSpace(line[end:]))
			break
		}
		j.CutOff += len(bytes.TrimSpace(line[end:next]))
		pos = next
	}
	if len(j.Records) == 0 || len(j.Records) == 1 && j.CutOff == 0 {
		return Joined{}, false
	}
	return j, true
}

// objects decodes the JSON objects of line from pos to its end. It returns the
// complete ones, and on failure the start of the value that failed and the error.
func objects(line []byte, pos int) ([][]byte, int, error) {
	var recs [][]byte
	for {
		start := pos + SkipSpace(line[pos:])
		if start == len(line) {
			return recs, start, nil
		}
		if line[start] != '{' {
			return recs, start, errors.New("not a JSON object")
		}
		dec := json.NewDecoder(bytes.NewReader(line[start:]))
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			var se *json.SyntaxError
			if errors.As(err, &se) {
				se.Offset += int64(start)
			}
			return recs, start, err
		}
		end := start + int(dec.InputOffset())
		recs = append(recs, line[start:end])
		pos = end
	}
}

// complete reports whether line[k:] is one or more complete JSON objects and white
// space.
func complete(line []byte, k int) bool {
	recs, _, err := objects(line, k)
	return err == nil && len(recs) > 0
}

// resync returns where the record after the bad value at start begins, or -1.
func resync(line []byte, start int, err error) int {
	tries := 0
	try := func(k int) bool {
		tries++
		return complete(line, k)
	}
	// A syntax error: the next record usually starts just before the byte the decoder
	// stumbled on (a cut-off string swallows the record's `{"`).
	var se *json.SyntaxError
	if errors.As(err, &se) && !errors.Is(err, io.ErrUnexpectedEOF) {
		at := min(int(se.Offset), len(line))
		for k := at - 1; k > start && tries < maxJoinTries/2; k-- {
			if line[k] == '{' && try(k) {
				return k
			}
		}
	}
	// Otherwise (the cut-off value took in the next record and ran to the end of the
	// line), a record starts after the bad value's start with the same first key: a
	// nested object with another key is part of the cut-off record, not a record.
	open := firstKey(line[start:])
	switch {
	case line[start] != '{':
		open = []byte(`{"`) // garbage (a crash's NUL bytes, say) before a record
	case open == nil:
		return -1
	}
	for k := start + 1; k < len(line) && tries < maxJoinTries; k++ {
		i := bytes.Index(line[k:], open)
		if i < 0 {
			break
		}
		k += i
		if try(k) {
			return k
		}
	}
	return -1
}

// firstKey returns the opening `{"key":` of an object, or nil.
func firstKey(b []byte) []byte {
	if len(b) < 2 || b[0] != '{' || b[1] != '"' {
		return nil
	}
	i := bytes.Index(b[2:], []byte(`":`))
	if i < 0 || i > 64 {
		return nil
	}
	return b[:2+i+2]
}

// SkipSpace returns how many bytes of white space, as JSON has it (space, tab, CR,
// LF), open b.
func SkipSpace(b []byte) int {
	n := 0
	for n < len(b) && (b[n] == ' ' || b[n] == '\t' || b[n] == '\r' || b[n] == '\n') {
		n++
	}
	return n
}
