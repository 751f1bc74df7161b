// Package plural writes a count and its noun in English the way the commands' messages
// do: "1 file", "2 files", "0 files". It knows the nouns that take an s; it refuses
// nothing and guesses no irregular plural: give it such a noun's forms with Of.
package plural

import "strconv"

// Count returns n and noun, the noun with an s but for one: "1 run", "2 runs".
func Count(n int, noun string) string { return Of(n, noun, noun+"s") }

// Of returns n and one or many, as n is 1 or not: Of(2, "child", "children").
func Of(n int, one, many string) string { return strconv.Itoa(n) + " " + Form(n, one, many) }

// Form returns the word that goes with n, one or many, without n: a verb's form
// ("1 key matches", "2 keys match").
func Form(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
