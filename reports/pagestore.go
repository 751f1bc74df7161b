package reports

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
)

// pageChunk is the share of a page store's scratch file that one buffer takes at a time.
const pageChunk = 32 << 10

// pageStore keeps the encoded pages of the row groups being written — every column's,
// of every table of an output — in a scratch file of the output rather than in memory
// (a parquet.BufferPool, given to each table's writer as its column page buffers). A
// writer holds a row group's pages until the group ends: up to RowGroupBytes beside a
// page per column, for each of an output's tables. In memory those pages grow with a
// replay until its largest tables' row groups fill; here a replay holds only a list of
// chunk numbers per column being written.
//
// A buffer is a list of pageChunk-sized chunks of the file; a buffer given back frees
// its chunks for the next, so the file grows to the most pages held at once, never to
// the size of the output. The scratch file is made with the first buffer asked for. A
// failure to make, write or read it is the failure of every buffer from then on: the
// writer's write or row group fails with it, and so does the replay, never a table
// with pages missing.
type pageStore struct {
	open func() (*os.File, error) // makes the scratch file

	mu    sync.Mutex
	f     *os.File
	err   error   // the first failure: every buffer fails with it from then on
	free  []int32 // chunks no buffer holds
	count int32   // chunks in the file
	copy  sync.Pool
}

func newPageStore(open func() (*os.File, error)) *pageStore {
	s := &pageStore{open: open}
	s.copy.New = func() any { b := make([]byte, pageChunk); return &b }
	return s
}

// GetBuffer returns an empty buffer whose bytes are kept in the store's file.
func (s *pageStore) GetBuffer() io.ReadWriteSeeker { return &pageBuffer{s: s} }

// PutBuffer frees the chunks of a buffer GetBuffer returned.
func (s *pageStore) PutBuffer(b io.ReadWriteSeeker) {
	pb, ok := b.(*pageBuffer)
	if !ok || pb.s != s {
		return
	}
	s.mu.Lock()
	s.free = append(s.free, pb.chunks...)
	s.mu.Unlock()
	pb.chunks, pb.size, pb.pos = nil, 0, 0
}

// chunk returns a free chunk of the file, making the file if it is the first.
func (s *pageStore) chunk() (int32, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return 0, s.err
	}
	if s.f == nil {
		f, err := s.open()
		if err != nil {
			s.err = fmt.Errorf("keeping a row group's pages aside: %w", err)
			return 0, s.err
		}
		s.f = f
	}
	if n := len(s.free); n > 0 {
		c := s.free[n-1]
		s.free = s.free[:n-1]
		return c, nil
	}
	s.count++
	return s.count - 1, nil
}

// fail records err as the store's failure, unless it has one, and returns the failure.
func (s *pageStore) fail(err error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		s.err = fmt.Errorf("keeping a row group's pages aside: %w", err)
	}
	return s.err
}

// failed returns the store's failure, if any.
func (s *pageStore) failed() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// file returns the store's scratch file (nil before the first chunk).
func (s *pageStore) file() *os.File {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.f
}

// pageBuffer is one column's pages of one row group, in chunks of its store's file.
// One goroutine at a time uses a buffer, as a column writer does.
type pageBuffer struct {
	s      *pageStore
	chunks []int32 // the buffer's bytes: chunk i holds [i*pageChunk, (i+1)*pageChunk)
	size   int64   // bytes written
	pos    int64   // where the next Read or Write starts
}

// Write writes p at the buffer's position, taking chunks as it needs them.
func (b *pageBuffer) Write(p []byte) (int, error) {
	if err := b.s.failed(); err != nil {
		return 0, err
	}
	n := 0
	for n < len(p) {
		i, at := b.pos/pageChunk, b.pos%pageChunk
		for int64(len(b.chunks)) <= i {
			c, err := b.s.chunk()
			if err != nil {
				return n, err
			}
			b.chunks = append(b.chunks, c)
		}
		m := min(int64(len(p)-n), pageChunk-at)
		if _, err := b.s.file().WriteAt(p[n:n+int(m)], int64(b.chunks[i])*pageChunk+at); err != nil {
			return n, b.s.fail(err)
		}
		n += int(m)
		b.pos += m
		b.size = max(b.size, b.pos)
	}
	return n, nil
}

// Read reads from the buffer's position, up to what was written.
func (b *pageBuffer) Read(p []byte) (int, error) {
	if err := b.s.failed(); err != nil {
		return 0, err
	}
	if b.pos >= b.size {
		return 0, io.EOF
	}
	i, at := b.pos/pageChunk, b.pos%pageChunk
	m := min(int64(len(p)), pageChunk-at, b.size-b.pos)
	n, err := b.s.file().ReadAt(p[:m], int64(b.chunks[i])*pageChunk+at)
	b.pos += int64(n)
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF // the file is shorter than what was written to it
		}
		return n, b.s.fail(err)
	}
	return n, nil
}

// WriteTo writes the rest of the buffer to w, a chunk at a time (io.Copy uses it).
func (b *pageBuffer) WriteTo(w io.Writer) (int64, error) {
	bp := b.s.copy.Get().(*[]byte)
	defer b.s.copy.Put(bp)
	var total int64
	for {
		n, err := b.Read(*bp)
		if n > 0 {
			m, werr := w.Write((*bp)[:n])
			total += int64(m)
			if werr != nil {
				return total, werr
			}
		}
		if err == io.EOF {
			return total, nil
		}
		if err != nil {
			return total, err
		}
	}
}

// Seek sets the position of the next Read or Write, within what was written.
func (b *pageBuffer) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		offset += b.pos
	case io.SeekEnd:
		offset += b.size
	default:
		return b.pos, fmt.Errorf("page buffer: seek whence %d", whence)
	}
	if offset < 0 || offset > b.size {
		// Past the end, a Write would leave bytes between that no one wrote.
		return b.pos, fmt.Errorf("page buffer: seek to %d, outside its %d bytes", offset, b.size)
	}
	b.pos = offset
	return offset, nil
}
