package replay

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sync"
)

// fileTable is what a replay keeps to its end about every input file, in path order:
// the file's path and what recognising it found (its format, flags, size and shard
// ownership: a record of recordSize bytes). Paths and records go back to back in two
// byte sequences, aside: in scratch files when the replay has them — then it holds
// nothing per file but the few rare things (problems found recognising a file, streams
// open from their sniffing), in a map — or in memory. Files are added once, in order,
// and read back by index, nearly in order (files are claimed and delivered so), each
// from the part of a sequence read last or, past it, the next part.
//
// A path or record that cannot be read back reads as "" or a file of no format, and
// the failure is kept: the replay fails with it (failed), never gives a wrong answer.
type fileTable struct {
	names   *aside // every file's path, back to back
	records *aside // every file's record, recordSize bytes each
	n       int
	byKey   int                  // files whose problems go by a key: keyed or whole (see sniffedFile)
	rare    map[int]*sniffedRare // by file: the few with a problem or a stream
}

// A file's record, recordSize bytes: [0] its format's index in formats plus one (0:
// none) in the low four bits (formatBits), and the flags of a run file read whole
// (flagWhole, flagForeign) above them, [1] flags, [2:6] its size in KiB, [6:10] its
// path's length, [10:16] where its path starts in the names (48 bits, little-endian),
// [16:32] the first half of a whole file's SHA-256 (sniffedFile.sum).
const recordSize = 32

// formatBits is the part of a record's first byte that names its format.
const formatBits = 0x0f

// The flags of a record's first byte.
const (
	flagWhole   = 1 << (4 + iota) // sniffedFile.whole
	flagForeign                   // sniffedFile.foreign
)

const (
	flagIgnored = 1 << iota
	flagLabels
	flagSubagent
	flagAttached
	flagRare
	flagKeyed
	flagKeyOwned
	flagOwned
)

// asidePart is how much of a scratch file a read back reads at a time.
const asidePart = 64 << 10

// newFileTable returns an empty table, kept in scratch files when scratch is not nil.
func newFileTable(scratch func(name string) (*os.File, error)) (*fileTable, error) {
	t := &fileTable{rare: map[int]*sniffedRare{}}
	var err error
	if t.names, err = newAside("file names", "names", scratch); err != nil {
		return nil, err
	}
	if t.records, err = newAside("file records", "files", scratch); err != nil {
		return nil, err
	}
	return t, nil
}

// add adds the next file: its path and what recognising it found.
func (t *fileTable) add(name string, sn sniffedFile) {
	var rec [recordSize]byte
	if sn.format != nil {
		rec[0] = byte(sn.format.index() + 1) // < formatBits: TestFileTableFormats
	}
	if sn.whole {
		rec[0] |= flagWhole
	}
	if sn.foreign {
		rec[0] |= flagForeign
	}
	for bit, on := range [...]bool{sn.ignored, sn.labels, sn.subagent, sn.attached, sn.rare != nil, sn.keyed, sn.keyOwned, sn.owned} {
		if on {
			rec[1] |= 1 << bit
		}
	}
	binary.LittleEndian.PutUint32(rec[2:6], sn.kib)
	binary.LittleEndian.PutUint32(rec[6:10], uint32(min(len(name), math.MaxUint32)))
	off := uint64(t.names.size)
	binary.LittleEndian.PutUint16(rec[10:12], uint16(off))
	binary.LittleEndian.PutUint32(rec[12:16], uint32(off>>16))
	copy(rec[16:], sn.sum[:])
	if sn.rare != nil {
		t.rare[t.n] = sn.rare
	}
	if sn.keyed || sn.whole {
		t.byKey++
	}
	t.names.writeString(name)
	t.records.write(rec[:])
	t.n++
}

// finish ends the adding: the table is read from here on. An error is a failure to
// write the scratch files.
func (t *fileTable) finish() error {
	if t.names.size>>48 != 0 {
		return errors.New("keeping the file names aside: more than 256 TiB of names")
	}
	if err := t.names.finish(); err != nil {
		return err
	}
	return t.records.finish()
}

// len returns the number of files.
func (t *fileTable) len() int { return t.n }

// record decodes a record: what recognising the file found, and where its path is.
func (t *fileTable) decode(i int, rec []byte) (sn sniffedFile, off int64, n int) {
	if k := int(rec[0] & formatBits); k > 0 && k <= len(formats) {
		sn.format = &formats[k-1]
	}
	sn.whole, sn.foreign = rec[0]&flagWhole != 0, rec[0]&flagForeign != 0
	f := rec[1]
	sn.ignored, sn.labels = f&flagIgnored != 0, f&flagLabels != 0
	sn.subagent, sn.attached = f&flagSubagent != 0, f&flagAttached != 0
	sn.keyed, sn.keyOwned, sn.owned = f&flagKeyed != 0, f&flagKeyOwned != 0, f&flagOwned != 0
	sn.kib = binary.LittleEndian.Uint32(rec[2:6])
	copy(sn.sum[:], rec[16:])
	if f&flagRare != 0 {
		sn.rare = t.rare[i]
	}
	n = int(binary.LittleEndian.Uint32(rec[6:10]))
	off = int64(binary.LittleEndian.Uint16(rec[10:12])) | int64(binary.LittleEndian.Uint32(rec[12:16]))<<16
	return sn, off, n
}

// file returns what recognising file i found; a record that cannot be read back is
// a file of no format, and the failure is kept for failed.
func (t *fileTable) file(i int) sniffedFile {
	var sn sniffedFile
	t.records.read(int64(i)*recordSize, recordSize, func(rec []byte) { sn, _, _ = t.decode(i, rec) })
	return sn
}

