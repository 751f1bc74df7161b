package synth

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Files renders runs as trace files: file name → JSONL content, runs sharing a file in
// generation order.
func Files(runs []Run) map[string][]byte {
	files := map[string]*bytes.Buffer{}
	for _, r := range runs {
		buf := files[r.File]
		if buf == nil {
			buf = &bytes.Buffer{}
			files[r.File] = buf
		}
		enc := json.NewEncoder(buf)
		enc.SetEscapeHTML(false)
		for _, ev := range r.Events {
			if err := enc.Encode(ev); err != nil {
				panic(fmt.Sprintf("synth: encoding a generated event: %v", err)) // generated values always encode
			}
		}
	}
	out := make(map[string][]byte, len(files))
	for name, buf := range files {
		out[name] = buf.Bytes()
	}
	return out
}

// Labels renders the runs' ground truth as a labels CSV (run_key, label, outcome,
// label_source, rule), sorted by run key.
func Labels(runs []Run) []byte {
	labels := make([]runLabel, len(runs))
	for i, r := range runs {
		labels[i] = labelOf(r)
	}
	return runLabelsCSV(labels)
}

// runLabel is what a run's label row needs of it.
type runLabel struct {
	key      string
	scenario Scenario
	outcome  string
}

func labelOf(r Run) runLabel { return runLabel{key: r.Key, scenario: r.Scenario, outcome: r.Outcome()} }

// runLabelsCSV renders labels as Labels does; it sorts them in place.
func runLabelsCSV(labels []runLabel) []byte {
	var buf bytes.Buffer
	writeRunLabels(&buf, labels)
	return buf.Bytes()
}

// writeRunLabels writes labels as Labels renders them; it sorts them in place.
func writeRunLabels(out io.Writer, labels []runLabel) error {
	slices.SortStableFunc(labels, func(a, b runLabel) int { return strings.Compare(a.key, b.key) })
	w := csv.NewWriter(out)
	w.Write(runLabelHeader)
	for _, r := range labels {
		w.Write(r.row())
	}
	w.Flush()
	return w.Error()
}

var runLabelHeader = []string{"run_key", "label", "outcome", "label_source", "rule"}

// row is the label's row of the labels file.
func (r runLabel) row() []string {
	label := "negative"
	if r.scenario.Struggling() {
		label = "positive"
	}
	return []string{r.key, label, r.outcome, "derived", "synthetic ground truth: scenario " + string(r.scenario)}
}

// SamplePlan is the scenario list of loopwatch's built-in sample: every scenario at
// least twice, with two re-runs of a task in a second epoch.
var SamplePlan = []Scenario{
	Converge1, Converge2, SlowProgress, FilterFlake, FilterRepeat, RepeatFindings, BudgetBurn, Stuck,
	Converge1, SlowProgress, FilterFlake, Converge2, FilterRepeat, RepeatFindings, BudgetBurn, Converge1,
}

// SampleConfig is the configuration that generates the built-in sample.
func SampleConfig() Config {
	return Config{Seed: 20260302, Plan: SamplePlan, RerunEvery: 8}
}
