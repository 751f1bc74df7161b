package datasets

import (
	"bytes"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/loopwatch/loopwatch/datasets/synth"
)

var update = flag.Bool("update", false, "rewrite the committed sample from the generator")

// TestSampleIsGenerated checks that the committed sample is exactly what the generator
// writes, so the sample, its labels and the generator cannot drift apart.
func TestSampleIsGenerated(t *testing.T) {
	runs := synth.Generate(synth.SampleConfig())
	files := synth.Files(runs)
	labels := synth.Labels(runs)
	if *update {
		os.RemoveAll("sample")
		os.MkdirAll(filepath.Join("sample", "runs"), 0o755)
		for name, b := range files {
			os.WriteFile(filepath.Join("sample", "runs", name), b, 0o644)
		}
		os.WriteFile(filepath.Join("sample", "labels.csv"), labels, 0o644)
		t.Log("sample rewritten; rebuild to embed it")
		return
	}
	got := map[string][]byte{}
	fs.WalkDir(Sample(), ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			got[p], _ = fs.ReadFile(Sample(), p)
		}
		return nil
	})
	if len(got) != len(files) {
		t.Errorf("sample has %d files, the generator writes %d (run: go test ./datasets -update)", len(got), len(files))
	}
	for name, want := range files {
		if !bytes.Equal(got[name], want) {
			t.Errorf("sample/runs/%s differs from the generator's output (run: go test ./datasets -update)", name)
		}
	}
	if !bytes.Equal(SampleLabels(), labels) {
		t.Error("sample/labels.csv differs from the generator's output (run: go test ./datasets -update)")
	}
	var pos, neg int
	seen := map[synth.Scenario]int{}
	for _, r := range runs {
		seen[r.Scenario]++
		if r.Positive() {
			pos++
		} else {
			neg++
		}
	}
	if len(runs) < 12 || pos < 4 || neg < 4 || len(seen) != len(synth.Scenarios) {
		t.Errorf("sample too thin: %d runs, %d positive, %d negative, scenarios %v", len(runs), pos, neg, seen)
	}
}
