package tune

import (
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/loopwatch/loopwatch/analyze/assess"
	"github.com/loopwatch/loopwatch/eval"
)

// Target is what a sweep chooses a configuration for.
type Target string

// The targets.
const (
	// TargetStruggle: struggle detection per run (positive: a run labelled
	// struggling); predicted when it triggered, ranked by the peak score.
	TargetStruggle Target = "struggle"
	// TargetBreaker: the breaker per session (positive: a bad outcome); predicted
	// when it intervened, ranked by the peak frustration.
	TargetBreaker Target = "breaker"
	// TargetFriction: interventions against labelled friction moments, scored the
	// alerting way (eval.ScoreSession).
	TargetFriction Target = "friction"
)

// ParseTarget reads a target's name.
func ParseTarget(s string) (Target, error) {
	switch t := Target(s); t {
	case TargetStruggle, TargetBreaker, TargetFriction:
		return t, nil
	}
	return "", fmt.Errorf("unknown target %q (targets: struggle, breaker, friction)", s)
}

// Family is the configuration family a target tunes.
func (t Target) Family() Family {
	if t == TargetStruggle {
		return Struggle
	}
	return Assess
}

// Unit names what the target scores.
func (t Target) Unit() string {
	switch t {
	case TargetStruggle:
		return "runs"
	case TargetFriction:
		return "labelled sessions"
	}
	return "sessions"
}

// tally is one configuration's counts on some units: a confusion (struggle, breaker)
// or alarm counts (friction). Counts add, so a fold's training counts are the whole's
// minus the fold's.
type tally struct {
	conf   eval.Confusion
	alarms eval.AlarmCounts
}

func (t *tally) add(o tally) {
	t.conf.TP += o.conf.TP
	t.conf.FP += o.conf.FP
	t.conf.FN += o.conf.FN
	t.conf.TN += o.conf.TN
	t.alarms.Add(o.alarms)
}

func (t tally) minus(o tally) tally {
	t.conf.TP -= o.conf.TP
	t.conf.FP -= o.conf.FP
	t.conf.FN -= o.conf.FN
	t.conf.TN -= o.conf.TN
	t.alarms.Sub(o.alarms)
	return t
}

// score is what the objective reads of the tally for target.
func (t tally) score(target Target) eval.Score {
	if target == TargetFriction {
		return t.alarms.Score()
	}
	return t.conf.Score()
}

// pairedCounts holds, per unit, what the scores of the paired bootstrap read of two
// configurations' tallies (the default's and the tuned choice's), packed so that a
// resample — n units drawn at random — touches a few bytes a unit, not two tallies of
// 96 bytes each: the resamples are bound by memory, not by adding. The sums, and so
// the scores, are those of the tallies.
type pairedCounts struct {
	target Target
	// cells: struggle and breaker, a unit's confusion cell under each configuration
	// (0 TP, 1 FP, 2 FN, 3 TN); a tally of one unit is one observation.
	cells [][2]uint8
	// alarms: friction, a unit's moments and human turns (the unit's, whatever the
	// configuration), then its caught moments, interventions, true positives and false
	// alarms under each configuration.
	alarms [][10]int32
	// wide: some count does not fit the packing; the tallies are summed as they are.
	wide [2][]tally
}

// newPairedCounts packs the tallies of a (the default's outcomes) and b (the tuned
// choice's), unit by unit.
func newPairedCounts(target Target, a, b []unitOutcome) *pairedCounts {
	p := &pairedCounts{target: target}
	if target == TargetFriction {
		p.alarms = make([][10]int32, len(a))
		for k := range a {
			x, y := a[k].tally.alarms, b[k].tally.alarms
			v := [10]int{x.Moments, x.HumanTurns, x.Caught, x.Interventions, x.TruePositives, x.FalseAlarms, y.Caught, y.Interventions, y.TruePositives, y.FalseAlarms}
			for i, n := range v {
				if n < 0 || n > math.MaxInt32 {
					return p.unpacked(a, b)
				}
				p.alarms[k][i] = int32(n)
			}
		}
		return p
	}
	p.cells = make([][2]uint8, len(a))
	for k := range a {
		for j, t := range []tally{a[k].tally, b[k].tally} {
			c, ok := cell(t.conf)
			if !ok {
				return p.unpacked(a, b)
			}
			p.cells[k][j] = c
		}
	}
	return p
}