// at returns file i's path and what recognising it found; see file and name.
func (t *fileTable) at(i int) (string, sniffedFile) {
	var sn sniffedFile
	var off int64
	n := -1
	t.records.read(int64(i)*recordSize, recordSize, func(rec []byte) { sn, off, n = t.decode(i, rec) })
	if n < 0 {
		return "", sniffedFile{}
	}
	var name string
	if !t.names.read(off, n, func(b []byte) { name = string(b) }) {
		return "", sniffedFile{}
	}
	return name, sn
}

// name returns file i's path; one that cannot be read back is "", and the failure is
// kept for failed.
func (t *fileTable) name(i int) string {
	name, _ := t.at(i)
	return name
}

// find returns the file at path name, by a binary search of the paths (in path order)
// that reads the records and paths it looks at one by one, beside the parts read last:
// for the few lookups of a file by its path (problems that name another file than the
// one read).
func (t *fileTable) find(name string) (sniffedFile, bool) {
	lo, hi := 0, t.n
	var rec [recordSize]byte
	var buf []byte
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if !t.records.readAt(rec[:], int64(mid)*recordSize) {
			return sniffedFile{}, false
		}
		sn, off, n := t.decode(mid, rec[:])
		if cap(buf) < n {
			buf = make([]byte, n)
		}
		if !t.names.readAt(buf[:n], off) {
			return sniffedFile{}, false
		}
		switch got := string(buf[:n]); {
		case got == name:
			return sn, true
		case got < name:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return sniffedFile{}, false
}

// failed returns the first failure to read a path or record back, nil if none.
func (t *fileTable) failed() error {
	if t == nil {
		return nil
	}
	if err := t.names.failed(); err != nil {
		return err
	}
	return t.records.failed()
}

// closeStreams closes the streams no read took.
func (t *fileTable) closeStreams() {
	if t == nil {
		return
	}
	for _, r := range t.rare {
		if st := r.stream; st != nil && !st.used {
			st.f.Close()
		}
	}
}

// aside is a byte sequence written once, in order, and then read back at any offset:
// kept in a scratch file, of which it holds the part read last, or in memory.
type aside struct {
	what string   // what it holds, for errors
	file *os.File // nil: in memory, in mem
	w    *bufio.Writer
	werr error // the first failure to write
	mem  []byte
	size int64 // bytes written

	mu    sync.Mutex
	part  []byte // the part of the file read last, from off
	off   int64
	err   error // the first failure to read the file back: the replay fails with it
	reads int   // parts read, for tests
}

// newAside returns an empty sequence, in the scratch file named name when scratch is
// not nil.
func newAside(what, name string, scratch func(name string) (*os.File, error)) (*aside, error) {
	a := &aside{what: what}
	if scratch == nil {
		return a, nil
	}
	f, err := scratch(name)
	if err != nil {
		return nil, fmt.Errorf("keeping the %s aside: %w", what, err)
	}
	a.file, a.w = f, bufio.NewWriterSize(f, asidePart)
	return a, nil
}

func (a *aside) write(p []byte) {
	a.size += int64(len(p))
	if a.file == nil {
		a.mem = append(a.mem, p...)
	} else if a.werr == nil {
		_, a.werr = a.w.Write(p)
	}
}

func (a *aside) writeString(s string) {
	a.size += int64(len(s))
	if a.file == nil {
		a.mem = append(a.mem, s...)
	} else if a.werr == nil {
		_, a.werr = a.w.WriteString(s)
	}
}

// finish ends the writing; an error is a failure to write the scratch file.
func (a *aside) finish() error {
	if a.file == nil {
		return nil
	}
	if a.werr == nil {
		a.werr = a.w.Flush()
	}
	a.w = nil
	if a.werr != nil {
		return fmt.Errorf("keeping the %s aside: %w", a.what, a.werr)
	}
	return nil
}

// read calls fn with the n bytes at off, from the part read last, or else from the
// part of the file it reads now from off; it reports false, without calling fn, when
// they cannot be read (the failure is kept). fn must not keep the bytes.
func (a *aside) read(off int64, n int, fn func([]byte)) bool {
	if a.file == nil {
		if off < 0 || off+int64(n) > int64(len(a.mem)) {
			return false
		}
		fn(a.mem[off : off+int64(n)])
		return true
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if off < a.off || off+int64(n) > a.off+int64(len(a.part)) {
		if a.err != nil {
			return false
		}
		size := max(asidePart, n)
		if cap(a.part) < size {
			a.part = make([]byte, size)
		}
		got, err := a.file.ReadAt(a.part[:size], off)
		a.reads++
		if got < n {
			a.fail(err)
			a.part, a.off = a.part[:0], 0
			return false
		}
		a.part, a.off = a.part[:got], off
	}
	fn(a.part[off-a.off : off-a.off+int64(n)])
	return true
}

// readAt reads len(p) bytes at off into p, apart from the part read last.
func (a *aside) readAt(p []byte, off int64) bool {
	if a.file == nil {
		if off < 0 || off+int64(len(p)) > int64(len(a.mem)) {
			return false
		}
		copy(p, a.mem[off:])
		return true
	}
	got, err := a.file.ReadAt(p, off)
	if got < len(p) {
		a.mu.Lock()
		a.fail(err)
		a.mu.Unlock()
		return false
	}
	return true
}

// fail keeps the first failure to read back; a.mu is held.
func (a *aside) fail(err error) {
	if a.err != nil {
		return
	}
	if err == nil || errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	a.err = fmt.Errorf("reading back the %s from %s: %w", a.what, a.file.Name(), err)
}

// failed returns the first failure to read back, nil if none.
func (a *aside) failed() error {
	if a.file == nil {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.err
}
