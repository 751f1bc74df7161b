package synth

import (
	"bufio"
	"bytes"
	"encoding/json"
	"maps"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/loopwatch/loopwatch/analyze"
	"github.com/loopwatch/loopwatch/eval"
	"github.com/loopwatch/loopwatch/replay/claudecode"
	"github.com/loopwatch/loopwatch/replay/input"
	"github.com/loopwatch/loopwatch/replay/vibeslog"
)

func TestIDs(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	v4 := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	at := time.Date(2026, 3, 4, 14, 0, 0, 123_000_000, time.UTC)
	tests := []struct {
		name string
		gen  func() string
		ok   func(string) bool
	}{
		{"uuid4", func() string { return uuid4(rng) }, v4.MatchString},
		{"uuid7", func() string { return uuid7(at, rng) }, func(id string) bool {
			got, err := vibeslog.EventTime(id)
			return err == nil && got.Equal(at)
		}},
		{"tool id", func() string { return token(rng, "toolu_01", 22) }, regexp.MustCompile(`^toolu_01[0-9A-Za-z]{22}$`).MatchString},
		{"agent id", func() string { return hexID(rng, 7) }, regexp.MustCompile(`^[0-9a-f]{7}$`).MatchString},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seen := map[string]bool{}
			for range 200 {
				id := tt.gen()
				if !tt.ok(id) || seen[id] {
					t.Fatalf("bad or repeated id %q", id)
				}
				seen[id] = true
			}
		})
	}
}

func TestObjKeepsOrderAndHTML(t *testing.T) {
	got := string(line(obj{{"z", 1}, {"a", "<command-name>/cost</command-name> & more"}, {"m", obj{}}, {"n", nil}}))
	if want := `{"z":1,"a":"<command-name>/cost</command-name> & more","m":{},"n":null}` + "\n"; got != want {
		t.Errorf("got %s want %s", got, want)
	}
}

// TestDeterministic checks that the same configuration gives the same bytes and
// another seed other bytes.
func TestDeterministic(t *testing.T) {
	a, b := SampleFiles(), SampleFiles()
	if !maps.EqualFunc(a, b, bytes.Equal) {
		t.Fatal("two calls of SampleFiles differ")
	}
	cfg := SampleSessionConfig()
	cfg.Seed++
	other := GenerateSessions(cfg)
	for _, s := range GenerateSessions(SampleSessionConfig()) {
		for _, o := range other {
			if o.Label.SessionID == s.Label.SessionID {
				t.Errorf("seed %d and %d both make session %s", cfg.Seed-1, cfg.Seed, s.Label.SessionID)
			}
		}
	}
	vc := SampleVibesConfig()
	vc.Seed++
	if bytes.Equal(GenerateVibesLog(vc).Data, GenerateVibesLog(SampleVibesConfig()).Data) {
		t.Error("another seed, the same vibes log")
	}
}

// TestLayout checks the paths Layout gives the parts of a dataset.
func TestLayout(t *testing.T) {
	files := SampleFiles()
	var runs, sessions, subagents, vibes int
	for name := range files {
		switch {
		case name == RunLabelsFile || name == SessionLabelsFile:
		case strings.HasPrefix(name, "inputs/runs/"):
			runs++
		case claudecode.IsSubagentFile(strings.TrimPrefix(name, "inputs/")):
			subagents++
		case strings.HasPrefix(name, "inputs/sessions/"):
			sessions++
		case strings.HasPrefix(name, "inputs/vibes/"):
			vibes++
		default:
			t.Errorf("unexpected file %s", name)
		}
	}
	if runs != len(Files(Generate(SampleConfig()))) || sessions != len(SessionScenarios) || subagents != 1 || vibes != 1 ||
		files[RunLabelsFile] == nil || files[SessionLabelsFile] == nil {
		t.Errorf("runs %d, sessions %d, subagents %d, vibes %d", runs, sessions, subagents, vibes)
	}
	if got := Layout(nil, nil, nil); len(got) != 0 {
		t.Errorf("empty dataset has files %v", slices.Sorted(maps.Keys(got)))
	}
}

