package baseline

import (
	"strings"
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

// BenchmarkVibesHits counts the shipped patterns in messages of the kinds an
// assistant writes, by the literals' places (what VibesHits does) and by the
// regular expressions alone (what it does for text with ſ or the Kelvin sign).
func BenchmarkVibesHits(b *testing.B) {
	report := "I ran the tests: 14 passed, the build is done. The error handler in " +
		"`internal/errors.go` was wrong: it swallowed the failed request's status, so " +
		"the retry loop never saw it. It works now — thanks for the logs.\n"
	texts := []struct{ name, text string }{
		{"prompt", "why doesn't the login page work anymore? it's broken again"},
		{"report-4KiB", strings.Repeat(report, 4096/len(report)+1)[:4096]},
		{"code-4KiB", strings.Repeat("if err != nil { return fmt.Errorf(\"terror: %w\", err) } // ErrorCode\n", 64)[:4096]},
	}
	all := compiledVibes()
	for _, tt := range texts {
		b.Run(tt.name+"/at", func(b *testing.B) {
			b.SetBytes(int64(len(tt.text)))
			for b.Loop() {
				VibesHits(tt.text)
			}
		})
		b.Run(tt.name+"/regexp", func(b *testing.B) {
			b.SetBytes(int64(len(tt.text)))
			for b.Loop() {
				folded := prefilterFold(tt.text)
				for i := range all {
					all[i].matches(tt.text, folded)
				}
			}
		})
	}
}
