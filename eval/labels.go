package eval

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/loopwatch/loopwatch/replay/jsonl"
)

// Label is the ground truth for one run with respect to a detector's positive class.
type Label string

// The labels. A run without a label is Unlabelled ("").
const (
	Positive   Label = "positive"
	Negative   Label = "negative"
	Ambiguous  Label = "ambiguous" // kept in results, not scored
	Excluded   Label = "excluded"  // kept in results, not scored (e.g. infrastructure failure)
	Unlabelled Label = ""
)

// Scored reports whether runs with this label enter the metrics.
func (l Label) Scored() bool { return l == Positive || l == Negative }

// ParseLabel parses a label name, case-insensitively; "1"/"0" and "true"/"false" are
// accepted for positive/negative.
func ParseLabel(s string) (Label, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "positive", "pos", "1", "true", "yes":
		return Positive, nil
	case "negative", "neg", "0", "false", "no":
		return Negative, nil
	case "ambiguous":
		return Ambiguous, nil
	case "excluded", "exclude":
		return Excluded, nil
	}
	return "", fmt.Errorf("label %q is not positive, negative, ambiguous or excluded", s)
}

// LabelSource says who produced a label.
type LabelSource string

// Label sources.
const (
	SourceHuman   LabelSource = "human"
	SourceDerived LabelSource = "derived"
	SourceModel   LabelSource = "model"
)

// LabelRecord is one labelled run or session.
type LabelRecord struct {
	Key     string      // run key (or session id)
	Label   Label       //
	Outcome string      // the run's or session's outcome as the labeller saw it, optional
	Source  LabelSource // human, derived or model; human when the file does not say
	Rule    string      // for derived labels, or labels taken from an outcome: how it was made
	Line    int         // line of the record in its file

	// Session labels (all optional).
	Confidence string   // how sure the labeller is of the outcome: high, medium, low
	HumanMsgs  int      // messages the human typed, by the labeller's count; -1 when not given
	Moments    []Moment // event-level moments (friction), in file order
	Path       string   // the labelled input's file, when the label file names it
	Notes      string   // the labeller's reason
}

// Labels maps run keys to their labels.
//
// It holds them compactly, as a replay of 100,000 labelled sessions keeps them all
// for the whole replay, in one of two ways.
//
// Labels read from a source that can be read again ([LabelOptions.Source]: a regular
// file, bytes in memory) stay there: a label is 28 bytes whatever its text — a 64-bit
// hash of its key, the place of its record in the source (offset and length), its
// line, a 32-bit checksum of what the record read as, and its place in an index of
// the records sorted by hash. Get reads the record again (one ReadAt), parses it with
// the code that read it the first time and checks it: its checksum must be the one
// it had (else the source changed since it was read), and its key the one asked for
// (else it is another key with the same hash, and the search goes on: a collision
// costs a read, never a wrong record). A source that fails or changes after it was
// read makes Get and Index find nothing and is recorded: [Labels.Err] says so, and a
// caller that reads labels again must check it before it trusts what it found.
// [Labels.MoveIndex] moves these 28 bytes a label into a scratch file, where a lookup
// reads them (a 4 KiB block of the index, found through the first hash of each block).
//
// Labels read from a stream, and labels given by Set, are kept in memory: keys and
// moments' ids are bytes in one arena, found through an index of record numbers (no
// Go string per key); a record is its key's place, its line, its moments' run in one
// slice of 8-byte places they all share, and the index of its shared fields (label,
// outcome, source, rule, confidence, human messages: few distinct sets of them in a
// file), interned; its notes and file apart and only when given. Get builds a
// LabelRecord from these: its texts are parts of the arena, not copies.
//
// Get, Index, Len, Keys and Moments may be called from several goroutines at once;
// Set, Merge and MoveIndex may not run with any other method.
type Labels struct {
	mem memLabels // the records kept in memory
	// src holds the records kept in their sources, and refers to those of mem: nil
	// when every record is in mem (then indexed by mem).
	src  *sourced
	File string // the file they were read from, for messages
	// Outcomes is the class that turned outcomes into labels for records without an
	// explicit label.
	Outcomes OutcomeClass
}

