package checkparse

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/loopwatch/loopwatch/analyze/fixloop/filter"
)

func TestParseCheckOutput(t *testing.T) {
	tests := []struct {
		name         string
		check        string
		output       string
		want         []Diagnostic
		recognized   int
		unrecognized int
		duplicates   int
	}{
		{
			name:  "build errors with header and have/want continuation",
			check: "build",
			output: "# example.com/m/a\n" +
				"./a/a.go:3:8: \"os\" imported and not used\n" +
				"./a/a.go:9:4: not enough arguments in call to f\n" +
				"\thave ()\n" +
				"\twant (int)\n",
			want: []Diagnostic{
				{Kind: KindBuild, File: "a/a.go", Line: 3, Column: 8, Message: `"os" imported and not used`, Package: "example.com/m/a"},
				{Kind: KindBuild, File: "a/a.go", Line: 9, Column: 4, Message: "not enough arguments in call to f\nhave ()\nwant (int)", Package: "example.com/m/a"},
			},
			recognized: 5,
		},
		{
			name:  "dedupe on file, line and message, whatever the column",
			check: "build",
			output: "# example.com/m/a\n" +
				"a/a.go:3:8: undefined: x\n" +
				"# example.com/m/a [example.com/m/a.test]\n" +
				"./a/a.go:3:9: undefined: x\n" +
				"a/a.go:3:8: undefined: y\n" +
				"a/a.go:4:8: undefined: x\n",
			want: []Diagnostic{
				{Kind: KindBuild, File: "a/a.go", Line: 3, Column: 8, Message: "undefined: x", Package: "example.com/m/a"},
				{Kind: KindBuild, File: "a/a.go", Line: 3, Column: 8, Message: "undefined: y", Package: "example.com/m/a"},
				{Kind: KindBuild, File: "a/a.go", Line: 4, Column: 8, Message: "undefined: x", Package: "example.com/m/a"},
			},
			recognized: 6,
			duplicates: 1,
		},
		{
			name:   "vet prefix, header forms",
			check:  "vet",
			output: "# example.com/m\n# [example.com/m]\nvet: ./m.go:6:18: undefined: want\n",
			want: []Diagnostic{
				{Kind: KindVet, File: "m.go", Line: 6, Column: 18, Message: "undefined: want", Package: "example.com/m"},
			},
			recognized: 3,
		},
		{
			name:  "lint: linter split off, snippet and summary recognised",
			check: "lint",
			output: "a.go:12:5: Error return value is not checked (errcheck)\n" +
				"\tf.Close()\n" +
				"\t^\n" +
				"b.go:1:1: should have a package comment (revive)\n" +
				"package b\n" +
				"^\n" +
				"2 issues:\n* errcheck: 1\n* revive: 1\n",
			want: []Diagnostic{
				{Kind: KindLint, File: "a.go", Line: 12, Column: 5, Message: "Error return value is not checked", Linter: "errcheck"},
				{Kind: KindLint, File: "b.go", Line: 1, Column: 1, Message: "should have a package comment", Linter: "revive"},
			},
			recognized: 9,
		},
		{
			name:  "lint without snippets; parenthesis that is no linter stays",
			check: "lint",
			output: "a.go:1:1: first (errcheck)\n" +
				"a.go:2:1: call f(x) (not a (linter))\n",
			want: []Diagnostic{
				{Kind: KindLint, File: "a.go", Line: 1, Column: 1, Message: "first", Linter: "errcheck"},
				{Kind: KindLint, File: "a.go", Line: 2, Column: 1, Message: "call f(x) (not a (linter))"},
			},
			recognized: 2,
		},
		{
			name:  "test: nesting by indentation, parent lines after subtests, passing logs ignored, package back-filled",
			check: "test",
			output: "=== RUN   TestA\n" +
				"--- FAIL: TestA (0.00s)\n" +
				"    --- FAIL: TestA/sub_1 (0.00s)\n" +
				"        a_test.go:10: sub failed\n" +
				"            second line\n" +
				"    --- PASS: TestA/sub_2 (0.00s)\n" +
				"        a_test.go:11: just a log\n" +
				"    a_test.go:20: parent failed\n" +
				"--- PASS: TestB (0.00s)\n" +
				"    a_test.go:30: log of a passing test\n" +
				"FAIL\n" +
				"FAIL\texample.com/m\t0.01s\n" +
				"--- FAIL: TestC (0.00s)\n" +
				"    c_test.go:5: other package\n" +
				"FAIL\n" +
				"FAIL\texample.com/m/c\t0.01s\n" +
				"FAIL\n",
			want: []Diagnostic{
				{Kind: KindTest, File: "a_test.go", Line: 10, Message: "sub failed\nsecond line", Test: "TestA/sub_1", Package: "example.com/m"},
				{Kind: KindTest, File: "a_test.go", Line: 20, Message: "parent failed", Test: "TestA", Package: "example.com/m"},
				{Kind: KindTest, File: "c_test.go", Line: 5, Message: "other package", Test: "TestC", Package: "example.com/m/c"},
			},
			recognized: 17,
		},
		{
			name:  "test: same bare file, line and message in two packages are two errors",
			check: "test",
			output: "--- FAIL: TestA (0.00s)\n    a_test.go:7: boom\nFAIL\nFAIL\texample.com/m/x\t0.01s\n" +
				"--- FAIL: TestA (0.00s)\n    a_test.go:7: boom\n    a_test.go:7: boom\nFAIL\nFAIL\texample.com/m/y\t0.01s\n",
			want: []Diagnostic{
				{Kind: KindTest, File: "a_test.go", Line: 7, Message: "boom", Test: "TestA", Package: "example.com/m/x"},
				{Kind: KindTest, File: "a_test.go", Line: 7, Message: "boom", Test: "TestA", Package: "example.com/m/y"},
			},
			recognized: 9,
			duplicates: 1,
		},
		{
			name:  "test: compile error of a test file, vet failure inside go test",
			check: "test",
			output: "# example.com/m [example.com/m.test]\n" +
				"./m_test.go:6:18: undefined: want\n" +
				"FAIL\texample.com/m [build failed]\n" +
				"# example.com/v\n" +
				"vet: ./v.go:3:2: self-assignment of n\n" +
				"FAIL\texample.com/v [build failed]\n" +
				"FAIL\n",
			want: []Diagnostic{
				{Kind: KindBuild, File: "m_test.go", Line: 6, Column: 18, Message: "undefined: want", Package: "example.com/m"},
				{Kind: KindVet, File: "v.go", Line: 3, Column: 2, Message: "self-assignment of n", Package: "example.com/v"},
			},
			recognized: 7,
		},
		{
			name:  "panic located in a dotless module's source file, not in GOROOT",
			check: "test",
			output: "--- FAIL: TestX (0.00s)\n" +
				"panic: boom [recovered]\n" +
				"\tpanic: boom\n" +
				"\n" +
				"goroutine 7 [running]:\n" +
				"testing.tRunner.func1.2({0x1, 0x2})\n" +
				"\t/opt/go/src/testing/testing.go:1734 +0x21c\n" +
				"panic({0x1?, 0x2?})\n" +
				"\t/opt/go/src/runtime/panic.go:629 +0x132\n" +
				"strings.Repeat(...)\n" +
				"\t/opt/go/src/strings/strings.go:600\n" +
				"m/x.Pad(...)\n" +
				"\t/home/u/m/x/x.go:12\n" +
				"m/x.TestX(0xc0000a8000?)\n" +
				"\t/home/u/m/x/x_test.go:8 +0x1d\n" +
				"testing.tRunner(0xc0000a8000, 0x5c1b40)\n" +
				"\t/opt/go/src/testing/testing.go:1792 +0xf4\n" +
				"created by testing.(*T).Run in goroutine 1\n" +
				"\t/opt/go/src/testing/testing.go:1851 +0x413\n" +
				"exit status 2\n" +
				"FAIL\tm/x\t0.005s\n",
			want: []Diagnostic{
				{Kind: KindPanic, File: "/home/u/m/x/x.go", Line: 12, Message: "panic: boom", Test: "TestX", Package: "m/x"},
			},
			recognized: 20,
		},
		{
			name:  "panic with only harness frames and a test file falls back to the test file",
			check: "test",
			output: "--- FAIL: TestY (0.00s)\n" +
				"panic: y\n" +
				"goroutine 1 [running]:\n" +
				"panic({0x1?, 0x2?})\n" +
				"\t/opt/go/src/runtime/panic.go:629 +0x132\n" +
				"testing.helper(...)\n" +
				"\t/opt/go/src/y/y_test.go:8 +0x1d\n",
			want: []Diagnostic{
				{Kind: KindPanic, File: "/opt/go/src/y/y_test.go", Line: 8, Message: "panic: y", Test: "TestY"},
			},
			recognized: 7,
		},
		{
			name:   "fatal error without trace",
			check:  "test",
			output: "fatal error: all goroutines are asleep - deadlock!\n\ngoroutine 1 [chan receive]:\nmain.main()\n\t/src/m/main.go:5 +0x18\nexit status 2\n",
			want: []Diagnostic{
				{Kind: KindPanic, File: "/src/m/main.go", Line: 5, Message: "fatal error: all goroutines are asleep - deadlock!"},
			},
			recognized: 5,
		},
		{
			name:  "claims, quasar's owned-by form",
			check: "claims",
			output: "Modified files not claimed by task quasar-1:\n" +
				"  internal/a.go (owned by quasar-2)\n" +
				"  ./b.go\n",
			want: []Diagnostic{
				{Kind: KindClaims, File: "internal/a.go", Message: "modified but not claimed by task quasar-1; owned by quasar-2"},
				{Kind: KindClaims, File: "b.go", Message: "modified but not claimed by task quasar-1"},
			},
			recognized: 3,
		},
		{
			name:   "unknown check name still finds locations",
			check:  "gofmt",
			output: "x.go:1:1: expected 'package', found 'EOF'\nsomething else\n",
			want: []Diagnostic{
				{Kind: KindOther, File: "x.go", Line: 1, Column: 1, Message: "expected 'package', found 'EOF'"},
			},
			recognized:   1,
			unrecognized: 1,
		},
		{
			name:         "nothing parses: counted, no errors",
			check:        "build",
			output:       "go: cannot find main module, but found .git/config in /x\n\tto create a module there, run:\n\tgo mod init\n",
			recognized:   0,
			unrecognized: 3,
		},
		{
			name:   "windows paths and CRLF",
			check:  "build",
			output: "C:\\src\\m\\a.go:3:8: undefined: x\r\nC:\\src\\m\\a.go:4:1: undefined: y\r\n",
			want: []Diagnostic{
				{Kind: KindBuild, File: `C:\src\m\a.go`, Line: 3, Column: 8, Message: "undefined: x"},
				{Kind: KindBuild, File: `C:\src\m\a.go`, Line: 4, Column: 1, Message: "undefined: y"},
			},
			recognized: 2,
		},
		{
			name:  "not locations: no extension, space in path, huge line, empty message",
			check: "build",
			output: "panic:12: x\n" +
				"some file.go:1:2: x\n" +
				"a.go:12345678901:1: x\n" +
				"a.go:12:\n" +
				"a.go:12:3\n",
			unrecognized: 5,
		},
		{
			name:       "empty output",
			check:      "test",
			output:     "",
			recognized: 0,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := ParseCheckOutput(filter.CheckResult{Name: tt.check, Output: tt.output})
			if !reflect.DeepEqual(res.Errors, tt.want) && (len(res.Errors) > 0 || len(tt.want) > 0) {
				t.Errorf("Errors:\n%s\nwant:\n%s", dump(res.Errors), dump(tt.want))
			}
			if res.Recognized != tt.recognized || res.Unrecognized != tt.unrecognized || res.Duplicates != tt.duplicates {
				t.Errorf("recognized/unrecognized/duplicates = %d/%d/%d, want %d/%d/%d",
					res.Recognized, res.Unrecognized, res.Duplicates, tt.recognized, tt.unrecognized, tt.duplicates)
			}
			if res.RawOutput != tt.output || res.CheckName != tt.check {
				t.Errorf("RawOutput/CheckName not kept")
			}
			if res.Parsed() != (len(tt.want) > 0) {
				t.Errorf("Parsed() = %v", res.Parsed())
			}
		})
	}
}

