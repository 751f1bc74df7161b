// Package broken is a package whose tests do not build (a type error, so that gofmt
// still reads it), for fuzzsweep's TestEndToEnd: its fuzz targets cannot be listed.
package broken

import "testing"

func FuzzNeverBuilt(f *testing.F) {
	var n int = "not a number"
	f.Fuzz(func(t *testing.T, b []byte) { _ = n })
}
