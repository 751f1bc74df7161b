package assess_test

import (
	"context"
	"fmt"
	"time"

	"github.com/loopwatch/loopwatch/analyze"
	"github.com/loopwatch/loopwatch/analyze/assess"
	"github.com/loopwatch/loopwatch/analyze/assess/breaker"
	"github.com/loopwatch/loopwatch/analyze/assess/eventlog"
)

// The replay drives the processor one event at a time and records each Step.
func ExampleProcessor_Process() {
	ctx := context.Background()
	var sink breaker.RecordingSink
	p, err := assess.New(assess.DefaultConfig(), assess.Options{Sink: &sink})
	if err != nil {
		panic(err)
	}
	start := time.Date(2025, 12, 30, 14, 0, 0, 0, time.UTC)
	for i, text := range []string{"add a --verbose flag", "no, that's wrong", "I meant the replay command", "actually it should not print twice"} {
		step, err := p.Process(ctx, analyze.Event{
			Kind: analyze.KindUserMessage, SessionID: "abc-123",
			Time: start.Add(time.Duration(i) * time.Minute), UserContent: text,
		})
		if err != nil {
			panic(err)
		}
		fmt.Printf("#%d frustration %.2f corrections %d", step.Index, step.FrustrationEMA, step.Breaker.CorrectionsInWindow)
		if step.Intervention != nil {
			fmt.Printf(" → %v", step.Intervention.Type)
		}
		fmt.Println()
	}
	end, _, err := p.EndSession(ctx, "abc-123", start.Add(5*time.Minute))
	if err != nil {
		panic(err)
	}
	fmt.Println(end.Reason, end.Analysis.Outcome)
	fmt.Println(sink.Messages()[0].Content)
	// Output:
	// #1 frustration 0.00 corrections 0
	// #2 frustration 1.00 corrections 1 → explicit_check_in
	// #3 frustration 0.50 corrections 2 → clarification_pause
	// #4 frustration 0.00 corrections 3 → clarification_pause
	// flush abandoned
	// I sense some friction in our session. Would you like to pause and reassess our approach, or should I continue with adjustments?
}

// Online, the processor consumes an event log, committing after each batch.
func ExampleProcessor_Drain() {
	start := time.Date(2025, 12, 30, 14, 0, 0, 0, time.UTC)
	log := eventlog.NewMemory(
		analyze.Event{Kind: analyze.KindUserMessage, SessionID: "s1", Time: start, UserContent: "fix the failing test"},
		analyze.Event{Kind: analyze.KindToolResult, SessionID: "s1", Time: start.Add(time.Minute), ToolOutput: "test result: ok. 12 passed", ToolStatus: analyze.ToolStatusOK},
		analyze.Event{Kind: analyze.KindUserMessage, SessionID: "s1", Time: start.Add(2 * time.Minute), UserContent: "perfect, thanks"},
		analyze.Event{Kind: analyze.KindHook, SessionID: "s1", Time: start.Add(3 * time.Minute), HookName: "SessionEnd"},
	)
	p, err := assess.New(assess.DefaultConfig(), assess.Options{
		OnStep: func(r eventlog.Record, s assess.Step) {
			if s.Checkpoint != nil {
				fmt.Printf("offset %d: checkpoint (%v): %s\n", r.Offset, s.Checkpoint.Trigger, s.Checkpoint.Summary.Text)
			}
			if s.End != nil {
				fmt.Printf("offset %d: %s %.1f\n", r.Offset, s.End.Analysis.Outcome, s.End.Analysis.Confidence)
			}
		},
	})
	if err != nil {
		panic(err)
	}
	if err := p.Drain(context.Background(), log.Consumer("assessment")); err != nil {
		panic(err)
	}
	fmt.Println("committed up to", log.Committed("assessment"))
	// Output:
	// offset 2: checkpoint (task_boundary): Events 1–3: 2 from the human, 1 tool results (0 errors). Signals: 2 success, 1 test_success.
	// offset 3: success 0.8
	// committed up to 4
}
