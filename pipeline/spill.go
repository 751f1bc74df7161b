package pipeline

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/loopwatch/loopwatch/eval"
	"github.com/loopwatch/loopwatch/replay/fixsim"
	"github.com/loopwatch/loopwatch/replay/input"
	"github.com/loopwatch/loopwatch/reports"
)

// A replay to a file keeps nothing per unit in memory for the derivation: what the
// metrics read of each predictions row, and each run's fix-loop case, go to scratch
// files beside the output (reports.Output.Scratch) as the rows are written, and the
// derivation reads them back — in the order written, which is the order it scores in:
// the engine delivers units in the order of file path, then key (unitOrder checks it).
// The merge of a split replay spills the shards' rows the same way, merged into that
// order (spillShards).

// predictionSource gives a derivation the predictions of one configuration at a time,
// in the order of their file's path, then key: f gets each prediction and its
// event-level score (sm, nil when it has none), which f must not keep.
type predictionSource interface {
	each(config int, f func(p *keptPrediction, sm *eval.SessionMoments)) error
	// counts returns how many predictions of configuration i are of runs, of
	// sessions and of labelled sessions with an event-level score, for the
	// observations to be allocated once.
	counts(config int) predCounts
}

// predCounts counts a configuration's predictions by what they are scored for, and
// the delays of their event-level scores (caught moments).
type predCounts struct{ runs, sessions, moments, delays int }

// add counts one prediction; sm is its event-level score, nil when it has none.
func (n *predCounts) add(p *keptPrediction, sm *eval.SessionMoments) {
	switch {
	case p.flags&keptSession == 0:
		n.runs++
	case sm != nil:
		n.moments++
		n.delays += max(len(sm.DelaySeconds), len(sm.DelayEvents))
		fallthrough
	default:
		n.sessions++
	}
}

// caseSource gives a derivation the fix-loop cases: the per-check counts of all of them,
// and the cases in the order of their file's path, then key.
type caseSource struct {
	history *fixsim.History
	cases   iter.Seq2[*fixsim.Case, error]
}

// unitOrder checks that units arrive in the order the derivation reads their
// predictions in, file path then key, without keeping more than the last one.
type unitOrder struct {
	file, key string
	started   bool
}

// next takes the unit after the last; an error if it does not come after it.
func (o *unitOrder) next(kind, file, key string) error {
	if o.started && (file < o.file || file == o.file && key <= o.key) {
		return fmt.Errorf("%s %s of %s was delivered after %s of %s: not in the order of file path, then key, that the metrics are derived in",
			kind, key, file, o.key, o.file)
	}
	o.file, o.key, o.started = file, key, true
	return nil
}

// predSpill writes what the metrics read of each predictions row to a scratch file per
// configuration, and reads a configuration's back: a record of predRecordBytes per row,
// no strings (eval's metrics do not read an observation's key), followed for a
// labelled session by its event-level score (momentsRecordBytes and its delays).
type predSpill struct {
	files []*os.File
	w     []*bufio.Writer
	n     []predCounts
	buf   []byte
}

const (
	predRecordBytes    = 21 // flags, label, label outcome, predicted outcome, has moments; score, outcome score
	momentsRecordBytes = 32 // six counts and the lengths of the two lists of delays
	spillBufferBytes   = 64 << 10
)

// newPredSpill creates the scratch files of n configurations in out.
func newPredSpill(out *reports.Output, n int) (*predSpill, error) {
	s := &predSpill{}
	for i := range n {
		f, err := out.Scratch("predictions." + strconv.Itoa(i))
		if err != nil {
			return nil, err
		}
		s.files = append(s.files, f)
		s.w = append(s.w, bufio.NewWriterSize(f, spillBufferBytes))
	}
	s.n = make([]predCounts, n)
	return s, nil
}

// write appends what the metrics read of r to its configuration's file.
func (s *predSpill) write(r *reports.PredictionRow) error {
	i := int(r.ConfigIndex)
	if i < 0 || i >= len(s.w) {
		return fmt.Errorf("predictions: configuration %d of %s is not among the %d configurations scored", i, r.RunKey, len(s.w))
	}
	k, m, hasMoments := keptOf(r)
	if hasMoments {
		s.n[i].add(&k, &m)
	} else {
		s.n[i].add(&k, nil)
	}
	b := append(s.buf[:0], k.flags, uint8(k.label), uint8(k.labelOutcome), uint8(k.predictedOutcome), b2u(hasMoments))
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(k.score))
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(k.outcomeScore))
	if hasMoments {
		for _, v := range []int{m.Moments, m.Caught, m.Interventions, m.TruePositives, m.FalseAlarms, m.HumanTurns} {
			b = binary.LittleEndian.AppendUint32(b, uint32(int32(v)))
		}
		b = binary.LittleEndian.AppendUint32(b, uint32(len(m.DelaySeconds)))
		b = binary.LittleEndian.AppendUint32(b, uint32(len(m.DelayEvents)))
		for _, list := range [][]float64{m.DelaySeconds, m.DelayEvents} {
			for _, v := range list {
				b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
			}
		}
	}
	s.buf = b
	_, err := s.w[i].Write(b)
	return err
}

