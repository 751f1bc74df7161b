package eval

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/csv"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
)

// ErrLabelsChanged is the error of a label that, read again from its source, is no
// longer what was read the first time: the source was rewritten or cut short.
var ErrLabelsChanged = errors.New("the label file changed since it was read")

// labelSeed seeds the hashes of keys and records of every Labels (a seed per process:
// the hashes are never stored, and one seed lets Merge keep them).
var labelSeed = maphash.MakeSeed()

// labelRef is a record of Labels that have sources: 24 bytes, whatever its text.
type labelRef struct {
	hash uint64 // of its key
	// at is where the record is among the sources: its offset (low 40 bits) and
	// length (high 24); inMemory for a record kept in memory.
	at   uint64
	line uint32 // its line; for a record kept in memory, its number in Labels.mem
	sum  uint32 // the checksum of the record it read as (recordSum)
}

const (
	atOffBits = 40
	atOffMask = 1<<atOffBits - 1 // 1 TiB of sources
	atMaxLen  = 1<<(64-atOffBits) - 2
	inMemory  = ^uint64(0)
)

func (r labelRef) inMem() bool { return r.at == inMemory }
func (r labelRef) off() int64  { return int64(r.at & atOffMask) }
func (r labelRef) len() int    { return int(r.at >> atOffBits) }

// recordPlace is where a record's bytes are in the source being read.
type recordPlace struct{ off, n int64 }

// labelSource is a source labels are read again from.
type labelSource struct {
	at    io.ReaderAt
	base  int64 // the offset of its byte 0 among the sources of the Labels
	start int64 // the bytes before its first line (a byte order mark, blank lines)
	name  string
	csv   *csvColumns // its columns; nil for JSON Lines
	opts  LabelOptions
}

// sourced are the records of Labels that have sources, in Index order.
type sourced struct {
	refs []labelRef
	// sorted holds the numbers of refs[:len(sorted)] ordered by hash; tail is an
	// open-addressed index (linear probing, at most half full) of the others: a
	// record's number plus one, 0 for an empty slot.
	sorted, tail []uint32
	srcs         []labelSource // by base
	end          int64         // the end of the last source among them: the next one's base
	// disk, when the index was moved into a scratch file (Labels.MoveIndex), holds
	// it: refs, sorted and tail are then nil.
	disk *diskIndex

	mu  sync.Mutex
	err error // the first read that failed
}

func keyHash(key string) uint64 { return maphash.String(labelSeed, key) }

// recordSum is a checksum of what a record holds but its line.
func recordSum(r *LabelRecord) uint32 {
	var h maphash.Hash
	h.SetSeed(labelSeed)
	var b [binary.MaxVarintLen64]byte
	str := func(s string) {
		h.Write(binary.AppendUvarint(b[:0], uint64(len(s))))
		h.WriteString(s)
	}
	num := func(n int64) { h.Write(binary.AppendVarint(b[:0], n)) }
	str(r.Key)
	str(string(r.Label))
	str(r.Outcome)
	str(string(r.Source))
	str(r.Rule)
	str(r.Confidence)
	num(int64(r.HumanMsgs))
	str(r.Path)
	str(r.Notes)
	num(int64(len(r.Moments)))
	for _, m := range r.Moments {
		if m.ID != "" {
			str(m.ID)
			continue
		}
		_, zone := m.Time.Zone()
		h.WriteByte(0)
		num(m.Time.Unix())
		num(int64(m.Time.Nanosecond()))
		num(int64(zone))
	}
	x := h.Sum64()
	return uint32(x ^ x>>32)
}

// Err returns the first error of reading a label again from its source: the source
// failed, or no longer holds what it held when it was read ([ErrLabelsChanged]).
// Get and Index have found nothing for that label, Keys has left it out: a caller
// must check Err before it trusts what it found. It is nil for labels kept in memory.
func (ls *Labels) Err() error {
	if ls.src == nil {
		return nil
	}
	ls.src.mu.Lock()
	defer ls.src.mu.Unlock()
	return ls.src.err
}

func (s *sourced) fail(err error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		s.err = err
	}
	return err
}

// addSource adds src, which the records read next are in.
func (ls *Labels) addSource(src labelSource) {
	src.base = ls.src.end
	ls.src.srcs = append(ls.src.srcs, src)
}

// sourceOf returns the source holding the byte at off among the sources.
func (s *sourced) sourceOf(off int64) *labelSource {
	i := sort.Search(len(s.srcs), func(i int) bool { return s.srcs[i].base > off })
	return &s.srcs[i-1]
}

