//go:build race

package baseline

// raceDetector reports whether the tests run with the race detector.
const raceDetector = true
