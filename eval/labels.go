package eval

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

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

// LabelRecord is one labelled run.
type LabelRecord struct {
	Key     string      // run key (or session id)
	Label   Label       //
	Outcome string      // the run's outcome as the labeller saw it, optional
	Source  LabelSource // human, derived or model; human when the file does not say
	Rule    string      // for derived labels: the rule that produced it
	Line    int         // line of the record in its file
}

// Labels maps run keys to their labels.
type Labels struct {
	byKey map[string]LabelRecord
	File  string // the file they were read from, for messages
}

// NewLabels returns an empty label set.
func NewLabels() *Labels { return &Labels{byKey: map[string]LabelRecord{}} }

// Len returns the number of labelled keys.
func (ls *Labels) Len() int { return len(ls.byKey) }

// Get returns the label record for key.
func (ls *Labels) Get(key string) (LabelRecord, bool) {
	r, ok := ls.byKey[key]
	return r, ok
}

// Set records a label, replacing any label the key had.
func (ls *Labels) Set(r LabelRecord) { ls.byKey[r.Key] = r }

// LabelProblem is a label-file line that could not be used.
type LabelProblem struct {
	Line   int
	Detail string
}

// ReadLabels reads a label file: CSV with a header row, or JSON Lines, told apart by
// content. Recognised columns (JSON keys): run_key (or key), label, outcome,
// label_source, rule (or label_rule); others are ignored. A line that cannot be used is
// returned as a problem and skipped; a key labelled twice keeps its last label and is
// reported. ReadLabels fails only when the file has no usable header or cannot be read.
func ReadLabels(r io.Reader) (*Labels, []LabelProblem, error) {
	br := bufio.NewReader(r)
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
			return readJSONLabels(jsonl.NewReader(br, 1<<20))
		}
		return readCSVLabels(br)
	}
}

type labelRow struct {
	Key, Label, Outcome, Source, Rule string
}

func (ls *Labels) add(row labelRow, line int, probs *[]LabelProblem) {
	row.Key = strings.TrimSpace(row.Key)
	if row.Key == "" {
		*probs = append(*probs, LabelProblem{line, "no run_key; skipped"})
		return
	}
	lab, err := ParseLabel(row.Label)
	if err != nil {
		*probs = append(*probs, LabelProblem{line, err.Error() + "; skipped"})
		return
	}
	src := LabelSource(strings.ToLower(strings.TrimSpace(row.Source)))
	switch src {
	case "":
		src = SourceHuman
	case SourceHuman, SourceDerived, SourceModel:
	default:
		*probs = append(*probs, LabelProblem{line, fmt.Sprintf("label_source %q is not human, derived or model; read as given", row.Source)})
	}
	if prev, dup := ls.byKey[row.Key]; dup {
		*probs = append(*probs, LabelProblem{line, fmt.Sprintf("run %s already labelled on line %d; the later label counts", row.Key, prev.Line)})
	}
	ls.byKey[row.Key] = LabelRecord{Key: row.Key, Label: lab, Outcome: strings.TrimSpace(row.Outcome),
		Source: src, Rule: strings.TrimSpace(row.Rule), Line: line}
}

func readJSONLabels(rd *jsonl.Reader) (*Labels, []LabelProblem, error) {
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
			RunKey    string `json:"run_key"`
			Key       string `json:"key"`
			Label     string `json:"label"`
			Outcome   string `json:"outcome"`
			Source    string `json:"label_source"`
			Rule      string `json:"rule"`
			LabelRule string `json:"label_rule"`
		}
		if err := json.Unmarshal(l.Bytes, &obj); err != nil {
			probs = append(probs, LabelProblem{l.Num, "not a JSON object: " + err.Error() + "; skipped"})
			continue
		}
		ls.add(labelRow{Key: firstNonEmpty(obj.RunKey, obj.Key), Label: obj.Label, Outcome: obj.Outcome,
			Source: obj.Source, Rule: firstNonEmpty(obj.Rule, obj.LabelRule)}, l.Num, &probs)
	}
	return ls, probs, nil
}

func readCSVLabels(r io.Reader) (*Labels, []LabelProblem, error) {
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
	if _, hasLabel := col["label"]; !ok || !hasLabel {
		return nil, nil, errors.New("the header must name the columns run_key and label (found: " + strings.Join(header, ",") + ")")
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
		ls.add(labelRow{Key: key, Label: get(rec, "label"), Outcome: get(rec, "outcome"), Source: get(rec, "label_source"),
			Rule: firstNonEmpty(get(rec, "rule"), get(rec, "label_rule"))}, line, &probs)
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
