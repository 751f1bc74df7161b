package beads

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/loopwatch/loopwatch/replay/join"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestGolden rebuilds testdata/history.jsonl, a small hand-written history (a run
// approved in one cycle, one in three, a re-run bead in the older timestamp format, a
// permission-bug bead, a bead of another project), joined to a nebula and commits, and
// compares every field of every run, problem and note with testdata/history.golden.json.
// Run `go test ./replay/beads -run Golden -update` to accept a deliberate change.
func TestGolden(t *testing.T) {
	in, err := os.ReadFile(filepath.Join("testdata", "history.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	jc := join.New()
	n := jc.Nebula("shop")
	n.Name, n.Manifest, n.State, n.MaxCycles, n.MaxBudgetUSD, n.TotalCostUSD, n.HasCost = "shop", "m", "s", 5, 10, 6, true
	n.Phases = []*join.Phase{{Nebula: n, ID: "cart", BeadID: "q-a", Status: "done"}, {Nebula: n, ID: "checkout", BeadID: "q-b", Status: "done"}}
	jc.Finish()
	runs, probs, notes := Read("history.jsonl", bytes.NewReader(in), jc)
	got, err := json.MarshalIndent(map[string]any{"runs": runs, "problems": probs, "notes": notes}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	golden := filepath.Join("testdata", "history.golden.json")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("rebuilt runs differ from %s (run with -update to accept):\n%s", golden, got)
	}
}
