package tune

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"

	"github.com/loopwatch/loopwatch/analyze/assess"
	"github.com/loopwatch/loopwatch/eval"
	"github.com/loopwatch/loopwatch/internal/plural"
)

// addFile adds the grid specifications of a file.
func (sp *Space) addFile(name string) error {
	f, err := os.Open(name)
	if err != nil {
		return fmt.Errorf("--grid-file %s: %w", name, err)
	}
	defer f.Close()
	if err := sp.AddFile(name, f); err != nil {
		return fmt.Errorf("--grid-file %w", err)
	}
	return nil
}

// compare fills the target's side-by-side rows, curves, paired differences and
// verdict, on the held-out units of the folds that chose a configuration (or, when
// none did, on every held-out unit). It fails only with opts.Context's error, once
// the context is done.
func (s *scorer) compare(tr *TargetResult, obj eval.Objective, opts eval.Options) error {
	us := tr.units
	var held []int // positions in us.idx
	chose := false
	for f, c := range tr.FoldChoice {
		if us.heldOut[f] && c >= 0 {
			chose = true
		}
	}
	heldOut := 0 // every held-out unit, those of folds that chose nothing included
	for i, f := range us.fold {
		if us.heldOut[f] {
			heldOut++
		}
		if us.heldOut[f] && (!chose || tr.FoldChoice[f] >= 0) {
			held = append(held, i)
		}
	}
	def, seed := tr.Configs[0], tr.seedConfig()
	dec := &assess.Decision{}
	type rowUnits struct {
		name    string
		hash    string
		outcome func(k int) unitOutcome // of held[k]
		kept    int                     // the slot of kept its outcomes stay in; -1: none
	}
	// The default first (the replay's order: the configured detector, then what it is
	// compared with), the tuned choice, the seed preset, the shipped baseline.
	rows := []rowUnits{{RowDefault, def.Hash, func(k int) unitOutcome { return s.outcome(tr.Target, def, us.idx[held[k]], dec, true) }, 0},
		{RowTuned, "", func(k int) unitOutcome {
			i := held[k]
			return s.outcome(tr.Target, tr.Configs[tr.FoldChoice[us.fold[i]]], us.idx[i], dec, true)
		}, 1},
		{RowSeed, seed.Hash, func(k int) unitOutcome { return s.outcome(tr.Target, seed, us.idx[held[k]], dec, true) }, -1},
		{RowShipped, "", func(k int) unitOutcome { return s.shippedOutcome(tr.Target, us.idx[held[k]]) }, -1}}
	if chose && tr.Final >= 0 {
		rows[1].hash = tr.Configs[tr.Final].Hash
	}
	if !chose {
		rows = slices.Delete(rows, 1, 2)
	}
	unitOpts := opts
	if tr.Target != TargetStruggle {
		unitOpts.Unit = "sessions"
	}
	// One row's outcomes at a time: only the default's and the tuned choice's stay, for
	// the paired differences, without their interventions.
	var kept [2][]unitOutcome
	for _, r := range rows {
		outcomes := make([]unitOutcome, len(held))
		for k := range held {
			outcomes[k] = r.outcome(k)
		}
		row := Row{Name: r.name, Hash: r.hash}
		if tr.Target == TargetFriction {
			ms := make([]eval.MomentSession, len(held))
			for k, i := range held {
				su := &s.d.sessions[us.idx[i]]
				ms[k] = eval.MomentSession{Key: su.key, Moments: su.moments, Interventions: outcomes[k].interventions, HumanTurns: su.humanTurns}
			}
			if row.Moments = eval.EvaluateMoments(ms, s.window, opts); row.Moments.Err != nil {
				return row.Moments.Err
			}
			// The sessions' ranking by peak frustration against their outcome: the
			// breaker's curve under the same configuration.
			var obs []eval.Observation
			for k, i := range held {
				su := &s.d.sessions[us.idx[i]]
				if su.label.Scored() {
					obs = append(obs, eval.Observation{Key: su.key, Label: su.label, Score: outcomes[k].score})
				}
			}
			if len(obs) > 0 {
				tr.Curves = append(tr.Curves, NamedCurve{Detector: string(TargetBreaker), Config: r.name, Curve: eval.Curves(obs)})
			}
		} else {
			obs := make([]eval.Observation, len(held))
			for k, i := range held {
				o := outcomes[k]
				obs[k] = eval.Observation{Key: s.key(tr.Target, us.idx[i]), Label: s.label(tr.Target, us.idx[i]),
					Predicted: o.tally.conf.TP+o.tally.conf.FP > 0, Score: o.score}
			}
			if row.Report = eval.Evaluate(obs, unitOpts); row.Report.Err != nil {
				return row.Report.Err
			}
			tr.Curves = append(tr.Curves, NamedCurve{Detector: string(tr.Target), Config: r.name, Curve: eval.Curves(obs)})
		}
		tr.Rows = append(tr.Rows, row)
		if r.kept >= 0 {
			for k := range outcomes {
				outcomes[k].interventions = nil
			}
			kept[r.kept] = outcomes
		}
	}
	if !chose {
		tr.Verdict = tr.nothingChosen(obj)
		return nil
	}
	// The metrics of the paired differences, the objective's first; each resample's
	// units are summed once for all of them, the default's and the tuned choice's
	// tallies side by side.
	type pairedMetric struct {
		name   string
		higher bool
		f      func(eval.Score) float64
	}
	metrics := []pairedMetric{{obj.Metric(), obj.HigherIsBetter(), func(sc eval.Score) float64 {
		if obj.Kind == eval.ObjectiveFBeta {
			return sc.FBeta(obj.Beta)
		}
		return obj.Value(sc)
	}}}
	for _, m := range []pairedMetric{{"precision", true, func(sc eval.Score) float64 { return sc.Precision }}, {"recall", true, func(sc eval.Score) float64 { return sc.Recall }}} {
		if m.name != obj.Metric() {
			metrics = append(metrics, m)
		}
	}
	if tr.Target == TargetFriction {
		metrics = append(metrics, pairedMetric{"false_alarms_per_100_turns", false, func(sc eval.Score) float64 { return sc.FalseAlarmsPer100 }})
	}
	var tuned tally // on every held-out unit
	for k := range held {
		tuned.add(kept[1][k].tally)
	}
	pairs := newPairedCounts(tr.Target, kept[0], kept[1])
	ds, err := eval.PairedBootstraps(len(held), len(metrics), func(idx []int, a, b []float64) {
		sd, st := pairs.scores(idx)
		for j, m := range metrics {
			a[j], b[j] = m.f(sd), m.f(st)
		}
	}, opts)
	if err != nil {
		return err
	}
	paired := make([]Paired, len(metrics))
	for j, m := range metrics {
		paired[j] = Paired{Metric: m.name, PairedDifference: ds[j], HigherIsBetter: m.higher}
	}
	tr.Paired = append(tr.Paired, paired...)
	main := paired[0] // the objective's
	tr.Verdict = verdict(tr, obj, main, tuned.score(tr.Target), opts.Resamples)
	if len(held) < heldOut {
		// A fold whose training units met no configuration's constraint chose nothing:
		// its units are in none of the rows, and the rest are not a random sample.
		tr.Verdict += fmt.Sprintf("; the rows are on %d of the %d held-out %s: the folds of the other %d chose nothing",
			len(held), heldOut, us.target.Unit(), heldOut-len(held))
	}
	return nil
}

