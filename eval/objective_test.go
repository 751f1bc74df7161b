package eval

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestParseObjective(t *testing.T) {
	tests := []struct {
		in, want, err string
	}{
		{in: "f1", want: "f1"},
		{in: " f1 ", want: "f1"},
		{in: "fbeta=2", want: "fbeta=2"},
		{in: "fbeta=1", want: "f1"},
		{in: "fbeta=0.5", want: "fbeta=0.5"},
		{in: "recall@precision>=0.5", want: "recall@precision>=0.5"},
		{in: "recall@false_alarms<=10", want: "recall@false_alarms<=10"},
		{in: "cost=1:5", want: "cost=1:5"},
		{in: "cost=0:1", want: "cost=0:1"},
		{in: "fbeta=0", err: "β must be > 0"},
		{in: "fbeta=-1", err: "β must be > 0"},
		{in: "fbeta=x", err: "not a number"},
		{in: "fbeta=NaN", err: "not a number"},
		{in: "recall@precision>=1.5", err: "in [0, 1]"},
		{in: "recall@false_alarms<=-1", err: "≥ 0"},
		{in: "cost=1", err: "cost=FP:FN"},
		{in: "cost=0:0", err: "not both 0"},
		{in: "cost=-1:2", err: "≥ 0"},
		{in: "accuracy", err: "unknown objective"},
		{in: "", err: "unknown objective"},
	}
	for _, tt := range tests {
		o, err := ParseObjective(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseObjective(%q) = %v, %v; want an error with %q", tt.in, o, err, tt.err)
			}
			continue
		}
		if err != nil || o.String() != tt.want {
			t.Errorf("ParseObjective(%q) = %v, %v; want %s", tt.in, o, err, tt.want)
		}
	}
}

func TestScores(t *testing.T) {
	c := Confusion{TP: 3, FP: 1, FN: 2, TN: 10}
	s := c.Score()
	if s.Precision != 0.75 || s.Recall != 0.6 || s.FP != 1 || s.FN != 2 || !math.IsNaN(s.FalseAlarmsPer100) {
		t.Errorf("Confusion.Score = %+v", s)
	}
	if got, want := s.FBeta(1), c.F1(); math.Abs(got-want) > 1e-12 {
		t.Errorf("FBeta(1) = %v, Confusion.F1 = %v", got, want)
	}
	a := AlarmCounts{Moments: 10, Caught: 6, Interventions: 8, TruePositives: 5, FalseAlarms: 3, HumanTurns: 60} // precision: caught over caught and false alarms
	as := a.Score()
	if as.Precision != 6.0/9 || as.Recall != 0.6 || as.FP != 3 || as.FN != 4 || as.FalseAlarmsPer100 != 5 {
		t.Errorf("AlarmCounts.Score = %+v", as)
	}
	var sum AlarmCounts
	sum.Add(a)
	sum.Add(a)
	sum.Sub(a)
	if sum != a {
		t.Errorf("Add, Add, Sub = %+v, want %+v", sum, a)
	}
	for _, c := range []Confusion{{}, {FN: 3}, {FP: 2}, {FP: 2, TN: 5}, {TP: 1}, {TP: 2, FP: 1, FN: 3}} {
		if got, want := c.Score().FBeta(2), c.FBeta(2); got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Errorf("%+v: Score.FBeta %v, Confusion.FBeta %v", c, got, want)
		}
	}
}