// memLabels are labels kept in memory.
type memLabels struct {
	arena textArena // every key and moment id
	keys  keyIndex  // empty when the Labels have sources: their index finds the records
	recs  []labelEntry
	// moments are every record's moments, each record's a run of them: an id's place
	// in the arena, or a time's index in times.
	moments []span
	times   []time.Time
	// fields are the distinct shared fields of the records (fields[0] is the zero
	// value), fieldIndex their index in it.
	fields     []labelFields
	fieldIndex map[labelFields]uint32
	extra      map[int32][2]string // a record's Path and Notes, when either is given
}

// labelEntry is a LabelRecord in memLabels: its key a place in the arena, its moments
// moments[moments:moments+nMoments], its other fields fields[fields].
type labelEntry struct {
	key               span
	line              int
	moments, nMoments uint32
	fields            uint32
}

// labelFields are the fields of a LabelRecord that many records share.
type labelFields struct {
	label            Label
	outcome          string
	source           LabelSource
	rule, confidence string
	humanMsgs        int
}

// NewLabels returns an empty label set.
func NewLabels() *Labels {
	return &Labels{mem: memLabels{fields: []labelFields{{}}, fieldIndex: map[labelFields]uint32{{}: 0}}}
}

// Len returns the number of labelled keys.
func (ls *Labels) Len() int {
	if ls.src != nil {
		if ls.src.disk != nil {
			return ls.src.disk.n
		}
		return len(ls.src.refs)
	}
	return len(ls.mem.recs)
}

// Get returns the label record for key. Its Moments are its own (a copy). ok is false
// for a key without a label, and for one whose record could not be read again
// ([Labels.Err]).
func (ls *Labels) Get(key string) (LabelRecord, bool) {
	r, _, ok := ls.Lookup(key)
	return r, ok
}

// Lookup returns what Get and Index return for key — its label record and its
// position among the labels — in one look-up: one read of a label kept in its file
// where the two would read it twice. i is -1 when ok is false.
func (ls *Labels) Lookup(key string) (r LabelRecord, i int, ok bool) {
	if ls.src != nil {
		n, r, ok := ls.lookup(key, true)
		if !ok {
			return r, -1, false
		}
		return r, int(n), true
	}
	_, n, ok := ls.mem.find(key)
	if !ok {
		return LabelRecord{}, -1, false
	}
	r = ls.mem.record(n)
	r.Key = key
	return r, int(n), true
}

// record returns record i, its key a part of the arena.
func (ls *memLabels) record(i uint32) LabelRecord {
	e := &ls.recs[i]
	f := &ls.fields[e.fields]
	r := LabelRecord{Key: ls.keyOf(i), Label: f.label, Outcome: f.outcome, Source: f.source,
		Rule: f.rule, Line: e.line, Confidence: f.confidence, HumanMsgs: f.humanMsgs}
	if e.nMoments > 0 {
		r.Moments = make([]Moment, e.nMoments)
		for j, sp := range ls.moments[e.moments : e.moments+e.nMoments] {
			if sp.isTime() {
				r.Moments[j].Time = ls.times[sp.off()]
			} else {
				r.Moments[j].ID = ls.arena.text(sp)
			}
		}
	}
	if ls.extra != nil {
		if x, ok := ls.extra[int32(i)]; ok {
			r.Path, r.Notes = x[0], x[1]
		}
	}
	return r
}

// Index returns the position of key's record among the labels, 0 ≤ i < Len(): a
// key's for as long as no key is added. ok is false for a key without a label, and
// for one whose record could not be read again ([Labels.Err]).
func (ls *Labels) Index(key string) (i int, ok bool) {
	if ls.src != nil {
		n, _, ok := ls.lookup(key, false)
		return int(n), ok
	}
	_, n, ok := ls.mem.find(key)
	return int(n), ok
}

