package reports

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

func scratchStore(t *testing.T) (*pageStore, *int) {
	t.Helper()
	opened := 0
	return newPageStore(func() (*os.File, error) {
		opened++
		return os.CreateTemp(t.TempDir(), "pages")
	}), &opened
}

// TestPageBuffersRoundTrip: what is written to buffers comes back, byte for byte, by
// Read and by WriteTo, across chunk boundaries and with other buffers written between;
// a buffer given back frees its chunks for the next, so the file does not grow.
func TestPageBuffersRoundTrip(t *testing.T) {
	writes := []struct {
		name  string
		sizes []int
	}{
		{"nothing", nil},
		{"one small write", []int{17}},
		{"a chunk exactly", []int{pageChunk}},
		{"across a boundary", []int{pageChunk - 3, 10}},
		{"headers and pages", []int{23, 4000, 19, 70000, 31, 1}},
		{"several chunks at once", []int{3*pageChunk + 5}},
	}
	s, opened := scratchStore(t)
	rng := rand.New(rand.NewPCG(1, 2))
	var bufs []io.ReadWriteSeeker
	var want [][]byte
	for _, w := range writes {
		b := s.GetBuffer()
		var all []byte
		for _, n := range w.sizes {
			p := make([]byte, n)
			for i := range p {
				p[i] = byte(rng.Uint32())
			}
			if m, err := b.Write(p); err != nil || m != n {
				t.Fatalf("%s: write %d bytes: %d, %v", w.name, n, m, err)
			}
			all = append(all, p...)
		}
		bufs, want = append(bufs, b), append(want, all)
	}
	for i, w := range writes {
		b := bufs[i]
		if _, err := b.Seek(0, io.SeekStart); err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if _, err := io.Copy(&got, b); err != nil { // WriteTo
			t.Fatalf("%s: %v", w.name, err)
		}
		if !bytes.Equal(got.Bytes(), want[i]) {
			t.Errorf("%s: WriteTo gave %d bytes, differing from the %d written", w.name, got.Len(), len(want[i]))
		}
		b.Seek(0, io.SeekStart)
		small, err := io.ReadAll(io.LimitReader(onlyReader{b}, 1<<30)) // Read, in small calls
		if err != nil || !bytes.Equal(small, want[i]) {
			t.Errorf("%s: Read gave %d bytes (%v), differing from the %d written", w.name, len(small), err, len(want[i]))
		}
	}
	if *opened != 1 {
		t.Errorf("the scratch file was made %d times, want once", *opened)
	}
	chunks := s.count
	for _, b := range bufs {
		s.PutBuffer(b)
	}
	again := s.GetBuffer()
	if _, err := again.Write(make([]byte, 3*pageChunk)); err != nil {
		t.Fatal(err)
	}
	if s.count != chunks {
		t.Errorf("the file went from %d to %d chunks writing into freed ones", chunks, s.count)
	}
}

// onlyReader hides WriteTo, so io.ReadAll calls Read.
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

// TestPageBufferSeek: Seek stays within what was written.
func TestPageBufferSeek(t *testing.T) {
	s, _ := scratchStore(t)
	b := s.GetBuffer()
	b.Write([]byte("0123456789"))
	for _, c := range []struct {
		off     int64
		whence  int
		want    int64
		wantErr bool
	}{
		{0, io.SeekStart, 0, false},
		{4, io.SeekCurrent, 4, false},
		{-2, io.SeekEnd, 8, false},
		{10, io.SeekStart, 10, false},
		{11, io.SeekStart, 0, true},
		{-1, io.SeekStart, 0, true},
		{0, 7, 0, true},
	} {
		got, err := b.Seek(c.off, c.whence)
		if (err != nil) != c.wantErr || (!c.wantErr && got != c.want) {
			t.Errorf("Seek(%d, %d) = %d, %v; want %d, error %v", c.off, c.whence, got, err, c.want, c.wantErr)
		}
	}
	b.Seek(8, io.SeekStart)
	b.Write([]byte("XYZ"))
	b.Seek(0, io.SeekStart)
	if got, _ := io.ReadAll(b); string(got) != "01234567XYZ" {
		t.Errorf("overwriting the end: %q", got)
	}
}