func TestDedupeManyErrors(t *testing.T) {
	// More than 16 errors takes the map path of dedupe.
	var b strings.Builder
	for i := range 100 {
		fmt.Fprintf(&b, "a.go:%d:1: undefined: x\n", i%40+1)
	}
	res := ParseCheckOutput(filter.CheckResult{Name: "build", Output: b.String()})
	if len(res.Errors) != 40 || res.Duplicates != 60 {
		t.Fatalf("got %d errors, %d duplicates; want 40, 60", len(res.Errors), res.Duplicates)
	}
	for i, d := range res.Errors {
		if d.Line != i+1 {
			t.Fatalf("error %d has line %d: first occurrences must be kept in order", i, d.Line)
		}
	}
}

func dump(ds []Diagnostic) string {
	var b strings.Builder
	for _, d := range ds {
		fmt.Fprintf(&b, "  %+v\n", d)
	}
	return b.String()
}

func ExampleParseCheckOutput() {
	res := ParseCheckOutput(filter.CheckResult{Name: "test", Output: `--- FAIL: TestAbs (0.00s)
    --- FAIL: TestAbs/negative (0.00s)
        calc_test.go:22: Abs(-2) = -2, want 2
FAIL
FAIL	example.com/calc	0.004s
FAIL`})
	for _, d := range res.Errors {
		fmt.Printf("%s %s:%d [%s] %s (%s)\n", d.Kind, d.File, d.Line, d.Test, d.Message, d.Package)
	}
	fmt.Println(res.Recognized, "lines recognised,", res.Unrecognized, "not")
	// Output:
	// test calc_test.go:22 [TestAbs/negative] Abs(-2) = -2, want 2 (example.com/calc)
	// 6 lines recognised, 0 not
}

func TestLongContinuationIsLinear(t *testing.T) {
	// A t.Errorf dump of 50 000 lines: joined once, not line by line.
	var b strings.Builder
	b.WriteString("--- FAIL: TestDump (0.00s)\n    dump_test.go:9: diff:\n")
	for i := range 50000 {
		fmt.Fprintf(&b, "        line %d of the dump\n", i)
	}
	b.WriteString("FAIL\n")
	out := b.String()
	allocs := testing.AllocsPerRun(3, func() { ParseCheckOutput(filter.CheckResult{Name: "test", Output: out}) })
	res := ParseCheckOutput(filter.CheckResult{Name: "test", Output: out})
	if len(res.Errors) != 1 || strings.Count(res.Errors[0].Message, "\n") != 50000 || res.Recognized != 50003 {
		t.Fatalf("got %d errors, %d message lines, %d recognised", len(res.Errors), strings.Count(res.Errors[0].Message, "\n"), res.Recognized)
	}
	if allocs > 40 {
		t.Errorf("%v allocations for one long error: continuation lines are not buffered", allocs)
	}
}
