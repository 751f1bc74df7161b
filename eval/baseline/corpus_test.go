package baseline

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/loopwatch/loopwatch/analyze"
	"github.com/loopwatch/loopwatch/internal/corpus"
	"github.com/loopwatch/loopwatch/replay"
)

// TestQuasarCorpus runs the shipped struggle detector over quasar's real history
// (../shared/corpora/quasar) and pins what it decides.
//
// Of 213 runs, 14 have a decision point (a reviewed, rejected cycle from cycle 2 on;
// all 14 have an estimated cost). Every finding matches itself, so each decision point
// scores 0.40 plus 0.25 · min(burn / 0.3, 1), and 6 runs reach 0.6 (a burn of at
// least 0.24), each at cycle 2. The seed's detector triggers on none of the 213.
func TestQuasarCorpus(t *testing.T) {
	dir, err := corpus.Dir("quasar")
	if err != nil {
		t.Skipf("quasar corpus absent: %v", err)
	}
	var runs, decided, triggered, atCycle2, seedTriggered int
	replayBaselines(t, os.DirFS(dir), func(r *replay.RunResult, q *QuasarResult) {
		runs++
		evaluated := false
		for _, c := range q.Cycles {
			if c.Evaluated {
				evaluated = true
				if c.Signal.FindingOverlap != 1 && len(r.Run.Cycles[c.Cycle-1].Findings) > 0 {
					t.Errorf("%s cycle %d: overlap %v with findings raised, want 1", r.Run.Key, c.Cycle, c.Signal.FindingOverlap)
				}
				if c.Signal.FilterRepeat != 0 {
					t.Errorf("%s cycle %d: filter repeat %d at a decision point", r.Run.Key, c.Cycle, c.Signal.FilterRepeat)
				}
			}
		}
		if evaluated {
			decided++
		}
		if q.Triggered != (q.MaxScore >= 0.6) {
			t.Errorf("%s: triggered %v with max score %v", r.Run.Key, q.Triggered, q.MaxScore)
		}
		if q.Triggered {
			triggered++
			if q.FirstCycle == 2 {
				atCycle2++
			}
		}
		if r.Struggle.Triggered {
			seedTriggered++
		}
	}, func(*replay.SessionResult, *VibesResult) {})
	pin(t, map[string][2]int{
		"runs":                       {runs, 213},
		"runs with a decision point": {decided, 14},
		"runs triggered":             {triggered, 6},
		"triggered at cycle 2":       {atCycle2, 6},
		"seed detector triggered":    {seedTriggered, 0},
	})
}

// TestClaudeCodeCorpus runs the shipped vibes assessment over the labelled Claude Code
// sessions (../shared/corpora/claude-code) and pins what it decides: 100 interventions
// in 59 of the 73 sessions, 80 re-openings, 44 halvings past the cap of 3, 459
// checkpoints. Assistant text is scanned (the agent's own "error" or "done" counts)
// and every failed tool call adds 0.5, so the shipped breaker opens in most sessions.
//
// It also counts the relevant messages that hold non-ASCII text (569) and, of those,
// the ones Go's ASCII \b and \s would score otherwise than the regex crate's Unicode
// ones (none): the faithful translation changes nothing on this corpus.
func TestClaudeCodeCorpus(t *testing.T) {
	dir, err := corpus.Dir("claude-code")
	if err != nil {
		t.Skipf("claude-code corpus absent: %v", err)
	}
	if raceDetector {
		// Reading the corpus takes most of a minute under the race detector, and the
		// baseline is single-goroutine code: run go test without -race to check it.
		t.Skip("skipped under the race detector: go test ./eval/baseline checks these figures")
	}
	neg, pos := VibesPatterns()
	compiled := compiledVibes()
	var native []*regexp.Regexp
	for _, src := range append(neg, pos...) {
		native = append(native, regexp.MustCompile(src))
	}
	var sessions, events, relevant, interventions, intervened, reopens, checkpoints, halved, nonASCII, unicodeDiffers int
	replayBaselines(t, os.DirFS(dir), func(*replay.RunResult, *QuasarResult) {}, func(s *replay.SessionResult, v *VibesResult) {
		sessions++
		events += len(s.Session.Events)
		relevant += v.Relevant
		interventions += len(v.Interventions)
		reopens += len(v.Reopens)
		checkpoints += len(v.Checkpoints)
		if len(v.Interventions) > 0 {
			intervened++
		}
		if (len(v.Interventions) > 0) != (v.PeakScore >= DefaultVibesConfig().Threshold) {
			t.Errorf("%s: %d interventions with peak score %v", s.Session.Key, len(v.Interventions), v.PeakScore)
		}
		for i, st := range v.Steps {
			if st.Transition == TransitionHalved {
				halved++
			}
			ev := &s.Session.Events[i]
			text := ev.UserContent
			if ev.Kind == analyze.KindAssistantMessage {
				text = ev.AssistantText
			}
			if !st.Relevant || !strings.ContainsFunc(text, func(r rune) bool { return r >= utf8.RuneSelf || r == '\v' }) {
				continue // ASCII without a vertical tab: the two agree (FuzzVibesHits)
			}
			nonASCII++
			n, p, folded := 0, 0, prefilterFold(text)
			for j, re := range native {
				// The prefilter holds for RE2 too: its (?i) folds as the regex crate's does.
				if strings.Contains(folded, compiled[j].literal) && re.MatchString(text) {
					if j < len(neg) {
						n++
					} else {
						p++
					}
				}
			}
			if n != st.Negative || p != st.Positive {
				unicodeDiffers++
			}
		}
	})
	pin(t, map[string][2]int{
		"sessions":                           {sessions, 73},
		"events":                             {events, 10363},
		"relevant events":                    {relevant, 9409},
		"interventions":                      {interventions, 100},
		"sessions with an intervention":      {intervened, 59},
		"re-openings":                        {reopens, 80},
		"checkpoints":                        {checkpoints, 459},
		"halvings past the cap":              {halved, 44},
		"non-ASCII messages":                 {nonASCII, 572},
		"messages RE2 would score otherwise": {unicodeDiffers, 0},
	})
}

// pin checks figures given as {got, want} by name.
func pin(t *testing.T, figures map[string][2]int) {
	t.Helper()
	for what, got := range figures {
		if got[0] != got[1] {
			t.Errorf("%s = %d, want %d", what, got[0], got[1])
		}
	}
}
