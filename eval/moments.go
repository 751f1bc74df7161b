package eval

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"time"

	"gonum.org/v1/gonum/stat"
)

// Point is one moment of a session: its event time and its event index.
type Point struct {
	Time  time.Time
	Index int
}

// MomentSession is one labelled session for event-level scoring: the friction moments
// its labeller marked and the interventions a detector made, each in time order, and
// how many human turns the session had (the exposure false alarms are counted over).
type MomentSession struct {
	Key           string
	Moments       []Point
	Interventions []Point
	HumanTurns    int
}

// SessionScore is the event-level scoring of one session's interventions against its
// friction moments, the way alerting systems are scored:
//
//   - a moment is caught when an intervention follows it within the window (at or after
//     the moment — at the same time, not at an earlier event — and at most the window
//     later);
//   - an intervention is a true positive when it is the first to catch at least one
//     moment not caught before it (one intervention after a burst of moments may catch
//     several); every other intervention is a false alarm — also one that follows a
//     moment an earlier intervention already caught.
//
// Precision is caught moments over caught moments and false alarms (see
// [AlarmCounts.Precision]), not true positives over interventions: a detector that
// fires once more, at a moment of a burst a later intervention caught, would turn
// that later one's catch into its own and add a true positive without a false alarm.
// Adding an intervention never uncatches a moment nor clears a false alarm, so
// unless it catches a moment nothing caught before, no figure improves: firing more
// often at the same moments never improves precision, recall or false alarms.
type SessionScore struct {
	// CaughtBy gives, for each moment (aligned with MomentSession.Moments), the index
	// into Interventions of the intervention that caught it first, or -1.
	CaughtBy []int
	// Catches gives, for each intervention, how many moments it caught first (0: a
	// false alarm).
	Catches []int
	// Caught, TruePositives and FalseAlarms count the above.
	Caught, TruePositives, FalseAlarms int
	// DelaySeconds and DelayEvents give, for each caught moment in moment order, the
	// time and events from the moment to the intervention that caught it.
	DelaySeconds, DelayEvents []float64
}

// ScoreSession scores one session's interventions against its moments within window.
// Moments and interventions need not be sorted; ties in time keep their given order.
func ScoreSession(s MomentSession, window time.Duration) SessionScore {
	sc := SessionScore{CaughtBy: make([]int, len(s.Moments)), Catches: make([]int, len(s.Interventions))}
	for i := range sc.CaughtBy {
		sc.CaughtBy[i] = -1
	}
	ivOrder := timeOrder(s.Interventions)
	for _, k := range ivOrder {
		iv := s.Interventions[k]
		for m, mp := range s.Moments {
			if sc.CaughtBy[m] >= 0 {
				continue
			}
			if d := iv.Time.Sub(mp.Time); d >= 0 && d <= window && (d > 0 || iv.Index >= mp.Index) {
				sc.CaughtBy[m] = k
				sc.Catches[k]++
			}
		}
	}
	for m, k := range sc.CaughtBy {
		if k < 0 {
			continue
		}
		sc.Caught++
		sc.DelaySeconds = append(sc.DelaySeconds, s.Interventions[k].Time.Sub(s.Moments[m].Time).Seconds())
		sc.DelayEvents = append(sc.DelayEvents, float64(s.Interventions[k].Index-s.Moments[m].Index))
	}
	for _, c := range sc.Catches {
		if c > 0 {
			sc.TruePositives++
		} else {
			sc.FalseAlarms++
		}
	}
	return sc
}

// timeOrder returns the indices of points in time order, ties in given order.
func timeOrder(points []Point) []int {
	idx := make([]int, len(points))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return points[a].Time.Compare(points[b].Time) })
	return idx
}

// MomentReport is the event-level evaluation of interventions against labelled
// friction moments, by the definitions of [SessionScore].
type MomentReport struct {
	Window        time.Duration
	Sessions      int
	Moments       int
	Interventions int
	HumanTurns    int
	Caught        int // moments caught
	TruePositives int // interventions that were first to catch a moment
	FalseAlarms   int // every other intervention

	// Precision is Caught / (Caught + FalseAlarms) (see [SessionScore] for why not
	// TruePositives / Interventions), Recall is Caught / Moments, and
	// FalseAlarmsPer100 is 100 · FalseAlarms / HumanTurns. Intervals resample sessions,
	// never events (events of one session are correlated); for that reason none has a
	// Jeffreys interval, which would take the moments and interventions as independent
	// trials (its fields are NaN).
	Precision, Recall, FalseAlarmsPer100 Estimate
	// The delay distribution from each caught moment to the intervention that caught
	// it: DelaysSeconds holds every delay, sorted; NaN summaries when none was caught.
	DelaysSeconds                                         []float64
	MedianDelaySeconds, MeanDelaySeconds, P90DelaySeconds float64
	MedianDelayEvents                                     float64

	Warnings []error
	// Err is Options.Context's error when it ended the bootstrap: the report is then
	// incomplete (its intervals undefined) and must not be used.
	Err error
}

