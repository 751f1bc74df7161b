package synth

import (
	"bufio"
	"bytes"
	"cmp"
	"container/heap"
	"encoding/binary"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
)

// heldLabels is how many label rows a dataset's writer holds in memory before it
// spills them, sorted, to a scratch file: some 2 MB of rows.
const heldLabels = 8192

// labelSorter writes a labels file's rows sorted by their keys while holding at most
// held of them: rows are rendered to CSV as they come, and whenever held of them are
// gathered they are sorted and appended to a scratch file as one sorted run; the file
// is then the merge of the runs (and of the rows still held). Rows of one key (a
// re-run's label shares its run key) keep the order they were added in.
// Memory holds held rows, and a read buffer per run when merging, however many rows.
type labelSorter struct {
	held  int
	rows  []keyedRow
	spill *os.File
	w     *bufio.Writer
	runs  []int64 // where each run ends in spill
	size  int64   // bytes written to spill
	line  bytes.Buffer
	csv   *csv.Writer
}

type keyedRow struct{ key, line string }

func newLabelSorter(held int) *labelSorter {
	s := &labelSorter{held: max(held, 1)}
	s.csv = csv.NewWriter(&s.line)
	return s
}

// add renders row and files it under key.
func (s *labelSorter) add(key string, row []string) error {
	s.line.Reset()
	s.csv.Write(row)
	s.csv.Flush()
	if err := s.csv.Error(); err != nil {
		return err
	}
	s.rows = append(s.rows, keyedRow{key, s.line.String()})
	if len(s.rows) >= s.held {
		return s.spillRun()
	}
	return nil
}

func (s *labelSorter) sortHeld() {
	slices.SortStableFunc(s.rows, func(a, b keyedRow) int { return cmp.Compare(a.key, b.key) })
}

// spillRun sorts the rows held and appends them to the scratch file as a run.
func (s *labelSorter) spillRun() error {
	if s.spill == nil {
		f, err := os.CreateTemp("", "loopwatch-datagen-labels-*")
		if err != nil {
			return fmt.Errorf("synth: sorting labels: %w", err)
		}
		s.spill, s.w = f, bufio.NewWriterSize(f, 64<<10)
	}
	s.sortHeld()
	var n [2 * binary.MaxVarintLen64]byte
	for _, r := range s.rows {
		k := binary.AppendUvarint(n[:0], uint64(len(r.key)))
		k = binary.AppendUvarint(k, uint64(len(r.line)))
		s.w.Write(k)
		s.w.WriteString(r.key)
		if _, err := s.w.WriteString(r.line); err != nil {
			return fmt.Errorf("synth: sorting labels: %w", err)
		}
		s.size += int64(len(k) + len(r.key) + len(r.line))
	}
	s.runs = append(s.runs, s.size)
	clear(s.rows)
	s.rows = s.rows[:0]
	return nil
}

// writeTo writes header and then every row in key order to out.
func (s *labelSorter) writeTo(out io.Writer, header []string) error {
	s.line.Reset()
	s.csv.Write(header)
	s.csv.Flush()
	if _, err := out.Write(s.line.Bytes()); err != nil {
		return err
	}
	if s.spill == nil { // everything held: no merge
		s.sortHeld()
		for _, r := range s.rows {
			if _, err := io.WriteString(out, r.line); err != nil {
				return err
			}
		}
		return nil
	}
	if len(s.rows) > 0 {
		if err := s.spillRun(); err != nil {
			return err
		}
	}
	if err := s.w.Flush(); err != nil {
		return fmt.Errorf("synth: sorting labels: %w", err)
	}
	var m runMerge
	start := int64(0)
	for i, end := range s.runs {
		r := &spilledRun{r: bufio.NewReaderSize(io.NewSectionReader(s.spill, start, end-start), 4<<10), n: i}
		start = end
		ok, err := r.next()
		if err != nil {
			return err
		}
		if ok {
			m = append(m, r)
		}
	}
	heap.Init(&m)
	for len(m) > 0 {
		r := m[0]
		if _, err := io.WriteString(out, r.row.line); err != nil {
			return err
		}
		ok, err := r.next()
		if err != nil {
			return err
		}
		if ok {
			heap.Fix(&m, 0)
		} else {
			heap.Pop(&m)
		}
	}
	return nil
}

// empty reports whether no row was added.
func (s *labelSorter) empty() bool { return len(s.rows) == 0 && s.spill == nil }

// close removes the scratch file.
func (s *labelSorter) close() error {
	if s.spill == nil {
		return nil
	}
	err := errors.Join(s.spill.Close(), os.Remove(s.spill.Name()))
	s.spill = nil
	return err
}

// spilledRun reads one sorted run of the scratch file.
type spilledRun struct {
	r   *bufio.Reader
	n   int // the run's place: of rows of one key, an earlier run's come first
	row keyedRow
}

// next reads the run's next row; false at its end.
func (r *spilledRun) next() (bool, error) {
	kl, err := binary.ReadUvarint(r.r)
	if err == io.EOF {
		return false, nil
	}
	ll, err2 := binary.ReadUvarint(r.r)
	if err != nil || err2 != nil {
		return false, fmt.Errorf("synth: sorting labels: a spilled run is cut short")
	}
	b := make([]byte, kl+ll)
	if _, err := io.ReadFull(r.r, b); err != nil {
		return false, fmt.Errorf("synth: sorting labels: %w", err)
	}
	r.row = keyedRow{string(b[:kl]), string(b[kl:])}
	return true, nil
}

// runMerge is a heap of runs by their current row's key.
type runMerge []*spilledRun

func (m runMerge) Len() int { return len(m) }
func (m runMerge) Less(i, j int) bool {
	if c := cmp.Compare(m[i].row.key, m[j].row.key); c != 0 {
		return c < 0
	}
	return m[i].n < m[j].n
}
func (m runMerge) Swap(i, j int) { m[i], m[j] = m[j], m[i] }
func (m *runMerge) Push(x any)   { *m = append(*m, x.(*spilledRun)) }
func (m *runMerge) Pop() any {
	old := *m
	r := old[len(old)-1]
	*m = old[:len(old)-1]
	return r
}
