package eval

// Labels as they were held before the arena (loopwatch up to the "labels in one arena"
// change): a map from every key, a string of its own, to its record, and every
// moment a Moment with an id of its own. It is the baseline of BenchmarkLabelLookup
// and the reference TestLabelsMatchReference compares Labels with.

import "slices"

type referenceLabels struct {
	index     map[string]int32
	recs      []referenceEntry
	moments   []Moment
	texts     []string
	textIndex map[string]uint32
	extra     map[int32][2]string
}

type referenceEntry struct {
	line, humanMsgs                          int
	moments, nMoments                        uint32
	label, outcome, source, rule, confidence uint32
}

func newReferenceLabels() *referenceLabels {
	return &referenceLabels{index: map[string]int32{}, texts: []string{""}, textIndex: map[string]uint32{"": 0}}
}

func (ls *referenceLabels) Get(key string) (LabelRecord, bool) {
	i, ok := ls.index[key]
	if !ok {
		return LabelRecord{}, false
	}
	e := &ls.recs[i]
	r := LabelRecord{Key: key, Label: Label(ls.texts[e.label]), Outcome: ls.texts[e.outcome], Source: LabelSource(ls.texts[e.source]),
		Rule: ls.texts[e.rule], Line: e.line, Confidence: ls.texts[e.confidence], HumanMsgs: e.humanMsgs}
	if e.nMoments > 0 {
		r.Moments = ls.moments[e.moments : e.moments+e.nMoments : e.moments+e.nMoments]
	}
	if x, ok := ls.extra[i]; ok {
		r.Path, r.Notes = x[0], x[1]
	}
	return r, true
}

func (ls *referenceLabels) Index(key string) (i int, ok bool) {
	n, ok := ls.index[key]
	return int(n), ok
}

func (ls *referenceLabels) Set(r LabelRecord) {
	e := referenceEntry{line: r.Line, humanMsgs: r.HumanMsgs, label: ls.textOf(string(r.Label)), outcome: ls.textOf(r.Outcome),
		source: ls.textOf(string(r.Source)), rule: ls.textOf(r.Rule), confidence: ls.textOf(r.Confidence)}
	if len(r.Moments) > 0 {
		e.moments, e.nMoments = uint32(len(ls.moments)), uint32(len(r.Moments))
		ls.moments = append(ls.moments, r.Moments...)
	}
	i, ok := ls.index[r.Key]
	if ok {
		ls.recs[i] = e
	} else {
		i = int32(len(ls.recs))
		ls.recs = append(ls.recs, e)
		ls.index[r.Key] = i
	}
	delete(ls.extra, i)
	if r.Path != "" || r.Notes != "" {
		if ls.extra == nil {
			ls.extra = map[int32][2]string{}
		}
		ls.extra[i] = [2]string{r.Path, r.Notes}
	}
}

func (ls *referenceLabels) textOf(s string) uint32 {
	if i, ok := ls.textIndex[s]; ok {
		return i
	}
	i := uint32(len(ls.texts))
	ls.texts = append(ls.texts, s)
	ls.textIndex[s] = i
	return i
}

func (ls *referenceLabels) Keys() []string {
	keys := make([]string, 0, len(ls.index))
	for k := range ls.index {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
