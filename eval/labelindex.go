package eval

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"sync"
)

// IndexScratch is a file of its own that [Labels.MoveIndex] writes the index of the
// labels into, from offset 0, and reads it from: a scratch file.
type IndexScratch interface {
	io.ReaderAt
	io.Writer
}

// The index moved into a scratch file is made of records of diskRefSize bytes (a
// labelRef and its record's number), blockSize bytes a block.
const (
	diskRefSize  = 28
	blockSize    = 4096
	blockRefs    = blockSize / diskRefSize // 146
	blockPadding = blockSize - blockRefs*diskRefSize
)

// diskIndex is the index of Labels that have sources, moved into a scratch file: the
// records sorted by hash (then number) in blocks, then the same records ordered by
// their places (for EachKey). What stays in memory is the first hash of each block
// (fence, some 0.05 bytes a label) and the blocks whose first hash is the last of the
// block before them (cont, empty but for a collision of hashes across a block's end).
type diskIndex struct {
	f     io.ReaderAt
	n     int      // records
	fence []uint64 // the first hash of each block
	cont  []int    // the blocks whose first hash the block before them ends with, sorted
	byAt  int64    // the offset of the records ordered by their places
}

func putDiskRef(b []byte, ref labelRef, n uint32) {
	binary.LittleEndian.PutUint64(b[0:], ref.hash)
	binary.LittleEndian.PutUint64(b[8:], ref.at)
	binary.LittleEndian.PutUint32(b[16:], ref.line)
	binary.LittleEndian.PutUint32(b[20:], ref.sum)
	binary.LittleEndian.PutUint32(b[24:], n)
}

func diskRef(b []byte) (labelRef, uint32) {
	return labelRef{hash: binary.LittleEndian.Uint64(b[0:]), at: binary.LittleEndian.Uint64(b[8:]),
		line: binary.LittleEndian.Uint32(b[16:]), sum: binary.LittleEndian.Uint32(b[20:])}, binary.LittleEndian.Uint32(b[24:])
}

// errScratch is the error of a scratch file holding the index that failed.
func errScratch(err error) error {
	if err == nil || err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("the labels' index in its scratch file: %w", err)
}

// MoveIndex moves the index of labels kept in their sources (see [LabelOptions.Source])
// into a scratch file open returns, leaving in memory some 0.05 bytes a label where
// the index held 28: a look-up then reads a 4 KiB block of it (one ReadAt) besides
// the label's record. open is called only when there is an index to move: labels
// kept in memory, and labels already moved, stay as they are. The scratch file must
// stay readable, and unchanged, for as long as the labels are used; a read of it that
// fails later is recorded as a read of a record is ([Labels.Err]). MoveIndex fails
// when the scratch file cannot be opened or written: the index then stays in memory.
// Set and Merge bring a moved index back into memory.
func (ls *Labels) MoveIndex(open func() (IndexScratch, error)) error {
	s := ls.src
	if s == nil || s.disk != nil || len(s.refs) == 0 {
		return nil
	}
	ls.seal()
	f, err := open()
	if err != nil {
		return err
	}
	d := &diskIndex{f: f, n: len(s.refs)}
	w := bufio.NewWriterSize(f, 64<<10)
	var rec [diskRefSize]byte
	var pad [blockPadding]byte
	for p, n := range s.sorted {
		if p%blockRefs == 0 {
			if p > 0 {
				w.Write(pad[:])
				if s.refs[s.sorted[p-1]].hash == s.refs[n].hash {
					d.cont = append(d.cont, len(d.fence))
				}
			}
			d.fence = append(d.fence, s.refs[n].hash)
		}
		putDiskRef(rec[:], s.refs[n], n)
		w.Write(rec[:])
	}
	// The records by place follow the last block, which is short but for its last.
	d.byAt = int64(len(d.fence)-1)*blockSize + int64((len(s.sorted)-1)%blockRefs+1)*diskRefSize
	order := slices.Clone(s.sorted)
	slices.SortFunc(order, func(a, b uint32) int {
		return cmp.Or(cmp.Compare(s.refs[a].at&atOffMask, s.refs[b].at&atOffMask), cmp.Compare(a, b))
	})
	for _, n := range order {
		putDiskRef(rec[:], s.refs[n], n)
		w.Write(rec[:])
	}
	if err := w.Flush(); err != nil {
		return errScratch(err)
	}
	d.fence = slices.Clip(d.fence)
	s.disk, s.refs, s.sorted, s.tail = d, nil, nil, nil
	return nil
}