// cell returns the one cell a confusion of one observation counts.
func cell(c eval.Confusion) (uint8, bool) {
	switch c {
	case eval.Confusion{TP: 1}:
		return 0, true
	case eval.Confusion{FP: 1}:
		return 1, true
	case eval.Confusion{FN: 1}:
		return 2, true
	case eval.Confusion{TN: 1}:
		return 3, true
	}
	return 0, false
}

func (p *pairedCounts) unpacked(a, b []unitOutcome) *pairedCounts {
	p.cells, p.alarms = nil, nil
	p.wide = [2][]tally{make([]tally, len(a)), make([]tally, len(b))}
	for k := range a {
		p.wide[0][k], p.wide[1][k] = a[k].tally, b[k].tally
	}
	return p
}

// scores returns the two configurations' scores on the units idx (which may repeat).
func (p *pairedCounts) scores(idx []int) (eval.Score, eval.Score) {
	var x, y tally
	switch {
	case p.alarms != nil:
		var sum [10]int
		for _, k := range idx {
			u := &p.alarms[k]
			for i := range sum {
				sum[i] += int(u[i])
			}
		}
		x.alarms = eval.AlarmCounts{Moments: sum[0], HumanTurns: sum[1], Caught: sum[2], Interventions: sum[3], TruePositives: sum[4], FalseAlarms: sum[5]}
		y.alarms = eval.AlarmCounts{Moments: sum[0], HumanTurns: sum[1], Caught: sum[6], Interventions: sum[7], TruePositives: sum[8], FalseAlarms: sum[9]}
	case p.cells != nil:
		var n [2][4]int
		for _, k := range idx {
			c := p.cells[k]
			n[0][c[0]]++
			n[1][c[1]]++
		}
		x.conf = eval.Confusion{TP: n[0][0], FP: n[0][1], FN: n[0][2], TN: n[0][3]}
		y.conf = eval.Confusion{TP: n[1][0], FP: n[1][1], FN: n[1][2], TN: n[1][3]}
	default:
		for _, k := range idx {
			x.add(p.wide[0][k])
			y.add(p.wide[1][k])
		}
	}
	return x.score(p.target), y.score(p.target)
}

// unitOutcome is one unit's prediction under one configuration.
type unitOutcome struct {
	tally tally
	score float64 // the ranking score: the peak struggle score or the peak frustration
	// interventions (friction) for the moments report
	interventions []eval.Point
}

// units is a target's scored units and their folds.
type units struct {
	target Target
	idx    []int // into dataset.runs or dataset.sessions
	fold   []int // aligned with idx
	folds  int
	// heldOut says which folds are scored held out: all of them in k-fold
	// cross-validation; only fold 0 (the holdout) with a holdout.
	heldOut []bool
}

// evaluation is one configuration's scores on a target's units.
type evaluation struct {
	fold    []tally // per fold, on the fold's own units
	all     tally
	foldAP  []float64
	foldAUC []float64
	ap, auc float64 // on all units
}

// scorer rescores configurations on a dataset.
type scorer struct {
	d      *dataset
	window time.Duration
}

// outcome is unit u's prediction under c (u indexes dataset.runs or .sessions).
func (s *scorer) outcome(target Target, c *Config, u int, dec *assess.Decision, keepInterventions bool) unitOutcome {
	switch target {
	case TargetStruggle:
		r := &s.d.runs[u]
		out := r.traces[c.trace].Outcome(c.Struggle)
		var t tally
		t.conf.Add(r.label == eval.Positive, out.Triggered)
		return unitOutcome{tally: t, score: out.MaxScore}
	}
	su := &s.d.sessions[u]
	tr := su.traces[c.trace]
	tr.Decide(c.Assess.Detect.EMA, c.Assess.Breaker, dec)
	if target == TargetBreaker {
		var t tally
		t.conf.Add(su.label == eval.Positive, len(dec.Interventions) > 0)
		return unitOutcome{tally: t, score: dec.PeakFrustration}
	}
	ivs := interventionPoints(dec, nil)
	o := s.frictionOutcome(su, ivs, keepInterventions)
	o.score = dec.PeakFrustration
	return o
}

// frictionOutcome scores a session's interventions against its moments.
func (s *scorer) frictionOutcome(su *sessionUnit, ivs []eval.Point, keep bool) unitOutcome {
	sc := eval.ScoreSession(eval.MomentSession{Key: su.key, Moments: su.moments, Interventions: ivs, HumanTurns: su.humanTurns}, s.window)
	o := unitOutcome{tally: tally{alarms: sc.Counts(len(su.moments), len(ivs), su.humanTurns)}, score: math.NaN()}
	if keep {
		o.interventions = ivs
	}
	return o
}

