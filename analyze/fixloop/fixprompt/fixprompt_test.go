package fixprompt

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopwatch/loopwatch/analyze/fixloop/checkparse"
	"github.com/loopwatch/loopwatch/analyze/fixloop/filter"
)

var update = flag.Bool("update", false, "rewrite the golden prompts under testdata/")

var fixTools = []string{"Read", "Edit", "Write", "Glob"}

func parseCaptured(t testing.TB, check, file string) checkparse.ParseResult {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "checkparse", "testdata", "captured", file))
	if err != nil {
		t.Fatal(err)
	}
	return checkparse.ParseCheckOutput(filter.CheckResult{Name: check, Output: string(raw)})
}

// TestGoldenPrompts renders prompts from real tool output (captured by package
// checkparse) and compares them with testdata/*.golden.
func TestGoldenPrompts(t *testing.T) {
	rawOnly := checkparse.ParseCheckOutput(filter.CheckResult{Name: "build",
		Output: "go: cannot find main module, but found .git/config in /work/m\n\tto create a module there, run:\n\tgo mod init"})
	tests := []struct {
		name string
		b    Builder
		in   Input
	}{
		{"test-testfail", Builder{}, Input{BeadID: "quasar-4f2a", Title: "Add Abs and Add helpers\n\nLong description that must not appear.",
			Parsed: parseCaptured(t, "test", "test-testfail.txt"), Tools: fixTools, BudgetUSD: 0.125, Attempt: 1, MaxAttempts: 3}},
		{"build-buildfail", Builder{}, Input{BeadID: "quasar-4f2a", Title: "Shapes",
			Parsed: parseCaptured(t, "build", "build-buildfail.txt"), Tools: fixTools, BudgetUSD: 0.05, Attempt: 2, MaxAttempts: 3}},
		{"lint-capped", Builder{MaxErrorBytes: 300}, Input{BeadID: "quasar-9", Title: "Lint",
			Parsed: parseCaptured(t, "lint", "lint-documented-format.txt"), Tools: fixTools}},
		{"raw-fallback", Builder{}, Input{BeadID: "quasar-1", Title: "Init", Parsed: rawOnly, Tools: fixTools}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.b.Build(tt.in)
			golden := filepath.Join("testdata", tt.name+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("prompt differs from %s (run with -update after checking):\n%s", golden, got)
			}
		})
	}
}

func TestBuildParts(t *testing.T) {
	parsed := checkparse.ParseResult{CheckName: "vet", Errors: []checkparse.Diagnostic{
		{Kind: checkparse.KindVet, File: "a.go", Line: 9, Column: 2, Message: "self-assignment of x"},
	}}
	tests := []struct {
		name    string
		in      Input
		want    []string
		notWant []string
	}{
		{
			name: "header, check, tools, budget",
			in:   Input{BeadID: "quasar-7", Title: "  Fix the loop  \nbody", Parsed: parsed, Tools: fixTools, BudgetUSD: 0.0625, Attempt: 2, MaxAttempts: 3},
			want: []string{
				"Task (bead quasar-7): Fix the loop\n",
				"Fix the failing vet check (fix attempt 2 of 3).\n",
				"Your change fails the vet filter check.",
				"ERRORS (1 error in 1 file):\na.go (1 error):\n  9:2: self-assignment of x\n",
				"Tools you can use: Read, Edit, Write, Glob. You have no shell",
				"the vet check is re-run automatically when you stop.",
				"keep your spend under $0.0625.\n",
			},
			notWant: []string{"body", "Bash"},
		},
		{
			name:    "no budget, no attempt",
			in:      Input{BeadID: "b", Title: "t", Parsed: parsed},
			want:    []string{"Fix the failing vet check.\n"},
			notWant: []string{"spend", "attempt", "Tools you can use"},
		},
		{
			name: "long title cut to 200 bytes",
			in:   Input{BeadID: "b", Title: strings.Repeat("é", 150), Parsed: parsed},
			want: []string{"Task (bead b): " + strings.Repeat("é", 98) + "…\n"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Build(tt.in)
			for _, s := range tt.want {
				if !strings.Contains(got, s) {
					t.Errorf("prompt lacks %q:\n%s", s, got)
				}
			}
			for _, s := range tt.notWant {
				if strings.Contains(got, s) {
					t.Errorf("prompt contains %q:\n%s", s, got)
				}
			}
		})
	}
}

