package eval

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Observation is one run's prediction and its label.
type Observation struct {
	Key       string
	Label     Label
	Predicted bool    // the detector flagged the run
	Score     float64 // the detector's ranking score for the run (higher = more positive); NaN if none
}

// Confusion holds the confusion counts over scored runs.
type Confusion struct {
	TP, FP, FN, TN int
}

// Add counts one scored observation.
func (c *Confusion) Add(actual, predicted bool) {
	switch {
	case actual && predicted:
		c.TP++
	case actual:
		c.FN++
	case predicted:
		c.FP++
	default:
		c.TN++
	}
}

// Total is the number of runs counted.
func (c Confusion) Total() int { return c.TP + c.FP + c.FN + c.TN }

// Precision is TP/(TP+FP); NaN when nothing was predicted positive.
func (c Confusion) Precision() float64 { return ratio(c.TP, c.TP+c.FP) }

// Recall is TP/(TP+FN); NaN when there is no positive run.
func (c Confusion) Recall() float64 { return ratio(c.TP, c.TP+c.FN) }

// F1 is the harmonic mean of precision and recall.
func (c Confusion) F1() float64 { return c.FBeta(1) }

// FBeta is (1+β²)·TP / ((1+β²)·TP + β²·FN + FP); NaN when there is no positive run
// (TP and FN zero): F-beta weighs recall, which is then undefined, and a detector's
// false positives alone do not make it 0 — else a detector that only raises false
// alarms would score a defined 0 where one that raises none scores nothing, and be
// preferred to it. With positives and nothing predicted it is 0.
func (c Confusion) FBeta(beta float64) float64 {
	if c.TP+c.FN == 0 {
		return math.NaN()
	}
	b2 := beta * beta
	num := (1 + b2) * float64(c.TP)
	return num / (num + b2*float64(c.FN) + float64(c.FP))
}

func ratio(a, b int) float64 {
	if b == 0 {
		return math.NaN()
	}
	return float64(a) / float64(b)
}

// Estimate is a metric's value with its confidence intervals. Every field is NaN when
// undefined.
type Estimate struct {
	Value float64
	// Low and High bound the bootstrap percentile interval from resampling runs.
	Low, High float64
	// JeffreysLow and JeffreysHigh bound the Jeffreys (Beta(x+½, n−x+½)) interval; they
	// are set for proportions (precision, recall) only.
	JeffreysLow, JeffreysHigh float64
}

func undefined() Estimate {
	nan := math.NaN()
	return Estimate{nan, nan, nan, nan, nan}
}

// Options configure an evaluation.
type Options struct {
	Beta      float64 // β of the F-beta score; ≤ 0 means 1
	Level     float64 // confidence level of the intervals; outside (0, 1) means 0.95
	Resamples int     // bootstrap resamples; 0 means 2000, < 0 disables the bootstrap
	Seed      uint64  // seed of the bootstrap's random source
	// Unit names what is scored, in warnings and summaries: "runs" (the default) or
	// "sessions".
	Unit string
	// Context, when set, is checked before every resample of a bootstrap: once it is
	// done the bootstrap stops and the evaluation fails with its error (a report's
	// Err; [PairedBootstraps]' error), its intervals undefined. A nil Context is never
	// done.
	Context context.Context
}

// MaxResamples is the most bootstrap resamples an evaluation is asked for (the
// commands' --resamples, the registry's eval.resamples). Past it an interval's
// endpoints move by less than the figures are printed to: the Monte Carlo error of a
// 2.5% quantile of B resamples is about √(0.025·0.975/B) in probability, 0.0005 at
// 100,000 — inside an interval as wide as the sampling noise of the units — while
// the bootstrap's time grows with B (2,000 resamples are 5–7% of a replay of 100k
// runs, docs/performance.md's ninth round: fifty times as many would add some 30–45 s
// to its 13 s, by extrapolation) and so does its memory (8 bytes
// a resample for each figure with an interval: 4.8 MB for a detector's six at
// 100,000, for each target scored at once).
const MaxResamples = 100_000

// stopped returns ctx's error once it is done; nil for a nil ctx.
func stopped(ctx context.Context) error {
	if ctx == nil {
		return nil
	}
	return ctx.Err()
}

func (o Options) withDefaults() Options {
	if !(o.Beta > 0) {
		o.Beta = 1
	}
	if !(o.Level > 0 && o.Level < 1) {
		o.Level = 0.95
	}
	if o.Resamples == 0 {
		o.Resamples = 2000
	}
	if o.Unit == "" {
		o.Unit = "runs"
	}
	return o
}

