package datasets

import (
	"bytes"
	"context"
	"flag"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/loopwatch/loopwatch/analyze"
	"github.com/loopwatch/loopwatch/analyze/assess"
	"github.com/loopwatch/loopwatch/analyze/assess/breaker"
	"github.com/loopwatch/loopwatch/datasets/synth"
	"github.com/loopwatch/loopwatch/eval"
	"github.com/loopwatch/loopwatch/replay/claudecode"
	"github.com/loopwatch/loopwatch/replay/input"
	"github.com/loopwatch/loopwatch/replay/vibeslog"
)

var update = flag.Bool("update", false, "rewrite the committed sample from the generator")

// TestSampleIsGenerated checks that the committed sample is exactly what the generator
// writes, so the sample, its labels and the generator cannot drift apart.
func TestSampleIsGenerated(t *testing.T) {
	want := synth.SampleFiles()
	if *update {
		if err := os.RemoveAll("sample"); err != nil {
			t.Fatal(err)
		}
		for name, b := range want {
			p := filepath.Join("sample", filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		t.Log("sample rewritten; rebuild to embed it")
		return
	}
	got := map[string][]byte{}
	err := fs.WalkDir(sample, "sample", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		got[strings.TrimPrefix(p, "sample/")], err = fs.ReadFile(sample, p)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("sample/%s is not written by the generator (run: go test ./datasets -update)", name)
		}
	}
	for name, b := range want {
		if !bytes.Equal(got[name], b) {
			t.Errorf("sample/%s differs from the generator's output (run: go test ./datasets -update)", name)
		}
	}
	if !bytes.Equal(SampleLabels(), want[synth.RunLabelsFile]) || !bytes.Equal(SampleSessionLabels(), want[synth.SessionLabelsFile]) {
		t.Error("SampleLabels or SampleSessionLabels is not the generator's labels file")
	}
	total := 0
	for _, b := range got {
		total += len(b)
	}
	if total > 512<<10 {
		t.Errorf("the sample is %d KiB; keep it small", total>>10)
	}
}

// TestSampleCoversScenarios checks that the sample has every run and session
// scenario, and both classes of each.
func TestSampleCoversScenarios(t *testing.T) {
	runs := synth.Generate(synth.SampleConfig())
	var pos, neg int
	seen := map[synth.Scenario]int{}
	for _, r := range runs {
		seen[r.Scenario]++
		if r.Positive() {
			pos++
		} else {
			neg++
		}
	}
	if len(runs) < 12 || pos < 4 || neg < 4 || len(seen) != len(synth.Scenarios) {
		t.Errorf("runs too thin: %d runs, %d positive, %d negative, scenarios %v", len(runs), pos, neg, seen)
	}
	sessions := synth.GenerateSessions(synth.SampleSessionConfig())
	scen := map[synth.SessionScenario]bool{}
	for _, s := range sessions {
		scen[s.Scenario] = true
	}
	for _, sc := range synth.SessionScenarios {
		if !scen[sc] {
			t.Errorf("no %s session in the sample", sc)
		}
	}
	logs := 0
	fs.WalkDir(Sample(), "vibes", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			logs++
		}
		return err
	})
	if logs != 1 {
		t.Errorf("%d vibes logs, want 1", logs)
	}
}