// SessionMoments is what one labelled session contributes to the event-level
// evaluation: its counts and its delays, from [ScoreSession]. It is the unit
// [EvaluateSessionMoments] adds up and resamples, so a replay split in shards can keep
// one per session and be evaluated exactly as a whole replay.
type SessionMoments struct {
	Key           string
	Moments       int // labelled friction moments
	Caught        int // moments caught
	Interventions int
	TruePositives int // interventions that were first to catch a moment
	FalseAlarms   int // every other intervention
	HumanTurns    int
	// DelaySeconds and DelayEvents give, for each caught moment in moment order, the
	// time and events from the moment to the intervention that caught it.
	DelaySeconds, DelayEvents []float64
}

// Score scores the session's interventions against its moments within window.
func (s MomentSession) Score(window time.Duration) SessionMoments {
	sc := ScoreSession(s, window)
	return SessionMoments{Key: s.Key, Moments: len(s.Moments), Caught: sc.Caught, Interventions: len(s.Interventions),
		TruePositives: sc.TruePositives, FalseAlarms: sc.FalseAlarms, HumanTurns: s.HumanTurns,
		DelaySeconds: sc.DelaySeconds, DelayEvents: sc.DelayEvents}
}

// momentCounts is what one session adds to the report's ratios.
type momentCounts struct{ moments, caught, interventions, tp, fa, turns int }

func (c *momentCounts) add(o momentCounts) {
	c.moments += o.moments
	c.caught += o.caught
	c.interventions += o.interventions
	c.tp += o.tp
	c.fa += o.fa
	c.turns += o.turns
}

// addTimes adds o k times.
func (c *momentCounts) addTimes(o momentCounts, k int) {
	c.moments += k * o.moments
	c.caught += k * o.caught
	c.interventions += k * o.interventions
	c.tp += k * o.tp
	c.fa += k * o.fa
	c.turns += k * o.turns
}

func (c momentCounts) precision() float64 { return ratio(c.caught, c.caught+c.fa) }
func (c momentCounts) recall() float64    { return ratio(c.caught, c.moments) }
func (c momentCounts) faPer100() float64 {
	if c.turns == 0 {
		return math.NaN()
	}
	return 100 * float64(c.fa) / float64(c.turns)
}

// EvaluateMoments scores interventions against friction moments over sessions,
// resampling sessions (never events) for the bootstrap intervals.
func EvaluateMoments(sessions []MomentSession, window time.Duration, opts Options) *MomentReport {
	per := make([]SessionMoments, len(sessions))
	for i, s := range sessions {
		per[i] = s.Score(window)
	}
	return EvaluateSessionMoments(per, window, opts)
}

// EvaluateSessionMoments is [EvaluateMoments] over sessions already scored (window is
// the one they were scored with). The bootstrap resamples the sessions in the order
// given: the same sessions in the same order give the same intervals.
func EvaluateSessionMoments(sessions []SessionMoments, window time.Duration, opts Options) *MomentReport {
	var t MomentTally
	for i := range sessions {
		t.Add(&sessions[i])
	}
	return t.Report(window, opts)
}

// MomentTally gathers sessions' event-level scores one at a time for
// [MomentTally.Report], which is [EvaluateSessionMoments] of the sessions in the order
// added, without keeping the sessions: of each it keeps a 4-byte reference to its
// counts — sessions with the same counts share one copy of them, as they are
// interchangeable in a resample — and its delays (the report's distribution of them
// needs every one). The zero value is an empty tally ready to use.
type MomentTally struct {
	ids      []uint32               // each session's counts: an index into distinct
	distinct []momentCounts         // the counts of the sessions, each once
	index    map[momentCounts]int32 // distinct's index of counts
	total    momentCounts
	// Every caught moment's delays, in the order added.
	delaySeconds, delayEvents []float64
}

// Grow makes room for sessions more sessions and delays more caught moments, so that
// adding them allocates nothing but the distinct counts.
func (t *MomentTally) Grow(sessions, delays int) {
	if sessions > 0 {
		t.ids = slices.Grow(t.ids, sessions)
	}
	if delays > 0 {
		t.delaySeconds, t.delayEvents = slices.Grow(t.delaySeconds, delays), slices.Grow(t.delayEvents, delays)
	}
}

