package eval

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"gonum.org/v1/gonum/stat"
)

// StratifiedFolds deals units into k cross-validation folds: within each stratum
// (e.g. positive and negative units, or sessions with and without friction moments)
// the units, in key order, are shuffled with seed and dealt round-robin, each stratum
// continuing where the previous one stopped, so every fold gets its share of every
// stratum and fold sizes differ by at most one. The assignment depends only on the
// keys, the strata, k and seed — not on the order units are given in. It returns each
// unit's fold (aligned with keys) and warnings: a stratum with fewer units than folds
// leaves some folds without it.
func StratifiedFolds(keys []string, strata []int, k int, seed uint64) ([]int, []error, error) {
	if len(strata) != len(keys) {
		return nil, nil, fmt.Errorf("folds: %d keys but %d strata", len(keys), len(strata))
	}
	if k < 2 {
		return nil, nil, fmt.Errorf("folds: %d folds: need at least 2", k)
	}
	if k > len(keys) {
		return nil, nil, fmt.Errorf("folds: %d folds but only %d units", k, len(keys))
	}
	byStratum := map[int][]int{}
	for i, s := range strata {
		byStratum[s] = append(byStratum[s], i)
	}
	rng := rand.New(rand.NewPCG(seed, 0x666f6c6473)) // "folds"
	folds := make([]int, len(keys))
	var warnings []error
	next := 0
	for _, s := range slices.Sorted(maps.Keys(byStratum)) {
		units := byStratum[s]
		slices.SortFunc(units, func(a, b int) int { return cmp.Or(cmp.Compare(keys[a], keys[b]), cmp.Compare(a, b)) })
		rng.Shuffle(len(units), func(i, j int) { units[i], units[j] = units[j], units[i] })
		for _, u := range units {
			folds[u] = next
			next = (next + 1) % k
		}
		if len(units) < k {
			warnings = append(warnings, fmt.Errorf("folds: stratum %d has %d units for %d folds: some folds have none", s, len(units), k))
		}
	}
	return folds, warnings, nil
}

// GroupedStratifiedFolds deals units into k cross-validation folds keeping every
// group whole — the units of one group (sessions of one project, runs of one task) all
// in one fold, so that no fold is scored on units whose near twins it was chosen on —
// and the strata as even across folds as whole groups allow. Groups are taken in key
// order, shuffled with seed, the largest first (stable), and each goes to the fold
// where it leaves the strata most even — the least growth of the sum over folds and
// strata of each fold's squared share of the stratum —, then to the fold with the
// fewest units, then the lowest. The assignment depends only on the keys, groups, strata, k and seed. It fails
// with fewer groups than folds, and warns of a fold left without some stratum.
func GroupedStratifiedFolds(keys, groups []string, strata []int, k int, seed uint64) ([]int, []error, error) {
	if len(strata) != len(keys) || len(groups) != len(keys) {
		return nil, nil, fmt.Errorf("folds: %d keys, %d groups and %d strata", len(keys), len(groups), len(strata))
	}
	if k < 2 {
		return nil, nil, fmt.Errorf("folds: %d folds: need at least 2", k)
	}
	members := map[string][]int{}
	for i, g := range groups {
		members[g] = append(members[g], i)
	}
	if len(members) < k {
		return nil, nil, fmt.Errorf("folds: %d folds but only %d groups", k, len(members))
	}
	var levels []int // the strata, sorted
	total := map[int]int{}
	for _, s := range strata {
		if total[s] == 0 {
			levels = append(levels, s)
		}
		total[s]++
	}
	slices.Sort(levels)
	order := slices.Sorted(maps.Keys(members))
	rng := rand.New(rand.NewPCG(seed, 0x67726f757073)) // "groups"
	rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	slices.SortStableFunc(order, func(a, b string) int { return cmp.Compare(len(members[b]), len(members[a])) })
	count := make([]map[int]int, k) // per fold: units by stratum
	size := make([]int, k)
	for f := range count {
		count[f] = map[int]int{}
	}
	folds := make([]int, len(keys))
	for _, g := range order {
		has := map[int]int{}
		for _, u := range members[g] {
			has[strata[u]]++
		}
		best, bestCost := -1, math.Inf(1)
		for f := range k {
			// What the group adds to the sum over folds and strata of the squared
			// shares, less what it adds wherever it goes (its own square).
			cost := 0.0
			for _, s := range levels {
				cost += float64(count[f][s]) * float64(has[s]) / (float64(total[s]) * float64(total[s]))
			}
			if best < 0 || cost < bestCost-1e-12 || math.Abs(cost-bestCost) <= 1e-12 && size[f] < size[best] {
				best, bestCost = f, cost
			}
		}
		for _, u := range members[g] {
			folds[u] = best
		}
		for s, n := range has {
			count[best][s] += n
		}
		size[best] += len(members[g])
	}
	var warnings []error
	for f := range k {
		for _, s := range levels {
			if count[f][s] == 0 {
				warnings = append(warnings, fmt.Errorf("folds: fold %d holds no unit of stratum %d: its groups could not be spread further", f, s))
			}
		}
	}
	return folds, warnings, nil
}

