package screens

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/loopwatch/loopwatch/analyze/assess"
	"github.com/loopwatch/loopwatch/reports"
)

// The fixture's sessions. A and B share the prefix 5f3c; C started ten days before A;
// D has no events and no dates.
const (
	keyA = "5f3c0000-0000-4000-8000-00000000000a"
	keyB = "5f3c1111-0000-4000-8000-00000000000b"
	keyC = "77aa0000-0000-4000-8000-00000000000c"
	keyD = "9e000000-0000-4000-8000-00000000000d"
)

func ptr[T any](v T) *T { return &v }

func at(s string) *time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return &t
}

// tables are the run table and the session tables the screens read.
type tables struct {
	runs          *reports.Table[reports.RunRow]
	events        *reports.Table[reports.EventRow]
	checkpoints   *reports.Table[reports.CheckpointRow]
	interventions *reports.Table[reports.InterventionRow]
}

// sessionTables opens out's run table and session tables, failing the test on an error.
func sessionTables(t testing.TB, out *reports.Output) tables {
	t.Helper()
	var tb tables
	var errs [4]error
	tb.runs, errs[0] = reports.NewTable[reports.RunRow](out, "")
	tb.events, errs[1] = reports.NewTable[reports.EventRow](out, "events")
	tb.checkpoints, errs[2] = reports.NewTable[reports.CheckpointRow](out, "checkpoints")
	tb.interventions, errs[3] = reports.NewTable[reports.InterventionRow](out, "interventions")
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	return tb
}

