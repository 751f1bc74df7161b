package detect_test

import (
	"fmt"

	"github.com/loopwatch/loopwatch/analyze"
	"github.com/loopwatch/loopwatch/analyze/assess/detect"
)

func ExampleLightweightDetector_Detect() {
	rules, err := detect.Compile(detect.DefaultConfig()) // once, shared by every session
	if err != nil {
		panic(err)
	}
	d := detect.NewLightweightDetector(rules) // one per session
	for _, ev := range []analyze.Event{
		{Kind: analyze.KindUserMessage, UserContent: "make the parser accept empty lines"},
		{Kind: analyze.KindAssistantMessage, AssistantText: "Done: empty lines are skipped now."}, // never scanned for mood
		{Kind: analyze.KindUserMessage, UserContent: "still doesn’t work, same error again"},
		{Kind: analyze.KindToolResult, ToolOutput: "--- FAIL: TestParse (0.00s)", ToolStatus: analyze.ToolStatusError},
		{Kind: analyze.KindInterrupt, UserContent: "[Request interrupted by user]"},
		{Kind: analyze.KindUserMessage, UserContent: "não, usa o parser antigo"},
		{Kind: analyze.KindUserMessage, UserContent: "make the parser accept empty lines!"},
		{Kind: analyze.KindUserMessage, UserContent: "works great, thanks"},
	} {
		var kinds []string
		for _, s := range d.Detect(ev) {
			kinds = append(kinds, s.Kind.String())
		}
		fmt.Printf("%-17s %v frustration=%.2f\n", ev.Kind, kinds, d.FrustrationEMA())
	}
	// Output:
	// user_message      [] frustration=0.00
	// assistant_message [] frustration=0.00
	// user_message      [frustration frustration frustration still_problem] frustration=0.50
	// tool_result       [test_failure] frustration=0.50
	// interrupt         [interrupt] frustration=0.00
	// user_message      [negation_reply interrupt_redirect] frustration=1.00
	// user_message      [repeat_request] frustration=0.50
	// user_message      [success success success] frustration=0.00
}

func ExampleToolClassifier_Classify() {
	seed, err := detect.NewToolClassifier(detect.SeedToolRules())
	if err != nil {
		panic(err)
	}
	for _, c := range []struct {
		out    string
		status analyze.ToolStatus
	}{
		{"test result: FAILED. 1 passed; 1 failed", analyze.ToolStatusUnknown},
		{`return fmt.Errorf("error: %w", err)`, analyze.ToolStatusOK}, // a Read of source code
		{"Exit code 128\nfatal: no upstream branch", analyze.ToolStatusError},
		{"    Finished `release` profile [optimized]", analyze.ToolStatusOK},
	} {
		var read []string
		for _, s := range seed.Classify(nil, c.out, c.status) {
			read = append(read, s.Kind.String()+" ("+s.Source+")")
		}
		fmt.Println(read)
	}
	// Output:
	// [build_failure (seed.build_failure) test_failure (seed.test_failure)]
	// []
	// [tool_failure (is_error)]
	// [build_success (seed.build_success)]
}
