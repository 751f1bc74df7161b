package pipeline

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/loopwatch/loopwatch/eval"
	"github.com/loopwatch/loopwatch/reports"
)

// The tests' reference of what the derivation reads: every prediction kept in memory,
// sorted — what the merge of a split replay did before it spilled the shards' rows
// as a replay to a file does (predSpill); the tests hold predSpill and the scoring
// to it.

// keptPredictions is what the metrics read of the predictions rows: a keptPrediction a
// row, and the labelled sessions' event-level scores beside them — their counts in a
// slice of their own and their delays in one slice they all share, so that keeping
// them allocates nothing per row.
type keptPredictions struct {
	preds   []keptPrediction
	moments []keptMoments
	delays  []float64
}

// keptMoments is [eval.SessionMoments] without its key, its counts in 32 bits and its
// delays kept in keptPredictions.delays: nSeconds delays in seconds from index delays,
// then nEvents in events.
type keptMoments struct {
	moments, caught, interventions, truePositives, falseAlarms, humanTurns int32
	delays, nSeconds, nEvents                                              uint32
}

// sort puts the predictions in the order a derivation reads them — configuration,
// then file path, then key — and checks that no unit is there twice and that each is
// of one of the n configurations scored.
func (k *keptPredictions) sort(n int) error {
	preds := k.preds
	slices.SortFunc(preds, func(a, b keptPrediction) int {
		return cmp.Or(cmp.Compare(a.configIndex, b.configIndex), strings.Compare(a.file, b.file), strings.Compare(a.key, b.key))
	})
	seen := map[[2]string]bool{}
	for _, r := range preds {
		if r.configIndex != 0 {
			break
		}
		if k := [2]string{r.kind(), r.key}; seen[k] {
			return fmt.Errorf("predictions: %s %s appears twice", r.kind(), r.key)
		} else {
			seen[k] = true
		}
	}
	if last := len(preds) - 1; last >= 0 && (int(preds[last].configIndex) >= n || preds[0].configIndex < 0) {
		p := preds[last]
		if preds[0].configIndex < 0 {
			p = preds[0]
		}
		return fmt.Errorf("predictions: configuration %d of %s is not among the %d configurations scored", p.configIndex, p.key, n)
	}
	return nil
}

func (k *keptPredictions) counts(i int) predCounts {
	var n predCounts
	k.each(i, func(p *keptPrediction, sm *eval.SessionMoments) { n.add(p, sm) })
	return n
}

// each calls f with the predictions of configuration i, sorted (see sort).
func (k *keptPredictions) each(i int, f func(p *keptPrediction, sm *eval.SessionMoments)) error {
	lo, _ := slices.BinarySearchFunc(k.preds, int32(i), func(r keptPrediction, i int32) int { return cmp.Compare(r.configIndex, i) })
	hi, _ := slices.BinarySearchFunc(k.preds, int32(i+1), func(r keptPrediction, i int32) int { return cmp.Compare(r.configIndex, i) })
	var sm eval.SessionMoments
	for j := lo; j < hi; j++ {
		p := &k.preds[j]
		if p.moments == 0 {
			f(p, nil)
			continue
		}
		sm = k.sessionMoments(p)
		f(p, &sm)
	}
	return nil
}

// sessionMoments returns p's event-level score.
func (k *keptPredictions) sessionMoments(p *keptPrediction) eval.SessionMoments {
	m := &k.moments[p.moments-1]
	sm := eval.SessionMoments{Key: p.key, Moments: int(m.moments), Caught: int(m.caught),
		Interventions: int(m.interventions), TruePositives: int(m.truePositives), FalseAlarms: int(m.falseAlarms),
		HumanTurns: int(m.humanTurns)}
	if m.nSeconds > 0 {
		end := m.delays + m.nSeconds
		sm.DelaySeconds = k.delays[m.delays:end:end]
	}
	if m.nEvents > 0 {
		start := m.delays + m.nSeconds
		end := start + m.nEvents
		sm.DelayEvents = k.delays[start:end:end]
	}
	return sm
}

// keep keeps what the metrics read of r.
func (kept *keptPredictions) keep(r *reports.PredictionRow) {
	k, m, ok := keptOf(r)
	if ok {
		kept.moments = append(kept.moments, keptMoments{moments: int32(m.Moments), caught: int32(m.Caught),
			interventions: int32(m.Interventions), truePositives: int32(m.TruePositives), falseAlarms: int32(m.FalseAlarms),
			humanTurns: int32(m.HumanTurns), delays: uint32(len(kept.delays)), nSeconds: uint32(len(m.DelaySeconds)),
			nEvents: uint32(len(m.DelayEvents))})
		kept.delays = append(append(kept.delays, m.DelaySeconds...), m.DelayEvents...)
		k.moments = int32(len(kept.moments))
	}
	kept.preds = append(kept.preds, k)
}
