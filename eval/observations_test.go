package eval

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// diffCurves lists where two curves differ, comparing floats bit for bit (a tie
// group's threshold −0 or +0 included).
func diffCurves(got, want Curve) []string {
	var d []string
	if got.Positives != want.Positives || got.Negatives != want.Negatives || len(got.Points) != len(want.Points) ||
		(got.Points == nil) != (want.Points == nil) {
		return append(d, fmt.Sprintf("%d/%d positives/negatives, %d points (nil %v), want %d/%d, %d (nil %v)", got.Positives, got.Negatives,
			len(got.Points), got.Points == nil, want.Positives, want.Negatives, len(want.Points), want.Points == nil))
	}
	for k, p := range got.Points {
		w := want.Points[k]
		if !sameFloat(p.Threshold, w.Threshold) || p.TP != w.TP || p.FP != w.FP || p.FN != w.FN || p.TN != w.TN ||
			!sameFloat(p.Precision, w.Precision) || !sameFloat(p.Recall, w.Recall) || !sameFloat(p.FPR, w.FPR) {
			d = append(d, fmt.Sprintf("point %d %+v, want %+v", k, p, w))
		}
	}
	return d
}

// TestObservationsMatchReference: observations added one at a time to Observations
// evaluate and rank exactly as the same slice of Observation did through the
// evaluation and the curves as they were (referenceEvaluate, refCurves) — bootstrap
// intervals for the same seed, thresholds to the sign of a zero — over inputs of
// every shape, added after Grow or without it.
func TestObservationsMatchReference(t *testing.T) {
	mixes := [][]Label{
		{Positive, Negative, Negative},
		{Positive},
		{Negative, Unlabelled},
		{Positive, Negative, Ambiguous, Excluded, Unlabelled, "bogus"},
	}
	rng := rand.New(rand.NewPCG(21, 22))
	cases := 0
	for _, n := range []int{0, 1, 2, 5, 31, 200, 3000} {
		for m, mix := range mixes {
			for _, shape := range []string{"distinct", "levels", "messy"} {
				obs := randomObservations(rng, n, mix, shape)
				var cols Observations
				if n%2 == 1 {
					cols.Grow(n)
				}
				for _, o := range obs {
					cols.Add(o.Label, o.Predicted, o.Score)
				}
				if cols.Len() != n {
					t.Fatalf("Len %d, want %d", cols.Len(), n)
				}
				opts := Options{Seed: uint64(n), Resamples: 150, Unit: "sessions"}
				for _, d := range diffReports(cols.Evaluate(opts), referenceEvaluate(obs, opts)) {
					t.Errorf("n=%d mix %d %s: Evaluate: %s", n, m, shape, d)
				}
				for _, d := range diffCurves(cols.Curves(), refCurves(obs)) {
					t.Errorf("n=%d mix %d %s: Curves: %s", n, m, shape, d)
				}
				for _, d := range diffCurves(Curves(obs), refCurves(obs)) {
					t.Errorf("n=%d mix %d %s: Curves of a slice: %s", n, m, shape, d)
				}
				cases++
			}
		}
	}
	if cases < 80 {
		t.Fatalf("only %d cases compared", cases)
	}
}

// randomSessionMoments draws n scored sessions with few distinct counts (as real ones
// have) or many, and delays with ties and signed zeros.
func randomSessionMoments(rng *rand.Rand, n int, spread int) []SessionMoments {
	out := make([]SessionMoments, n)
	for i := range out {
		s := SessionMoments{Key: fmt.Sprint(i), Moments: rng.IntN(4), Interventions: rng.IntN(4), HumanTurns: rng.IntN(spread)}
		s.Caught = rng.IntN(s.Moments + 1)
		s.TruePositives = min(s.Caught, s.Interventions)
		s.FalseAlarms = s.Interventions - s.TruePositives
		for range s.Caught {
			sec := math.Round(rng.Float64()*300) / 4
			if rng.IntN(10) == 0 {
				sec = math.Copysign(0, -1)
			}
			s.DelaySeconds = append(s.DelaySeconds, sec)
			s.DelayEvents = append(s.DelayEvents, float64(rng.IntN(6)))
		}
		out[i] = s
	}
	return out
}

// TestMomentTallyMatchesReference: a MomentTally gives bit for bit the report of the
// event-level evaluation as it was (refEvaluateSessionMoments), which kept every
// session's counts and resampled them one by one — for the same seed, with few
// distinct counts or nearly all distinct — and EvaluateSessionMoments, which now
// goes through it, does too.
func TestMomentTallyMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	for _, n := range []int{0, 1, 3, 40, 500, 4000} {
		for _, spread := range []int{1, 5, 1 << 20} {
			sessions := randomSessionMoments(rng, n, spread)
			for _, opts := range []Options{{Seed: 7, Resamples: 120}, {Seed: 8, Resamples: 33, Level: 0.8}, {Resamples: -1}} {
				var tally MomentTally
				tally.Grow(n, 2*n)
				for i := range sessions {
					tally.Add(&sessions[i])
				}
				want := refEvaluateSessionMoments(sessions, 5*time.Minute, opts)
				for name, got := range map[string]*MomentReport{"tally": tally.Report(5*time.Minute, opts),
					"EvaluateSessionMoments": EvaluateSessionMoments(sessions, 5*time.Minute, opts)} {
					if g, w := fmt.Sprintf("%+v", got), fmt.Sprintf("%+v", want); g != w {
						t.Errorf("n=%d spread %d %+v: %s\n%s\nwant\n%s", n, spread, opts, name, g, w)
					}
				}
				if tally.Report(time.Minute, Options{Resamples: -1}).Sessions != 0 {
					t.Errorf("the tally is not empty after its report")
				}
			}
		}
	}
}

// TestOutcomeTallyMatchesReference: an OutcomeTally gives bit for bit the report of
// the outcome evaluation as it was (refEvaluateOutcomes), which kept a bool a scored
// session, for the same seed — across more than one word of hits.
func TestOutcomeTallyMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	labels := append(OutcomeOrder(), "", "bogus")
	for _, n := range []int{0, 1, 63, 64, 65, 130, 2000} {
		preds := make([]OutcomePrediction, n)
		for i := range preds {
			conf := rng.Float64()
			if rng.IntN(5) == 0 {
				conf = math.NaN()
			}
			preds[i] = OutcomePrediction{Key: fmt.Sprint(i), Label: labels[rng.IntN(len(labels))], Predicted: labels[rng.IntN(len(labels))], Confidence: conf}
			if rng.IntN(2) == 0 {
				preds[i].Predicted = preds[i].Label
			}
		}
		for _, opts := range []Options{{Seed: 3, Resamples: 150}, {Seed: 4, Resamples: 41, Level: 0.9}, {Resamples: -1}} {
			var tally OutcomeTally
			for i := range preds {
				tally.Add(&preds[i])
			}
			want := fmt.Sprintf("%+v", refEvaluateOutcomes(preds, opts))
			if got := fmt.Sprintf("%+v", tally.Report(opts)); got != want {
				t.Errorf("n=%d %+v: tally\n%s\nwant\n%s", n, opts, got, want)
			}
			if got := fmt.Sprintf("%+v", EvaluateOutcomes(preds, opts)); got != want {
				t.Errorf("n=%d %+v: EvaluateOutcomes\n%s\nwant\n%s", n, opts, got, want)
			}
		}
	}
}
