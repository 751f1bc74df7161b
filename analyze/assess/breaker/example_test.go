package breaker_test

import (
	"fmt"
	"time"

	"github.com/loopwatch/loopwatch/analyze/assess/breaker"
	"github.com/loopwatch/loopwatch/analyze/assess/detect"
)

func ExampleCircuitBreaker() {
	b := breaker.New(breaker.SeedConfig()) // one per session; the seed's storm of 3
	start := time.Date(2025, 12, 30, 14, 0, 0, 0, time.UTC)
	correction := []detect.Signal{{Kind: detect.UserCorrection}}
	for _, at := range []time.Duration{0, 90 * time.Second, 3 * time.Minute} {
		now := start.Add(at) // event time, never the wall clock
		b.Update(now, correction, 0.2)
		if i, ok := b.ShouldIntervene(now); ok {
			b.RecordIntervention(now)
			fmt.Println(i, "—", i.Message())
		}
	}
	fmt.Printf("%+v\n", b.State(start.Add(4*time.Minute)))
	// Output:
	// clarification_pause — Before we continue: I want to make sure I understand what you're looking for. Could you help me understand which part isn't matching your expectations?
	// {FrustrationEMA:0.2 ConsecutiveFailures:3 FailureTarget: CorrectionsInWindow:3 CooldownActive:true InterventionCount:1 LastIntervention:2025-12-30 14:03:00 +0000 UTC}
}