func TestErrorsGroupingAndOrder(t *testing.T) {
	errs := []checkparse.Diagnostic{
		{File: "b.go", Line: 30, Message: "b30"},
		{File: "a.go", Line: 20, Message: "a20"},
		{File: "a.go", Line: 10, Column: 4, Message: "a10"},
		{File: "c_test.go", Line: 5, Message: "c5", Test: "TestC/sub", Package: "example.com/m/c"},
		{File: "c_test.go", Line: 6, Message: "other package", Package: "example.com/m/d"},
		{File: "b.go", Line: 1, Message: "multi\nline"},
		{Message: "no location"},
		{File: "l.go", Line: 2, Column: 1, Message: "unchecked", Linter: "errcheck"},
	}
	got, omitted := Builder{}.Errors(errs)
	want := "ERRORS (8 errors in 6 files):\n" +
		"b.go (2 errors):\n  1: multi\n      line\n  30: b30\n" +
		"a.go (2 errors):\n  10:4: a10\n  20: a20\n" +
		"c_test.go in package example.com/m/c (1 error):\n  5: [TestC/sub] c5\n" +
		"c_test.go in package example.com/m/d (1 error):\n  6: other package\n" +
		"(no file) (1 error):\n  -: no location\n" +
		"l.go (1 error):\n  2:1: unchecked (errcheck)\n"
	if got != want || omitted != 0 {
		t.Errorf("got (omitted %d):\n%s\nwant:\n%s", omitted, got, want)
	}
}

func TestErrorsCap(t *testing.T) {
	var errs []checkparse.Diagnostic
	for i := range 200 {
		errs = append(errs, checkparse.Diagnostic{File: fmt.Sprintf("pkg%d/file.go", i%7), Line: i + 1, Column: 3,
			Message: strings.Repeat("x", i%90) + " undefined"})
	}
	errs = append(errs, checkparse.Diagnostic{File: "huge.go", Line: 1, Message: strings.Repeat("y", 10000)})
	for _, limit := range []int{0, 1, 255, 256, 300, 512, 1000, 4096, 6000, 100000} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			b := Builder{MaxErrorBytes: limit}
			got, omitted := b.Errors(errs)
			if len(got) > b.errorCap() {
				t.Errorf("section is %d bytes, cap %d", len(got), b.errorCap())
			}
			shown := strings.Count(got, "\n  ")
			if shown+omitted != len(errs) {
				t.Errorf("shown %d + omitted %d != %d", shown, omitted, len(errs))
			}
			if omitted > 0 {
				if !strings.HasSuffix(got, fmt.Sprintf("… %d more errors omitted\n", omitted)) {
					t.Errorf("no omission line for %d: %q", omitted, got[max(0, len(got)-60):])
				}
				if shown == 0 {
					t.Errorf("cap %d shows no error at all", limit)
				}
			}
			if strings.Contains(got, strings.Repeat("y", maxMessageBytes)) {
				t.Error("message not cut")
			}
		})
	}
}