// Set records a label, replacing any label the key had. The record is kept in memory.
func (ls *Labels) Set(r LabelRecord) {
	if ls.src != nil {
		ls.setInMemory(r)
		return
	}
	m := &ls.mem
	slot, i, ok := m.find(r.Key)
	if ok {
		m.replace(i, r)
		return
	}
	i = m.put(r)
	m.insert(r.Key, i, slot)
}

// put adds r as a new record, not indexed, and returns its number.
func (ls *memLabels) put(r LabelRecord) uint32 {
	e := ls.entry(r)
	e.key = ls.arena.put(r.Key)
	i := uint32(len(ls.recs))
	ls.recs = append(ls.recs, e)
	ls.setExtra(i, r)
	return i
}

// replace makes r record i's, which has r's key.
func (ls *memLabels) replace(i uint32, r LabelRecord) {
	e := ls.entry(r)
	e.key = ls.recs[i].key
	ls.recs[i] = e
	ls.setExtra(i, r)
}

// entry returns r's entry, without its key, its moments and fields added.
func (ls *memLabels) entry(r LabelRecord) labelEntry {
	e := labelEntry{line: r.Line, fields: ls.fieldsOf(labelFields{label: r.Label, outcome: r.Outcome, source: r.Source,
		rule: r.Rule, confidence: r.Confidence, humanMsgs: r.HumanMsgs})}
	if len(r.Moments) > 0 {
		e.moments, e.nMoments = uint32(len(ls.moments)), uint32(len(r.Moments))
		for _, m := range r.Moments {
			if m.ID != "" {
				ls.moments = append(ls.moments, ls.arena.put(m.ID))
			} else {
				ls.moments = append(ls.moments, timeSpan(len(ls.times)))
				ls.times = append(ls.times, m.Time)
			}
		}
	}
	return e
}

func (ls *memLabels) setExtra(i uint32, r LabelRecord) {
	delete(ls.extra, int32(i))
	if r.Path != "" || r.Notes != "" {
		if ls.extra == nil {
			ls.extra = map[int32][2]string{}
		}
		ls.extra[int32(i)] = [2]string{r.Path, r.Notes}
	}
}

// fieldsOf returns the index of f in ls.fields, adding it — its texts copied, not
// parts of the line they were read from, which would keep the whole line — when new.
func (ls *memLabels) fieldsOf(f labelFields) uint32 {
	if i, ok := ls.fieldIndex[f]; ok {
		return i
	}
	f.label, f.outcome, f.source = Label(strings.Clone(string(f.label))), strings.Clone(f.outcome), LabelSource(strings.Clone(string(f.source)))
	f.rule, f.confidence = strings.Clone(f.rule), strings.Clone(f.confidence)
	i := uint32(len(ls.fields))
	ls.fields = append(ls.fields, f)
	ls.fieldIndex[f] = i
	return i
}

// Moments returns the event-level moments labelled for key (nil when none).
func (ls *Labels) Moments(key string) []Moment {
	r, _ := ls.Get(key)
	return r.Moments
}

// Keys returns the labelled keys in sorted order. Labels kept in their sources are
// read again, in the sources' order; a key whose record cannot be read is missing,
// and [Labels.Err] says why.
func (ls *Labels) Keys() []string {
	keys := make([]string, 0, ls.Len())
	ls.EachKey(func(_ int, k string) { keys = append(keys, k) })
	slices.Sort(keys)
	return keys
}

// EachKey calls fn with every labelled key and its Index, in an order of its own
// (for labels kept in their sources, the sources' order, each read through once). It
// stops at the first record that cannot be read again and returns why (recorded in
// [Labels.Err] too).
func (ls *Labels) EachKey(fn func(i int, key string)) error {
	if ls.src == nil {
		for i := range ls.mem.recs {
			fn(i, ls.mem.keyOf(uint32(i)))
		}
		return nil
	}
	return ls.eachSourced(fn)
}

