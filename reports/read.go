package reports

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/parquet-go/parquet-go"
)

// ReadRows reads the rows of a table file that keep accepts (nil: every row),
// streaming row group by row group so that only the kept rows are held in memory.
func ReadRows[T any](path string, keep func(*T) bool) ([]T, error) {
	rd, err := OpenRows[T](path, 1024)
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	var out []T
	for r := rd.Next(); r != nil; r = rd.Next() {
		if keep == nil || keep(r) {
			out = append(out, *r)
		}
	}
	if err := rd.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// RowReader reads the rows of a table file one at a time, batch rows at a time from
// the file: what it holds is a batch and the reader's pages, whatever the file's size.
type RowReader[T any] struct {
	path string
	f    *os.File
	rd   *parquet.GenericReader[T]
	buf  []T
	mend TimeMend[T]
	i, n int
	err  error
	done bool
}

// OpenRows opens a table file for reading batch rows at a time (at least one).
func OpenRows[T any](path string, batch int) (*RowReader[T], error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	pf, err := OpenFile(f, fi.Size())
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &RowReader[T]{path: path, f: f, rd: parquet.NewGenericReader[T](pf), buf: make([]T, max(batch, 1)), mend: NewTimeMend[T]()}, nil
}

// Next returns the next row, or nil at the end of the file or on an error (Err says
// which); its times are as written, even those parquet-go reads wrong ([TimeMend]).
// The row is the reader's until the next call: a caller that keeps it keeps a copy,
// which may share its slices and pointers — the reader never reuses those.
func (r *RowReader[T]) Next() *T {
	for r.i == r.n {
		if r.done {
			return nil
		}
		clear(r.buf) // rows handed out own their slices and pointers: never let the reader reuse them
		r.err = Guarded(func() (err error) {
			r.n, err = r.rd.Read(r.buf)
			return err
		})
		r.mend.Mend(r.buf[:r.n])
		r.i = 0
		if r.n == 0 && r.err == nil { // nothing and no error: read as the end, never a loop
			r.err = io.EOF
		}
		if r.err != nil {
			r.done = true
			if errors.Is(r.err, io.EOF) {
				r.err = nil
			} else {
				r.err, r.n = fmt.Errorf("%s: %w", r.path, r.err), 0
			}
		}
	}
	r.i++
	return &r.buf[r.i-1]
}

// Err is the error that ended the reading, if one did.
func (r *RowReader[T]) Err() error { return r.err }

// Close closes the file.
func (r *RowReader[T]) Close() error {
	r.rd.Close()
	return r.f.Close()
}

// FileMetadata returns the value of a key of a Parquet file's key-value metadata ("" when
// the file has none), reading only the file's footer.
func FileMetadata(path, key string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	pf, err := OpenFile(f, fi.Size(), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	v, _ := pf.Lookup(key)
	return v, nil
}

// OpenFile is parquet.OpenFile, [Guarded].
func OpenFile(r io.ReaderAt, size int64, options ...parquet.FileOption) (pf *parquet.File, err error) {
	err = Guarded(func() (err error) {
		pf, err = parquet.OpenFile(r, size, options...)
		return err
	})
	return pf, err
}

// Guarded runs a call into the Parquet reader and returns a panic of it as an error.
// The reader trusts some fields of a page header, which no checksum covers, and a
// corrupt one can make it index out of range: a corrupt file must be an error, not a
// crash. Only calls into the reader should be guarded, so that a panic of loopwatch's
// own code stays one.
func Guarded(call func() error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("corrupt Parquet data: %v", v)
		}
	}()
	return call()
}