// TestSessionsRead generates sessions from several seeds and reads them with the
// Claude Code reader: no problems, the human messages and friction the labels
// claim, record times that never go back, a realistic pace, and the correction
// storm inside five minutes.
func TestSessionsRead(t *testing.T) {
	for seed := uint64(1); seed <= 8; seed++ {
		sessions := GenerateSessions(SessionConfig{Seed: seed, Sessions: 10})
		fsys := fstest.MapFS{}
		for _, s := range sessions {
			for name, b := range s.Files {
				fsys[name] = &fstest.MapFile{Data: b}
			}
		}
		for _, s := range sessions {
			checkTimes(t, s)
			rs, probs := claudecode.Read(fsys, s.Label.File)
			for _, p := range probs {
				t.Errorf("seed %d %s: %s", seed, s.Scenario, p.Detail)
			}
			if rs == nil || rs.Key != s.Label.SessionID {
				t.Fatalf("seed %d %s: session %v", seed, s.Scenario, rs)
			}
			var humans []analyze.Event
			for _, ev := range rs.Events {
				if ev.Kind == analyze.KindUserMessage && !ev.Sidechain {
					humans = append(humans, ev)
				}
				if ev.Kind == analyze.KindInterrupt && !strings.HasPrefix(ev.UserContent, "[Request interrupted by user") {
					t.Errorf("seed %d %s: interrupt %q", seed, s.Scenario, ev.UserContent)
				}
			}
			if len(humans) != s.Label.HumanMsgs {
				t.Errorf("seed %d %s: %d human messages, label %d", seed, s.Scenario, len(humans), s.Label.HumanMsgs)
			}
			for i := 1; i < len(humans); i++ {
				if gap := humans[i].Time.Sub(humans[i-1].Time); gap < 20*time.Second || gap > 15*time.Minute {
					t.Errorf("seed %d %s: %v between human messages", seed, s.Scenario, gap)
				}
			}
			var friction []time.Time
			for _, id := range s.Label.Friction {
				i := (eval.Moment{ID: id}).Find(rs.Events)
				if i < 0 || rs.Events[i].Sidechain || rs.Events[i].Kind != analyze.KindUserMessage && rs.Events[i].Kind != analyze.KindInterrupt {
					t.Errorf("seed %d %s: friction %s not a human turn", seed, s.Scenario, id)
					continue
				}
				friction = append(friction, rs.Events[i].Time)
			}
			if s.Scenario == CorrectionStorm && (len(friction) < 3 || friction[len(friction)-1].Sub(friction[0]) >= 5*time.Minute) {
				t.Errorf("seed %d: correction storm spread over %v", seed, friction)
			}
			if (s.Scenario == WithSubagent) != (rs.Subagents == 1) {
				t.Errorf("seed %d %s: %d subagents", seed, s.Scenario, rs.Subagents)
			}
		}
	}
}

// checkTimes checks that the records of each file of s have timestamps that never go
// back, and that tool results come seconds, not minutes, after their calls.
func checkTimes(t *testing.T, s Session) {
	t.Helper()
	for name, b := range s.Files {
		var last time.Time
		calls := map[string]time.Time{}
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var rec struct {
				Timestamp string
				Message   struct {
					Content json.RawMessage
				}
			}
			if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if rec.Timestamp == "" {
				continue
			}
			at, err := time.Parse(time.RFC3339, rec.Timestamp)
			if err != nil || !strings.HasSuffix(rec.Timestamp, "Z") || len(rec.Timestamp) != len("2006-01-02T15:04:05.000Z") {
				t.Errorf("%s: timestamp %q", name, rec.Timestamp)
			}
			if at.Before(last) {
				t.Errorf("%s: %s before %s", name, at, last)
			}
			last = at
			var blocks []struct {
				Type      string
				ID        string
				ToolUseID string `json:"tool_use_id"`
			}
			json.Unmarshal(rec.Message.Content, &blocks)
			for _, bl := range blocks {
				switch bl.Type {
				case "tool_use":
					calls[bl.ID] = at
				case "tool_result":
					if took := at.Sub(calls[bl.ToolUseID]); took > 3*time.Minute {
						t.Errorf("%s: tool %s took %v", name, bl.ToolUseID, took)
					}
				}
			}
		}
	}
}

