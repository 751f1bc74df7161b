package regress

import (
	"fmt"
	"math"

	"github.com/loopwatch/loopwatch/datasets/registry"
)

// Rule is the regression rule, as the reports state it.
const Rule = "a metric regresses when it moves in its bad direction by more than its tolerance AND the baseline lies " +
	"outside the new interval (the bootstrap interval; the Jeffreys interval for precision and recall when the bootstrap " +
	"gives none; the tolerance alone when there is no interval). It improves on the same terms in the good direction. " +
	"Bad directions: precision, recall, F1, average precision, ROC AUC, accuracy, balanced accuracy and macro F1 down; " +
	"false alarms per 100 turns and the Brier score up; and for the counts the figures rest on, with no tolerance unless one " +
	"is set: runs, sessions, units scored and friction moments down, problems (as --strict counts them) up."

// Verdict is what the comparison of one metric with its baseline concludes.
type Verdict string

// The verdicts. Regressed and Missing fail a run.
const (
	OK        Verdict = "ok"        // within the tolerance or inside the noise (or undefined, as at the baseline)
	Improved  Verdict = "improved"  // better beyond the tolerance and the noise
	Regressed Verdict = "regressed" // worse beyond the tolerance and the noise
	New       Verdict = "new"       // measured, with no baseline (or a baseline recorded as undefined)
	Missing   Verdict = "missing"   // a baseline that nothing measures now: the detector produced no figure, the metric is undefined, or the replay failed
	Skipped   Verdict = "skipped"   // the dataset is not on this machine
)

// Fails reports whether the verdict fails a regression run.
func (v Verdict) Fails() bool { return v == Regressed || v == Missing }

// Interval is the interval a measurement carries: Kind is "bootstrap", "jeffreys"
// or "" (none).
type Interval struct {
	Kind      string
	Low, High float64
}

// Known reports whether the interval has both bounds.
func (iv Interval) Known() bool {
	return iv.Kind != "" && !math.IsNaN(iv.Low) && !math.IsNaN(iv.High)
}

// Contains reports whether v lies in the closed interval.
func (iv Interval) Contains(v float64) bool { return iv.Known() && iv.Low <= v && v <= iv.High }

func (iv Interval) String() string {
	if !iv.Known() {
		return "—"
	}
	return fmt.Sprintf("[%.3f, %.3f] %s", iv.Low, iv.High, iv.Kind)
}

// Measurement is one metric as measured now: its value (NaN when undefined on the
// data), its interval, and N, the units behind it (scored runs or sessions, or
// friction moments).
type Measurement struct {
	Value    float64
	Interval Interval
	N        int
}

// epsilon absorbs float noise in "beyond the tolerance": a delta that equals the
// tolerance is within it.
const epsilon = 1e-9

// Judge compares a measurement with its baseline by [Rule]. A nil baseline means
// none is recorded; a nil measurement means nothing measured the metric now.
func Judge(m registry.Metric, base *registry.Baseline, now *Measurement) (Verdict, string) {
	switch {
	case base == nil && now == nil:
		return Missing, "neither recorded nor measured"
	case base == nil:
		return New, "no baseline yet: record it with --update-baseline"
	case now == nil:
		return Missing, "not measured"
	}
	bu, nu := math.IsNaN(base.Value), math.IsNaN(now.Value)
	switch {
	case bu && nu:
		return OK, "undefined, as at the baseline"
	case bu:
		return New, "defined now, undefined at the baseline: record it with --update-baseline"
	case nu && base.Value == 0 && m.Name == "f1":
		return Missing, "undefined now, 0 at the baseline: F1 is undefined where recall is (no positive to find), where loopwatch before 2026-11-30 counted false positives alone as 0 — " +
			"if the labels did not change, record it again with --update-baseline"
	case nu:
		return Missing, "undefined now (e.g. precision when the detector never fires)"
	}
	worse := base.Value - now.Value // how much worse it got, in the metric's bad direction
	if m.LowerIsBetter {
		worse = -worse
	}
	noise := now.Interval.Contains(base.Value)
	switch {
	case worse > base.Tolerance+epsilon && noise:
		return OK, "worse beyond the tolerance, but the baseline is inside the interval (noise)"
	case worse > base.Tolerance+epsilon && m.Scale == registry.Count:
		return Regressed, "input or labels changed: what the figures rest on moved in its bad direction (see the replay's problems)"
	case worse > base.Tolerance+epsilon:
		return Regressed, regressNote(now.Interval)
	case -worse > base.Tolerance+epsilon && noise:
		return OK, "better beyond the tolerance, but the baseline is inside the interval (noise)"
	case -worse > base.Tolerance+epsilon && m.Scale == registry.Count:
		return Improved, "changed in the good direction: record it with --update-baseline if the input was meant to change"
	case -worse > base.Tolerance+epsilon:
		return Improved, "better beyond the tolerance: record it with --update-baseline"
	}
	return OK, ""
}

func regressNote(iv Interval) string {
	if !iv.Known() {
		return "worse beyond the tolerance (no interval to check the noise against)"
	}
	return "worse beyond the tolerance, and the baseline is outside the " + iv.Kind + " interval"
}