// setSourced records rec as kept in the source being read, at; false when it cannot
// be (its place or line too large to keep): it is then the caller's to keep.
func (ls *Labels) setSourced(rec *LabelRecord, at recordPlace) bool {
	s := ls.src
	off := s.srcs[len(s.srcs)-1].base + at.off
	if at.n <= 0 || at.n > atMaxLen || off < 0 || off+at.n > atOffMask || rec.Line < 0 || rec.Line > math.MaxUint32 {
		return false
	}
	ls.setRef(rec.Key, labelRef{hash: keyHash(rec.Key), at: uint64(at.n)<<atOffBits | uint64(off), line: uint32(rec.Line), sum: recordSum(rec)})
	return true
}

// setRef makes ref key's record.
func (ls *Labels) setRef(key string, ref labelRef) {
	if ls.src.restore() != nil {
		return
	}
	if n, _, ok := ls.lookup(key, false); ok {
		ls.src.refs[n] = ref
		return
	}
	ls.addRef(ref)
}

// setInMemory is Set for Labels that have sources.
func (ls *Labels) setInMemory(r LabelRecord) {
	s := ls.src
	if s.restore() != nil {
		return
	}
	n, _, ok := ls.lookup(r.Key, false)
	if ok && s.refs[n].inMem() {
		ls.mem.replace(s.refs[n].line, r)
		return
	}
	ref := labelRef{hash: keyHash(r.Key), at: inMemory, line: ls.mem.put(r)}
	if ok {
		s.refs[n] = ref
		return
	}
	ls.addRef(ref)
}

// addRef adds ref, of a key without a record, as the last record.
func (ls *Labels) addRef(ref labelRef) {
	s := ls.src
	n := uint32(len(s.refs))
	s.refs = append(s.refs, ref)
	if inTail := len(s.refs) - len(s.sorted); 2*inTail > len(s.tail) {
		size := max(16, 2*len(s.tail))
		for 2*inTail > size {
			size *= 2
		}
		s.tail = make([]uint32, size)
		for r := len(s.sorted); r < len(s.refs); r++ {
			s.tailInsert(uint32(r))
		}
		return
	}
	s.tailInsert(n)
}

func (s *sourced) tailInsert(n uint32) {
	mask := len(s.tail) - 1
	i := int(s.refs[n].hash) & mask
	for s.tail[i] != 0 {
		i = (i + 1) & mask
	}
	s.tail[i] = n + 1
}

// seal indexes every record by hash in sorted, letting go of the tail and of the
// room growing left at the end of the records.
func (ls *Labels) seal() {
	s := ls.src
	if s == nil {
		return
	}
	if cap(s.refs) > len(s.refs) {
		s.refs = slices.Clip(slices.Clone(s.refs))
	}
	if len(s.sorted) == len(s.refs) {
		return
	}
	sorted := make([]uint32, len(s.refs))
	for i := range sorted {
		sorted[i] = uint32(i)
	}
	slices.SortFunc(sorted, func(a, b uint32) int {
		return cmp.Or(cmp.Compare(s.refs[a].hash, s.refs[b].hash), cmp.Compare(a, b))
	})
	s.sorted, s.tail = sorted, nil
}

// toSourced turns Labels held in memory into Labels that have sources, every record
// still in memory, at the same Index.
func (ls *Labels) toSourced() {
	if ls.src != nil {
		return
	}
	s := &sourced{refs: make([]labelRef, len(ls.mem.recs))}
	for i := range s.refs {
		s.refs[i] = labelRef{hash: keyHash(ls.mem.keyOf(uint32(i))), at: inMemory, line: uint32(i)}
	}
	ls.src, ls.mem.keys = s, keyIndex{}
	ls.seal()
}

// lookup finds key's record: its number and, when want, the record.
func (ls *Labels) lookup(key string, want bool) (uint32, LabelRecord, bool) {
	s := ls.src
	if s.disk != nil {
		return ls.lookupDisk(key, want)
	}
	h := keyHash(key)
	lo := sort.Search(len(s.sorted), func(p int) bool { return s.refs[s.sorted[p]].hash >= h })
	for p := lo; p < len(s.sorted) && s.refs[s.sorted[p]].hash == h; p++ {
		if r, ok := ls.verify(s.refs[s.sorted[p]], key, want); ok {
			return s.sorted[p], r, true
		}
	}
	if len(s.tail) > 0 {
		mask := len(s.tail) - 1
		for i := int(h) & mask; s.tail[i] != 0; i = (i + 1) & mask {
			if n := s.tail[i] - 1; s.refs[n].hash == h {
				if r, ok := ls.verify(s.refs[n], key, want); ok {
					return n, r, true
				}
			}
		}
	}
	return 0, LabelRecord{}, false
}