// scratch is a worker's reusable buffers.
type scratch struct {
	dec assess.Decision
	obs [][]eval.Observation // per fold
	all []eval.Observation
}

// evaluate scores one configuration on a target's units.
func (s *scorer) evaluate(us *units, c *Config, sc *scratch) evaluation {
	ev := evaluation{fold: make([]tally, us.folds)}
	ranked := us.target != TargetFriction
	if ranked {
		if len(sc.obs) != us.folds {
			sc.obs = make([][]eval.Observation, us.folds)
		}
		for f := range sc.obs {
			sc.obs[f] = sc.obs[f][:0]
		}
		sc.all = sc.all[:0]
	}
	for i, u := range us.idx {
		o := s.outcome(us.target, c, u, &sc.dec, false)
		f := us.fold[i]
		ev.fold[f].add(o.tally)
		ev.all.add(o.tally)
		if ranked {
			ob := eval.Observation{Label: s.label(us.target, u), Predicted: o.tally.conf.TP+o.tally.conf.FP > 0, Score: o.score}
			sc.obs[f] = append(sc.obs[f], ob)
			sc.all = append(sc.all, ob)
		}
	}
	if ranked {
		ev.foldAP, ev.foldAUC = make([]float64, us.folds), make([]float64, us.folds)
		for f := range sc.obs {
			cv := eval.Curves(sc.obs[f])
			ev.foldAP[f], ev.foldAUC[f] = cv.AP(), cv.AUC()
		}
		cv := eval.Curves(sc.all)
		ev.ap, ev.auc = cv.AP(), cv.AUC()
	}
	return ev
}

// label is unit u's label for the target.
func (s *scorer) label(target Target, u int) eval.Label {
	if target == TargetStruggle {
		return s.d.runs[u].label
	}
	return s.d.sessions[u].label
}

// evaluateAll scores every configuration on the target's units, workers at a time;
// the results are in configuration order whatever the workers.
func (s *scorer) evaluateAll(us *units, configs []*Config, workers int) []evaluation {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	out := make([]evaluation, len(configs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, len(configs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var sc scratch
			for i := range next {
				out[i] = s.evaluate(us, configs[i], &sc)
			}
		}()
	}
	for i := range configs {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

// choose returns the candidate the objective prefers on the training units of fold
// f (every unit but the fold's; f < 0: every unit), the first of equals, or -1 when
// no candidate meets the objective's constraint — or when the training units cannot
// measure the objective, and then, second, why ([unmeasurable]).
func choose(obj eval.Objective, target Target, configs []*Config, evals []evaluation, f int) (int, string) {
	if why := unmeasurable(target, training(evals[0], f)); why != "" {
		return -1, why
	}
	best := -1
	var bestScore eval.Score
	for i, c := range configs {
		if !c.Candidate() {
			continue
		}
		sc := training(evals[i], f).score(target)
		if best < 0 || obj.Compare(sc, bestScore) < 0 {
			best, bestScore = i, sc
		}
	}
	if best >= 0 && !obj.Feasible(bestScore) {
		return -1, ""
	}
	return best, ""
}

// training is an evaluation's tally on the training units of fold f (every unit when
// f < 0).
func training(ev evaluation, f int) tally {
	if f >= 0 {
		return ev.all.minus(ev.fold[f])
	}
	return ev.all
}

// unmeasurable says why no objective can be measured on the units of t (any
// configuration's tally: the labels are the same), "" when it can. Struggle and
// breaker need both classes: with no positive unit, recall and F-beta are undefined
// and a cost counts false positives only, so the choice would go to whatever flags
// least; with no negative, to whatever flags most. Friction needs a friction moment
// (recall is undefined without one; false alarms can happen in any session).
func unmeasurable(target Target, t tally) string {
	unit := strings.TrimSuffix(target.Unit(), "s")
	switch {
	case target == TargetFriction:
		if t.alarms.Moments == 0 {
			return "no friction moment"
		}
	case t.conf.TP+t.conf.FN == 0:
		return "no positive " + unit
	case t.conf.FP+t.conf.TN == 0:
		return "no negative " + unit
	}
	return ""
}