// blocks are the buffers look-ups read a block of a moved index into.
var blocks = sync.Pool{New: func() any { return new([blockSize]byte) }}

// lookupDisk is lookup for Labels whose index was moved.
func (ls *Labels) lookupDisk(key string, want bool) (uint32, LabelRecord, bool) {
	d := ls.src.disk
	h := keyHash(key)
	b := sort.Search(len(d.fence), func(i int) bool { return d.fence[i] > h }) - 1
	if b < 0 {
		return 0, LabelRecord{}, false
	}
	for b > 0 && d.fence[b] == h && d.continues(b) {
		b--
	}
	buf := blocks.Get().(*[blockSize]byte)
	defer blocks.Put(buf)
	for ; b < len(d.fence) && d.fence[b] <= h; b++ {
		recs, err := d.block(b, buf)
		if err != nil {
			ls.src.fail(err)
			return 0, LabelRecord{}, false
		}
		p := sort.Search(len(recs)/diskRefSize, func(p int) bool {
			return binary.LittleEndian.Uint64(recs[p*diskRefSize:]) >= h
		})
		for ; p*diskRefSize < len(recs); p++ {
			ref, n := diskRef(recs[p*diskRefSize:])
			if ref.hash != h {
				return 0, LabelRecord{}, false
			}
			if r, ok := ls.verify(ref, key, want); ok {
				return n, r, true
			}
		}
	}
	return 0, LabelRecord{}, false
}

// continues reports whether block b's first hash is the last of the block before it.
func (d *diskIndex) continues(b int) bool {
	_, found := slices.BinarySearch(d.cont, b)
	return found
}

// block reads block b into buf and returns its records.
func (d *diskIndex) block(b int, buf *[blockSize]byte) ([]byte, error) {
	want := min(blockRefs, d.n-b*blockRefs) * diskRefSize
	n, err := d.f.ReadAt(buf[:want], int64(b)*blockSize)
	if n < want {
		return nil, errScratch(err)
	}
	return buf[:want], nil
}

// each calls fn with every record of a moved index and its number, in the order of
// their places (records kept in memory last), reading the scratch file through.
func (d *diskIndex) each(fn func(ref labelRef, n uint32) error) error {
	br := bufio.NewReaderSize(io.NewSectionReader(d.f, d.byAt, math.MaxInt64-d.byAt), 64<<10)
	var rec [diskRefSize]byte
	for range d.n {
		if _, err := io.ReadFull(br, rec[:]); err != nil {
			return errScratch(err)
		}
		if err := fn(diskRef(rec[:])); err != nil {
			return err
		}
	}
	return nil
}

// restore brings a moved index back into memory.
func (s *sourced) restore() error {
	d := s.disk
	if d == nil {
		return nil
	}
	refs, sorted := make([]labelRef, d.n), make([]uint32, 0, d.n)
	for b := range d.fence {
		buf := blocks.Get().(*[blockSize]byte)
		recs, err := d.block(b, buf)
		for p := 0; err == nil && p < len(recs); p += diskRefSize {
			ref, n := diskRef(recs[p:])
			if int(n) >= d.n {
				err = errScratch(errors.New("a record's number is out of range"))
				break
			}
			refs[n] = ref
			sorted = append(sorted, n)
		}
		blocks.Put(buf)
		if err != nil {
			return s.fail(err)
		}
	}
	s.disk, s.refs, s.sorted = nil, refs, sorted
	return nil
}
