// Package doctest reads the example invocations of a command's package documentation,
// so a test can run each of them and the manual cannot rot (after
// golang.org/x/perf/cmd/benchstat's doc_test.go). It is for tests only.
package doctest

import (
	"os"
	"strings"
	"testing"
)

// Examples returns the invocations listed, one per tab-indented line, under the
// "Examples:" heading of doc.go in the working directory (a command's package folder).
// It fails the test when there are fewer than min, or when one of them is missing from
// usage, the command's --help text (indented by two spaces there).
func Examples(t testing.TB, command, usage string, min int) []string {
	t.Helper()
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	var examples []string
	_, block, _ := strings.Cut(string(doc), "// Examples:\n//\n")
	for _, line := range strings.Split(block, "\n") {
		ex, ok := strings.CutPrefix(line, "//\t"+command)
		if !ok {
			break
		}
		examples = append(examples, command+ex)
	}
	if len(examples) < min {
		t.Fatalf("found %d examples in doc.go, want at least %d", len(examples), min)
	}
	for _, ex := range examples {
		if !strings.Contains(usage, "  "+ex+"\n") {
			t.Errorf("example %q is in doc.go but not in the usage text", ex)
		}
	}
	return examples
}