// TestVibesLogRead generates vibes logs from several seeds and reads them: two
// sessions, no problems, the labels' human messages and friction.
func TestVibesLogRead(t *testing.T) {
	for seed := uint64(1); seed <= 8; seed++ {
		vl := GenerateVibesLog(VibesConfig{Seed: seed})
		if !vibeslog.Sniff(vl.Data) || claudecode.Sniff(vl.File, vl.Data) {
			t.Errorf("seed %d: sniffed wrong", seed)
		}
		ss, probs := vibeslog.Read(vl.File, bytes.NewReader(vl.Data))
		for _, p := range probs {
			t.Errorf("seed %d: %s", seed, p.Detail)
		}
		if len(ss) != 2 || len(vl.Labels) != 2 {
			t.Fatalf("seed %d: %d sessions, %d labels", seed, len(ss), len(vl.Labels))
		}
		for _, l := range vl.Labels {
			i := slices.IndexFunc(ss, func(s *input.Session) bool { return s.Key == l.SessionID })
			if i < 0 {
				t.Fatalf("seed %d: no session %s", seed, l.SessionID)
			}
			s := ss[i]
			humans := 0
			for _, ev := range s.Events {
				if ev.Kind == analyze.KindUserMessage {
					humans++
				}
			}
			if humans != l.HumanMsgs || humans < 2 {
				t.Errorf("seed %d %s: %d human messages, label %d", seed, l.SessionID, humans, l.HumanMsgs)
			}
			for _, id := range l.Friction {
				if i := (eval.Moment{ID: id}).Find(s.Events); i < 0 || s.Events[i].Kind != analyze.KindUserMessage {
					t.Errorf("seed %d: friction %s not a human message", seed, id)
				}
			}
			if s.Records["hook/session_end"] != 1 || s.Records["claude/tool_result/paired"]+s.Records["hook/post_tool_use/paired"] == 0 {
				t.Errorf("seed %d %s: records %v", seed, l.SessionID, s.Records)
			}
		}
	}
}

// TestSessionLabels checks that the labels file reads without problems and keeps
// what the labels say.
func TestSessionLabels(t *testing.T) {
	var labels []SessionLabel
	for _, s := range GenerateSessions(SampleSessionConfig()) {
		labels = append(labels, s.Label)
	}
	labels = append(labels, GenerateVibesLog(SampleVibesConfig()).Labels...)
	ls, probs, err := eval.ReadLabels(bytes.NewReader(SessionLabels(labels)))
	if err != nil || len(probs) > 0 {
		t.Fatalf("%v %v", err, probs)
	}
	for _, l := range labels {
		rec, ok := ls.Get(l.SessionID)
		if !ok || rec.Path != l.File || rec.Outcome != l.Outcome || rec.HumanMsgs != l.HumanMsgs || len(rec.Moments) != len(l.Friction) {
			t.Errorf("%s: read back as %+v", l.SessionID, rec)
		}
		wantLabel := eval.Negative
		if l.Outcome == eval.OutcomeFailure || l.Outcome == eval.OutcomeAbandoned {
			wantLabel = eval.Positive
		}
		if rec.Label != wantLabel {
			t.Errorf("%s: label %s for outcome %s", l.SessionID, rec.Label, l.Outcome)
		}
	}
}
