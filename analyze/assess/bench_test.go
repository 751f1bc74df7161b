package assess

import (
	"context"
	"testing"
	"time"

	"github.com/loopwatch/loopwatch/analyze/assess/internal/benchdata"
)

// BenchmarkProcess measures the whole processor step (detection, breaker, buffer,
// checkpoints with the offline summariser every 20 messages, timeout bookkeeping) on
// one long-running session, one event per iteration, a second of event time apart.
func BenchmarkProcess(b *testing.B) {
	evs := benchdata.Events()
	ctx := context.Background()
	for _, name := range benchdata.Names() {
		b.Run(name, func(b *testing.B) {
			p, err := New(DefaultConfig(), Options{})
			if err != nil {
				b.Fatal(err)
			}
			ev := evs[name]
			ev.Time = time.Date(2025, 12, 30, 14, 0, 0, 0, time.UTC)
			b.SetBytes(int64(len(ev.UserContent) + len(ev.AssistantText) + len(ev.ToolOutput)))
			b.ReportAllocs()
			for b.Loop() {
				ev.Time = ev.Time.Add(time.Second)
				if _, err := p.Process(ctx, ev); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