// LabelProblem is a label-file line that could not be used.
type LabelProblem struct {
	Line   int
	Detail string
}

// LabelOptions configure how a label file is read.
type LabelOptions struct {
	// Outcomes turns the outcome of a record without an explicit label into its label;
	// the zero value is DefaultOutcomeClass.
	Outcomes OutcomeClass
	// NoText leaves out of each record what only a reader of the file reads, its Notes
	// and Path: a replay holding 100,000 labels keeps about 150 bytes less a label.
	NoText bool
	// Source, when set, holds the bytes the reader reads, at the same offsets (the
	// reader reads Source from offset 0): a regular file, bytes in memory. The labels
	// then stay in it — a label is 28 bytes whatever its text — and Get reads a label
	// again from it (see [Labels]). Source must stay readable, and unchanged, for as
	// long as the labels are used; what the caller opened it is the caller's to close.
	Source io.ReaderAt
	// Name names the file in messages (Labels.File).
	Name string
}

// ReadLabels reads a label file with the default options; see [ReadLabelsWith].
func ReadLabels(r io.Reader) (*Labels, []LabelProblem, error) {
	return ReadLabelsWith(r, LabelOptions{})
}

// ReadLabelsWith reads a label file: CSV with a header row, or JSON Lines, told apart
// by content. Recognised columns (JSON keys), others ignored:
//
//   - run_key (or key): the run the record labels; label (positive, negative,
//     ambiguous, excluded; see [ParseLabel]) is then required, and outcome is
//     informational;
//   - session_id (when there is no run_key or key column): the session the record
//     labels; a session record with an empty (or no) label takes its label from its
//     outcome (success, partial, failure, abandoned, none) through opts.Outcomes, so a
//     session label file needs no label column;
//   - label_source (human, derived, model), rule or label_rule;
//   - confidence, human_msgs, notes, file (kept in the record);
//   - friction_uuids: ";"-separated record ids of event-level moments; friction_times:
//     ";"-separated RFC 3339 times; moments: ";"-separated entries, each a time if it
//     parses as one, else an id. In JSON each may also be an array of strings.
//
// A run label file must name run_key and label, a session label file session_id and
// outcome (or label). A line that cannot be used — a JSON record giving twice a member
// the reader reads (names matched ignoring case, as encoding/json matches them) among
// them — is returned as a problem and skipped; a key labelled twice keeps its last
// label and is reported. ReadLabelsWith fails only when the file has no usable header
// (a CSV header naming twice a column it reads, ignoring case and surrounding space,
// is none) or cannot be read. With opts.Source the labels stay in it (see
// [LabelOptions]).
func ReadLabelsWith(r io.Reader, opts LabelOptions) (*Labels, []LabelProblem, error) {
	ls, probs, err := readLabels(r, opts)
	if ls != nil {
		ls.Outcomes, ls.File = opts.Outcomes, opts.Name
		ls.mem.clip()
		ls.seal()
		if err == nil {
			err = ls.Err()
		}
	}
	return ls, probs, err
}

func readLabels(r io.Reader, opts LabelOptions) (*Labels, []LabelProblem, error) {
	br := bufio.NewReader(r)
	var skipped int64 // bytes before the first line
	var blank int     // lines before it: blank ones, which every line number counts
	if b, err := br.Peek(3); err == nil && string(b) == "\xef\xbb\xbf" {
		br.Discard(3) // a UTF-8 byte order mark, which some editors write
		skipped = 3
	}
	for {
		b, err := br.Peek(1)
		if err == io.EOF {
			return NewLabels(), nil, nil
		}
		if err != nil {
			return nil, nil, err
		}
		switch b[0] {
		case ' ', '\t', '\r', '\n':
			br.ReadByte()
			skipped++
			if b[0] == '\n' {
				blank++
			}
			continue
		}
		ls := NewLabels()
		var src *labelSource
		if opts.Source != nil {
			o := opts
			o.Source = nil
			src = &labelSource{at: opts.Source, start: skipped, name: opts.Name, opts: o}
			ls.src = &sourced{}
		}
		if b[0] == '{' {
			return ls.readJSON(jsonl.NewReader(br, 1<<20), blank, src, opts)
		}
		return ls.readCSV(br, blank, src, opts)
	}
}

