package pipeline

import (
	"github.com/loopwatch/loopwatch/eval"
	"github.com/loopwatch/loopwatch/replay/input"
)

// RunLabel returns a run's label: its record in the labels, else — with
// Settings.DeriveLabels — the label its recorded outcome derives (derived is then
// true). ok is false for a run without a label.
func (in *Inputs) RunLabel(r *input.Run) (rec eval.LabelRecord, ok, derived bool) {
	rec, _, ok, derived = in.runLabel(r)
	return rec, ok, derived
}

// runLabel is RunLabel with the label's index among in.Labels (-1 when it has none,
// derived or not).
func (in *Inputs) runLabel(r *input.Run) (rec eval.LabelRecord, index int, ok, derived bool) {
	if rec, index, ok = in.Labels.Lookup(r.Key); ok || !in.deriveLabels {
		return rec, index, ok, false
	}
	return eval.DeriveQuasar(eval.QuasarRun{Key: r.Key, Outcome: string(r.Outcome), Cycles: len(r.Cycles), CloseReason: r.CloseReason,
		CyclesDropped: r.CyclesDropped}), -1, true, true
}

// SessionLabel returns a session's label record (ok is false without one) and its
// labelled friction moments as event indices; missing lists the moments that are not
// events of the session (left out of the scoring).
func (in *Inputs) SessionLabel(s *input.Session) (rec eval.LabelRecord, ok bool, moments []int, missing []eval.Moment) {
	rec, _, ok, moments, missing = in.sessionLabel(s)
	return rec, ok, moments, missing
}

// sessionLabel is SessionLabel with the label's index among in.Labels (-1 without one).
func (in *Inputs) sessionLabel(s *input.Session) (rec eval.LabelRecord, index int, ok bool, moments []int, missing []eval.Moment) {
	if rec, index, ok = in.Labels.Lookup(s.Key); !ok {
		return rec, index, false, nil, nil
	}
	for _, m := range rec.Moments {
		if i := m.Find(s.Events); i >= 0 {
			moments = append(moments, i)
		} else {
			missing = append(missing, m)
		}
	}
	return rec, index, true, moments, missing
}
