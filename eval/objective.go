package eval

import (
	"cmp"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Score is what an [Objective] reads of one configuration's predictions on a set of
// units: the precision and recall of a per-unit detector (a [Confusion]) or of
// interventions against friction moments ([AlarmCounts]), its false positives and
// misses, and — for interventions only — false alarms per 100 human turns.
type Score struct {
	Precision, Recall float64 // NaN when undefined
	// FP counts false positives (false alarms) and FN misses (positive units, or
	// friction moments, not caught).
	FP, FN int
	// FalseAlarmsPer100 is false alarms per 100 human turns; NaN for a per-unit
	// detector, where there are no turns.
	FalseAlarmsPer100 float64
}

// Score returns the confusion's score.
func (c Confusion) Score() Score {
	return Score{Precision: c.Precision(), Recall: c.Recall(), FP: c.FP, FN: c.FN, FalseAlarmsPer100: math.NaN()}
}

// AlarmCounts are the event-level counts of interventions against labelled friction
// moments over some sessions, by the definitions of [SessionScore]; they add.
type AlarmCounts struct {
	Moments, Caught     int // labelled moments, and those caught
	Interventions       int
	TruePositives       int // interventions that were first to catch a moment
	FalseAlarms         int // every other intervention
	HumanTurns          int
	DelaySecondsSum     float64 // over caught moments
	SessionsWithMoments int
}

// Counts returns the counts of one scored session with its moments, interventions
// and human turns.
func (sc SessionScore) Counts(moments, interventions, humanTurns int) AlarmCounts {
	a := AlarmCounts{Moments: moments, Caught: sc.Caught, Interventions: interventions, TruePositives: sc.TruePositives,
		FalseAlarms: sc.FalseAlarms, HumanTurns: humanTurns}
	for _, d := range sc.DelaySeconds {
		a.DelaySecondsSum += d
	}
	if moments > 0 {
		a.SessionsWithMoments = 1
	}
	return a
}

// Add adds o's counts.
func (a *AlarmCounts) Add(o AlarmCounts) {
	a.Moments += o.Moments
	a.Caught += o.Caught
	a.Interventions += o.Interventions
	a.TruePositives += o.TruePositives
	a.FalseAlarms += o.FalseAlarms
	a.HumanTurns += o.HumanTurns
	a.DelaySecondsSum += o.DelaySecondsSum
	a.SessionsWithMoments += o.SessionsWithMoments
}

// Sub subtracts o's counts (the complement of a fold in the whole).
func (a *AlarmCounts) Sub(o AlarmCounts) {
	a.Moments -= o.Moments
	a.Caught -= o.Caught
	a.Interventions -= o.Interventions
	a.TruePositives -= o.TruePositives
	a.FalseAlarms -= o.FalseAlarms
	a.HumanTurns -= o.HumanTurns
	a.DelaySecondsSum -= o.DelaySecondsSum
	a.SessionsWithMoments -= o.SessionsWithMoments
}

// Precision is caught moments over caught moments and false alarms: of what the
// interventions did — each moment caught, each false alarm — the share that caught
// friction. An intervention that catches a burst counts once for each of its moments,
// as the interventions that would have caught them one by one would; an intervention
// that catches nothing new is a false alarm. See [SessionScore].
func (a AlarmCounts) Precision() float64 { return ratio(a.Caught, a.Caught+a.FalseAlarms) }

// Recall is caught moments over moments.
func (a AlarmCounts) Recall() float64 { return ratio(a.Caught, a.Moments) }

// FalseAlarmsPer100 is false alarms per 100 human turns.
func (a AlarmCounts) FalseAlarmsPer100() float64 {
	if a.HumanTurns == 0 {
		return math.NaN()
	}
	return 100 * float64(a.FalseAlarms) / float64(a.HumanTurns)
}

// MeanDelaySeconds is the mean delay from a caught moment to the intervention that
// caught it.
func (a AlarmCounts) MeanDelaySeconds() float64 {
	if a.Caught == 0 {
		return math.NaN()
	}
	return a.DelaySecondsSum / float64(a.Caught)
}

// Score returns the counts' score: a false alarm is a false positive, a moment not
// caught a miss.
func (a AlarmCounts) Score() Score {
	return Score{Precision: a.Precision(), Recall: a.Recall(), FP: a.FalseAlarms, FN: a.Moments - a.Caught,
		FalseAlarmsPer100: a.FalseAlarmsPer100()}
}

// FBeta is the F-beta score of precision and recall, as [Confusion.FBeta] has it:
// NaN when recall is undefined (nothing to find), whatever the precision — false
// alarms with nothing to find do not make it 0; 0 when recall is 0 (positives to find,
// none found), the precision 0 or undefined; NaN when precision is undefined and
// recall is not 0 (no counts give that).
func (s Score) FBeta(beta float64) float64 {
	p, r := s.Precision, s.Recall
	switch {
	case math.IsNaN(r):
		return math.NaN()
	case r == 0 || p == 0:
		return 0
	case math.IsNaN(p):
		return math.NaN()
	}
	b2 := beta * beta
	return (1 + b2) * p * r / (b2*p + r)
}

// ObjectiveKind names how a configuration is chosen.
type ObjectiveKind string

// The objectives.
const (
	// ObjectiveFBeta maximises F-beta (F1 by default).
	ObjectiveFBeta ObjectiveKind = "fbeta"
	// ObjectiveRecallAtPrecision maximises recall among configurations whose
	// precision is at least MinPrecision.
	ObjectiveRecallAtPrecision ObjectiveKind = "recall@precision"
	// ObjectiveRecallAtFalseAlarms maximises recall among configurations with at most
	// MaxFalseAlarms false alarms per 100 human turns (interventions only).
	ObjectiveRecallAtFalseAlarms ObjectiveKind = "recall@false_alarms"
	// ObjectiveCost minimises CostFP·FP + CostFN·FN.
	ObjectiveCost ObjectiveKind = "cost"
)

// Objective is how tuning chooses among configurations on the units it may look at.
// Parse one with [ParseObjective].
type Objective struct {
	Kind           ObjectiveKind
	Beta           float64 // fbeta
	MinPrecision   float64 // recall@precision
	MaxFalseAlarms float64 // recall@false_alarms, per 100 human turns
	CostFP, CostFN float64 // cost
}

// ParseObjective reads an objective: "f1", "fbeta=B" (B > 0), "recall@precision>=P"
// (P in [0, 1]), "recall@false_alarms<=R" (R ≥ 0, per 100 human turns) or
// "cost=FP:FN" (the costs of a false positive and of a miss, ≥ 0, not both 0).
func ParseObjective(s string) (Objective, error) {
	num := func(v, what string) (float64, error) {
		x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return 0, fmt.Errorf("objective %q: %s %q is not a number", s, what, v)
		}
		return x, nil
	}
	t := strings.TrimSpace(s)
	switch {
	case t == "f1":
		return Objective{Kind: ObjectiveFBeta, Beta: 1}, nil
	case strings.HasPrefix(t, "fbeta="):
		b, err := num(strings.TrimPrefix(t, "fbeta="), "β")
		if err != nil {
			return Objective{}, err
		}
		if !(b > 0) {
			return Objective{}, fmt.Errorf("objective %q: β must be > 0", s)
		}
		return Objective{Kind: ObjectiveFBeta, Beta: b}, nil
	case strings.HasPrefix(t, "recall@precision>="):
		p, err := num(strings.TrimPrefix(t, "recall@precision>="), "precision")
		if err != nil {
			return Objective{}, err
		}
		if p < 0 || p > 1 {
			return Objective{}, fmt.Errorf("objective %q: precision must be in [0, 1]", s)
		}
		return Objective{Kind: ObjectiveRecallAtPrecision, MinPrecision: p}, nil
	case strings.HasPrefix(t, "recall@false_alarms<="):
		r, err := num(strings.TrimPrefix(t, "recall@false_alarms<="), "false alarms per 100 human turns")
		if err != nil {
			return Objective{}, err
		}
		if r < 0 {
			return Objective{}, fmt.Errorf("objective %q: false alarms per 100 human turns must be ≥ 0", s)
		}
		return Objective{Kind: ObjectiveRecallAtFalseAlarms, MaxFalseAlarms: r}, nil
	case strings.HasPrefix(t, "cost="):
		fp, fn, ok := strings.Cut(strings.TrimPrefix(t, "cost="), ":")
		if !ok {
			return Objective{}, fmt.Errorf("objective %q: give the costs as cost=FP:FN (e.g. cost=1:5)", s)
		}
		cfp, err := num(fp, "false-positive cost")
		if err != nil {
			return Objective{}, err
		}
		cfn, err := num(fn, "miss cost")
		if err != nil {
			return Objective{}, err
		}
		if cfp < 0 || cfn < 0 || cfp+cfn == 0 {
			return Objective{}, fmt.Errorf("objective %q: costs must be ≥ 0 and not both 0", s)
		}
		return Objective{Kind: ObjectiveCost, CostFP: cfp, CostFN: cfn}, nil
	}
	return Objective{}, fmt.Errorf("unknown objective %q (objectives: f1, fbeta=B, recall@precision>=P, recall@false_alarms<=R, cost=FP:FN)", s)
}