type labelRow struct {
	Key, Label, Outcome, Source, Rule string
	Session                           bool // keyed by session_id: an empty label comes from the outcome

	Confidence, HumanMsgs, Notes, Path  string
	FrictionIDs, FrictionTimes, Moments []string
}

// add adds the record of row, read at line; at is where its bytes are in the source
// being read (nil when the labels have no source).
func (ls *Labels) add(row labelRow, line int, at *recordPlace, opts LabelOptions, probs *[]LabelProblem) {
	rec, ok := recordOf(row, line, opts, probs)
	if !ok {
		return
	}
	if prev, dup := ls.Get(rec.Key); dup {
		*probs = append(*probs, LabelProblem{line, fmt.Sprintf("run %s already labelled on line %d; the later label counts", rec.Key, prev.Line)})
	}
	if at != nil && ls.setSourced(&rec, *at) {
		return
	}
	ls.Set(rec) // it copies the key and the fields it keeps: none of them keeps the line
}

// recordOf returns the record of row, read at line — what the labels hold of it —
// and adds its problems to probs; ok is false when the row is skipped. Reading a label
// again from its source parses its row with it too.
func recordOf(row labelRow, line int, opts LabelOptions, probs *[]LabelProblem) (rec LabelRecord, ok bool) {
	class := opts.Outcomes
	row.Key = strings.TrimSpace(row.Key)
	if row.Key == "" {
		if row.Session {
			*probs = append(*probs, LabelProblem{line, "no session_id; skipped"})
		} else {
			*probs = append(*probs, LabelProblem{line, "no run_key; skipped"})
		}
		return rec, false
	}
	var lab Label
	var err error
	rule := strings.TrimSpace(row.Rule)
	switch outcome := strings.TrimSpace(row.Outcome); {
	case row.Session && strings.TrimSpace(row.Label) == "" && outcome != "":
		if lab = class.Label(outcome); lab == Unlabelled {
			*probs = append(*probs, LabelProblem{line, fmt.Sprintf("no label, and outcome %q is not a session outcome (%s); skipped",
				outcome, strings.Join(SessionOutcomes(), ", "))})
			return rec, false
		}
		if rule == "" {
			rule = fmt.Sprintf("outcome %s; positive outcomes: %s", strings.ToLower(outcome), class)
		}
	case row.Session && strings.TrimSpace(row.Label) == "" && outcome == "":
		*probs = append(*probs, LabelProblem{line, "no label and no outcome; skipped"})
		return rec, false
	default:
		if lab, err = ParseLabel(row.Label); err != nil {
			*probs = append(*probs, LabelProblem{line, err.Error() + "; skipped"})
			return rec, false
		}
	}
	humans := -1
	if h := strings.TrimSpace(row.HumanMsgs); h != "" {
		n, err := strconv.Atoi(h)
		if err != nil || n < 0 {
			*probs = append(*probs, LabelProblem{line, fmt.Sprintf("human_msgs %q is not a count; ignored", row.HumanMsgs)})
		} else {
			humans = n
		}
	}
	moments, _ := parseMoments(row.FrictionIDs, true, false)
	times, bad := parseMoments(row.FrictionTimes, false, true)
	mixed, _ := parseMoments(row.Moments, true, true)
	for _, b := range bad {
		*probs = append(*probs, LabelProblem{line, fmt.Sprintf("friction time %q is not an RFC 3339 time; ignored", b)})
	}
	moments = append(append(moments, times...), mixed...)
	src := LabelSource(strings.ToLower(strings.TrimSpace(row.Source)))
	switch src {
	case "":
		src = SourceHuman
	case SourceHuman, SourceDerived, SourceModel:
	default:
		*probs = append(*probs, LabelProblem{line, fmt.Sprintf("label_source %q is not human, derived or model; read as given", row.Source)})
	}
	rec = LabelRecord{Key: row.Key, Label: lab, Outcome: strings.TrimSpace(row.Outcome),
		Source: src, Rule: rule, Line: line,
		Confidence: strings.TrimSpace(row.Confidence), HumanMsgs: humans, Moments: moments}
	if !opts.NoText {
		rec.Path, rec.Notes = strings.Clone(strings.TrimSpace(row.Path)), strings.Clone(strings.TrimSpace(row.Notes))
	}
	return rec, true
}

