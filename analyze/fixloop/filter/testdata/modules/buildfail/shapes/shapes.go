// Package shapes fails to build: it has an unused variable, an unused import,
// an undefined name and a call with the wrong number of arguments.
package shapes

import (
	"fmt"
	"strings"
)

// Area returns the area of a w×h rectangle.
func Area(w, h int) int {
	unused := w * 2
	return w * h
}

// Describe names a shape.
func Describe(name string) string {
	return fmt.Sprintf("%s has %d sides", name, sides(name, 1))
}

func sides(name string) int {
	return lookup[name]
}