func TestRaw(t *testing.T) {
	long := strings.Repeat("line of output\n", 500) + "final line"
	tests := []struct {
		name, raw string
		max       int
		want      string
	}{
		{"empty", "  \n", 0, "The build check failed without printing anything.\n"},
		{"short kept whole", "a\nb\n", 0, "The build check's output could not be parsed into errors. RAW OUTPUT:\na\nb\n"},
		{"tail moved to the next line start", long, 45, "The build check's output could not be parsed into errors. RAW OUTPUT (last 40 of 7510 bytes):\nline of output\nline of output\nfinal line\n"},
		{"tail already at a line start", long, 40, "The build check's output could not be parsed into errors. RAW OUTPUT (last 40 of 7510 bytes):\nline of output\nline of output\nfinal line\n"},
		{"tail on a rune boundary when no newline is near", strings.Repeat("é", 100), 11, "The build check's output could not be parsed into errors. RAW OUTPUT (last 10 of 200 bytes):\nééééé\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := (Builder{MaxRawBytes: tt.max}).Raw("build", tt.raw); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func FuzzErrors(f *testing.F) {
	for _, c := range []struct{ check, file string }{{"test", "test-testfail.txt"}, {"build", "build-buildfail.txt"}, {"lint", "lint-documented-format.txt"}} {
		raw, err := os.ReadFile(filepath.Join("..", "checkparse", "testdata", "captured", c.file))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(c.check, string(raw), 300)
	}
	f.Fuzz(func(t *testing.T, check, output string, limit int) {
		parsed := checkparse.ParseCheckOutput(filter.CheckResult{Name: check, Output: output})
		b := Builder{MaxErrorBytes: limit % 20000, MaxRawBytes: limit % 5000}
		if len(parsed.Errors) > 0 {
			got, omitted := b.Errors(parsed.Errors)
			if len(got) > b.errorCap() {
				t.Fatalf("section %d bytes > cap %d", len(got), b.errorCap())
			}
			if omitted < 0 || omitted > len(parsed.Errors) {
				t.Fatalf("omitted %d of %d", omitted, len(parsed.Errors))
			}
		}
		prompt := b.Build(Input{BeadID: "b", Title: output, Parsed: parsed, Tools: fixTools})
		if !strings.Contains(prompt, "Tools you can use: Read, Edit, Write, Glob.") {
			t.Fatal("tool line missing")
		}
	})
}

func ExampleBuild() {
	parsed := checkparse.ParseCheckOutput(filter.CheckResult{Name: "build", Output: `# example.com/shapes
shapes/shapes.go:12:2: declared and not used: unused
shapes/shapes.go:7:2: "strings" imported and not used`})
	fmt.Print(Build(Input{
		BeadID: "quasar-4f2a", Title: "Add shapes", Parsed: parsed,
		Tools: []string{"Read", "Edit", "Write", "Glob"}, BudgetUSD: 0.1, Attempt: 1, MaxAttempts: 3,
	}))
	// Output:
	// Task (bead quasar-4f2a): Add shapes
	// Fix the failing build check (fix attempt 1 of 3).
	//
	// Your change fails the build filter check. Fix ONLY the errors listed below.
	// Do not refactor, do not add features, do not change anything unrelated to these errors.
	//
	// ERRORS (2 errors in 1 file):
	// shapes/shapes.go (2 errors):
	//   7:2: "strings" imported and not used
	//   12:2: declared and not used: unused
	//
	// Tools you can use: Read, Edit, Write, Glob. You have no shell: you cannot run the build, vet, linters or tests yourself; the build check is re-run automatically when you stop.
	// Read each affected file, make the smallest change that fixes each listed error, and stop.
	// This is a targeted fix pass: keep your spend under $0.10.
}

func TestErrorsManyFiles(t *testing.T) {
	// Past 16 files the grouping switches to a map; the result must not change.
	var errs []checkparse.Diagnostic
	for i := range 60 {
		errs = append(errs, checkparse.Diagnostic{File: fmt.Sprintf("f%02d.go", i%20), Package: "p", Line: 60 - i, Message: "m"})
	}
	errs = append(errs, checkparse.Diagnostic{File: "f00.go", Package: "q", Line: 1, Message: "other package"})
	got, omitted := Builder{MaxErrorBytes: 100000}.Errors(errs)
	if omitted != 0 || !strings.HasPrefix(got, "ERRORS (61 errors in 21 files):\nf00.go in package p (3 errors):\n  20: m\n  40: m\n  60: m\nf01.go in package p (3 errors):\n") ||
		!strings.HasSuffix(got, "f00.go in package q (1 error):\n  1: other package\n") {
		t.Errorf("got:\n%s", got)
	}
}

// TestLongTestName: a subtest whose name runs to pages (a table test named from its
// inputs) still shows its error, the name cut, where it emptied the section.
func TestLongTestName(t *testing.T) {
	d := checkparse.Diagnostic{File: "a_test.go", Line: 9, Test: "TestTable/" + strings.Repeat("case_", 1400), Message: "got 1, want 2"}
	got, omitted := Builder{}.Errors([]checkparse.Diagnostic{d})
	if omitted != 0 || !strings.Contains(got, "got 1, want 2") || strings.Contains(got, strings.Repeat("case_", 100)) {
		t.Errorf("%d omitted:\n%.300s", omitted, got)
	}
}