// verify reports whether the record at ref, whose key has key's hash, is key's, and
// returns it when want (always, when it was read again).
func (ls *Labels) verify(ref labelRef, key string, want bool) (LabelRecord, bool) {
	if ref.inMem() {
		if ls.mem.keyOf(ref.line) != key {
			return LabelRecord{}, false
		}
		if !want {
			return LabelRecord{}, true
		}
		r := ls.mem.record(ref.line)
		r.Key = key
		return r, true
	}
	r, err := ls.reread(ref)
	if err != nil {
		ls.src.fail(err)
		return LabelRecord{}, false
	}
	return r, r.Key == key
}

// reread reads the record at ref again from its source.
func (ls *Labels) reread(ref labelRef) (LabelRecord, error) {
	src := ls.src.sourceOf(ref.off())
	p := rereaders.Get().(*rereader)
	defer rereaders.Put(p)
	p.buf = slices.Grow(p.buf[:0], ref.len())[:ref.len()]
	n, err := src.at.ReadAt(p.buf, ref.off()-src.base)
	if n < len(p.buf) {
		return LabelRecord{}, src.readErr(ref, err)
	}
	return src.checkWith(ref, p.buf, p)
}

// rereader is what reading a record again needs: a buffer for its bytes and a CSV
// reader to parse them (which a record's strings are not parts of), kept for the next
// read.
type rereader struct {
	buf []byte
	rd  bytes.Reader
	br  *bufio.Reader
	cr  *csv.Reader
}

// rereaders are the rereaders Get uses, from several goroutines at once.
var rereaders = sync.Pool{New: func() any {
	p := &rereader{br: bufio.NewReaderSize(nil, 4096)}
	p.cr = csv.NewReader(p.br) // it reads p.br itself: a bufio.Reader of its size
	p.cr.FieldsPerRecord = -1
	return p
}}

// csvRecord parses b, a CSV record, as the first reading did.
func (p *rereader) csvRecord(b []byte) ([]string, error) {
	p.rd.Reset(b)
	p.br.Reset(&p.rd)
	return p.cr.Read()
}

// readErr is the error of a record of src that could not be read again.
func (src *labelSource) readErr(ref labelRef, err error) error {
	if err == nil || err == io.EOF || err == io.ErrUnexpectedEOF {
		return fmt.Errorf("%s:%d: %w: it ends before the label's record (cut short)", src.label(), ref.line, ErrLabelsChanged)
	}
	return fmt.Errorf("%s:%d: reading the label again: %w", src.label(), ref.line, err)
}

func (src *labelSource) label() string {
	if src.name == "" {
		return "labels"
	}
	return src.name
}

// check parses b, the bytes of ref's record, and returns the record, or
// ErrLabelsChanged when it is not the record ref was read as.
func (src *labelSource) check(ref labelRef, b []byte) (LabelRecord, error) {
	p := rereaders.Get().(*rereader)
	defer rereaders.Put(p)
	return src.checkWith(ref, b, p)
}

func (src *labelSource) checkWith(ref labelRef, b []byte, p *rereader) (LabelRecord, error) {
	r, ok := src.record(b, int(ref.line), p)
	if !ok || recordSum(&r) != ref.sum {
		return LabelRecord{}, fmt.Errorf("%s:%d: %w", src.label(), ref.line, ErrLabelsChanged)
	}
	return r, nil
}

// record parses b, the bytes of a record read at line, as the first reading did;
// ok is false when they are no record.
func (src *labelSource) record(b []byte, line int, p *rereader) (LabelRecord, bool) {
	var row labelRow
	if src.csv == nil {
		b = bytes.TrimSuffix(bytes.TrimSuffix(b, []byte("\n")), []byte("\r")) // as jsonl.Reader trims a line
		var err error
		if row, err = jsonRow(b); err != nil {
			return LabelRecord{}, false
		}
	} else {
		rec, err := p.csvRecord(b)
		if err != nil {
			return LabelRecord{}, false
		}
		var ok bool
		if row, ok = src.csv.row(rec); !ok {
			return LabelRecord{}, false
		}
	}
	var probs []LabelProblem // told when it was read first
	return recordOf(row, line, src.opts, &probs)
}