// stringList is a JSON string or array of strings.
type stringList []string

// UnmarshalJSON accepts a string, an array of strings, or null.
func (s *stringList) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*s = stringList{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		// A type error, so that the decoder names the field it is in.
		return &json.UnmarshalTypeError{Value: jsonl.Kind(b) + ", not a string or an array of strings", Type: reflect.TypeFor[[]string]()}
	}
	*s = many
	return nil
}

// readJSON reads JSON Lines labels; skip is the number of lines before rd's first.
func (ls *Labels) readJSON(rd *jsonl.Reader, skip int, src *labelSource, opts LabelOptions) (*Labels, []LabelProblem, error) {
	var probs []LabelProblem
	var at *recordPlace
	if src != nil {
		ls.addSource(*src)
		at = &recordPlace{}
	}
	for {
		start := rd.InputOffset()
		l, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, err
		}
		l.Num += skip
		if l.Oversize {
			probs = append(probs, LabelProblem{l.Num, "line longer than 1 MiB; skipped"})
			continue
		}
		if l.Blank() {
			continue
		}
		row, err := jsonRow(l.Bytes)
		if err != nil {
			probs = append(probs, LabelProblem{l.Num, err.Error() + "; skipped"})
			continue
		}
		if at != nil {
			*at = recordPlace{src.start + start, rd.InputOffset() - start}
		}
		ls.add(row, l.Num, at, opts, &probs)
	}
	if src != nil {
		ls.src.end += src.start + rd.InputOffset()
	}
	return ls, probs, nil
}

// jsonRow parses a line of a JSON Lines label file.
func jsonRow(line []byte) (labelRow, error) {
	var obj struct {
		RunKey        string          `json:"run_key"`
		Key           string          `json:"key"`
		SessionID     string          `json:"session_id"`
		Label         string          `json:"label"`
		Outcome       string          `json:"outcome"`
		Source        string          `json:"label_source"`
		Rule          string          `json:"rule"`
		LabelRule     string          `json:"label_rule"`
		Confidence    string          `json:"confidence"`
		HumanMsgs     json.RawMessage `json:"human_msgs"`
		Notes         string          `json:"notes"`
		File          string          `json:"file"`
		FrictionUUIDs stringList      `json:"friction_uuids"`
		FrictionTimes stringList      `json:"friction_times"`
		Moments       stringList      `json:"moments"`
	}
	if err := json.Unmarshal(line, &obj); err != nil {
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &te) && te.Field != "" && strings.Contains(te.Value, ", not "):
			return labelRow{}, fmt.Errorf("%s is a JSON %s", te.Field, te.Value)
		case errors.As(err, &te) && te.Field != "":
			return labelRow{}, fmt.Errorf("%s is a JSON %s, not a string", te.Field, te.Value)
		case errors.As(err, &te):
			return labelRow{}, fmt.Errorf("not a JSON object but a JSON %s", te.Value)
		}
		return labelRow{}, fmt.Errorf("not a JSON object: %w", err)
	}
	if first, again, ok := repeatedMember(line); ok {
		if first == again {
			return labelRow{}, fmt.Errorf("member %q given twice", first)
		}
		return labelRow{}, fmt.Errorf("members %q and %q name the same field (names are matched ignoring case)", first, again)
	}
	humans := strings.Trim(string(obj.HumanMsgs), `"`)
	if humans == "null" {
		humans = ""
	}
	key := firstNonEmpty(obj.RunKey, obj.Key)
	return labelRow{Key: firstNonEmpty(key, obj.SessionID), Session: key == "" && obj.SessionID != "", Label: obj.Label, Outcome: obj.Outcome,
		Source: obj.Source, Rule: firstNonEmpty(obj.Rule, obj.LabelRule),
		Confidence: obj.Confidence, HumanMsgs: humans, Notes: obj.Notes, Path: obj.File,
		FrictionIDs: obj.FrictionUUIDs, FrictionTimes: obj.FrictionTimes, Moments: obj.Moments}, nil
}

