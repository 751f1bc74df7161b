package llm_test

import (
	"fmt"

	"github.com/loopwatch/loopwatch/analyze/assess/llm"
)

func ExampleParseEnvelope() {
	out := []byte(`{"type":"result","subtype":"success","is_error":false,"result":"Here you go:\n` +
		"```json\\n{\\\"outcome\\\": \\\"partial\\\", \\\"confidence\\\": 0.7, \\\"summary\\\": \\\"Tests pass; docs missing.\\\"}\\n```" +
		`","total_cost_usd":0.004}`)
	answer, err := llm.ParseEnvelope(out)
	if err != nil {
		panic(err)
	}
	a, err := llm.ParseAnalysis(answer)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s %.1f %q\n", a.Outcome, a.Confidence, a.Summary)
	// Output:
	// partial 0.7 "Tests pass; docs missing."
}