// sampleSessions reads every session of the sample with the real readers, failing
// the test on any problem, and checks that each file is claimed by its own format
// only.
func sampleSessions(t *testing.T) map[string]*input.Session {
	t.Helper()
	fsys := Sample()
	out := map[string]*input.Session{}
	add := func(s *input.Session) {
		if _, dup := out[s.Key]; dup {
			t.Errorf("session %s read twice", s.Key)
		}
		out[s.Key] = s
	}
	err := fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return err
		}
		cc, vb := claudecode.Sniff(name, data), vibeslog.Sniff(data)
		top, _, _ := strings.Cut(name, "/")
		switch {
		case top == "runs":
			if cc || vb {
				t.Errorf("%s: run trace sniffed as a session (claude code %v, vibes %v)", name, cc, vb)
			}
		case top == "sessions":
			if !cc || vb {
				t.Errorf("%s: claude code sniff %v, vibes sniff %v", name, cc, vb)
			}
			if claudecode.IsSubagentFile(name) {
				if _, err := fs.Stat(fsys, claudecode.ParentOf(name)); err != nil {
					t.Errorf("%s: no main transcript: %v", name, err)
				}
				return nil
			}
			s, probs := claudecode.Read(fsys, name)
			for _, p := range probs {
				t.Errorf("%s: problem %s", name, p.Detail)
			}
			if s != nil {
				add(s)
			}
		case top == "vibes":
			if cc || !vb {
				t.Errorf("%s: claude code sniff %v, vibes sniff %v", name, cc, vb)
			}
			ss, probs := vibeslog.Read(name, bytes.NewReader(data))
			for _, p := range probs {
				t.Errorf("%s: problem %s", name, p.Detail)
			}
			if len(ss) != 2 {
				t.Errorf("%s: %d sessions, want 2", name, len(ss))
			}
			for _, s := range ss {
				add(s)
			}
		default:
			t.Errorf("%s: not in runs/, sessions/ or vibes/", name)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for key, s := range out {
		for k := range s.Records {
			if strings.HasPrefix(k, "time/") || strings.HasSuffix(k, "unmatched") {
				t.Errorf("session %s: %s = %d", key, k, s.Records[k])
			}
		}
	}
	return out
}

// sampleNames maps the sample's session keys to the names of the cases below: the
// session scenario, or vibes_smooth and vibes_friction for the vibes log's sessions.
func sampleNames() map[string]string {
	names := map[string]string{}
	for _, s := range synth.GenerateSessions(synth.SampleSessionConfig()) {
		names[s.Label.SessionID] = string(s.Scenario)
	}
	vl := synth.GenerateVibesLog(synth.SampleVibesConfig())
	names[vl.Labels[0].SessionID], names[vl.Labels[1].SessionID] = "vibes_smooth", "vibes_friction"
	return names
}

// TestSampleSessions reads the sample with the real readers and checks each session
// against its label and the ground truth of its scenario: the label's file is the
// session's, human_msgs the number of human messages the reader finds, every friction
// uuid a human message or interrupt of the main conversation. It then drives the
// session through the assessment processor (detection, circuit breaker,
// interventions) with the default configuration and pins the interventions raised,
// so that the demo shows the breaker at work: the correction storm gets a
// clarification pause, the failing loops an approach pivot, the smooth sessions
// nothing.
func TestSampleSessions(t *testing.T) {
	sessions := sampleSessions(t)
	labels, probs, err := eval.ReadLabels(bytes.NewReader(SampleSessionLabels()))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range probs {
		t.Errorf("sessions.csv line %d: %s", p.Line, p.Detail)
	}
	if _, probs, err := eval.ReadLabels(bytes.NewReader(SampleLabels())); err != nil || len(probs) > 0 {
		t.Errorf("runs.csv: %v %v", err, probs)
	}
	keys := map[string]string{} // case name → session key
	for key, name := range sampleNames() {
		keys[name] = key
	}

	tests := []struct {
		name     string
		outcome  string
		humans   int
		friction int
		want     []breaker.Intervention
	}{
		{"smooth_success", eval.OutcomeSuccess, 2, 0, nil},
		// The default breaker checks in at the first friction turn (detect's friction
		// signals) and again at a push-back past the one-minute cooldown: the second
		// correction inside the window asks for clarification, the third comes inside
		// the cooldown.
		{"correction_storm", eval.OutcomePartial, 5, 3, []breaker.Intervention{breaker.ExplicitCheckIn, breaker.ClarificationPause}},
		// "still doesn't work", then "same error again" over a minute later, then the
		// fifth failing go test in a row.
		{"failing_tool_loop", eval.OutcomeFailure, 4, 3, []breaker.Intervention{breaker.ExplicitCheckIn, breaker.ExplicitCheckIn,
			breaker.ApproachPivot}},
		// The redirect after the interrupt checks in.
		{"interrupt_redirect", eval.OutcomeSuccess, 3, 1, []breaker.Intervention{breaker.ExplicitCheckIn}},
		// Two failing go vet runs, a correction and a trailing interrupt with nothing
		// after it: the correction checks in, the interrupt weighs nothing.
		{"abandoned", eval.OutcomeAbandoned, 2, 1, []breaker.Intervention{breaker.ExplicitCheckIn}},
		{"subagent", eval.OutcomeSuccess, 2, 0, nil},
		{"vibes_smooth", eval.OutcomeSuccess, 2, 0, nil},
		{"vibes_friction", eval.OutcomeSuccess, 4, 2, []breaker.Intervention{breaker.ExplicitCheckIn, breaker.ExplicitCheckIn}},
	}
	if len(tests) != len(sessions) || labels.Len() != len(sessions) {
		t.Fatalf("%d cases and %d labels for %d sessions", len(tests), labels.Len(), len(sessions))
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			key := keys[tt.name]
			s := sessions[key]
			rec, ok := labels.Get(key)
			if s == nil || !ok {
				t.Fatalf("session %q: read %v, labelled %v", key, s != nil, ok)
			}
			if rec.Path != s.File {
				t.Errorf("label file %s, session file %s", rec.Path, s.File)
			}
			if rec.Outcome != tt.outcome || rec.HumanMsgs != tt.humans || len(rec.Moments) != tt.friction || rec.Confidence != "high" {
				t.Errorf("label: outcome %s, human_msgs %d, %d friction, confidence %s; want %s, %d, %d, high",
					rec.Outcome, rec.HumanMsgs, len(rec.Moments), rec.Confidence, tt.outcome, tt.humans, tt.friction)
			}
			humans := 0
			for _, ev := range s.Events {
				if ev.Kind == analyze.KindUserMessage && !ev.Sidechain {
					humans++
				}
			}
			if humans != rec.HumanMsgs {
				t.Errorf("the reader finds %d human messages, human_msgs says %d", humans, rec.HumanMsgs)
			}
			for _, m := range rec.Moments {
				i := m.Find(s.Events)
				if i < 0 {
					t.Errorf("friction %s is no event of the session", m)
					continue
				}
				if ev := s.Events[i]; ev.Sidechain || ev.Kind != analyze.KindUserMessage && ev.Kind != analyze.KindInterrupt {
					t.Errorf("friction %s is a %s event (sidechain %v)", m, ev.Kind, ev.Sidechain)
				}
			}
			got, err := interventions(s)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("interventions %v, want %v", got, tt.want)
			}
		})
	}
}