// readFields are the names of the members and columns a label reader reads (jsonRow's
// fields, csvColumns' look-ups), in lower case: a name given twice is a problem only
// for these — encoding/json ignores the others, as the CSV reader does.
var readFields = [...]string{"run_key", "key", "session_id", "label", "outcome", "label_source", "rule", "label_rule",
	"confidence", "human_msgs", "notes", "file", "friction_uuids", "friction_times", "moments"}

// labelField returns the index in readFields of the field a member or column name
// is read as, names matched as encoding/json matches them (ignoring case, under
// Unicode simple folding), or -1.
func labelField(name string) int {
	folded := foldName(name)
	for i, f := range readFields {
		if folded == f {
			return i
		}
	}
	return -1
}

// repeatedMember reports the first member of a JSON object (valid JSON) that gives a
// field the reader reads ([readFields]) an earlier member gave, as encoding/json
// matches names to fields (ignoring case): first is the earlier member's name, again
// the later one's. encoding/json keeps the later value, silently. Members the reader
// does not read are not looked at; a plain ASCII name is matched without allocating.
func repeatedMember(line []byte) (first, again string, ok bool) {
	var seen [len(readFields)][]byte // the first name of each field, as written
	s := jsonl.NewScanner(line)
	s.Object(false, func(key []byte) bool {
		i := asciiLabelField(key)
		if i == -2 { // escapes or letters beyond ASCII: the slow, exact way
			i = labelField(jsonl.Unquote(key))
		}
		if i >= 0 {
			if seen[i] != nil {
				first, again, ok = jsonl.Unquote(seen[i]), jsonl.Unquote(key), true
				return false
			}
			seen[i] = key
		}
		return s.Skip()
	})
	return first, again, ok
}

// asciiLabelField is labelField of a raw member name of plain ASCII, without an
// allocation; -2 for a name with an escape or a byte beyond ASCII.
func asciiLabelField(key []byte) int {
	var buf [16]byte
	if len(key) > len(buf) {
		for _, c := range key {
			if c == '\\' || c >= utf8.RuneSelf {
				return -2
			}
		}
		return -1 // longer than any field
	}
	lower := buf[:len(key)]
	for j, c := range key {
		switch {
		case c == '\\' || c >= utf8.RuneSelf:
			return -2
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		}
		lower[j] = c
	}
	for i, f := range readFields {
		if string(lower) == f {
			return i
		}
	}
	return -1
}

// foldName maps a name to one representative of the names equal to it under Unicode
// simple case folding (strings.EqualFold), the folding encoding/json matches member
// names to fields with: a name in lower-case ASCII is its own.
func foldName(name string) string {
	return strings.Map(func(r rune) rune {
		if r < utf8.RuneSelf {
			if 'A' <= r && r <= 'Z' {
				r += 'a' - 'A'
			}
			return r
		}
		m := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if 'a' <= f && f <= 'z' { // the Kelvin sign folds to k, the long s to s
				return f
			}
			m = min(m, f)
		}
		return m
	}, name)
}

// csvColumns are the columns of a CSV label file, from its header.
type csvColumns struct {
	col     map[string]int
	key     int
	session bool // keyed by session_id
}

