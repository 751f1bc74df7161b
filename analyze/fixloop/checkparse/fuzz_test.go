package checkparse

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopwatch/loopwatch/analyze/fixloop/filter"
)

// FuzzParseCheckOutput checks the parser's invariants on arbitrary output: it never
// panics, keeps the raw output, accounts for every non-blank line exactly once, and
// returns well-formed, de-duplicated errors.
func FuzzParseCheckOutput(f *testing.F) {
	names := []string{"build", "vet", "lint", "test", "claims", "other"}
	for _, c := range captures {
		raw, err := os.ReadFile(filepath.Join("testdata", "captured", c.file+".txt"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(c.check, string(raw))
	}
	f.Add("test", "--- FAIL: T (0s)\n    a_test.go:1: x\n\tpanic: y\n")
	f.Add("lint", "a.go:1:1: x (y)\n^\n")
	f.Fuzz(func(t *testing.T, check, output string) {
		if len(check) > 0 {
			check = names[int(check[0])%len(names)]
		}
		res := ParseCheckOutput(filter.CheckResult{Name: check, Output: output})
		if res.RawOutput != output || res.CheckName != check {
			t.Fatal("raw output or check name not kept")
		}
		nonBlank := 0
		for line := range strings.SplitSeq(output, "\n") {
			if strings.TrimLeft(strings.TrimSuffix(line, "\r"), " \t") != "" {
				nonBlank++
			}
		}
		if res.Recognized+res.Unrecognized != nonBlank {
			t.Fatalf("recognized %d + unrecognized %d != %d non-blank lines", res.Recognized, res.Unrecognized, nonBlank)
		}
		type key struct {
			file, pkg string
			line      int
			msg       string
		}
		seen := map[key]bool{}
		for _, d := range res.Errors {
			if d.Line < 0 || d.Column < 0 || d.Message == "" {
				t.Fatalf("malformed error %+v", d)
			}
			switch d.Kind {
			case KindBuild, KindVet, KindLint, KindTest, KindPanic, KindClaims, KindOther:
			default:
				t.Fatalf("unknown kind %q", d.Kind)
			}
			k := key{file: d.File, line: d.Line, msg: d.Message}
			if !strings.ContainsAny(d.File, `/\`) {
				k.pkg = d.Package
			}
			if seen[k] {
				t.Fatalf("duplicate error %+v", d)
			}
			seen[k] = true
		}
	})
}
