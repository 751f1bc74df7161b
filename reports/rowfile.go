package reports

import (
	"bufio"
	"fmt"
	"os"

	"github.com/parquet-go/parquet-go"
)

// RowFileGroupRows is how many rows a row group of a [RowFile] holds: what a RowFile
// holds while it writes, and a [RowReader] while it reads one back, is one such group.
const RowFileGroupRows = 1024

// RowFile keeps rows of T aside in a scratch file of their own, for a [RowReader] to
// read back in the order they were written: a Parquet table of T's schema,
// uncompressed, in small row groups, so that what it holds is a row group and the
// footer's few bytes a group, whatever the number of rows. A row read back is the row
// written: each value as Parquet stores it, which for rows read from a table of T is
// the row itself. It is not an output table: it has no metadata, and the caller owns
// the file (it is neither closed nor removed here).
type RowFile[T any] struct {
	f   *os.File
	buf *bufio.Writer
	w   *parquet.GenericWriter[T]
	err error
}

// NewRowFile starts writing rows into f, an empty file open for writing.
func NewRowFile[T any](f *os.File) *RowFile[T] {
	buf := bufio.NewWriterSize(f, 64<<10)
	return &RowFile[T]{f: f, buf: buf, w: parquet.NewGenericWriter[T](buf,
		parquet.Compression(&parquet.Uncompressed),
		parquet.MaxRowsPerRowGroup(RowFileGroupRows),
		parquet.PageBufferSize(16<<10),
		parquet.CreatedBy("loopwatch", "scratch", ""))}
}

// Write appends rows.
func (w *RowFile[T]) Write(rows ...T) error {
	if w.err == nil {
		_, w.err = w.w.Write(rows)
	}
	return w.wrap()
}

// Close writes what is left and the footer; the file is then complete, for
// [OpenRows] to read by its name. It does not close the file.
func (w *RowFile[T]) Close() error {
	if w.err == nil {
		w.err = w.w.Close()
	}
	if w.err == nil {
		w.err = w.buf.Flush()
	}
	return w.wrap()
}

func (w *RowFile[T]) wrap() error {
	if w.err != nil {
		return fmt.Errorf("scratch file %s: %w", w.f.Name(), w.err)
	}
	return nil
}
