package replay_test

import (
	"context"
	"os"
	"testing"

	"github.com/loopwatch/loopwatch/analyze"
	"github.com/loopwatch/loopwatch/analyze/assess/detect"
	"github.com/loopwatch/loopwatch/internal/corpus"
	"github.com/loopwatch/loopwatch/replay"
)

// BenchmarkDetectCorpus runs the default lightweight detector over every event of the
// real Claude Code corpus (../shared/corpora/claude-code, or
// $LOOPWATCH_CORPORA/claude-code), a fresh detector for each session as the replay
// gives it: the detector on real users' prompts and tools' outputs, where
// BenchmarkDetect (analyze/assess/detect) times designed messages one at a time. An
// op is the whole corpus; it skips when the corpus is absent:
//
//	go test -run '^$' -bench DetectCorpus -benchmem ./replay/
func BenchmarkDetectCorpus(b *testing.B) {
	dir := corpus.BenchDir(b, "claude-code")
	var sessions [][]analyze.Event
	size := 0
	_, err := replay.Replay(context.Background(), os.DirFS(dir), replay.Options{}, replay.Sinks{
		Sessions: func(s *replay.SessionResult) error {
			sessions = append(sessions, s.Session.Events)
			for i := range s.Session.Events {
				ev := &s.Session.Events[i]
				size += len(ev.UserContent) + len(ev.AssistantText) + len(ev.ToolOutput)
			}
			return nil
		},
	})
	if err != nil {
		b.Fatal(err)
	}
	rules := detect.MustCompile(detect.DefaultConfig())
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		for _, evs := range sessions {
			d := detect.NewLightweightDetector(rules)
			for i := range evs {
				d.Detect(evs[i])
			}
		}
	}
}
