package assess

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/loopwatch/loopwatch/analyze"
)

// FuzzConfig feeds assessment configuration files — JSON over the defaults, as
// --assess-config reads them — to New: a file is refused with an error or gives a
// processor that assesses a session without panicking, with EMAs in [0, 1].
func FuzzConfig(f *testing.F) {
	def, _ := json.Marshal(DefaultConfig())
	f.Add(def)
	f.Add([]byte(`{"breaker":{"cooldown":"2m","failure_threshold":3},"end_hooks":["Stop"]}`))
	f.Add([]byte(`{"buffer":{"max_events":1,"max_text_bytes":64},"checkpoint":{"message_threshold":1}}`))
	f.Add([]byte(`{"detect":{"patterns":{"correction":["(?i)no,"]}},"inactivity_timeout":"1ns","sampling":{"base_rate":1}}`))
	f.Add([]byte(`{"end_system_events":["session_removed"],"poll_max":1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg := DefaultConfig()
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if dec.Decode(&cfg) != nil {
			return
		}
		if cfg.Buffer.MaxEvents > 1<<16 || cfg.Buffer.MaxTextBytes > 1<<20 {
			return // a valid but huge buffer is slow, not wrong
		}
		p, err := New(cfg, Options{})
		if err != nil {
			return
		}
		t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
		evs := []analyze.Event{
			{Kind: analyze.KindUserMessage, UserContent: "no, that's wrong, use the other one"},
			{Kind: analyze.KindToolResult, ToolName: "Bash", ToolOutput: "test result: FAILED. 1 failed", ToolStatus: analyze.ToolStatusError},
			{Kind: analyze.KindInterrupt, UserContent: "[Request interrupted by user]"},
			{Kind: analyze.KindUserMessage, UserContent: "perfect, thanks"},
			{Kind: analyze.KindHook, HookName: "Stop"},
			{Kind: analyze.KindSystem, Subtype: "session_removed"},
			{Kind: analyze.KindHook, HookName: "SessionEnd"},
		}
		for i, ev := range evs {
			ev.SessionID, ev.Time = "s", t0.Add(time.Duration(i)*time.Minute)
			step, err := p.Process(context.Background(), ev)
			if err != nil {
				t.Fatalf("event %d: %v", i, err)
			}
			for _, v := range []float64{step.FrustrationEMA, step.SuccessEMA} {
				if math.IsNaN(v) || v < 0 || v > 1 {
					t.Fatalf("event %d: EMA %v outside [0, 1]", i, v)
				}
			}
		}
		if _, err := p.EndAll(context.Background(), t0.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
	})
}