// Add adds a session's score; s is not kept.
func (t *MomentTally) Add(s *SessionMoments) {
	c := momentCounts{moments: s.Moments, caught: s.Caught, interventions: s.Interventions,
		tp: s.TruePositives, fa: s.FalseAlarms, turns: s.HumanTurns}
	id, ok := t.index[c]
	if !ok {
		if t.index == nil {
			t.index = map[momentCounts]int32{}
		}
		id = int32(len(t.distinct))
		t.index[c] = id
		t.distinct = append(t.distinct, c)
	}
	t.ids = append(t.ids, uint32(id))
	t.total.add(c)
	t.delaySeconds = append(t.delaySeconds, s.DelaySeconds...)
	t.delayEvents = append(t.delayEvents, s.DelayEvents...)
}

// Report evaluates the sessions added (window is the one they were scored with). The
// report takes the tally's delays: the tally is empty after it.
func (t *MomentTally) Report(window time.Duration, opts Options) *MomentReport {
	opts = opts.withDefaults()
	rep := &MomentReport{Window: window, Sessions: len(t.ids)}
	total := t.total
	if len(t.delaySeconds) > 0 {
		rep.DelaysSeconds = t.delaySeconds
	}
	delayEvents := t.delayEvents
	rep.Moments, rep.Caught, rep.Interventions = total.moments, total.caught, total.interventions
	rep.TruePositives, rep.FalseAlarms, rep.HumanTurns = total.tp, total.fa, total.turns
	rep.Precision, rep.Recall, rep.FalseAlarmsPer100 = undefined(), undefined(), undefined()
	rep.Precision.Value, rep.Recall.Value, rep.FalseAlarmsPer100.Value = total.precision(), total.recall(), total.faPer100()
	if opts.Resamples > 0 && len(t.ids) > 0 {
		// A resample draws sessions as rand.Rand.IntN does, counts how often each
		// distinct counts was drawn and sums them: integer sums, the same whatever the
		// order they are added in, so the same as adding the drawn sessions one by one.
		src := rand.NewPCG(opts.Seed, 0x6d6f6d656e7473) // "moments"
		ps, rs, fs := make([]float64, 0, opts.Resamples), make([]float64, 0, opts.Resamples), make([]float64, 0, opts.Resamples)
		drawn := make([]int, len(t.distinct))
		n := uint64(len(t.ids))
		for b := 0; b < opts.Resamples; b++ {
			if rep.Err = stopped(opts.Context); rep.Err != nil {
				*t = MomentTally{}
				return rep
			}
			clear(drawn)
			for range n {
				drawn[t.ids[intN(src, n)]]++ // rand.New(src).IntN(n), without the interface call
			}
			var c momentCounts
			for k, m := range drawn {
				c.addTimes(t.distinct[k], m)
			}
			if v := c.precision(); !math.IsNaN(v) {
				ps = append(ps, v)
			}
			if v := c.recall(); !math.IsNaN(v) {
				rs = append(rs, v)
			}
			if v := c.faPer100(); !math.IsNaN(v) {
				fs = append(fs, v)
			}
		}
		alpha := (1 - opts.Level) / 2
		interval := func(e *Estimate, xs []float64) {
			if math.IsNaN(e.Value) || !enoughResamples(len(xs), opts.Resamples) {
				return
			}
			sort.Float64s(xs)
			e.Low, e.High = stat.Quantile(alpha, stat.Empirical, xs, nil), stat.Quantile(1-alpha, stat.Empirical, xs, nil)
		}
		interval(&rep.Precision, ps)
		interval(&rep.Recall, rs)
		interval(&rep.FalseAlarmsPer100, fs)
	}
	*t = MomentTally{}
	rep.MedianDelaySeconds, rep.MeanDelaySeconds, rep.P90DelaySeconds, rep.MedianDelayEvents = math.NaN(), math.NaN(), math.NaN(), math.NaN()
	if len(rep.DelaysSeconds) > 0 {
		slices.Sort(rep.DelaysSeconds)
		slices.Sort(delayEvents)
		rep.MedianDelaySeconds = median(rep.DelaysSeconds)
		rep.MeanDelaySeconds = stat.Mean(rep.DelaysSeconds, nil)
		rep.P90DelaySeconds = stat.Quantile(0.9, stat.Empirical, rep.DelaysSeconds, nil)
		rep.MedianDelayEvents = median(delayEvents)
	}
	if rep.Moments == 0 {
		rep.Warnings = append(rep.Warnings, fmt.Errorf("no labelled friction moment: recall undefined"))
	}
	if rep.Interventions == 0 {
		rep.Warnings = append(rep.Warnings, fmt.Errorf("no intervention in the labelled sessions: precision undefined"))
	}
	if rep.HumanTurns == 0 {
		rep.Warnings = append(rep.Warnings, fmt.Errorf("no human turn in the labelled sessions: false alarms per 100 turns undefined"))
	}
	return rep
}

// median of sorted values: the middle one, or the mean of the middle two.
func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}
