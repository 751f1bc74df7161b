package benchcmp

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestMedian(t *testing.T) {
	tests := []struct {
		xs   []float64
		want float64
	}{
		{nil, math.NaN()},
		{[]float64{3}, 3},
		{[]float64{3, 1}, 2},
		{[]float64{5, 1, 3}, 3},
		{[]float64{4, 1, 3, 2}, 2.5},
	}
	for _, tt := range tests {
		in := slices.Clone(tt.xs)
		got := Median(in)
		if !(got == tt.want || math.IsNaN(got) && math.IsNaN(tt.want)) {
			t.Errorf("Median(%v) = %v, want %v", tt.xs, got, tt.want)
		}
		if !slices.Equal(in, tt.xs) {
			t.Errorf("Median(%v) reordered its input to %v", tt.xs, in)
		}
	}
}

func TestSignCoverage(t *testing.T) {
	// 1 − 2·P(Bin(n, ½) ≤ k−1), from the binomial table.
	tests := []struct {
		n, k int
		want float64
	}{
		{1, 1, 0}, {2, 1, 0.5}, {3, 1, 0.75}, {5, 1, 0.9375}, {6, 1, 0.96875},
		{6, 2, 1 - 2*7.0/64}, {10, 2, 1 - 2*11.0/1024}, {10, 3, 1 - 2*56.0/1024},
	}
	for _, tt := range tests {
		if got := signCoverage(tt.n, tt.k); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("signCoverage(%d, %d) = %v, want %v", tt.n, tt.k, got, tt.want)
		}
	}
}

func TestPairedRatio(t *testing.T) {
	tests := []struct {
		name        string
		base, other []float64
		want        Ratio
		err         string
	}{
		{name: "one pair", base: []float64{2}, other: []float64{1},
			want: Ratio{Median: 0.5, Low: 0.5, High: 0.5, Level: 0, Pairs: 1}},
		{name: "pairs, not medians: ratios 0.5 0.5 2", base: []float64{10, 2, 1}, other: []float64{5, 1, 2},
			want: Ratio{Median: 0.5, Low: 0.5, High: 2, Level: 0.75, Pairs: 3}},
		{name: "five pairs: the range at 94%", base: []float64{1, 1, 1, 1, 1}, other: []float64{0.9, 0.7, 0.8, 1.1, 0.6},
			want: Ratio{Median: 0.8, Low: 0.6, High: 1.1, Level: 0.9375, Pairs: 5}},
		{name: "ten pairs: the second from each end at 98%", base: []float64{1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
			other: []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0},
			want:  Ratio{Median: 0.55, Low: 0.2, High: 0.9, Level: 1 - 2*11.0/1024, Pairs: 10}},
		{name: "unequal", base: []float64{1, 2}, other: []float64{1}, err: "2 base values but 1 others"},
		{name: "empty", err: "no pairs"},
		{name: "zero base", base: []float64{0}, other: []float64{1}, err: "pair 0 is 1 / 0"},
		{name: "NaN", base: []float64{1}, other: []float64{math.NaN()}, err: "pair 0 is NaN / 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := PairedRatio(tt.base, tt.other)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one saying %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(got.Median-tt.want.Median) > 1e-12 || got.Low != tt.want.Low || got.High != tt.want.High ||
				math.Abs(got.Level-tt.want.Level) > 1e-12 || got.Pairs != tt.want.Pairs {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestRatioString(t *testing.T) {
	for _, tt := range []struct {
		r    Ratio
		want string
	}{
		{Ratio{}, "—"},
		{Ratio{Median: 0.625, Low: 0.5, High: 0.75, Pairs: 3}, "0.62 [0.50, 0.75]"},
		{Ratio{Median: 12.34, Low: 9.87, High: 15, Pairs: 3}, "12.3 [9.9, 15.0]"},
	} {
		if got := tt.r.String(); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.r, got, tt.want)
		}
	}
}

// render writes a schedule as letters: "AB|BA" for two variants and two repetitions.
func render(s []Slot) string {
	var b strings.Builder
	rep := s[0].Rep
	for _, slot := range s {
		if slot.Rep != rep {
			b.WriteByte('|')
			rep = slot.Rep
		}
		c := byte('A' + slot.Variant)
		if slot.Warmup {
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	return b.String()
}

func TestSchedule(t *testing.T) {
	tests := []struct {
		variants, reps, warmups int
		want                    string
	}{
		{1, 3, 1, "a|A|A|A"},
		{2, 4, 0, "AB|BA|AB|BA"},
		{2, 2, 1, "ab|AB|BA"},
		{3, 3, 0, "ABC|CBA|ABC"},
		{4, 3, 0, "ABCD|CDBA|DABC"},
		{5, 4, 1, "abcde|ABCDE|CDEBA|DEABC|EBACD"},
	}
	for _, tt := range tests {
		got := render(Schedule(tt.variants, tt.reps, tt.warmups))
		if got != tt.want {
			t.Errorf("Schedule(%d, %d, %d) = %s, want %s", tt.variants, tt.reps, tt.warmups, got, tt.want)
		}
	}
	// Whatever the size: each variant once per repetition, the pair adjacent.
	for variants := 2; variants <= 6; variants++ {
		s := Schedule(variants, 7, 0)
		for r := range 7 {
			var order []int
			for _, slot := range s {
				if slot.Rep == r {
					order = append(order, slot.Variant)
				}
			}
			if len(order) != variants || len(slices.Compact(slices.Sorted(slices.Values(order)))) != variants {
				t.Fatalf("%d variants, rep %d: %v", variants, r, order)
			}
			a, b := slices.Index(order, 0), slices.Index(order, 1)
			if d := a - b; d != 1 && d != -1 {
				t.Errorf("%d variants, rep %d: the pair is apart: %v", variants, r, order)
			}
			if (a < b) != (r%2 == 0) {
				t.Errorf("%d variants, rep %d: the pair's order does not alternate: %v", variants, r, order)
			}
		}
	}
}

func ExampleSchedule() {
	for _, s := range Schedule(3, 2, 0) {
		fmt.Print(s.Rep, ":", s.Variant, " ")
	}
	// Output: 0:0 0:1 0:2 1:2 1:1 1:0
}