// Report is the evaluation of one detector over a set of runs.
type Report struct {
	Confusion
	Options Options // with defaults applied, without the Context

	Runs       int // every observation
	Scored     int // positive or negative
	Positives  int // scored runs labelled positive
	Ambiguous  int // left out
	Excluded   int // left out
	Unlabelled int // left out

	Precision, Recall, F1, FBeta Estimate
	// AP is the average precision of the ranking by Score (the step-wise sum
	// Σ (Rₙ − Rₙ₋₁)·Pₙ over score thresholds, as scikit-learn defines it), and AUC the
	// area under the ROC curve; both over scored runs with a finite score.
	AP, AUC Estimate

	// Warnings says which metrics are undefined on this data, and why.
	Warnings []error
	// Err is Options.Context's error when it ended the bootstrap: the report is then
	// incomplete (its intervals undefined) and must not be used.
	Err error
}

// LeftOut is the number of runs not scored.
func (r *Report) LeftOut() int { return r.Ambiguous + r.Excluded + r.Unlabelled }

// Evaluate scores observations. Only runs labelled positive or negative are scored;
// the others are counted. Intervals come from resampling runs with replacement
// (percentile bootstrap, seeded, so the same input gives the same intervals) and, for
// precision and recall, from the Jeffreys interval. Its cost is O(n log n) to rank the
// scores plus O(n + distinct scores) per resample, and it allocates O(n) once: a
// resample counts runs, it copies none.
func Evaluate(obs []Observation, opts Options) *Report { return evaluate(observationsOf(obs), opts) }

func evaluate(obs *Observations, opts Options) *Report {
	opts = opts.withDefaults()
	rep := &Report{Options: opts, Runs: obs.Len()}
	rep.Options.Context = nil // the report outlives the call
	for i := range obs.Len() {
		switch obs.label(i) {
		case obsPositive, obsNegative:
			rep.Scored++
		case obsAmbiguous:
			rep.Ambiguous++
		case obsExcluded:
			rep.Excluded++
		default:
			rep.Unlabelled++
		}
	}
	warn := func(format string, args ...any) { rep.Warnings = append(rep.Warnings, fmt.Errorf(format, args...)) }
	if rep.LeftOut() > 0 {
		warn("%d of %d %s left out of the metrics: %d ambiguous, %d excluded, %d unlabelled",
			rep.LeftOut(), rep.Runs, opts.Unit, rep.Ambiguous, rep.Excluded, rep.Unlabelled)
	}
	if rep.Scored == 0 {
		warn("none of the %s is labelled positive or negative: nothing to score", opts.Unit)
	}

	u := scoredUnits(obs)
	t := newTally(u)
	t.all()
	rep.Confusion = t.confusion()
	rep.Positives = rep.TP + rep.FN
	unranked := 0
	for _, c := range t.counts[:u.ranked] {
		unranked += int(c)
	}
	est := t.metrics(opts.Beta)
	var lows, highs [6]float64
	for i := range lows {
		lows[i], highs[i] = math.NaN(), math.NaN()
	}
	if opts.Resamples > 0 && rep.Scored > 0 {
		if lows, highs, rep.Err = bootstrap(t, opts); rep.Err != nil {
			return rep
		}
	}
	mk := func(i int) Estimate {
		e := undefined()
		e.Value, e.Low, e.High = est[i], lows[i], highs[i]
		if math.IsNaN(e.Value) {
			e.Low, e.High = math.NaN(), math.NaN()
		}
		return e
	}
	rep.Precision, rep.Recall, rep.F1, rep.FBeta, rep.AP, rep.AUC = mk(0), mk(1), mk(2), mk(3), mk(4), mk(5)
	rep.Precision.JeffreysLow, rep.Precision.JeffreysHigh = jeffreys(rep.TP, rep.TP+rep.FP, opts.Level)
	rep.Recall.JeffreysLow, rep.Recall.JeffreysHigh = jeffreys(rep.TP, rep.TP+rep.FN, opts.Level)

	if math.IsNaN(rep.Precision.Value) && rep.Scored > 0 {
		warn("precision undefined: none of the scored %s was predicted positive", opts.Unit)
	}
	if rep.Scored > 0 && rep.Positives == 0 {
		warn("recall, AP and ROC AUC undefined: none of the scored %s is labelled positive", opts.Unit)
	} else if rep.Scored > 0 && rep.Positives == rep.Scored {
		warn("ROC AUC undefined: none of the scored %s is labelled negative", opts.Unit)
	}
	if unranked > 0 {
		warn("%d scored %s have no finite score and are left out of AP and ROC AUC", unranked, opts.Unit)
	}
	if below := belowChance(rep, opts.Unit); below != "" {
		warn("%s", below)
	}
	if rep.Scored > 0 && rep.Scored < 30 {
		warn("only %d scored %s: intervals are wide and the bootstrap is coarse; prefer the Jeffreys interval for precision and recall", rep.Scored, opts.Unit)
	}
	return rep
}

