package eval

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

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
// for the whole replay: keys and moments' ids are bytes in one arena, found through
// an index of record numbers (no Go string per key); a record is its key's place, its
// line, its moments' run in one slice of 8-byte places they all share, and the index
// of its shared fields (label, outcome, source, rule, confidence, human messages:
// few distinct sets of them in a file), interned; its notes and file apart and only
// when given. Get builds a LabelRecord from these: its texts are parts of the arena,
// not copies.
type Labels struct {
	arena textArena // every key and moment id
	keys  keyIndex
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
	File       string              // the file they were read from, for messages
	// Outcomes is the class that turned outcomes into labels for records without an
	// explicit label.
	Outcomes OutcomeClass
}

// labelEntry is a LabelRecord in Labels: its key a place in Labels.arena, its moments
// Labels.moments[moments:moments+nMoments], its other fields Labels.fields[fields].
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
	return &Labels{fields: []labelFields{{}}, fieldIndex: map[labelFields]uint32{{}: 0}}
}

// Len returns the number of labelled keys.
func (ls *Labels) Len() int { return len(ls.recs) }

// Get returns the label record for key. Its Moments are its own (a copy).
func (ls *Labels) Get(key string) (LabelRecord, bool) {
	_, i, ok := ls.find(key)
	if !ok {
		return LabelRecord{}, false
	}
	e := &ls.recs[i]
	f := &ls.fields[e.fields]
	r := LabelRecord{Key: key, Label: f.label, Outcome: f.outcome, Source: f.source,
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
	return r, true
}

// Index returns the position of key's record among the labels, 0 ≤ i < Len(): a
// key's for as long as no key is added. ok is false for a key without a label.
func (ls *Labels) Index(key string) (i int, ok bool) {
	_, n, ok := ls.find(key)
	return int(n), ok
}

// Set records a label, replacing any label the key had.
func (ls *Labels) Set(r LabelRecord) {
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
	slot, i, ok := ls.find(r.Key)
	if ok {
		e.key = ls.recs[i].key
		ls.recs[i] = e
	} else {
		i = uint32(len(ls.recs))
		e.key = ls.arena.put(r.Key)
		ls.recs = append(ls.recs, e)
		ls.insert(r.Key, i, slot)
	}
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
func (ls *Labels) fieldsOf(f labelFields) uint32 {
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

// Keys returns the labelled keys in sorted order.
func (ls *Labels) Keys() []string {
	keys := make([]string, len(ls.recs))
	for i := range ls.recs {
		keys[i] = ls.keyOf(uint32(i))
	}
	slices.Sort(keys)
	return keys
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
// outcome (or label). A line that cannot
// be used is returned as a problem and skipped; a key labelled twice keeps its last
// label and is reported. ReadLabelsWith fails only when the file has no usable header
// or cannot be read.
func ReadLabelsWith(r io.Reader, opts LabelOptions) (*Labels, []LabelProblem, error) {
	ls, probs, err := readLabels(r, opts)
	if ls != nil {
		ls.Outcomes = opts.Outcomes
		ls.clip()
	}
	return ls, probs, err
}

func readLabels(r io.Reader, opts LabelOptions) (*Labels, []LabelProblem, error) {
	br := bufio.NewReader(r)
	if b, err := br.Peek(3); err == nil && string(b) == "\xef\xbb\xbf" {
		br.Discard(3) // a UTF-8 byte order mark, which some editors write
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
			continue
		case '{':
			return readJSONLabels(jsonl.NewReader(br, 1<<20), opts)
		}
		return readCSVLabels(br, opts)
	}
}

type labelRow struct {
	Key, Label, Outcome, Source, Rule string
	Session                           bool // keyed by session_id: an empty label comes from the outcome

	Confidence, HumanMsgs, Notes, Path  string
	FrictionIDs, FrictionTimes, Moments []string
}

func (ls *Labels) add(row labelRow, line int, opts LabelOptions, probs *[]LabelProblem) {
	class := opts.Outcomes
	row.Key = strings.TrimSpace(row.Key)
	if row.Key == "" {
		if row.Session {
			*probs = append(*probs, LabelProblem{line, "no session_id; skipped"})
		} else {
			*probs = append(*probs, LabelProblem{line, "no run_key; skipped"})
		}
		return
	}
	var lab Label
	var err error
	rule := strings.TrimSpace(row.Rule)
	switch outcome := strings.TrimSpace(row.Outcome); {
	case row.Session && strings.TrimSpace(row.Label) == "" && outcome != "":
		if lab = class.Label(outcome); lab == Unlabelled {
			*probs = append(*probs, LabelProblem{line, fmt.Sprintf("no label, and outcome %q is not a session outcome (%s); skipped",
				outcome, strings.Join(SessionOutcomes(), ", "))})
			return
		}
		if rule == "" {
			rule = fmt.Sprintf("outcome %s; positive outcomes: %s", strings.ToLower(outcome), class)
		}
	case row.Session && strings.TrimSpace(row.Label) == "" && outcome == "":
		*probs = append(*probs, LabelProblem{line, "no label and no outcome; skipped"})
		return
	default:
		if lab, err = ParseLabel(row.Label); err != nil {
			*probs = append(*probs, LabelProblem{line, err.Error() + "; skipped"})
			return
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
	moments = append(append(moments, times...), mixed...) // Set copies their ids
	src := LabelSource(strings.ToLower(strings.TrimSpace(row.Source)))
	switch src {
	case "":
		src = SourceHuman
	case SourceHuman, SourceDerived, SourceModel:
	default:
		*probs = append(*probs, LabelProblem{line, fmt.Sprintf("label_source %q is not human, derived or model; read as given", row.Source)})
	}
	if _, prev, dup := ls.find(row.Key); dup {
		*probs = append(*probs, LabelProblem{line, fmt.Sprintf("run %s already labelled on line %d; the later label counts", row.Key, ls.recs[prev].line)})
	}
	// Set copies the key and the fields it keeps: none of them keeps the line.
	rec := LabelRecord{Key: row.Key, Label: lab, Outcome: strings.TrimSpace(row.Outcome),
		Source: src, Rule: rule, Line: line,
		Confidence: strings.TrimSpace(row.Confidence), HumanMsgs: humans, Moments: moments}
	if !opts.NoText {
		rec.Path, rec.Notes = strings.Clone(strings.TrimSpace(row.Path)), strings.Clone(strings.TrimSpace(row.Notes))
	}
	ls.Set(rec)
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
		return errors.New("not a string or an array of strings")
	}
	*s = many
	return nil
}

func readJSONLabels(rd *jsonl.Reader, opts LabelOptions) (*Labels, []LabelProblem, error) {
	ls := NewLabels()
	var probs []LabelProblem
	for {
		l, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, err
		}
		if l.Oversize {
			probs = append(probs, LabelProblem{l.Num, "line longer than 1 MiB; skipped"})
			continue
		}
		if l.Blank() {
			continue
		}
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
		if err := json.Unmarshal(l.Bytes, &obj); err != nil {
			probs = append(probs, LabelProblem{l.Num, "not a JSON object: " + err.Error() + "; skipped"})
			continue
		}
		humans := strings.Trim(string(obj.HumanMsgs), `"`)
		if humans == "null" {
			humans = ""
		}
		key := firstNonEmpty(obj.RunKey, obj.Key)
		ls.add(labelRow{Key: firstNonEmpty(key, obj.SessionID), Session: key == "" && obj.SessionID != "", Label: obj.Label, Outcome: obj.Outcome,
			Source: obj.Source, Rule: firstNonEmpty(obj.Rule, obj.LabelRule),
			Confidence: obj.Confidence, HumanMsgs: humans, Notes: obj.Notes, Path: obj.File,
			FrictionIDs: obj.FrictionUUIDs, FrictionTimes: obj.FrictionTimes, Moments: obj.Moments}, l.Num, opts, &probs)
	}
	return ls, probs, nil
}

func readCSVLabels(r io.Reader, opts LabelOptions) (*Labels, []LabelProblem, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err != nil {
		return nil, nil, fmt.Errorf("reading the header: %w", err)
	}
	col := map[string]int{}
	for i, h := range header {
		col[strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))] = i
	}
	keyCol, ok := col["run_key"]
	if !ok {
		keyCol, ok = col["key"]
	}
	_, hasLabel := col["label"]
	_, hasOutcome := col["outcome"]
	sessionCol, session := col["session_id"]
	switch {
	case ok && hasLabel: // run labels (which may also name a session_id column)
		session = false
	case ok:
		return nil, nil, errors.New("the header must name the columns run_key and label (found: " + strings.Join(header, ",") + ")")
	case session && (hasLabel || hasOutcome):
		keyCol = sessionCol
	default:
		return nil, nil, errors.New("the header must name the columns run_key and label, or session_id and outcome (found: " +
			strings.Join(header, ",") + ")")
	}
	get := func(rec []string, name string) string {
		if i, ok := col[name]; ok && i < len(rec) {
			return rec[i]
		}
		return ""
	}
	ls := NewLabels()
	var probs []LabelProblem
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var perr *csv.ParseError
			if errors.As(err, &perr) {
				probs = append(probs, LabelProblem{perr.Line, perr.Err.Error() + "; skipped"})
				continue
			}
			return nil, nil, err
		}
		line, _ := cr.FieldPos(0)
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		key := ""
		if keyCol < len(rec) {
			key = rec[keyCol]
		}
		ls.add(labelRow{Key: key, Session: session, Label: get(rec, "label"), Outcome: get(rec, "outcome"), Source: get(rec, "label_source"),
			Rule:       firstNonEmpty(get(rec, "rule"), get(rec, "label_rule")),
			Confidence: get(rec, "confidence"), HumanMsgs: get(rec, "human_msgs"), Notes: get(rec, "notes"), Path: get(rec, "file"),
			FrictionIDs: []string{get(rec, "friction_uuids")}, FrictionTimes: []string{get(rec, "friction_times")},
			Moments: []string{get(rec, "moments")}}, line, opts, &probs)
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
