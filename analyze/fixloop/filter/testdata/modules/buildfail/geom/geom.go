// Package geom fails to build with a type mismatch.
package geom

// Perimeter returns the perimeter of a w×h rectangle as text.
func Perimeter(w, h int) string {
	return 2 * (w + h)
}
