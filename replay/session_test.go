package replay

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/loopwatch/loopwatch/analyze"
	"github.com/loopwatch/loopwatch/analyze/assess"
	"github.com/loopwatch/loopwatch/analyze/assess/breaker"
	"github.com/loopwatch/loopwatch/analyze/assess/detect"
	"github.com/loopwatch/loopwatch/replay/input"
)

// sessionFS gathers the session sources' own fixtures into one input tree, plus a
// subagent transcript whose parent is missing.
func sessionFS(t *testing.T) fstest.MapFS {
	t.Helper()
	fsys := fstest.MapFS{}
	add := func(root, prefix string) {
		err := fs.WalkDir(os.DirFS(root), ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") || strings.HasPrefix(path.Base(p), "bad") {
				return err
			}
			b, err := os.ReadFile(path.Join(root, p))
			fsys[path.Join(prefix, p)] = &fstest.MapFile{Data: b}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	add("claudecode/testdata", "cc")
	add("vibeslog/testdata", "vibes")
	orphan := fsys["cc/v2/7a1c0000-0000-4000-8000-000000000001/subagents/agent-fixture-a1b2c3d.jsonl"]
	fsys["orphans/9999/subagents/agent-ffffff.jsonl"] = orphan
	return fsys
}

func TestReplaySessions(t *testing.T) {
	var runs []string
	for _, workers := range []int{1, 4} {
		var got []string
		sum, err := Replay(context.Background(), sessionFS(t), Options{Workers: workers}, Sinks{
			Sessions: func(r *SessionResult) error {
				s := r.Session
				if len(r.Steps) != len(s.Events) {
					t.Errorf("%s: %d steps for %d events", s.Key, len(r.Steps), len(s.Events))
				}
				last := r.Steps[len(r.Steps)-1]
				got = append(got, fmt.Sprintf("%s %s %s events=%d humans=%d subagents=%d ends=%d final=%.4f",
					s.File, s.Source, s.Key, len(s.Events), r.HumanMessages, s.Subagents, len(r.Ends), last.FrustrationEMA))
				return nil
			}})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Sessions != 4 || sum.FilesByFmt["claude_code"] != 2 || sum.FilesByFmt["claude_code_subagent"] != 3 || sum.FilesByFmt["vibes_log"] != 1 {
			t.Errorf("workers %d: summary %+v", workers, sum)
		}
		var probs []string
		for _, p := range sum.Problems {
			probs = append(probs, p.File+":"+string(p.Kind))
		}
		if fmt.Sprint(probs) != "[orphans/9999/subagents/agent-ffffff.jsonl:unusable_run]" {
			t.Errorf("problems %v", probs)
		}
		runs = append(runs, strings.Join(got, "\n"))
	}
	if runs[0] != runs[1] {
		t.Errorf("results depend on the worker count:\n%s\n---\n%s", runs[0], runs[1])
	}
	order := strings.Split(runs[0], "\n")
	if len(order) != 4 || !strings.HasPrefix(order[0], "cc/v1/") || !strings.HasPrefix(order[1], "cc/v2/") || !strings.HasPrefix(order[2], "vibes/") {
		t.Errorf("sessions not in path order:\n%s", runs[0])
	}
	if !strings.Contains(order[1], "subagents=2") {
		t.Errorf("the v2 transcript's subagents are not attached: %s", order[1])
	}
}

// TestReplaySessionStorm drives a correction storm through the real processor on event
// time: three corrections inside five minutes call for a clarification pause; the
// same corrections spread over an hour do not.
func TestReplaySessionStorm(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	mk := func(gap time.Duration) *input.Session {
		s := &input.Session{Key: "s", Source: "test"}
		texts := []string{"please add a --verbose flag to the CLI", "no, that's wrong, I meant the other command",
			"no, that's not it either", "no, not the build command: the serve command", "thanks"}
		for i, txt := range texts {
			at := t0.Add(time.Duration(i) * gap)
			s.Events = append(s.Events, analyze.Event{Kind: analyze.KindUserMessage, Time: at, UserContent: txt},
				analyze.Event{Kind: analyze.KindAssistantMessage, Time: at.Add(10 * time.Second), AssistantText: "done"})
		}
		s.Start, s.End = t0, s.Events[len(s.Events)-1].Time
		return s
	}
	// The seed's breaker and detector: a storm of three corrections (loopwatch's
	// default checks in at the first one already).
	seed := assess.DefaultConfig()
	seed.Detect, seed.Breaker = detect.SeedConfig(), breaker.SeedConfig()
	storm, err := ReplaySession(context.Background(), mk(time.Minute), SessionOptions{Assess: &seed})
	if err != nil {
		t.Fatal(err)
	}
	if storm.Interventions == 0 || storm.Steps[storm.FirstIntervention].Intervention.Type != breaker.ClarificationPause {
		t.Fatalf("no clarification pause in a correction storm: %+v", storm.Steps)
	}
	if storm.HumanMessages != 5 || storm.Final().Analysis == nil {
		t.Errorf("humans %d, final %+v", storm.HumanMessages, storm.Final())
	}
	calm, err := ReplaySession(context.Background(), mk(20*time.Minute), SessionOptions{Assess: &seed})
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range calm.Steps {
		if st.Intervention != nil && st.Intervention.Type == breaker.ClarificationPause {
			t.Errorf("corrections 20 minutes apart made a storm at %+v", st)
		}
	}
}

// TestSharedPlansDecideAsFreshOnes checks that the replay's sessions, whose processors
// share one compiled configuration (rules, offline analyzer) per configuration, get
// exactly the steps, ends and variant outcomes a fresh ReplaySession gives each.
func TestSharedPlansDecideAsFreshOnes(t *testing.T) {
	seed := assess.SeedConfig()
	opts := Options{Workers: 2, Variants: []Variant{{Name: "seed", Assess: &seed}}}
	n := 0
	_, err := Replay(context.Background(), sessionFS(t), opts, Sinks{Sessions: func(r *SessionResult) error {
		n++
		fresh, err := ReplaySession(context.Background(), r.Session, opts.Sessions)
		if err != nil {
			return err
		}
		variant, err := ReplaySession(context.Background(), r.Session, SessionOptions{Assess: &seed})
		if err != nil {
			return err
		}
		got, _ := json.Marshal([]any{r.Steps, r.Ends, r.Variants})
		want, _ := json.Marshal([]any{fresh.Steps, fresh.Ends, []SessionOutcome{variant.Outcome()}})
		if string(got) != string(want) {
			t.Errorf("%s: shared plans decide differently:\n%s\nfresh:\n%s", r.Session.Key, got, want)
		}
		return nil
	}})
	if err != nil || n != 4 {
		t.Fatalf("%d sessions, %v", n, err)
	}
}

// TestInvalidSessionConfig checks that an invalid assessment configuration fails the
// replay at its first session, and only when there is a session to replay.
func TestInvalidSessionConfig(t *testing.T) {
	bad := assess.DefaultConfig()
	bad.InactivityTimeout = 0
	opts := Options{Sessions: SessionOptions{Assess: &bad}}
	if _, err := Replay(context.Background(), sessionFS(t), opts, Sinks{}); err == nil || !strings.Contains(err.Error(), "inactivity_timeout") {
		t.Errorf("sessions under an invalid configuration: %v", err)
	}
	runsOnly := fstest.MapFS{"notes.md": {Data: []byte("no sessions here")}}
	if _, err := Replay(context.Background(), runsOnly, opts, Sinks{}); err != nil {
		t.Errorf("no session to replay, yet: %v", err)
	}
}
