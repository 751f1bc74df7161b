package checkparse

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopwatch/loopwatch/analyze/fixloop/filter"
)

var update = flag.Bool("update", false, "re-capture tool output from ../filter/testdata/modules and rewrite the golden files")

// capture describes one captured tool output: the check that produced it and, for
// real tool output, the module it ran on and the command. Fixtures without a module
// are not captured by running a tool; see testdata/PROVENANCE.txt.
type capture struct {
	file   string // testdata/captured/<file>.txt and testdata/golden/<file>.golden
	check  string
	module string
	args   []string
}

var captures = []capture{
	{"build-buildfail", filter.CheckBuild, "buildfail", []string{"build", "./..."}},
	{"vet-buildfail", filter.CheckVet, "buildfail", []string{"vet", "./..."}},
	{"vet-vetfail", filter.CheckVet, "vetfail", []string{"vet", "./..."}},
	{"vet-testbuildfail", filter.CheckVet, "testbuildfail", []string{"vet", "./..."}},
	{"test-testfail", filter.CheckTest, "testfail", []string{"test", "./..."}},
	{"test-testbuildfail", filter.CheckTest, "testbuildfail", []string{"test", "./..."}},
	{"test-testtimeout", filter.CheckTest, "testtimeout", []string{"test", "-timeout=2s", "./..."}},
	{"lint-documented-format", filter.CheckLint, "", nil},
	{"claims-chain", filter.CheckClaims, "", nil},
}

// normalizedRoot replaces the temporary directory in captured output (panic traces
// print absolute paths), so captures do not change with the machine.
const normalizedRoot = "/home/dev/src"

func TestGolden(t *testing.T) {
	if *update {
		recapture(t)
	}
	for _, c := range captures {
		t.Run(c.file, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join("testdata", "captured", c.file+".txt"))
			if err != nil {
				t.Fatal(err)
			}
			res := ParseCheckOutput(filter.CheckResult{Name: c.check, Output: string(raw)})
			if res.RawOutput != string(raw) {
				t.Error("RawOutput is not the output")
			}
			if res.Unrecognized != 0 {
				t.Errorf("%d lines of real %s output not recognised", res.Unrecognized, c.check)
			}
			res.RawOutput = "" // not repeated in the golden file
			got, err := json.MarshalIndent(res, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			golden := filepath.Join("testdata", "golden", c.file+".golden")
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("parse of %s differs from %s (run with -update after checking):\n%s", c.file, golden, got)
			}
		})
	}
}

// recapture runs the real tools through filter's command checks on copies of the
// throw-away modules and stores their output.
func recapture(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatal("-update needs the go command")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	for _, c := range captures {
		var out string
		switch {
		case c.module != "":
			dir := filepath.Join(t.TempDir(), c.module)
			if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "filter", "testdata", "modules", c.module))); err != nil {
				t.Fatal(err)
			}
			chain := &filter.Chain{Checks: []filter.Check{filter.CommandCheck(c.check, "go", c.args...)}}
			cr, err := chain.RunCheck(ctx, dir, c.check)
			if err != nil {
				t.Fatal(err)
			}
			if cr.Passed {
				t.Fatalf("%s: go %v passed on %s", c.file, c.args, c.module)
			}
			out = strings.ReplaceAll(cr.Output, dir, normalizedRoot+"/"+c.module)
		case c.check == filter.CheckClaims:
			src := filter.ClaimsFunc(func(context.Context, string) ([]string, []string, error) {
				return []string{"internal/loop/loop.go", "internal/loop/state.go", "internal/filter/chain.go", "go.mod"},
					[]string{"internal/loop/"}, nil
			})
			chain := &filter.Chain{Checks: []filter.Check{filter.ClaimsCheck("quasar-4f2a", src)}}
			cr, err := chain.RunCheck(ctx, "", c.check)
			if err != nil {
				t.Fatal(err)
			}
			out = cr.Output
		default:
			continue // hand-written from documentation, see PROVENANCE.txt
		}
		if err := os.WriteFile(filepath.Join("testdata", "captured", c.file+".txt"), []byte(out+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
