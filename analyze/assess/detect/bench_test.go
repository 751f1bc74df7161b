package detect

import (
	"testing"

	"github.com/loopwatch/loopwatch/analyze/assess/internal/benchdata"
)

func BenchmarkDetect(b *testing.B) {
	rules := MustCompile(DefaultConfig())
	evs := benchdata.Events()
	for _, name := range append(benchdata.Names(), benchdata.Extremes()...) {
		ev := evs[name]
		b.Run(name, func(b *testing.B) {
			d := NewLightweightDetector(rules)
			b.SetBytes(int64(len(ev.UserContent) + len(ev.AssistantText) + len(ev.ToolOutput)))
			b.ReportAllocs()
			for b.Loop() {
				d.Detect(ev)
				d.forget() // each iteration is a session's first sight of the message, not a repeat
			}
		})
	}
}

// BenchmarkCompile measures compiling the default detector: what a replay, or the
// online loop, pays once before its first event (the tool rules' automata included).
func BenchmarkCompile(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compile(DefaultConfig()); err != nil {
			b.Fatal(err)
		}
	}
}