// PairedDifference is the bootstrap estimate of the difference b − a between two
// figures computed on the same units — a tuned configuration's and the default's —
// resampling units (never events) with replacement, the same resample for both, so
// the interval reflects the difference itself rather than each figure's own noise.
type PairedDifference struct {
	A, B, Diff float64 // the figures on all units, and B − A
	// Low and High bound the percentile interval of the difference; NaN when fewer
	// than half the resamples defined it.
	Low, High float64
	// Resamples is how many resamples defined the difference.
	Resamples int
}

// IncludesZero reports whether the interval includes 0 (or is undefined): the two
// figures are then not distinguishable on these units.
func (d PairedDifference) IncludesZero() bool {
	return !(d.Low > 0 || d.High < 0)
}

// PairedBootstrap estimates the difference b − a of figures computed by figures on a
// multiset of unit indices in [0, n): first on every unit once, then on opts.Resamples
// resamples of n units drawn with replacement (seeded by opts.Seed). figures returns
// the two figures (a NaN where undefined) for the units it is given, which may repeat.
// It fails only with opts.Context's error, once the context is done.
func PairedBootstrap(n int, figures func(units []int) (a, b float64), opts Options) (PairedDifference, error) {
	ds, err := PairedBootstraps(n, 1, func(units []int, a, b []float64) { a[0], b[0] = figures(units) }, opts)
	if err != nil {
		return PairedDifference{}, err
	}
	return ds[0], nil
}

// PairedBootstraps is [PairedBootstrap] of k pairs of figures at once, all from the
// same resamples: figures fills a[j] and b[j], j < k, for the units it is given. Each
// difference is the one PairedBootstrap gives of its pair alone with the same opts,
// for the cost of one pass over the units a resample instead of k.
func PairedBootstraps(n, k int, figures func(units []int, a, b []float64), opts Options) ([]PairedDifference, error) {
	opts = opts.withDefaults()
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	a, b := make([]float64, k), make([]float64, k)
	figures(all, a, b)
	ds := make([]PairedDifference, k)
	for j := range ds {
		ds[j] = PairedDifference{A: a[j], B: b[j], Diff: b[j] - a[j], Low: math.NaN(), High: math.NaN()}
	}
	if opts.Resamples <= 0 || n == 0 {
		return ds, nil
	}
	rng := rand.New(rand.NewPCG(opts.Seed, 0x706169726564)) // "paired"
	diffs := make([][]float64, k)
	for j := range diffs {
		diffs[j] = make([]float64, 0, opts.Resamples)
	}
	units := make([]int, n)
	for range opts.Resamples {
		if err := stopped(opts.Context); err != nil {
			return nil, err
		}
		for i := range units {
			units[i] = rng.IntN(n)
		}
		figures(units, a, b)
		for j := range diffs {
			if !math.IsNaN(a[j]) && !math.IsNaN(b[j]) {
				diffs[j] = append(diffs[j], b[j]-a[j])
			}
		}
	}
	alpha := (1 - opts.Level) / 2
	for j := range ds {
		d := &ds[j]
		d.Resamples = len(diffs[j])
		if !enoughResamples(len(diffs[j]), opts.Resamples) || math.IsNaN(d.Diff) {
			continue
		}
		sort.Float64s(diffs[j])
		d.Low, d.High = stat.Quantile(alpha, stat.Empirical, diffs[j], nil), stat.Quantile(1-alpha, stat.Empirical, diffs[j], nil)
	}
	return ds, nil
}