// interventions replays s through a fresh processor and returns the interventions it
// raised, in order.
func interventions(s *input.Session) ([]breaker.Intervention, error) {
	p, err := assess.New(assess.DefaultConfig(), assess.Options{})
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	var out []breaker.Intervention
	for _, ev := range s.Events {
		step, err := p.Process(ctx, ev)
		if err != nil {
			return nil, err
		}
		if step.Intervention != nil {
			out = append(out, step.Intervention.Type)
		}
	}
	if _, _, err := p.EndSession(ctx, s.Key, s.End); err != nil {
		return nil, err
	}
	return out, nil
}

// TestSampleLayout checks the paths of the sample: Claude Code's folder layout for
// transcripts, session files named by their session id.
func TestSampleLayout(t *testing.T) {
	for _, s := range synth.GenerateSessions(synth.SampleSessionConfig()) {
		for name := range s.Files {
			dir, base := path.Split(name)
			switch {
			case claudecode.IsSubagentFile(name):
				if claudecode.ParentOf(name) != s.Label.File {
					t.Errorf("%s: parent %s, want %s", name, claudecode.ParentOf(name), s.Label.File)
				}
			case base != s.Label.SessionID+".jsonl" || !strings.HasPrefix(dir, "sessions/-home-"):
				t.Errorf("%s: not sessions/<project-dir>/<session-id>.jsonl", name)
			}
		}
	}
	if _, err := fs.Stat(Sample(), "runs/synth-0001.jsonl"); err != nil {
		t.Error(err)
	}
}

// TestSampleSubagent checks that the subagent session's sidechain is read into it.
func TestSampleSubagent(t *testing.T) {
	sessions := sampleSessions(t)
	var found bool
	for _, s := range synth.GenerateSessions(synth.SampleSessionConfig()) {
		if s.Scenario != synth.WithSubagent {
			continue
		}
		found = true
		rs := sessions[s.Label.SessionID]
		side := 0
		for _, ev := range rs.Events {
			if ev.Sidechain {
				side++
			}
		}
		if rs.Subagents != 1 || side < 3 || len(s.Files) != 2 {
			t.Errorf("subagents %d, sidechain events %d, files %d", rs.Subagents, side, len(s.Files))
		}
	}
	if !found {
		t.Error("no subagent session")
	}
}
