package benchcmp

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// Median is the middle value of xs (the mean of the middle two for an even count);
// NaN when xs is empty. xs is not modified.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Sorted(slices.Values(xs))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Ratio summarises paired ratios other_i / base_i: their median and a
// distribution-free confidence interval for it.
type Ratio struct {
	Median float64 `json:"median"`
	// Low and High are order statistics of the sorted ratios, r₍ₖ₎ and r₍ₙ₊₁₋ₖ₎, with
	// k the largest whose coverage of the median is at least 95% (the sign test's
	// interval); with fewer than 6 pairs no k reaches 95% and the interval is the
	// range, min to max. Level is the interval's exact coverage, 1 − 2·P(Bin(n, ½) < k):
	// 0.9375 for 5 pairs, 0.75 for 3, 0 for 1.
	Low   float64 `json:"low"`
	High  float64 `json:"high"`
	Level float64 `json:"level"`
	Pairs int     `json:"pairs"`
}

// String renders the ratio as "0.62 [0.58, 0.70]".
func (r Ratio) String() string {
	if r.Pairs == 0 {
		return "—"
	}
	f := "%.2f"
	if r.High >= 10 {
		f = "%.1f"
	}
	return fmt.Sprintf(f+" ["+f+", "+f+"]", r.Median, r.Low, r.High)
}

// PairedRatio summarises other[i]/base[i] over the pairs. The slices must have the
// same, non-zero length, and every base value must be positive.
func PairedRatio(base, other []float64) (Ratio, error) {
	if len(base) != len(other) {
		return Ratio{}, fmt.Errorf("paired ratio: %d base values but %d others", len(base), len(other))
	}
	if len(base) == 0 {
		return Ratio{}, errors.New("paired ratio: no pairs")
	}
	r := make([]float64, len(base))
	for i := range base {
		if !(base[i] > 0) || math.IsInf(base[i], 0) || math.IsNaN(other[i]) || math.IsInf(other[i], 0) {
			return Ratio{}, fmt.Errorf("paired ratio: pair %d is %v / %v", i, other[i], base[i])
		}
		r[i] = other[i] / base[i]
	}
	slices.Sort(r)
	n := len(r)
	k, level := 1, signCoverage(n, 1)
	for k+1 <= n/2 && signCoverage(n, k+1) >= 0.95 {
		k++
		level = signCoverage(n, k)
	}
	return Ratio{Median: Median(r), Low: r[k-1], High: r[n-k], Level: level, Pairs: n}, nil
}

// signCoverage is the probability that [r₍ₖ₎, r₍ₙ₊₁₋ₖ₎] holds the median of n
// independent ratios: 1 − 2·P(Bin(n, ½) ≤ k−1).
func signCoverage(n, k int) float64 {
	tail, c := 0.0, 1.0 // c = C(n, j)
	for j := 0; j < k; j++ {
		if j > 0 {
			c = c * float64(n-j+1) / float64(j)
		}
		tail += c
	}
	return math.Max(0, 1-2*tail/math.Exp2(float64(n)))
}

// Slot is one run of a schedule: which variant, in which repetition, and whether it
// is a warm-up (run, checked, not counted).
type Slot struct {
	Rep     int // 0-based; warm-ups are rep −1
	Variant int
	Warmup  bool
}

// Schedule lays out warmups warm-up runs of each variant, then reps repetitions in
// which every variant runs once. The first two variants — the pair compared first —
// always run next to each other, their order alternating (A B, B A, A B, …), so each
// of their pairs is measured close together and a drift in the machine's load falls
// on both alike. The pair, as one block, and the other variants rotate by one
// position every repetition: with three variants A B C, C B A, A B C, …; with four
// A B C D, C D B A, D A B C, ….
func Schedule(variants, reps, warmups int) []Slot {
	var s []Slot
	for w := 0; w < warmups; w++ {
		for v := range variants {
			s = append(s, Slot{Rep: -1, Variant: v, Warmup: true})
		}
	}
	if variants < 2 {
		for r := 0; r < reps; r++ {
			for v := range variants {
				s = append(s, Slot{Rep: r, Variant: v})
			}
		}
		return s
	}
	blocks := variants - 1 // the pair, then each other variant
	for r := 0; r < reps; r++ {
		for i := range blocks {
			b := (i + r) % blocks
			if b > 0 {
				s = append(s, Slot{Rep: r, Variant: b + 1})
				continue
			}
			first, second := 0, 1
			if r%2 == 1 {
				first, second = 1, 0
			}
			s = append(s, Slot{Rep: r, Variant: first}, Slot{Rep: r, Variant: second})
		}
	}
	return s
}
