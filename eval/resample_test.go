package eval

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"gonum.org/v1/gonum/stat"
)

// sameFloat is bitwise equality, NaN equal to NaN.
func sameFloat(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || (math.IsNaN(a) && math.IsNaN(b))
}

// diffReports lists the fields where two reports differ, comparing floats bit for bit.
func diffReports(got, want *Report) []string {
	var d []string
	if got.Options != want.Options {
		d = append(d, fmt.Sprintf("options %+v, want %+v", got.Options, want.Options))
	}
	if got.Confusion != want.Confusion || got.Runs != want.Runs || got.Scored != want.Scored || got.Positives != want.Positives ||
		got.Ambiguous != want.Ambiguous || got.Excluded != want.Excluded || got.Unlabelled != want.Unlabelled {
		d = append(d, fmt.Sprintf("counts %+v %d %d %d %d %d %d, want %+v %d %d %d %d %d %d",
			got.Confusion, got.Runs, got.Scored, got.Positives, got.Ambiguous, got.Excluded, got.Unlabelled,
			want.Confusion, want.Runs, want.Scored, want.Positives, want.Ambiguous, want.Excluded, want.Unlabelled))
	}
	for _, m := range []struct {
		name      string
		got, want Estimate
	}{
		{"precision", got.Precision, want.Precision}, {"recall", got.Recall, want.Recall}, {"f1", got.F1, want.F1},
		{"fbeta", got.FBeta, want.FBeta}, {"ap", got.AP, want.AP}, {"auc", got.AUC, want.AUC},
	} {
		g, w := m.got, m.want
		if !sameFloat(g.Value, w.Value) || !sameFloat(g.Low, w.Low) || !sameFloat(g.High, w.High) ||
			!sameFloat(g.JeffreysLow, w.JeffreysLow) || !sameFloat(g.JeffreysHigh, w.JeffreysHigh) {
			d = append(d, fmt.Sprintf("%s %+v, want %+v", m.name, g, w))
		}
	}
	if fmt.Sprint(got.Warnings) != fmt.Sprint(want.Warnings) {
		d = append(d, fmt.Sprintf("warnings %q, want %q", got.Warnings, want.Warnings))
	}
	return d
}

// randomObservations draws n observations: labels from the given mix, scores from
// one of several shapes (all distinct, a few levels with many ties, signed zeros and
// non-finite values mixed in).
func randomObservations(rng *rand.Rand, n int, labels []Label, shape string) []Observation {
	obs := make([]Observation, n)
	for i := range obs {
		label := labels[rng.IntN(len(labels))]
		score := rng.Float64()
		if label == Positive {
			score += 0.25
		}
		switch shape {
		case "levels":
			score = math.Round(score * 4)
		case "messy":
			switch rng.IntN(8) {
			case 0:
				score = math.NaN()
			case 1:
				score = math.Inf(1 - 2*rng.IntN(2))
			case 2:
				score = math.Copysign(0, float64(1-2*rng.IntN(2)))
			case 3:
				score = math.Round(score * 3)
			}
		}
		obs[i] = Observation{Key: fmt.Sprint(i), Label: label, Predicted: rng.IntN(3) == 0 || score > 0.9, Score: score}
	}
	return obs
}

// TestEvaluateMatchesReference: resampling counts gives bit for bit the report that
// resampling observations through gonum's ROC gave, for the same seed — point values,
// bootstrap and Jeffreys intervals, counts and warnings — over inputs of every shape.
func TestEvaluateMatchesReference(t *testing.T) {
	mixes := map[string][]Label{
		"both":          {Positive, Negative, Negative},
		"positives":     {Positive},
		"negatives":     {Negative},
		"some unscored": {Positive, Negative, Ambiguous, Excluded, Unlabelled},
		"rare positive": {Positive, Negative, Negative, Negative, Negative, Negative, Negative, Negative, Negative, Negative},
	}
	rng := rand.New(rand.NewPCG(13, 13))
	cases := 0
	for _, n := range []int{0, 1, 2, 3, 7, 29, 30, 120, 1000} {
		for mixName, mix := range mixes {
			for _, shape := range []string{"distinct", "levels", "messy"} {
				obs := randomObservations(rng, n, mix, shape)
				for _, opts := range []Options{
					{Seed: 1, Resamples: 200},
					{Seed: 99, Resamples: 37, Level: 0.8, Beta: 2},
					{Resamples: -1},
				} {
					if n >= 1000 && opts.Resamples != 200 {
						continue
					}
					cases++
					got, want := Evaluate(obs, opts), referenceEvaluate(obs, opts)
					for _, d := range diffReports(got, want) {
						t.Errorf("n=%d %s %s %+v: %s", n, mixName, shape, opts, d)
					}
				}
			}
		}
	}
	// The default: 2000 resamples.
	obs := benchObservations(500, false)
	for _, d := range diffReports(Evaluate(obs, Options{Seed: 5}), referenceEvaluate(obs, Options{Seed: 5})) {
		t.Errorf("default options: %s", d)
	}
	if cases < 300 {
		t.Fatalf("only %d cases compared", cases)
	}
}

