package benchcmp

import (
	"encoding/json"
	"flag"
	"strings"
	"testing"
	"time"

	"github.com/loopwatch/loopwatch/internal/golden"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// variant makes a variant whose i-th sample took wall[i] seconds, cpu[i] seconds of
// CPU (user 90%, system 10%) and rss[i] MiB.
func variant(name string, wall, cpu, rss []float64) Variant {
	v := Variant{Name: name, Command: name + " --in x"}
	for i := range wall {
		c := time.Duration(cpu[i] * float64(time.Second))
		v.Samples = append(v.Samples, Measurement{
			Wall: time.Duration(wall[i] * float64(time.Second)), User: c * 9 / 10, System: c - c*9/10,
			MaxRSS: int64(rss[i] * (1 << 20)),
		})
	}
	return v
}

func TestCompare(t *testing.T) {
	old := variant("old", []float64{10, 12, 11}, []float64{9, 9, 9}, []float64{100, 100, 104})
	neu := variant("new", []float64{5, 7, 5.5}, []float64{4.5, 4.5, 4.5}, []float64{50, 51, 52}) // rss ratios 0.5, 0.51, 0.5
	c, err := Compare("new/old", old, neu)
	if err != nil {
		t.Fatal(err)
	}
	// Wall ratios 0.5, 0.583, 0.5: median 0.5 — not 5.5/11, the ratio of the medians.
	if c.Wall.Median != 0.5 || c.Wall.High != 7.0/12 || c.Wall.Pairs != 3 || c.BaseWall != 11 || c.OtherWall != 5.5 {
		t.Errorf("wall: %+v, medians %v %v", c.Wall, c.BaseWall, c.OtherWall)
	}
	if c.CPU.Median != 0.5 || c.RSS.Median != 0.5 || c.RSS.High != 0.51 || c.BaseRSS != 100<<20 || c.OtherRSS != 51<<20 {
		t.Errorf("cpu %+v rss %+v, medians %v %v", c.CPU, c.RSS, c.BaseRSS, c.OtherRSS)
	}
	short := variant("new", []float64{5}, []float64{4}, []float64{50})
	if _, err := Compare("new/old", old, short); err == nil || !strings.Contains(err.Error(), "3 base values but 1 others") {
		t.Errorf("unequal repetitions: %v", err)
	}
	// Cores: cpu/wall per sample, median — old 0.9, 0.75, 0.818; new 0.9, 0.643, 0.818.
	if c.BaseCores != 9.0/11 || c.OtherCores != 4.5/5.5 {
		t.Errorf("cores: %v %v", c.BaseCores, c.OtherCores)
	}
	if c.Floor.Pairs != 0 || c.Floor.String() != "—" {
		t.Errorf("a floor that was not set: %+v", c.Floor)
	}
	// The floor on 2 cores: new's CPU halved over old's wall — 2.25/10, 2.25/12, 2.25/11.
	if err := c.SetFloor(old, neu, 2); err != nil || c.Floor.Median != 2.25/11 || c.Floor.Low != 2.25/12 || c.Floor.High != 2.25/10 {
		t.Errorf("floor: %+v, %v", c.Floor, err)
	}
	if err := c.SetFloor(old, neu, 0); err == nil {
		t.Error("a floor on 0 cores")
	}
	if err := c.SetFloor(old, short, 2); err == nil {
		t.Error("a floor over unequal repetitions")
	}
	noRSS := variant("new", []float64{5, 7, 5.5}, []float64{4.5, 4.5, 4.5}, []float64{0, 0, 0})
	if c, err := Compare("x", noRSS, noRSS); err != nil || c.RSS.Pairs != 0 || c.RSS.String() != "—" {
		t.Errorf("no RSS reported: %+v, %v", c.RSS, err)
	}
}

// testReport is a report of two workloads, one with a comparison the other lacks.
func testReport(t *testing.T) *Report {
	t.Helper()
	must := func(c Comparison, err error) Comparison {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	oldA := variant("old", []float64{0.5, 0.45, 0.52, 0.48, 0.5}, []float64{0.4, 0.38, 0.41, 0.4, 0.39}, []float64{40, 41, 40, 40, 42})
	newA := variant("new", []float64{0.3, 0.33, 0.31, 0.29, 0.3}, []float64{0.25, 0.26, 0.24, 0.25, 0.25}, []float64{38, 38, 39, 38, 38})
	jsonA := variant("json.Valid", []float64{0.01, 0.011, 0.012, 0.01, 0.01}, []float64{0.009, 0.01, 0.01, 0.009, 0.009}, []float64{10, 10, 10, 10, 10})
	oldB := variant("old", []float64{120, 118, 125, 121, 119}, []float64{100, 101, 99, 100, 100}, []float64{900, 910, 905, 900, 902})
	newB := variant("new", []float64{61, 60, 64, 59, 62}, []float64{50, 50, 51, 49, 50}, []float64{200, 201, 199, 200, 200})
	a := Workload{Name: "sample", About: "the built-in sample", Variants: []Variant{oldA, newA, jsonA}}
	a.Comparisons = []Comparison{must(Compare("new/old", oldA, newA)), must(Compare("anchor", jsonA, newA))}
	a.Comparisons[0].Outputs = "identical"
	b := Workload{Name: "runs-10k", About: "10000 synthetic runs", Variants: []Variant{oldB, newB}}
	w1B := variant("new-w1", []float64{100, 98, 104, 101, 99}, []float64{90, 89, 92, 90, 91}, []float64{190, 190, 191, 190, 190})
	b.Variants = append(b.Variants, w1B)
	b.Comparisons = []Comparison{must(Compare("new/old", oldB, newB)), must(Compare("workers", w1B, newB))}
	b.Comparisons[0].Outputs = "differ: results.metrics.parquet"
	if err := b.Comparisons[1].SetFloor(w1B, newB, 2); err != nil {
		t.Fatal(err)
	}
	return &Report{
		Title:     "bench-compare: test",
		Setup:     []string{"old: abc", "new: def"},
		Notices:   []string{"workload corpus skipped: not here"},
		Workloads: []Workload{a, b},
		Tables: []Table{
			{Comparison: "new/old", Caption: "New against old"},
			{Comparison: "workers", Caption: "New with --workers 2 against --workers 1"},
			{Comparison: "cpu", Caption: "No workload has this: left out"},
			{Comparison: "anchor", Caption: "New against json.Valid"},
		},
	}
}

func TestReportText(t *testing.T) {
	var b strings.Builder
	if err := testReport(t).WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "left out") {
		t.Error("a table no workload has is printed")
	}
	golden.Check(t, "testdata/report.txt", []byte(b.String()), *update)
}

func TestReportMarkdown(t *testing.T) {
	var b strings.Builder
	if err := testReport(t).WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/report.md", []byte(b.String()), *update)
}

func TestReportJSON(t *testing.T) {
	var b strings.Builder
	if err := testReport(t).WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Workloads []struct {
			Name     string
			Variants []struct {
				Samples []struct {
					Wall   int64 `json:"wall_ns"`
					MaxRSS int64 `json:"max_rss_bytes"`
				}
			}
			Comparisons []struct {
				Name      string
				BaseWall  float64 `json:"base_wall_s"`
				WallRatio Ratio   `json:"wall_ratio"`
				Outputs   string
			}
		}
	}
	if err := json.Unmarshal([]byte(b.String()), &back); err != nil {
		t.Fatal(err)
	}
	w := back.Workloads[1]
	if w.Name != "runs-10k" || len(w.Variants[0].Samples) != 5 || w.Variants[0].Samples[0].Wall != 120e9 ||
		w.Variants[1].Samples[0].MaxRSS != 200<<20 {
		t.Errorf("workload %+v", w)
	}
	c := w.Comparisons[0]
	if c.Name != "new/old" || c.BaseWall != 120 || c.WallRatio.Pairs != 5 || c.WallRatio.Level != 0.9375 || c.Outputs != "differ: results.metrics.parquet" {
		t.Errorf("comparison %+v", c)
	}
}

func TestFormat(t *testing.T) {
	for _, tt := range []struct{ got, want string }{
		{Seconds(0.0123), "0.012 s"}, {Seconds(1.234), "1.23 s"}, {Seconds(12.34), "12.3 s"},
		{Seconds(754.4), "754 s"}, {Seconds(nan()), "—"},
		{Bytes(0), "—"}, {Bytes(2048), "2 KiB"}, {Bytes(3 << 20), "3 MiB"}, {Bytes(1.5 * (1 << 30)), "1536 MiB"},
		{Percent(0.9375), "94%"},
	} {
		if tt.got != tt.want {
			t.Errorf("%q, want %q", tt.got, tt.want)
		}
	}
}

func nan() float64 { var z float64; return z / z }