// String returns the objective as ParseObjective reads it.
func (o Objective) String() string {
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	switch o.Kind {
	case ObjectiveFBeta:
		if o.Beta == 1 {
			return "f1"
		}
		return "fbeta=" + f(o.Beta)
	case ObjectiveRecallAtPrecision:
		return "recall@precision>=" + f(o.MinPrecision)
	case ObjectiveRecallAtFalseAlarms:
		return "recall@false_alarms<=" + f(o.MaxFalseAlarms)
	case ObjectiveCost:
		return "cost=" + f(o.CostFP) + ":" + f(o.CostFN)
	}
	return string(o.Kind)
}

// Metric names what Value measures: "f1", "fbeta", "recall" or "cost".
func (o Objective) Metric() string {
	switch o.Kind {
	case ObjectiveFBeta:
		if o.Beta == 1 {
			return "f1"
		}
		return "fbeta"
	case ObjectiveCost:
		return "cost"
	}
	return "recall"
}

// NeedsTurns reports whether the objective reads false alarms per 100 human turns,
// which only interventions against friction moments have.
func (o Objective) NeedsTurns() bool { return o.Kind == ObjectiveRecallAtFalseAlarms }

// Feasible reports whether s meets the objective's constraint: always for an
// unconstrained objective; for a constrained one the constrained figure must be
// defined and within its bound.
func (o Objective) Feasible(s Score) bool {
	switch o.Kind {
	case ObjectiveRecallAtPrecision:
		return s.Precision >= o.MinPrecision // false for NaN
	case ObjectiveRecallAtFalseAlarms:
		return s.FalseAlarmsPer100 <= o.MaxFalseAlarms // false for NaN
	}
	return true
}