// belowChance names the figures of rep that a detector without signal would match or
// beat — F1 under predicting every unit positive (2p / (1 + p) at the prevalence p),
// ROC AUC under 0.5, AP under the prevalence —, or "" when none is (or the figures or
// their chance levels are undefined: no positive or no negative scored).
func belowChance(rep *Report, unit string) string {
	if rep.Positives == 0 || rep.Positives == rep.Scored {
		return ""
	}
	p := float64(rep.Positives) / float64(rep.Scored)
	var below []string
	if f, always := rep.F1.Value, 2*p/(1+p); f < always-chanceSlack {
		below = append(below, fmt.Sprintf("F1 %.3f under %.3f, predicting every %s positive", f, always, strings.TrimSuffix(unit, "s")))
	}
	if a := rep.AUC.Value; a < 0.5-chanceSlack {
		below = append(below, fmt.Sprintf("ROC AUC %.3f under 0.5", a))
	}
	if ap := rep.AP.Value; ap < p-chanceSlack {
		below = append(below, fmt.Sprintf("AP %.3f under the prevalence %.3f", ap, p))
	}
	if len(below) == 0 {
		return ""
	}
	return "below chance on these " + unit + ": " + strings.Join(below, ", ")
}

// chanceSlack keeps a figure computed another way than its chance level (F1 from
// precision and recall) from reading as below it by a rounding.
const chanceSlack = 1e-9

// bootstrap returns percentile intervals of the six metrics over opts.Resamples
// resamples of t's units with replacement, each counted in t (see resample.go), or
// opts.Context's error once it is done.
func bootstrap(t *tally, opts Options) (lows, highs [6]float64, err error) {
	src := rand.NewPCG(opts.Seed, 0x6c6f6f7077617463) // "loopwatc"
	var samples [6][]float64
	for m := range samples {
		samples[m] = make([]float64, 0, opts.Resamples)
	}
	for b := 0; b < opts.Resamples; b++ {
		if err := stopped(opts.Context); err != nil {
			return lows, highs, err
		}
		t.resample(src)
		for m, v := range t.metrics(opts.Beta) {
			if !math.IsNaN(v) {
				samples[m] = append(samples[m], v)
			}
		}
	}
	alpha := (1 - opts.Level) / 2
	for m := range samples {
		lows[m], highs[m] = math.NaN(), math.NaN()
		if !enoughResamples(len(samples[m]), opts.Resamples) {
			continue
		}
		sort.Float64s(samples[m])
		lows[m] = stat.Quantile(alpha, stat.Empirical, samples[m], nil)
		highs[m] = stat.Quantile(1-alpha, stat.Empirical, samples[m], nil)
	}
	return lows, highs, nil
}

// enoughResamples reports whether a bootstrap interval can be drawn from the defined
// resamples of a metric out of all those made: the metric must be defined on at least
// one, and on half of them at least (rounded down) — with one or two resamples, on
// one. (Half of one, rounded down, is none: an interval of no resample is no interval,
// and the quantiles of none panic.)
func enoughResamples(defined, resamples int) bool {
	return defined > 0 && defined >= resamples/2
}

// jeffreys returns the equal-tailed Jeffreys interval of x successes in n trials.
func jeffreys(x, n int, level float64) (lo, hi float64) {
	if n == 0 {
		return math.NaN(), math.NaN()
	}
	b := distuv.Beta{Alpha: float64(x) + 0.5, Beta: float64(n-x) + 0.5}
	alpha := (1 - level) / 2
	lo, hi = b.Quantile(alpha), b.Quantile(1-alpha)
	if x == 0 {
		lo = 0
	}
	if x == n {
		hi = 1
	}
	return lo, hi
}