// csvHeader reads a CSV label file's header.
func csvHeader(header []string) (*csvColumns, error) {
	c := &csvColumns{col: map[string]int{}}
	for i, h := range header {
		name := strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))
		if j, ok := c.col[name]; ok && labelField(name) >= 0 { // a column the reader does not read may repeat
			// which of the two to read cannot be told: the whole file is suspect
			return nil, fmt.Errorf("the header names the column %s twice: column %d (%q) and column %d (%q)", name, j+1, header[j], i+1, h)
		}
		c.col[name] = i
	}
	keyCol, ok := c.col["run_key"]
	if !ok {
		keyCol, ok = c.col["key"]
	}
	_, hasLabel := c.col["label"]
	_, hasOutcome := c.col["outcome"]
	sessionCol, session := c.col["session_id"]
	switch {
	case ok && hasLabel: // run labels (which may also name a session_id column)
		c.key = keyCol
	case ok:
		return nil, errors.New("the header must name the columns run_key and label (found: " + strings.Join(header, ",") + ")")
	case session && (hasLabel || hasOutcome):
		c.key, c.session = sessionCol, true
	default:
		return nil, errors.New("the header must name the columns run_key and label, or session_id and outcome (found: " +
			strings.Join(header, ",") + ")")
	}
	return c, nil
}

// row returns a CSV record's row; ok is false for a blank line.
func (c *csvColumns) row(rec []string) (row labelRow, ok bool) {
	if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
		return row, false
	}
	get := func(name string) string {
		if i, ok := c.col[name]; ok && i < len(rec) {
			return rec[i]
		}
		return ""
	}
	key := ""
	if c.key < len(rec) {
		key = rec[c.key]
	}
	return labelRow{Key: key, Session: c.session, Label: get("label"), Outcome: get("outcome"), Source: get("label_source"),
		Rule:       firstNonEmpty(get("rule"), get("label_rule")),
		Confidence: get("confidence"), HumanMsgs: get("human_msgs"), Notes: get("notes"), Path: get("file"),
		FrictionIDs: []string{get("friction_uuids")}, FrictionTimes: []string{get("friction_times")},
		Moments: []string{get("moments")}}, true
}

// readCSV reads CSV labels; skip is the number of lines before r's first.
func (ls *Labels) readCSV(r io.Reader, skip int, src *labelSource, opts LabelOptions) (*Labels, []LabelProblem, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err != nil {
		return nil, nil, fmt.Errorf("reading the header: %w", err)
	}
	cols, err := csvHeader(header)
	if err != nil {
		return nil, nil, err
	}
	var at *recordPlace
	if src != nil {
		src.csv = cols
		ls.addSource(*src)
		at = &recordPlace{}
	}
	var probs []LabelProblem
	for {
		start := cr.InputOffset()
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var perr *csv.ParseError
			if errors.As(err, &perr) {
				// the record from its first line: a quote left open reads on to where it
				// closes, or to the end of the file, and every line of it is skipped
				line, detail := perr.StartLine+skip, perr.Err.Error()
				if perr.StartLine == 0 {
					line = perr.Line + skip
				} else if perr.Line != perr.StartLine {
					detail += fmt.Sprintf(" (the record runs from line %d to line %d)", line, perr.Line+skip)
				}
				probs = append(probs, LabelProblem{line, detail + "; skipped"})
				continue
			}
			return nil, nil, err
		}
		line, _ := cr.FieldPos(0)
		line += skip
		row, ok := cols.row(rec)
		if !ok {
			continue
		}
		if len(rec) > len(header) {
			probs = append(probs, LabelProblem{line, fmt.Sprintf("%d fields, the header names %d; the extra fields are ignored", len(rec), len(header))})
		}
		if at != nil {
			*at = recordPlace{src.start + start, cr.InputOffset() - start}
		}
		ls.add(row, line, at, opts, &probs)
	}
	if src != nil {
		ls.src.end += src.start + cr.InputOffset()
	}
	return ls, probs, nil
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}