// nothingChosen says why no fold chose a configuration: the objective cannot be
// measured on its training units (they hold one class), or no configuration meets it.
func (tr *TargetResult) nothingChosen(obj eval.Objective) string {
	held, unmeasured, why := tr.unmeasuredFolds()
	switch unmeasured {
	case 0:
		return fmt.Sprintf("no configuration meets %s on the training units of any fold: nothing is chosen", obj)
	case held:
		return fmt.Sprintf("%s cannot be measured on the training units of any fold (they hold %s): nothing is chosen, keep the default", obj, why)
	}
	return fmt.Sprintf("nothing is chosen: %s cannot be measured on the training units of %s (they hold %s) and no configuration meets it on the other %d",
		obj, plural.Count(unmeasured, "fold"), why, held-unmeasured)
}

// definedShare is how many of the resamples asked for a paired difference must
// define it for the verdict to read its interval: a difference undefined in more
// (a figure undefined in resamples that drew none of the few held-out positives) has an
// interval of the lucky resamples only — one held-out positive gives [1, 1].
const definedShare = 0.95

// verdict says whether the tuned choice beats the default on the held-out units;
// resamples is how many resamples the paired bootstrap was asked for (≤ 0: none).
func verdict(tr *TargetResult, obj eval.Objective, main Paired, tuned eval.Score, resamples int) string {
	all := true
	for f, c := range tr.FoldChoice {
		if tr.FoldHeldOut[f] && c != 0 {
			all = false
		}
	}
	d := main.PairedDifference
	diff := fmt.Sprintf("Δ%s %s [%s, %s]", main.Metric, signed(d.Diff), fnum(d.Low), fnum(d.High))
	var v string
	switch {
	case all:
		v = "the default was chosen on every fold: nothing beats it on this data"
	case math.IsNaN(d.Diff):
		v = fmt.Sprintf("not distinguishable from the default: Δ%s is undefined on the held-out units", main.Metric)
	case resamples <= 0:
		v = fmt.Sprintf("not distinguishable from the default without the bootstrap (--resamples 0): Δ%s %s", main.Metric, signed(d.Diff))
	case float64(d.Resamples) < definedShare*float64(resamples):
		v = fmt.Sprintf("not distinguishable from the default: Δ%s %s is undefined in %d of %d resamples (too few held-out positives to tell)",
			main.Metric, signed(d.Diff), resamples-d.Resamples, resamples)
	case d.IncludesZero():
		v = "not distinguishable from the default: " + diff + " includes 0"
	case (d.Diff > 0) == main.HigherIsBetter:
		v = "tuned beats the default on held-out units: " + diff
	default:
		v = "tuned is worse than the default on held-out units: " + diff + " — keep the default"
	}
	if !obj.Feasible(tuned) {
		v += fmt.Sprintf("; held out, the choices miss the objective's constraint (%s)", obj)
	}
	return v
}

// shippedOutcome is unit u's prediction by the shipped-today baseline.
func (s *scorer) shippedOutcome(target Target, u int) unitOutcome {
	switch target {
	case TargetStruggle:
		r := &s.d.runs[u]
		var t tally
		t.conf.Add(r.label == eval.Positive, r.shipped.Triggered)
		return unitOutcome{tally: t, score: r.shipped.MaxScore}
	case TargetBreaker:
		su := &s.d.sessions[u]
		var t tally
		t.conf.Add(su.label == eval.Positive, len(su.shippedAt) > 0)
		return unitOutcome{tally: t, score: su.shippedPeak}
	}
	su := &s.d.sessions[u]
	o := s.frictionOutcome(su, su.shippedAt, true)
	o.score = su.shippedPeak // the ranking the curves draw, as for every other configuration
	return o
}

// key is unit u's key.
func (s *scorer) key(target Target, u int) string {
	if target == TargetStruggle {
		return s.d.runs[u].key
	}
	return s.d.sessions[u].key
}

func signed(v float64) string {
	if v >= 0 {
		return "+" + fnum(v)
	}
	return fnum(v)
}

func fnum(v float64) string {
	if isNaN(v) {
		return "—"
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}
