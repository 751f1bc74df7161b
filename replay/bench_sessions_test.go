package replay

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/loopwatch/loopwatch/analyze/assess"
	"github.com/loopwatch/loopwatch/datasets/synth"
	"github.com/loopwatch/loopwatch/replay/input"
)

// BenchmarkReplaySessions measures the replay of agent sessions — reading the Claude
// Code transcripts (subagents included) and vibes logs, replaying each session
// through the assessment under the configured preset and the seed preset beside it,
// as the replay command does — over 1000 synthetic sessions and 10 vibes logs held in
// memory (LOOPWATCH_BENCH_SESSIONS overrides the session count). It reports MB/s,
// sessions/s and events/s, at the default worker count and with one worker:
//
//	go test -run '^$' -bench ReplaySessions -benchmem ./replay/
func BenchmarkReplaySessions(b *testing.B) {
	n := 1000
	if v, err := strconv.Atoi(os.Getenv("LOOPWATCH_BENCH_SESSIONS")); err == nil && v > 0 {
		n = v
	}
	fsys, size := synthInputs(synth.DatasetConfig{Sessions: n, VibesLogs: 10, Seed: 1})
	seed := assess.SeedConfig()
	for _, workers := range []int{0, 1} {
		name := "workers=" + strconv.Itoa(workers)
		if workers == 0 {
			name = "workers=default"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			sessions, events := 0, 0
			for b.Loop() {
				sum, err := Replay(context.Background(), fsys, Options{Workers: workers, Variants: []Variant{{Name: "seed", Assess: &seed}}},
					Sinks{})
				if err != nil {
					b.Fatal(err)
				}
				sessions, events = sum.Sessions, sum.Events
			}
			b.ReportMetric(float64(sessions*b.N)/b.Elapsed().Seconds(), "sessions/s")
			b.ReportMetric(float64(events*b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

// BenchmarkReplaySession measures the library's replay of one session at a time over
// 100 synthetic sessions: through ReplaySession, which prepares the configuration for
// each session (its detection rules compiled each time), and through one
// SessionReplayer, which prepares it once. An op is the 100 sessions:
//
//	go test -run '^$' -bench ReplaySession -benchmem ./replay/
func BenchmarkReplaySession(b *testing.B) {
	fsys, _ := synthInputs(synth.DatasetConfig{Sessions: 100, Seed: 1})
	var sessions []*input.Session
	if _, err := Replay(context.Background(), fsys, Options{}, Sinks{Sessions: func(r *SessionResult) error {
		sessions = append(sessions, r.Session)
		return nil
	}}); err != nil {
		b.Fatal(err)
	}
	replayer := NewSessionReplayer(SessionOptions{})
	for _, bc := range []struct {
		name   string
		replay func(context.Context, *input.Session) (*SessionResult, error)
	}{
		{"ReplaySession", func(ctx context.Context, s *input.Session) (*SessionResult, error) {
			return ReplaySession(ctx, s, SessionOptions{})
		}},
		{"SessionReplayer", replayer.Replay},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, s := range sessions {
					if _, err := bc.replay(context.Background(), s); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// synthInputs returns the input files of a synthetic dataset, held in memory, and
// their size in bytes.
func synthInputs(cfg synth.DatasetConfig) (fstest.MapFS, int) {
	fsys, size := fstest.MapFS{}, 0
	for name, data := range synth.DatasetFiles(cfg) {
		if strings.HasPrefix(name, synth.InputsDir+"/") {
			fsys[name] = &fstest.MapFile{Data: data}
			size += len(data)
		}
	}
	return fsys, size
}