// Value is the objective's figure on s — F-beta, recall, or the cost — as it is
// reported: for cost, lower is better; for the others, higher. NaN when undefined.
func (o Objective) Value(s Score) float64 {
	switch o.Kind {
	case ObjectiveFBeta:
		return s.FBeta(o.Beta)
	case ObjectiveCost:
		return o.CostFP*float64(s.FP) + o.CostFN*float64(s.FN)
	}
	return s.Recall
}

// HigherIsBetter reports the direction of Value.
func (o Objective) HigherIsBetter() bool { return o.Kind != ObjectiveCost }

// Compare orders a before b (−1) when the objective prefers a: a feasible score
// before an infeasible one; then the better value (an undefined value last); then,
// when both precisions are defined, the higher precision; then fewer false positives.
// An undefined precision (nothing predicted) is not ranked below a defined one: it
// would put a score with only false positives (precision 0) before one with none. 0
// means the objective cannot tell them apart (tuning then keeps the earlier
// configuration, the default first).
func (o Objective) Compare(a, b Score) int {
	if fa, fb := o.Feasible(a), o.Feasible(b); fa != fb {
		if fa {
			return -1
		}
		return 1
	}
	if c := o.compareValue(o.Value(a), o.Value(b)); c != 0 {
		return c
	}
	if !math.IsNaN(a.Precision) && !math.IsNaN(b.Precision) {
		if c := compareHigher(a.Precision, b.Precision); c != 0 {
			return c
		}
	}
	return cmp.Compare(a.FP, b.FP)
}

func (o Objective) compareValue(a, b float64) int {
	if o.HigherIsBetter() {
		return compareHigher(a, b)
	}
	return -compareHigher(a, b)
}

// compareHigher orders the higher value first, NaN last.
func compareHigher(a, b float64) int {
	switch an, bn := math.IsNaN(a), math.IsNaN(b); {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	}
	return -cmp.Compare(a, b)
}
