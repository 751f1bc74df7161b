package fixloop

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopwatch/loopwatch/analyze"
	"github.com/loopwatch/loopwatch/analyze/fixloop/filter"
)

// TestRealBuildFailure runs the whole thing for real: the default chain fails
// `go build` on a copy of filter/testdata/modules/buildfail, the loop parses the real
// output and prompts a scripted coder that edits the files (one file per attempt), and
// re-runs only the real build check until it passes.
func TestRealBuildFailure(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go not on PATH")
	}
	dir := filepath.Join(t.TempDir(), "buildfail")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("filter", "testdata", "modules", "buildfail"))); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	chain := filter.DefaultChain(filter.Options{LookPath: func(string) (string, error) { return "", exec.ErrNotFound }, Now: time.Now})
	first, err := chain.Run(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	failed := first.FirstFailure()
	if failed == nil || failed.Name != "build" {
		t.Fatalf("chain did not fail at build: %+v", first)
	}

	fixes := []struct {
		file, body string
		mustList   []string // errors the prompt of this attempt must list
	}{
		{"geom/geom.go", "package geom\n\nimport \"strconv\"\n\n// Perimeter returns the perimeter as text.\nfunc Perimeter(w, h int) string { return strconv.Itoa(2 * (w + h)) }\n",
			[]string{"ERRORS (5 errors in 2 files)", "geom/geom.go (1 error)", "6:9: cannot use 2 * (w + h)", "22:9: undefined: lookup"}},
		{"shapes/shapes.go", "package shapes\n\nimport \"fmt\"\n\n// Area returns w*h.\nfunc Area(w, h int) int { return w * h }\n\n// Describe names a shape.\nfunc Describe(name string) string { return fmt.Sprintf(\"%s has %d sides\", name, sides(name)) }\n\nfunc sides(string) int { return 4 }\n",
			[]string{"ERRORS (4 errors in 1 file)", "shapes/shapes.go (4 errors)", "18:58: too many arguments in call to sides\n      have (string, number)\n      want (string)"}},
	}
	coder := CoderFunc(func(_ context.Context, req FixRequest) (FixResult, error) {
		fix := fixes[req.Attempt-1]
		for _, s := range fix.mustList {
			if !strings.Contains(req.Prompt, s) {
				t.Errorf("attempt %d prompt lacks %q:\n%s", req.Attempt, s, req.Prompt)
			}
		}
		if req.Attempt == 2 && strings.Contains(req.Prompt, "geom.go") {
			t.Errorf("attempt 2 prompt still lists the fixed file:\n%s", req.Prompt)
		}
		if err := os.WriteFile(filepath.Join(req.WorkDir, fix.file), []byte(fix.body), 0o644); err != nil {
			return FixResult{}, err
		}
		return FixResult{Summary: "rewrote " + fix.file, CostUSD: 0.04}, nil
	})

	state := &analyze.CycleState{TaskBeadID: "quasar-b1", TaskTitle: "Shapes", Cycle: 1, MaxCycles: 3, MaxBudgetUSD: 5,
		FilterCheckName: failed.Name, FilterOutput: failed.Output}
	loop := &FixLoop{Filter: chain, Coder: coder, WorkDir: dir}
	res, err := loop.RunFilterFixLoop(ctx, state, state.FilterCheckName, state.FilterOutput)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Fixed() || res.CoderCalls() != 2 || state.FilterFixAttempts != 1 {
		t.Fatalf("outcome %s after %d calls, FilterFixAttempts %d; last output:\n%s", res.Outcome, res.CoderCalls(), state.FilterFixAttempts, res.LastOutput)
	}
	if res.Attempts[0].Errors != 5 || res.Attempts[1].Errors != 4 || res.Attempts[1].Elapsed <= 0 {
		t.Errorf("attempts = %+v", res.Attempts)
	}
}