// eachSourced is EachKey for Labels that have sources: the records kept in memory,
// then the others in the order of their places, each source read through once.
func (ls *Labels) eachSourced(fn func(i int, key string)) error {
	s := ls.src
	if s.disk != nil {
		var sc sourceScan
		err := s.disk.each(func(ref labelRef, n uint32) error {
			if ref.inMem() {
				fn(int(n), ls.mem.keyOf(ref.line))
				return nil
			}
			r, err := sc.read(s, ref)
			if err != nil {
				return err
			}
			fn(int(n), r.Key)
			return nil
		})
		if err != nil {
			return s.fail(err)
		}
		return nil
	}
	order := make([]uint32, 0, len(s.refs))
	for n, ref := range s.refs {
		if ref.inMem() {
			fn(n, ls.mem.keyOf(ref.line))
		} else {
			order = append(order, uint32(n))
		}
	}
	slices.SortFunc(order, func(a, b uint32) int { return cmp.Compare(s.refs[a].off(), s.refs[b].off()) })
	var sc sourceScan
	for _, n := range order {
		r, err := sc.read(s, s.refs[n])
		if err != nil {
			return s.fail(err)
		}
		fn(int(n), r.Key)
	}
	return nil
}

// sourceScan reads records of sources in the order of their places, through a buffer.
type sourceScan struct {
	br  *bufio.Reader
	src *labelSource
	pos int64 // of br in src
	buf []byte
}

func (sc *sourceScan) read(s *sourced, ref labelRef) (LabelRecord, error) {
	src := s.sourceOf(ref.off())
	off := ref.off() - src.base
	if sc.src != src || off < sc.pos || off-sc.pos > 1<<20 {
		r := io.NewSectionReader(src.at, off, math.MaxInt64-off)
		if sc.br == nil {
			sc.br = bufio.NewReaderSize(r, 64<<10)
		} else {
			sc.br.Reset(r)
		}
		sc.src, sc.pos = src, off
	}
	if _, err := sc.br.Discard(int(off - sc.pos)); err != nil {
		sc.src = nil
		return LabelRecord{}, src.readErr(ref, err)
	}
	sc.buf = slices.Grow(sc.buf[:0], ref.len())[:ref.len()]
	if _, err := io.ReadFull(sc.br, sc.buf); err != nil {
		sc.src = nil
		return LabelRecord{}, src.readErr(ref, err)
	}
	sc.pos = off + int64(ref.len())
	return src.check(ref, sc.buf)
}

// Merge adds o's labels to ls, key by key in sorted order, a key ls has already taking
// o's label (the later label counts), and returns the keys both had, sorted. The
// labels o keeps in its sources ls keeps there too, and reads from o's sources from
// then on; o is unchanged. It fails when a label of o cannot be read again.
func (ls *Labels) Merge(o *Labels) (both []string, err error) {
	type keyed struct {
		key string
		i   int
	}
	keys := make([]keyed, 0, o.Len())
	if err := o.EachKey(func(i int, k string) { keys = append(keys, keyed{k, i}) }); err != nil {
		return nil, err
	}
	slices.SortFunc(keys, func(a, b keyed) int { return strings.Compare(a.key, b.key) })
	var shift int64
	if o.src != nil {
		if err := o.src.restore(); err != nil {
			return nil, err
		}
		ls.toSourced()
		if err := ls.src.restore(); err != nil {
			return nil, err
		}
		shift = ls.src.end
		for _, src := range o.src.srcs {
			src.base += shift
			ls.src.srcs = append(ls.src.srcs, src)
		}
		ls.src.end += o.src.end
	}
	for _, k := range keys {
		if _, dup := ls.Index(k.key); dup {
			both = append(both, k.key)
		}
		switch {
		case o.src == nil:
			ls.Set(o.mem.record(uint32(k.i)))
		case o.src.refs[k.i].inMem():
			ls.Set(o.mem.record(o.src.refs[k.i].line))
		default:
			ref := o.src.refs[k.i]
			if ref.off()+shift+int64(ref.len()) > atOffMask { // beyond what a place holds: kept in memory
				r, err := o.reread(ref)
				if err != nil {
					return nil, o.src.fail(err)
				}
				ls.Set(r)
				continue
			}
			ref.at += uint64(shift)
			ls.setRef(k.key, ref)
		}
	}
	ls.seal()
	return both, ls.Err()
}