// TestPageStoreFailures: a scratch file that cannot be made, written or read back fails
// the buffer's writes and reads with the error, and every buffer's from then on.
func TestPageStoreFailures(t *testing.T) {
	t.Run("not made", func(t *testing.T) {
		s := newPageStore(func() (*os.File, error) { return nil, errors.New("no room") })
		b := s.GetBuffer()
		if _, err := b.Write([]byte("page")); err == nil || !bytes.Contains([]byte(err.Error()), []byte("no room")) {
			t.Errorf("write: %v, want the scratch file's error", err)
		}
		if _, err := s.GetBuffer().Write([]byte("x")); err == nil {
			t.Error("a later buffer's write succeeded")
		}
	})
	t.Run("closed under it", func(t *testing.T) {
		s, _ := scratchStore(t)
		b := s.GetBuffer()
		b.Write([]byte("page one"))
		s.file().Close()
		if _, err := b.Write([]byte("page two")); err == nil {
			t.Error("write to a closed file succeeded")
		}
		b.Seek(0, io.SeekStart)
		if _, err := io.Copy(io.Discard, b); err == nil {
			t.Error("read after a failure succeeded")
		}
	})
	t.Run("cut short", func(t *testing.T) {
		s, _ := scratchStore(t)
		b := s.GetBuffer()
		b.Write(make([]byte, 2*pageChunk))
		s.file().Truncate(pageChunk / 2)
		b.Seek(0, io.SeekStart)
		if _, err := io.Copy(io.Discard, b); !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("reading a cut file: %v, want unexpected EOF", err)
		}
	})
}

// TestPagesAsideSameBytes: a table whose row groups' pages are kept in the scratch file
// is the same file, byte for byte, as one whose pages are kept in memory, over several
// row groups; and the output leaves no scratch file behind.
func TestPagesAsideSameBytes(t *testing.T) {
	rows := make([]PredictionRow, 5*RowGroupRows/2)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range rows {
		score := rng.Float64()
		rows[i] = PredictionRow{RunKey: fmt.Sprintf("run-%d", rng.IntN(1e6)), Kind: "quasar_run", Config: []string{"configured", "seed"}[i%2], StruggleScore: &score}
	}
	write := func(pool parquet.BufferPool) ([]byte, *Output) {
		t.Helper()
		dir := t.TempDir()
		out, err := NewOutput(filepath.Join(dir, "res.parquet"), map[string]string{"k": "v"})
		if err != nil {
			t.Fatal(err)
		}
		out.pages = pool // nil: the output's own page store
		table, err := NewTable[PredictionRow](out, "predictions")
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < len(rows); i += 1000 {
			if err := table.Write(rows[i:min(i+1000, len(rows))]...); err != nil {
				t.Fatal(err)
			}
		}
		if err := out.Commit(); err != nil {
			t.Fatal(err)
		}
		for _, e := range entries(t, dir) {
			if strings.Contains(e, "scratch") {
				t.Errorf("scratch file %s left behind", e)
			}
		}
		b, err := os.ReadFile(filepath.Join(dir, "res.predictions.parquet"))
		if err != nil {
			t.Fatal(err)
		}
		return b, out
	}
	aside, out := write(nil)
	store, ok := out.pages.(*pageStore)
	if !ok || store.count == 0 {
		t.Fatal("the table's pages were not kept in the page store")
	}
	inMemory, _ := write(parquet.NewBufferPool())
	if !bytes.Equal(aside, inMemory) {
		t.Errorf("pages kept aside give a different table (%d bytes) from pages in memory (%d)", len(aside), len(inMemory))
	}
	f, err := parquet.OpenFile(bytes.NewReader(aside), int64(len(aside)))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(f.RowGroups()); n < 3 {
		t.Errorf("%d row groups, want several", n)
	}
	if n := f.NumRows(); n != int64(len(rows)) {
		t.Errorf("%d rows, want %d", n, len(rows))
	}
}

// TestPagesAsideFailureFailsTheTable: when the page store's scratch file cannot be made,
// the table's writing or its commit fails with that error, and nothing is put in place.
func TestPagesAsideFailureFailsTheTable(t *testing.T) {
	dir := t.TempDir()
	out, err := NewOutput(filepath.Join(dir, "res.parquet"), nil)
	if err != nil {
		t.Fatal(err)
	}
	out.pages = newPageStore(func() (*os.File, error) { return nil, errors.New("disk full") })
	table, err := NewTable[PredictionRow](out, "predictions")
	if err != nil {
		t.Fatal(err)
	}
	rows := make([]PredictionRow, 2*RowGroupRows)
	for i := range rows {
		rows[i] = PredictionRow{RunKey: fmt.Sprint("run-", i), Kind: "quasar_run"}
	}
	err = table.Write(rows...)
	if err == nil {
		err = out.Commit()
	} else {
		out.Abort()
	}
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("writing and committing: %v, want the page store's error", err)
	}
	for _, e := range entries(t, dir) {
		t.Errorf("%s left behind", e)
	}
}
