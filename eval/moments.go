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
// its labeller marked and the interventions a detector made, each in time order.
type MomentSession struct {
	Key           string
	Moments       []Point
	Interventions []Point
}

// MomentReport is the event-level evaluation of interventions against labelled
// friction moments. A moment is hit when an intervention follows it within the window
// (at or after the moment, at most Window later); an intervention is a true positive
// when it follows some moment within the window.
type MomentReport struct {
	Window        time.Duration
	Sessions      int
	Moments       int
	Interventions int
	Hits          int // moments hit
	TruePositives int // interventions within the window after a moment

	Precision, Recall Estimate // intervals by resampling sessions, and Jeffreys
	// Delays from each hit moment to the first intervention that hit it.
	MedianDelaySeconds, MeanDelaySeconds float64
	MedianDelayEvents                    float64

	Warnings []error
}

// EvaluateMoments scores interventions against friction moments over sessions,
// resampling sessions (never events) for the bootstrap intervals.
func EvaluateMoments(sessions []MomentSession, window time.Duration, opts Options) *MomentReport {
	opts = opts.withDefaults()
	rep := &MomentReport{Window: window, Sessions: len(sessions)}
	type counts struct{ moments, hits, interventions, tp int }
	per := make([]counts, len(sessions))
	var delays, delayEvents []float64
	for i, s := range sessions {
		c := &per[i]
		c.moments, c.interventions = len(s.Moments), len(s.Interventions)
		for _, m := range s.Moments {
			for _, iv := range s.Interventions {
				if d := iv.Time.Sub(m.Time); d >= 0 && d <= window {
					c.hits++
					delays = append(delays, d.Seconds())
					delayEvents = append(delayEvents, float64(iv.Index-m.Index))
					break
				}
			}
		}
		for _, iv := range s.Interventions {
			for _, m := range s.Moments {
				if d := iv.Time.Sub(m.Time); d >= 0 && d <= window {
					c.tp++
					break
				}
			}
		}
		rep.Moments += c.moments
		rep.Hits += c.hits
		rep.Interventions += c.interventions
		rep.TruePositives += c.tp
	}
	prec := func(cs []counts) float64 {
		var tp, n int
		for _, c := range cs {
			tp, n = tp+c.tp, n+c.interventions
		}
		return ratio(tp, n)
	}
	rec := func(cs []counts) float64 {
		var h, n int
		for _, c := range cs {
			h, n = h+c.hits, n+c.moments
		}
		return ratio(h, n)
	}
	rep.Precision, rep.Recall = undefined(), undefined()
	rep.Precision.Value, rep.Recall.Value = prec(per), rec(per)
	rep.Precision.JeffreysLow, rep.Precision.JeffreysHigh = jeffreys(rep.TruePositives, rep.Interventions, opts.Level)
	rep.Recall.JeffreysLow, rep.Recall.JeffreysHigh = jeffreys(rep.Hits, rep.Moments, opts.Level)
	if opts.Resamples > 0 && len(per) > 0 {
		rng := rand.New(rand.NewPCG(opts.Seed, 0x6d6f6d656e7473)) // "moments"
		sample := make([]counts, len(per))
		var ps, rs []float64
		for b := 0; b < opts.Resamples; b++ {
			for i := range sample {
				sample[i] = per[rng.IntN(len(per))]
			}
			if v := prec(sample); !math.IsNaN(v) {
				ps = append(ps, v)
			}
			if v := rec(sample); !math.IsNaN(v) {
				rs = append(rs, v)
			}
		}
		alpha := (1 - opts.Level) / 2
		interval := func(e *Estimate, xs []float64) {
			if math.IsNaN(e.Value) || len(xs) < opts.Resamples/2 {
				return
			}
			sort.Float64s(xs)
			e.Low, e.High = stat.Quantile(alpha, stat.Empirical, xs, nil), stat.Quantile(1-alpha, stat.Empirical, xs, nil)
		}
		interval(&rep.Precision, ps)
		interval(&rep.Recall, rs)
	}
	rep.MedianDelaySeconds, rep.MeanDelaySeconds, rep.MedianDelayEvents = math.NaN(), math.NaN(), math.NaN()
	if len(delays) > 0 {
		slices.Sort(delays)
		slices.Sort(delayEvents)
		rep.MedianDelaySeconds = median(delays)
		rep.MeanDelaySeconds = stat.Mean(delays, nil)
		rep.MedianDelayEvents = median(delayEvents)
	}
	if rep.Moments == 0 {
		rep.Warnings = append(rep.Warnings, fmt.Errorf("no labelled friction moment: recall undefined"))
	}
	if rep.Interventions == 0 {
		rep.Warnings = append(rep.Warnings, fmt.Errorf("no intervention in the labelled sessions: precision undefined"))
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
