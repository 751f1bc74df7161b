package baseline

import (
	"testing"

	"github.com/loopwatch/loopwatch/analyze"
	"github.com/loopwatch/loopwatch/analyze/struggle"
	"github.com/loopwatch/loopwatch/datasets"
	"github.com/loopwatch/loopwatch/replay"
	"github.com/loopwatch/loopwatch/replay/input"
)

// sampleInputs returns the built-in sample's runs and sessions' events.
func sampleInputs(b *testing.B) ([]*input.Run, [][]analyze.Event) {
	var runs []*input.Run
	var sessions [][]analyze.Event
	replayBaselines(b, datasets.Sample(), func(r *replay.RunResult, _ *QuasarResult) { runs = append(runs, r.Run) },
		func(s *replay.SessionResult, _ *VibesResult) { sessions = append(sessions, s.Session.Events) })
	return runs, sessions
}

// BenchmarkVibesSession replays the sample's 8 sessions (192 events) through the
// shipped vibes assessment.
func BenchmarkVibesSession(b *testing.B) {
	_, sessions := sampleInputs(b)
	cfg := DefaultVibesConfig()
	b.ResetTimer()
	for b.Loop() {
		for _, evs := range sessions {
			if _, err := VibesSession(evs, cfg); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkQuasarRun replays the sample's 16 runs through the shipped struggle
// detector.
func BenchmarkQuasarRun(b *testing.B) {
	runs, _ := sampleInputs(b)
	cfg := struggle.DefaultStruggleConfig()
	b.ResetTimer()
	for b.Loop() {
		for _, r := range runs {
			QuasarRun(r, cfg)
		}
	}
}
