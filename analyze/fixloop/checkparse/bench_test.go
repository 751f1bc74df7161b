package checkparse

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopwatch/loopwatch/analyze/fixloop/filter"
)

// realisticTestOutput builds go test output of at least size bytes from the captured
// real output of the testfail module, repeated as if from n distinct modules (package
// paths and panic paths renamed), so nothing de-duplicates away.
func realisticTestOutput(b *testing.B, size int) string {
	raw, err := os.ReadFile(filepath.Join("testdata", "captured", "test-testfail.txt"))
	if err != nil {
		b.Fatal(err)
	}
	var sb strings.Builder
	for i := 0; sb.Len() < size; i++ {
		sb.WriteString(strings.ReplaceAll(string(raw), "testfail", fmt.Sprintf("testfail%04d", i)))
	}
	return sb.String()
}

func BenchmarkParseCheckOutput(b *testing.B) {
	for _, size := range []int{4 << 10, 200 << 10} {
		out := realisticTestOutput(b, size)
		b.Run(fmt.Sprintf("go-test-%dKB", len(out)>>10), func(b *testing.B) {
			cr := filter.CheckResult{Name: "test", Output: out}
			b.SetBytes(int64(len(out)))
			b.ReportAllocs()
			var errs int
			for b.Loop() {
				errs = len(ParseCheckOutput(cr).Errors)
			}
			b.ReportMetric(float64(errs), "errors")
		})
	}
}