// writeFixture writes a small replay output by hand — a run table with four sessions
// and a quasar run, and the events, checkpoints and interventions tables — into
// dir/results.parquet and its siblings, and returns the run table's path.
func writeFixture(t testing.TB, dir string) string {
	t.Helper()
	cfg, err := json.Marshal(assess.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "results.parquet")
	out, err := reports.NewOutput(path, map[string]string{
		"loopwatch.assess_config":     string(cfg),
		"loopwatch.input_fingerprint": "3b9f0c1d2e4a5b6c7d8e9f000112233445566778899aabbccddeeff001122334",
		"loopwatch.llm":               "offline",
		"loopwatch.labels":            "labels.csv sha256:0123456789abcdef",
	})
	if err != nil {
		t.Fatal(err)
	}
	defer out.Abort()
	tb := sessionTables(t, out)
	runs, events, cps, ivs := tb.runs, tb.events, tb.checkpoints, tb.interventions
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}

	// A: a correction storm and a clarification pause, labelled partial.
	startA := at("2026-03-02T09:00:00Z")
	must(runs.Write(reports.RunRow{RunKey: keyA, Kind: "session", Source: "claude_code", File: "shop/" + keyA + ".jsonl", TaskID: keyA,
		Title: "Discount field at checkout", StartedAt: startA, EndedAt: at("2026-03-02T09:23:00Z"), Project: ptr("/home/dev/shop"),
		Events: ptr[int32](12), HumanMessages: ptr[int32](5), ToolFailures: ptr[int32](1), Interrupts: ptr[int32](0),
		Checkpoints: ptr[int32](2), Interventions: ptr[int32](1), FirstInterventionAt: at("2026-03-02T09:03:00Z"),
		FirstInterventionIx: ptr[int32](7), FirstInterventionTy: ptr("clarification_pause"),
		PeakFrustrationEMA: ptr(0.62), FinalFrustrationEMA: ptr(0.31), FinalSuccessEMA: ptr(0.45), EndReason: ptr("flush"),
		PredictedOutcome: ptr("partial"), PredictedConfidence: ptr(0.7),
		AnalysisSummary: ptr("partial: approved after heavy friction (12 messages, 5 human turns, 4 friction events)."),
		Label:           ptr("ambiguous"), LabelSource: ptr("human"), LabelOutcome: ptr("partial"), LabelConfidence: ptr("high"),
		FrictionMoments: ptr[int32](1)}))
	emaA := []float64{0, 0, 0, 0.15, 0.15, 0.405, 0.62, 0.5, 0.5, 0.35, 0.31, 0.31}
	sigA := map[int][]string{3: {"test_failure"}, 4: {"user_correction"}, 6: {"user_correction", "frustration"},
		7: {"user_correction", "frustration", "frustration"}, 10: {"test_success"}, 11: {"success"}}
	kindA := []string{"user_message", "assistant_message", "tool_result", "user_message", "assistant_message", "user_message",
		"user_message", "assistant_message", "tool_result", "tool_result", "user_message", "assistant_message"}
	for i := range 12 {
		ix := int32(i + 1)
		e := reports.EventRow{SessionKey: keyA, Index: ix, At: ptr(startA.Add(time.Duration(i) * 30 * time.Second)), Kind: kindA[i],
			Signals: sigA[i+1], FrustrationEMA: emaA[i], FrictionLabel: ptr(i+1 == 6)}
		if e.Signals == nil {
			e.Signals = []string{}
		}
		if i+1 == 7 {
			e.Intervention = ptr("clarification_pause")
		}
		must(events.Write(e))
	}
	must(cps.Write(
		reports.CheckpointRow{SessionKey: keyA, Seq: 1, EventIndex: 6, At: ptr(startA.Add(150 * time.Second)), Trigger: "task_boundary",
			FromIndex: 1, ToIndex: 6, Summary: "Set up the discount field"},
		reports.CheckpointRow{SessionKey: keyA, Seq: 2, EventIndex: 12, At: ptr(startA.Add(330 * time.Second)), Trigger: "message_count",
			FromIndex: 7, ToIndex: 12, Error: ptr("claude: exit status 1")}))
	must(ivs.Write(reports.InterventionRow{SessionKey: keyA, EventIndex: 7, At: at("2026-03-02T09:03:00Z"), Type: "clarification_pause",
		Content: "I want to make sure I understand correctly.", FrustrationEMA: 0.62, CorrectionsInWindow: 3, AfterFriction: ptr(true)}))

	// B: a short, quiet session, unlabelled.
	startB := at("2026-03-01T14:00:00Z")
	must(runs.Write(reports.RunRow{RunKey: keyB, Kind: "session", Source: "claude_code", File: "shop/" + keyB + ".jsonl", TaskID: keyB,
		StartedAt: startB, EndedAt: at("2026-03-01T14:00:45Z"), Project: ptr("/home/dev/shop"),
		Events: ptr[int32](3), HumanMessages: ptr[int32](1), ToolFailures: ptr[int32](0), Interrupts: ptr[int32](0),
		Checkpoints: ptr[int32](0), Interventions: ptr[int32](0), PeakFrustrationEMA: ptr(0.0), FinalFrustrationEMA: ptr(0.0),
		FinalSuccessEMA: ptr(0.0), EndReason: ptr("flush"), PredictedOutcome: ptr("success"), PredictedConfidence: ptr(0.8),
		AnalysisSummary: ptr("success: nothing visibly went wrong.")}))
	for i := range 3 {
		must(events.Write(reports.EventRow{SessionKey: keyB, Index: int32(i + 1), At: ptr(startB.Add(time.Duration(i) * 15 * time.Second)),
			Kind: "user_message", Signals: []string{}}))
	}

	// C: ten days older, 45 events with the EMA rising to 1, a checkpoint whose
	// processor indices lag the event indices by one, two interventions, no analysis.
	startC := at("2026-02-20T10:00:00Z")
	must(runs.Write(reports.RunRow{RunKey: keyC, Kind: "session", Source: "vibes", File: "events.jsonl", TaskID: keyC,
		StartedAt: startC, EndedAt: at("2026-02-20T12:05:00Z"), Project: ptr("/home/dev/blog"),
		Events: ptr[int32](45), HumanMessages: ptr[int32](9), ToolFailures: ptr[int32](6), Interrupts: ptr[int32](1),
		Checkpoints: ptr[int32](1), Interventions: ptr[int32](2), FirstInterventionAt: ptr(startC.Add(30 * time.Minute)),
		FirstInterventionIx: ptr[int32](30), FirstInterventionTy: ptr("approach_pivot"),
		PeakFrustrationEMA: ptr(1.0), FinalFrustrationEMA: ptr(1.0), FinalSuccessEMA: ptr(0.0), EndReason: ptr("timeout"),
		AnalysisError: ptr("claude: exit status 1")}))
	for i := range 45 {
		e := reports.EventRow{SessionKey: keyC, Index: int32(i + 1), At: ptr(startC.Add(time.Duration(i) * time.Minute)), Kind: "tool_result",
			Signals: []string{}, FrustrationEMA: float64(i) / 44}
		if i >= 20 && i%4 == 0 {
			e.Signals = []string{"build_failure"}
		}
		must(events.Write(e))
	}
	must(cps.Write(reports.CheckpointRow{SessionKey: keyC, Seq: 1, EventIndex: 20, At: ptr(startC.Add(19 * time.Minute)), Trigger: "time",
		FromIndex: 1, ToIndex: 19, Summary: "Events 1–19: the build broke after the\nrender refactor, and a summary long enough to be clipped in the text screen."}))
	must(ivs.Write(
		reports.InterventionRow{SessionKey: keyC, EventIndex: 30, At: ptr(startC.Add(29 * time.Minute)), Type: "approach_pivot",
			Content: "I notice my current approach isn't working well.", FrustrationEMA: 0.66, ConsecutiveFailures: 5},
		reports.InterventionRow{SessionKey: keyC, EventIndex: 41, At: ptr(startC.Add(40 * time.Minute)), Type: "explicit_check_in",
			Content: "How are things going?", FrustrationEMA: 0.91}))

	// D: a labelled session without events or dates.
	must(runs.Write(reports.RunRow{RunKey: keyD, Kind: "session", Source: "claude_code", File: "empty.jsonl", TaskID: keyD,
		Title: "Empty transcript", Events: ptr[int32](0), HumanMessages: ptr[int32](0), Checkpoints: ptr[int32](0),
		Interventions: ptr[int32](0), PeakFrustrationEMA: ptr(0.0), FinalFrustrationEMA: ptr(0.0), FinalSuccessEMA: ptr(0.0),
		Label: ptr("excluded"), LabelSource: ptr("human"), LabelOutcome: ptr("none"), LabelConfidence: ptr("high"),
		FrictionMoments: ptr[int32](0)}))

	// A quasar run: not a session.
	must(runs.Write(reports.RunRow{RunKey: "q-1", Kind: "quasar_run", Source: "trace", StartedAt: at("2026-03-03T00:00:00Z")}))

	if err := out.Commit(); err != nil {
		t.Fatal(err)
	}
	return path
}
