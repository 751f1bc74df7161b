//go:build race

package eval

// raceEnabled: the race detector slows the corpus replay of the outcome
// cross-validation tenfold; it checks evaluation figures, not concurrency.
const raceEnabled = true