// flush writes out what is buffered: each reads the files only after it.
func (s *predSpill) flush() error {
	for _, w := range s.w {
		if err := w.Flush(); err != nil {
			return err
		}
	}
	return nil
}

func (s *predSpill) counts(i int) predCounts { return s.n[i] }

// each reads configuration i's predictions back, in the order written, into one
// prediction and one event-level score it reuses (f must not keep them). Any number
// of calls may read at once.
func (s *predSpill) each(i int, f func(p *keptPrediction, sm *eval.SessionMoments)) error {
	r := bufio.NewReaderSize(io.NewSectionReader(s.files[i], 0, math.MaxInt64), spillBufferBytes)
	var rec [predRecordBytes]byte
	var mrec [momentsRecordBytes]byte
	fail := func(err error) error {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return fmt.Errorf("reading back the predictions of configuration %d (%s): %w", i, s.files[i].Name(), err)
	}
	var p keptPrediction
	var sm eval.SessionMoments
	var seconds, events []float64 // the delays' buffers
	for {
		if _, err := io.ReadFull(r, rec[:]); err == io.EOF {
			return nil
		} else if err != nil {
			return fail(err)
		}
		p = keptPrediction{configIndex: int32(i), flags: rec[0], label: labelCode(rec[1]), labelOutcome: outcomeCode(rec[2]),
			predictedOutcome: outcomeCode(rec[3]), score: math.Float64frombits(binary.LittleEndian.Uint64(rec[5:])),
			outcomeScore: math.Float64frombits(binary.LittleEndian.Uint64(rec[13:]))}
		if rec[1] > uint8(codeExcluded) || int(rec[2]) > len(eval.OutcomeOrder()) || int(rec[3]) > len(eval.OutcomeOrder()) || rec[4] > 1 {
			return fail(errors.New("a corrupt record"))
		}
		if rec[4] == 0 {
			f(&p, nil)
			continue
		}
		if _, err := io.ReadFull(r, mrec[:]); err != nil {
			return fail(err)
		}
		n := func(k int) int { return int(int32(binary.LittleEndian.Uint32(mrec[4*k:]))) }
		sm = eval.SessionMoments{Moments: n(0), Caught: n(1), Interventions: n(2), TruePositives: n(3), FalseAlarms: n(4), HumanTurns: n(5)}
		nSeconds, nEvents := binary.LittleEndian.Uint32(mrec[24:]), binary.LittleEndian.Uint32(mrec[28:])
		var err error
		if seconds, sm.DelaySeconds, err = readFloats(r, seconds, nSeconds); err != nil {
			return fail(err)
		}
		if events, sm.DelayEvents, err = readFloats(r, events, nEvents); err != nil {
			return fail(err)
		}
		p.moments = 1 // has an event-level score (in the record, not an index)
		f(&p, &sm)
	}
}

// readFloats reads n float64s into buf, grown as needed, and returns it and them: nil
// when n is 0, as keptPredictions gives them.
func readFloats(r *bufio.Reader, buf []float64, n uint32) ([]float64, []float64, error) {
	if n == 0 {
		return buf, nil, nil
	}
	if n > 1<<24 {
		return buf, nil, fmt.Errorf("a corrupt record: %d delays", n)
	}
	buf = slices.Grow(buf[:0], int(n))[:n]
	var b [8]byte
	for k := range buf {
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return buf, nil, err
		}
		buf[k] = math.Float64frombits(binary.LittleEndian.Uint64(b[:]))
	}
	return buf, buf, nil
}