// TestScoreFBetaUndefined: F-beta is undefined whenever recall is (nothing to find),
// whatever was predicted — a score of false alarms alone is not a defined 0 that an
// objective would prefer to an undefined one.
func TestScoreFBetaUndefined(t *testing.T) {
	nan := math.NaN()
	for _, tt := range []struct {
		name string
		s    Score
		want float64
	}{
		{"no positive, false positives", Confusion{FP: 2, TN: 7}.Score(), nan},
		{"no positive, nothing predicted", Confusion{TN: 9}.Score(), nan},
		{"no moment, false alarms", AlarmCounts{Interventions: 3, FalseAlarms: 3, HumanTurns: 40}.Score(), nan},
		{"no moment, no intervention", AlarmCounts{HumanTurns: 40}.Score(), nan},
		{"moments, no intervention", AlarmCounts{Moments: 4}.Score(), 0},
		{"positives, nothing predicted", Confusion{FN: 2, TN: 7}.Score(), 0},
		{"positives, only false positives", Confusion{FN: 2, FP: 1}.Score(), 0},
		{"precision 0, recall undefined", Score{Precision: 0, Recall: nan}, nan},
		{"both defined", Score{Precision: 0.5, Recall: 0.5}, 0.5},
	} {
		if got := tt.s.FBeta(1); got != tt.want && !(math.IsNaN(got) && math.IsNaN(tt.want)) {
			t.Errorf("%s: F1 %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestObjectiveCompare(t *testing.T) {
	nan := math.NaN()
	sc := func(p, r float64, fp, fn int, fa float64) Score {
		return Score{Precision: p, Recall: r, FP: fp, FN: fn, FalseAlarmsPer100: fa}
	}
	tests := []struct {
		objective string
		a, b      Score
		want      int
	}{
		{"f1", sc(0.5, 0.5, 5, 5, nan), sc(0.9, 0.2, 1, 8, nan), -1},
		{"f1", sc(0.5, 0.5, 5, 5, nan), sc(0.5, 0.5, 5, 5, nan), 0},
		{"f1", sc(0.6, 0.5, 4, 5, nan), sc(0.5, 0.6, 6, 4, nan), -1}, // same F1: the higher precision
		{"f1", sc(nan, 0, 0, 5, nan), sc(0.1, 0.1, 9, 9, nan), 1},    // undefined last
		{"fbeta=2", sc(0.3, 0.9, 20, 1, nan), sc(0.9, 0.3, 1, 7, nan), -1},
		{"recall@precision>=0.5", sc(0.5, 0.4, 4, 6, nan), sc(0.4, 0.9, 9, 1, nan), -1}, // feasible first
		{"recall@precision>=0.5", sc(0.6, 0.4, 4, 6, nan), sc(0.9, 0.5, 1, 5, nan), 1},
		{"recall@precision>=0.5", sc(nan, 0, 0, 6, nan), sc(0.1, 0.5, 1, 5, nan), 1}, // neither feasible: recall
		{"recall@false_alarms<=5", sc(0.5, 0.4, 4, 6, 5), sc(0.5, 0.9, 9, 1, 5.1), -1},
		{"recall@false_alarms<=5", sc(0.5, 0.4, 4, 6, nan), sc(0.5, 0.3, 9, 1, 1), 1},
		{"cost=1:5", sc(0.5, 0.5, 10, 1, nan), sc(0.5, 0.5, 1, 3, nan), -1}, // 10·1 + 1·5 = 15 < 1·1 + 3·5 = 16
		// The same value: an undefined precision (nothing predicted) is not ranked below
		// precision 0 (only false positives): fewer false positives first.
		{"f1", sc(nan, 0, 0, 5, nan), sc(0, 0, 2, 5, nan), -1},
		{"f1", sc(nan, nan, 0, 0, nan), sc(0, nan, 2, 0, nan), -1}, // no positive: F1 undefined for both
		{"cost=1:1", sc(nan, 0, 0, 2, nan), sc(0.5, 0.5, 1, 1, nan), -1},
	}
	for _, tt := range tests {
		o, err := ParseObjective(tt.objective)
		if err != nil {
			t.Fatal(err)
		}
		if got := o.Compare(tt.a, tt.b); got != tt.want {
			t.Errorf("%s: Compare(%+v, %+v) = %d, want %d", tt.objective, tt.a, tt.b, got, tt.want)
		}
		if got := o.Compare(tt.b, tt.a); got != -tt.want {
			t.Errorf("%s: Compare is not antisymmetric on %+v, %+v", tt.objective, tt.a, tt.b)
		}
	}
}

func TestStratifiedFolds(t *testing.T) {
	var keys []string
	var strata []int
	for i := range 103 {
		keys = append(keys, fmt.Sprintf("k%03d", i))
		strata = append(strata, map[bool]int{true: 1, false: 0}[i%4 == 0])
	}
	folds, warns, err := StratifiedFolds(keys, strata, 5, 7)
	if err != nil || len(warns) > 0 {
		t.Fatal(err, warns)
	}
	size := make([]int, 5)
	pos := make([]int, 5)
	for i, f := range folds {
		size[f]++
		pos[f] += strata[i]
	}
	if slices.Max(size)-slices.Min(size) > 1 || slices.Max(pos)-slices.Min(pos) > 1 {
		t.Errorf("folds unbalanced: sizes %v, positives %v", size, pos)
	}
	// The order units are given in does not matter.
	rk, rs := slices.Clone(keys), slices.Clone(strata)
	slices.Reverse(rk)
	slices.Reverse(rs)
	rf, _, _ := StratifiedFolds(rk, rs, 5, 7)
	slices.Reverse(rf)
	if !slices.Equal(rf, folds) {
		t.Error("folds depend on the order of the units")
	}
	// Another seed deals them otherwise.
	other, _, _ := StratifiedFolds(keys, strata, 5, 8)
	if slices.Equal(other, folds) {
		t.Error("the seed does not change the folds")
	}
	if _, w, _ := StratifiedFolds(keys[:10], []int{1, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 3, 1); len(w) != 1 {
		t.Errorf("a stratum smaller than k: warnings %v", w)
	}
	for _, bad := range []struct {
		keys   []string
		strata []int
		k      int
	}{{keys, strata, 1}, {keys[:3], strata[:3], 4}, {keys, strata[:3], 2}} {
		if _, _, err := StratifiedFolds(bad.keys, bad.strata, bad.k, 1); err == nil {
			t.Errorf("StratifiedFolds(%d keys, %d strata, k=%d): no error", len(bad.keys), len(bad.strata), bad.k)
		}
	}
}

func TestPairedBootstrap(t *testing.T) {
	// Two detectors on 200 units: b is right on every unit a is right on, and on 30
	// more: the difference of accuracies is 0.15 and clearly above 0.
	n := 200
	aRight := make([]bool, n)
	bRight := make([]bool, n)
	for i := range n {
		aRight[i] = i%2 == 0
		bRight[i] = aRight[i] || i%20 < 6 && i%2 == 1
	}
	acc := func(right []bool, units []int) float64 {
		k := 0
		for _, u := range units {
			if right[u] {
				k++
			}
		}
		return float64(k) / float64(len(units))
	}
	fig := func(units []int) (float64, float64) { return acc(aRight, units), acc(bRight, units) }
	PairedBootstrap := func(n int, figures func([]int) (float64, float64), opts Options) PairedDifference {
		d, err := PairedBootstrap(n, figures, opts)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	d := PairedBootstrap(n, fig, Options{Seed: 3, Resamples: 1000})
	if math.Abs(d.Diff-0.15) > 1e-12 || d.A != 0.5 || d.IncludesZero() || !(d.Low > 0 && d.Low < 0.15 && d.High > 0.15) {
		t.Errorf("PairedBootstrap = %+v", d)
	}
	if again := PairedBootstrap(n, fig, Options{Seed: 3, Resamples: 1000}); again != d {
		t.Error("same seed, different interval")
	}
	// The same detector twice: the difference is 0 in every resample.
	same := PairedBootstrap(n, func(u []int) (float64, float64) { return acc(aRight, u), acc(aRight, u) }, Options{Seed: 3, Resamples: 200})
	if same.Diff != 0 || same.Low != 0 || same.High != 0 || !same.IncludesZero() {
		t.Errorf("a detector against itself: %+v", same)
	}
	// Undefined figures leave the interval undefined.
	undef := PairedBootstrap(n, func([]int) (float64, float64) { return math.NaN(), 1 }, Options{Seed: 3, Resamples: 100})
	if !math.IsNaN(undef.Low) || !undef.IncludesZero() {
		t.Errorf("undefined figures: %+v", undef)
	}
}

// TestPairedBootstraps holds each pair of figures computed together to the difference
// PairedBootstrap gives of that pair alone: a defined pair, one undefined in some
// resamples (a ratio whose denominator a resample can miss), one undefined always,
// one undefined on all units only.
func TestPairedBootstraps(t *testing.T) {
	n := 60
	count := func(units []int, f func(int) bool) float64 {
		k := 0
		for _, u := range units {
			if f(u) {
				k++
			}
		}
		return float64(k)
	}
	pairs := []func(units []int) (float64, float64){
		func(u []int) (float64, float64) {
			return count(u, func(i int) bool { return i%3 == 0 }) / float64(len(u)), count(u, func(i int) bool { return i%2 == 0 }) / float64(len(u))
		},
		func(u []int) (float64, float64) { // a rare unit as the denominator
			rare := count(u, func(i int) bool { return i < 2 })
			if rare == 0 {
				return math.NaN(), 0
			}
			return count(u, func(i int) bool { return i == 0 }) / rare, 0.5
		},
		func([]int) (float64, float64) { return math.NaN(), math.NaN() },
		func(u []int) (float64, float64) {
			if len(u) > 0 && slices.IsSorted(u) {
				return math.NaN(), 1 // every unit once: the figures on all units only
			}
			return 0, 1
		},
	}
	same := func(x, y float64) bool { return x == y || math.IsNaN(x) && math.IsNaN(y) }
	for _, opts := range []Options{{Seed: 5, Resamples: 400}, {Seed: 9, Resamples: 0}, {Seed: 1, Resamples: 50, Level: 0.8}} {
		got, err := PairedBootstraps(n, len(pairs), func(u []int, a, b []float64) {
			for j, f := range pairs {
				a[j], b[j] = f(u)
			}
		}, opts)
		if err != nil {
			t.Fatal(err)
		}
		for j, f := range pairs {
			w, err := PairedBootstrap(n, f, opts)
			if err != nil {
				t.Fatal(err)
			}
			g := got[j]
			if !same(g.A, w.A) || !same(g.B, w.B) || !same(g.Diff, w.Diff) || !same(g.Low, w.Low) || !same(g.High, w.High) || g.Resamples != w.Resamples {
				t.Errorf("%+v, pair %d: together %+v, alone %+v", opts, j, g, w)
			}
		}
		if opts.Resamples > 0 && (got[1].Resamples == opts.Resamples || got[1].Resamples == 0 || math.IsNaN(got[1].Low)) {
			t.Errorf("%+v: the rare denominator is not undefined in some resamples only: %+v", opts, got[1])
		}
	}
}

// FuzzParseObjective: any text parses to an objective that prints back as text that
// parses to the same objective, or is refused with an error.
func FuzzParseObjective(f *testing.F) {
	for _, s := range []string{"f1", "fbeta=2", "recall@precision>=0.5", "recall@false_alarms<=10", "cost=1:5", "cost=:", "fbeta=1e400"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		o, err := ParseObjective(s)
		if err != nil {
			return
		}
		again, err := ParseObjective(o.String())
		if err != nil || again != o {
			t.Fatalf("%q parses to %+v, printed %q, parsed back to %+v (%v)", s, o, o.String(), again, err)
		}
	})
}

func TestGroupedStratifiedFolds(t *testing.T) {
	// 103 units in 40 groups of 1 to 5 units; a quarter of the units positive.
	var keys, groups []string
	var strata []int
	for i := range 103 {
		keys = append(keys, fmt.Sprintf("k%03d", i))
		groups = append(groups, fmt.Sprintf("g%02d", (i*7)%40))
		strata = append(strata, map[bool]int{true: 1, false: 0}[i%4 == 0])
	}
	folds, warns, err := GroupedStratifiedFolds(keys, groups, strata, 5, 7)
	if err != nil || len(warns) > 0 {
		t.Fatal(err, warns)
	}
	fold := map[string]int{}
	size, pos := make([]int, 5), make([]int, 5)
	for i, f := range folds {
		if g, seen := fold[groups[i]]; seen && g != f {
			t.Fatalf("group %s split over folds %d and %d", groups[i], g, f)
		}
		fold[groups[i]] = f
		size[f]++
		pos[f] += strata[i]
	}
	if slices.Max(size)-slices.Min(size) > 6 || slices.Max(pos)-slices.Min(pos) > 3 {
		t.Errorf("folds unbalanced: sizes %v, positives %v", size, pos)
	}
	// One unit a group: as even as ungrouped folds.
	folds, _, _ = GroupedStratifiedFolds(keys, keys, strata, 5, 7)
	size, pos = make([]int, 5), make([]int, 5)
	for i, f := range folds {
		size[f]++
		pos[f] += strata[i]
	}
	if slices.Max(size)-slices.Min(size) > 1 || slices.Max(pos)-slices.Min(pos) > 1 {
		t.Errorf("one unit a group, folds unbalanced: sizes %v, positives %v", size, pos)
	}
	// The order units are given in does not matter; the seed does.
	a, _, _ := GroupedStratifiedFolds(keys, groups, strata, 5, 7)
	rk, rg, rs := slices.Clone(keys), slices.Clone(groups), slices.Clone(strata)
	slices.Reverse(rk)
	slices.Reverse(rg)
	slices.Reverse(rs)
	rf, _, _ := GroupedStratifiedFolds(rk, rg, rs, 5, 7)
	slices.Reverse(rf)
	if !slices.Equal(rf, a) {
		t.Error("folds depend on the order of the units")
	}
	if b, _, _ := GroupedStratifiedFolds(keys, groups, strata, 5, 8); slices.Equal(a, b) {
		t.Error("the seed does not change the folds")
	}
	// All positives in one group: the other folds have none, and say so.
	one := slices.Clone(groups)
	for i := range one {
		if strata[i] == 1 {
			one[i] = "positives"
		}
	}
	if _, w, err := GroupedStratifiedFolds(keys, one, strata, 5, 7); err != nil || len(w) != 4 {
		t.Errorf("every positive in one group: warnings %v, %v", w, err)
	}
	for _, bad := range []struct {
		groups []string
		k      int
	}{{groups, 1}, {slices.Repeat([]string{"a", "b", "c"}, 35)[:103], 4}, {groups[:3], 2}} {
		if _, _, err := GroupedStratifiedFolds(keys, bad.groups, strata, bad.k, 1); err == nil {
			t.Errorf("%d groups, k=%d: no error", len(bad.groups), bad.k)
		}
	}
}