// TestRankingFromCounts checks the counted AP and AUC against the definitions computed
// from scratch on a weighted sample — AP as Σ over distinct thresholds of the recall
// step times the precision, AUC as the probability that a positive outranks a negative
// (ties half) — so the counting is right on its own terms, not only equal to gonum's.
func TestRankingFromCounts(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 200 {
		obs := randomObservations(rng, 1+rng.IntN(60), []Label{Positive, Negative}, []string{"distinct", "levels"}[trial%2])
		u := scoredUnits(observationsOf(obs))
		tl := newTally(u)
		tl.resample(rand.NewPCG(uint64(trial), 1))
		ap, auc := tl.ranking()
		// The same sample as weights per observation: units with the same code (score
		// and cell) are interchangeable, so the first of them carries the code's count.
		weight := make([]float64, len(obs))
		counts := append([]int32(nil), tl.counts...)
		for i, c := range u.ids {
			weight[i], counts[c] = float64(counts[c]), 0
		}
		wantAP, wantAUC := weightedAPAUC(obs, weight)
		if math.Abs(ap-wantAP) > 1e-9 || !(math.Abs(auc-wantAUC) <= 1e-9 || math.IsNaN(auc) && math.IsNaN(wantAUC)) {
			t.Fatalf("trial %d: AP %v AUC %v, want %v %v", trial, ap, auc, wantAP, wantAUC)
		}
	}
}

// weightedAPAUC is the straightforward definition of AP and ROC AUC over weighted
// observations.
func weightedAPAUC(obs []Observation, w []float64) (ap, auc float64) {
	var pos, neg float64
	for i, o := range obs {
		if o.Label == Positive {
			pos += w[i]
		} else {
			neg += w[i]
		}
	}
	if pos == 0 {
		return math.NaN(), math.NaN()
	}
	seen := map[float64]bool{}
	prev := 0.0
	// Thresholds descending: each distinct score with weight.
	var thresholds []float64
	for i, o := range obs {
		if w[i] > 0 && !seen[o.Score] {
			seen[o.Score] = true
			thresholds = append(thresholds, o.Score)
		}
	}
	for len(thresholds) > 0 {
		hi := 0
		for k, s := range thresholds {
			if s > thresholds[hi] {
				hi = k
			}
		}
		th := thresholds[hi]
		thresholds = append(thresholds[:hi], thresholds[hi+1:]...)
		var tp, fp float64
		for i, o := range obs {
			if o.Score >= th {
				if o.Label == Positive {
					tp += w[i]
				} else {
					fp += w[i]
				}
			}
		}
		if r := tp / pos; r > prev {
			ap += (r - prev) * tp / (tp + fp)
			prev = r
		}
	}
	if neg == 0 {
		return ap, math.NaN()
	}
	var wins float64
	for i, p := range obs {
		for j, q := range obs {
			if p.Label == Positive && q.Label == Negative {
				switch {
				case p.Score > q.Score:
					wins += w[i] * w[j]
				case p.Score == q.Score:
					wins += w[i] * w[j] / 2
				}
			}
		}
	}
	return ap, wins / (pos * neg)
}

// TestIntNMatchesRand: intN draws what rand.Rand.IntN draws from the same source, for
// small, large, power-of-two and awkward bounds (where rejection happens).
func TestIntNMatchesRand(t *testing.T) {
	for _, n := range []uint64{1, 2, 3, 7, 8, 1000, 1 << 20, 100003, 1<<62 + 1, 3<<61 + 5, 1<<63 - 1} {
		a, b := rand.NewPCG(uint64(n), 9), rand.NewPCG(uint64(n), 9)
		r := rand.New(a)
		for i := range 10000 {
			if got, want := intN(b, n), uint64(r.IntN(int(n))); got != want {
				t.Fatalf("n=%d draw %d: %d, want %d", n, i, got, want)
			}
		}
	}
}

// TestMomentIntervalsMatchIntN: EvaluateMoments' bootstrap draws sessions as
// rand.Rand.IntN did — the intervals are those of resampling with it.
func TestMomentIntervalsMatchIntN(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var sessions []MomentSession
	for i := range 40 {
		s := MomentSession{Key: fmt.Sprint(i), HumanTurns: rng.IntN(20)}
		for range rng.IntN(4) {
			s.Moments = append(s.Moments, Point{Time: start.Add(time.Duration(rng.IntN(600)) * time.Second)})
		}
		for range rng.IntN(4) {
			s.Interventions = append(s.Interventions, Point{Time: start.Add(time.Duration(rng.IntN(600)) * time.Second)})
		}
		sessions = append(sessions, s)
	}
	opts := Options{Seed: 11, Resamples: 300}
	rep := EvaluateMoments(sessions, 2*time.Minute, opts)
	// The reference: the same resamples drawn with rand.Rand.IntN.
	opts = opts.withDefaults()
	ref := rand.New(rand.NewPCG(opts.Seed, 0x6d6f6d656e7473))
	var ps, rs, fs []float64
	for range opts.Resamples {
		var c momentCounts
		for range sessions {
			s := sessions[ref.IntN(len(sessions))]
			sc := ScoreSession(s, 2*time.Minute)
			c.add(momentCounts{moments: len(s.Moments), caught: sc.Caught, interventions: len(s.Interventions), tp: sc.TruePositives, fa: sc.FalseAlarms, turns: s.HumanTurns})
		}
		for _, x := range []struct {
			v  float64
			xs *[]float64
		}{{c.precision(), &ps}, {c.recall(), &rs}, {c.faPer100(), &fs}} {
			if !math.IsNaN(x.v) {
				*x.xs = append(*x.xs, x.v)
			}
		}
	}
	for _, m := range []struct {
		name string
		e    Estimate
		xs   []float64
	}{{"precision", rep.Precision, ps}, {"recall", rep.Recall, rs}, {"false alarms", rep.FalseAlarmsPer100, fs}} {
		slices.Sort(m.xs)
		lo, hi := stat.Quantile(0.025, stat.Empirical, m.xs, nil), stat.Quantile(0.975, stat.Empirical, m.xs, nil)
		if !sameFloat(m.e.Low, lo) || !sameFloat(m.e.High, hi) || math.IsNaN(lo) {
			t.Errorf("%s: [%v, %v], the reference [%v, %v]", m.name, m.e.Low, m.e.High, lo, hi)
		}
	}
}