func b2u(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

// caseSpill writes the runs' fix-loop cases to a scratch file, keeping only their
// per-check counts (fixsim.History) in memory, and reads them back in the order
// written. A case is written in a binary encoding of its own (appendCase) that gives
// back every field exactly, the bits of every float included.
type caseSpill struct {
	f       *os.File
	w       *bufio.Writer
	buf     []byte
	history *fixsim.History
}

// newCaseSpill creates the scratch file of the cases in out.
func newCaseSpill(out *reports.Output) (*caseSpill, error) {
	f, err := out.Scratch("fixloop_cases")
	if err != nil {
		return nil, err
	}
	return &caseSpill{f: f, w: bufio.NewWriterSize(f, spillBufferBytes), history: fixsim.NewHistory()}, nil
}

// add counts a case's transitions and writes it.
func (s *caseSpill) add(c *fixsim.Case) error {
	s.history.Add(c)
	s.buf = appendCase(s.buf[:0], c)
	_, err := s.w.Write(s.buf)
	return err
}

// source flushes the file and returns the cases to read back.
func (s *caseSpill) source() (caseSource, error) {
	if err := s.w.Flush(); err != nil {
		return caseSource{}, err
	}
	return caseSource{history: s.history, cases: func(yield func(*fixsim.Case, error) bool) {
		r := bufio.NewReaderSize(io.NewSectionReader(s.f, 0, math.MaxInt64), spillBufferBytes)
		for {
			if _, err := r.Peek(1); err == io.EOF {
				return
			}
			c, err := readCase(r)
			if err != nil {
				yield(nil, fmt.Errorf("reading back the fix-loop cases (%s): %w", s.f.Name(), err))
				return
			}
			if !yield(c, nil) {
				return
			}
		}
	}}, nil
}

// appendCase appends c's encoding to b: its strings as a length and bytes, its
// integers as varints, its floats as their bits.
func appendCase(b []byte, c *fixsim.Case) []byte {
	num := func(v int) { b = binary.AppendVarint(b, int64(v)) }
	str := func(s string) { b = append(binary.AppendVarint(b, int64(len(s))), s...) }
	flt := func(v float64) { b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v)) }
	str(c.Key)
	str(c.TaskID)
	str(c.Title)
	str(string(c.Outcome))
	num(c.Cycles)
	num(c.MaxCycles)
	flt(c.MaxBudgetUSD)
	flt(c.TotalCostUSD)
	flt(c.MeanCoderCostUSD)
	b = append(b, b2u(c.CoderCostEstimated))
	flt(c.MeanCycleCostUSD)
	b = append(b, b2u(c.LoopOn))
	num(len(c.Failures))
	for _, f := range c.Failures {
		num(f.Cycle)
		str(f.Check)
		num(f.OutputLen)
		num(f.Errors)
		num(f.Unparsed)
		flt(f.CostAtFail)
		num(int(f.Next))
		num(f.Recorded.Attempts)
		num(f.Recorded.Reruns)
		num(f.Recorded.Passed)
		b = append(b, b2u(f.Recorded.Fixed))
		flt(f.Recorded.CostUSD)
		b = append(b, b2u(f.Recorded.BudgetStop))
	}
	return b
}

// readCase reads a case appendCase wrote.
func readCase(r *bufio.Reader) (*fixsim.Case, error) {
	var err error
	num := func() int {
		if err != nil {
			return 0
		}
		var v int64
		v, err = binary.ReadVarint(r)
		return int(v)
	}
	var sb strings.Builder
	str := func() string {
		n := num()
		if err != nil {
			return ""
		}
		if n < 0 || n > 1<<30 {
			err = fmt.Errorf("a corrupt case: a string of %d bytes", n)
			return ""
		}
		sb.Reset()
		sb.Grow(n)
		_, err = io.CopyN(&sb, r, int64(n))
		return sb.String()
	}
	flt := func() float64 {
		var b [8]byte
		if err == nil {
			_, err = io.ReadFull(r, b[:])
		}
		return math.Float64frombits(binary.LittleEndian.Uint64(b[:]))
	}
	flag := func() bool {
		var v byte
		if err == nil {
			v, err = r.ReadByte()
		}
		return v != 0
	}
	c := &fixsim.Case{Key: str(), TaskID: str(), Title: str(), Outcome: input.Outcome(str()), Cycles: num(), MaxCycles: num(),
		MaxBudgetUSD: flt(), TotalCostUSD: flt(), MeanCoderCostUSD: flt()}
	c.CoderCostEstimated = flag()
	c.MeanCycleCostUSD = flt()
	c.LoopOn = flag()
	n := num()
	if err == nil && (n < 0 || n > 1<<24) {
		err = fmt.Errorf("a corrupt case: %d failures", n)
	}
	if err != nil {
		return nil, unexpectedEOF(err)
	}
	c.Failures = make([]fixsim.Failure, n)
	for k := range c.Failures {
		c.Failures[k] = fixsim.Failure{Cycle: num(), Check: str(), OutputLen: num(), Errors: num(), Unparsed: num(), CostAtFail: flt(),
			Next: fixsim.Transition(num())}
		c.Failures[k].Recorded = fixsim.Recorded{Attempts: num(), Reruns: num(), Passed: num(), Fixed: flag(), CostUSD: flt(), BudgetStop: flag()}
	}
	if err != nil {
		return nil, unexpectedEOF(err)
	}
	return c, nil
}

func unexpectedEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}
