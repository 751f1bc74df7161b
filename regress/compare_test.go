package regress

import (
	"math"
	"strings"
	"testing"

	"github.com/loopwatch/loopwatch/datasets/registry"
	"github.com/loopwatch/loopwatch/eval"
)

func TestJudge(t *testing.T) {
	nan := math.NaN()
	higher := registry.Metric{Name: "recall"}
	lower := registry.Metric{Name: "false_alarms_per_100_turns", LowerIsBetter: true}
	base := func(v, tol float64) *registry.Baseline { return &registry.Baseline{Value: v, Tolerance: tol} }
	boot := func(v, lo, hi float64) *Measurement {
		return &Measurement{Value: v, Interval: Interval{Kind: "bootstrap", Low: lo, High: hi}}
	}
	bare := func(v float64) *Measurement { return &Measurement{Value: v, Interval: Interval{Low: nan, High: nan}} }
	for _, tt := range []struct {
		name   string
		metric registry.Metric
		base   *registry.Baseline
		now    *Measurement
		want   Verdict
	}{
		{"unchanged", higher, base(0.8, 0.02), boot(0.8, 0.75, 0.85), OK},
		{"an F1 of 0 undefined now (no positive)", registry.Metric{Name: "f1"}, base(0, 0.02), bare(nan), Missing},
		{"drop within the tolerance", higher, base(0.8, 0.02), boot(0.79, 0.70, 0.78), OK},
		{"drop equal to the tolerance", higher, base(0.8, 0.02), boot(0.78, 0.70, 0.79), OK},
		{"drop beyond the tolerance, baseline outside the interval", higher, base(0.8, 0.02), boot(0.7, 0.65, 0.75), Regressed},
		{"drop beyond the tolerance, baseline inside the interval (noise)", higher, base(0.8, 0.02), boot(0.7, 0.5, 0.9), OK},
		{"drop beyond the tolerance, baseline on the interval's edge", higher, base(0.8, 0.02), boot(0.7, 0.6, 0.8), OK},
		{"drop beyond the tolerance, baseline just above the interval", higher, base(0.8, 0.02), boot(0.7, 0.6, 0.7999), Regressed},
		{"drop beyond the tolerance, no interval: the tolerance alone", higher, base(0.8, 0.02), bare(0.7), Regressed},
		{"drop within the tolerance, no interval", higher, base(0.8, 0.02), bare(0.785), OK},
		{"degenerate interval", higher, base(1, 0.02), boot(0.9, 0.9, 0.9), Regressed},
		{"zero tolerance: any drop outside the interval", higher, base(0.5, 0), boot(0.49, 0.45, 0.495), Regressed},
		{"zero tolerance: float noise is no drop", higher, base(0.3, 0), bare(0.1 + 0.2 - 1e-12), OK},
		{"rise beyond the tolerance", higher, base(0.5, 0.02), boot(0.7, 0.6, 0.8), Improved},
		{"rise beyond the tolerance inside the noise", higher, base(0.5, 0.02), boot(0.7, 0.4, 0.8), OK},
		{"false alarms up: bad", lower, base(2, 0.5), boot(4, 3, 5), Regressed},
		{"false alarms up within the tolerance", lower, base(2, 0.5), boot(2.4, 2.2, 2.6), OK},
		{"false alarms down: good", lower, base(2, 0.5), boot(0.5, 0, 1), Improved},
		{"false alarms up inside the noise", lower, base(2, 0.5), boot(4, 1, 7), OK},
		{"no baseline", higher, nil, boot(0.7, 0.6, 0.8), New},
		{"no baseline, undefined now", higher, nil, bare(nan), New},
		{"not measured", higher, base(0.8, 0.02), nil, Missing},
		{"undefined now", higher, base(0.8, 0.02), bare(nan), Missing},
		{"undefined at the baseline and now", higher, base(nan, 0.02), bare(nan), OK},
		{"defined now, undefined at the baseline", higher, base(nan, 0.02), boot(0.5, 0.4, 0.6), New},
		{"undefined baseline, not measured", higher, base(nan, 0.02), nil, Missing},
	} {
		got, note := Judge(tt.metric, tt.base, tt.now)
		if got != tt.want {
			t.Errorf("%s: %s (%s), want %s", tt.name, got, note, tt.want)
		}
	}
	// Why an F1 of 0 is undefined now, and what to do.
	if _, note := Judge(registry.Metric{Name: "f1"}, base(0, 0.02), bare(nan)); !strings.Contains(note, "F1 is undefined where recall is") {
		t.Errorf("an F1 of 0 undefined now: %q", note)
	}
	if _, note := Judge(higher, base(0, 0.02), bare(nan)); strings.Contains(note, "F1") {
		t.Errorf("a recall of 0 undefined now: %q", note)
	}
}

func TestVerdictFails(t *testing.T) {
	for v, fails := range map[Verdict]bool{OK: false, Improved: false, Regressed: true, New: false, Missing: true, Skipped: false} {
		if v.Fails() != fails {
			t.Errorf("%s fails: %v", v, v.Fails())
		}
	}
}

// TestMeasurement: the bootstrap interval when there is one, else Jeffreys, else none.
func TestMeasurement(t *testing.T) {
	nan := math.NaN()
	for _, tt := range []struct {
		name string
		e    eval.Estimate
		want Interval
	}{
		{"bootstrap", eval.Estimate{Value: 0.5, Low: 0.4, High: 0.6, JeffreysLow: 0.3, JeffreysHigh: 0.7}, Interval{"bootstrap", 0.4, 0.6}},
		{"bootstrap disabled", eval.Estimate{Value: 0.5, Low: nan, High: nan, JeffreysLow: 0.3, JeffreysHigh: 0.7}, Interval{"jeffreys", 0.3, 0.7}},
		{"no interval", eval.Estimate{Value: 0.5, Low: nan, High: nan, JeffreysLow: nan, JeffreysHigh: nan}, Interval{"", nan, nan}},
		{"half a bootstrap", eval.Estimate{Value: 0.5, Low: 0.4, High: nan, JeffreysLow: nan, JeffreysHigh: nan}, Interval{"", nan, nan}},
	} {
		m := measurement(tt.e, 10)
		if m.Interval.Kind != tt.want.Kind || m.Interval.Known() && (m.Interval.Low != tt.want.Low || m.Interval.High != tt.want.High) || m.N != 10 || m.Value != 0.5 {
			t.Errorf("%s: %+v, want %+v", tt.name, m.Interval, tt.want)
		}
	}
	if (Interval{Kind: "bootstrap", Low: 0, High: 1}).Contains(math.NaN()) {
		t.Error("an interval contains NaN")
	}
}

// TestRegistryResamplesBound: the registry refuses the resamples eval refuses.
func TestRegistryResamplesBound(t *testing.T) {
	if registry.MaxResamples != eval.MaxResamples {
		t.Errorf("registry.MaxResamples %d, eval.MaxResamples %d", registry.MaxResamples, eval.MaxResamples)
	}
}
