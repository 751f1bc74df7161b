package checkpoint

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/loopwatch/loopwatch/analyze"
)

var t0 = time.Date(2025, 12, 30, 14, 0, 0, 0, time.UTC)

func mustPolicy(t *testing.T, cfg Config) *Policy {
	t.Helper()
	p, err := NewPolicy(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func userAt(d time.Duration, text string) analyze.Event {
	return analyze.Event{Kind: analyze.KindUserMessage, Time: t0.Add(d), UserContent: text}
}

func toolAt(d time.Duration, out string, st analyze.ToolStatus) analyze.Event {
	return analyze.Event{Kind: analyze.KindToolResult, Time: t0.Add(d), ToolOutput: out, ToolStatus: st}
}

func TestMessageCount(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MessageThreshold = 3
	m := mustPolicy(t, cfg).NewManager()
	evs := []analyze.Event{
		userAt(0, "add a flag"),
		{Kind: analyze.KindHook, HookName: "PostToolUse", Time: t0},                         // not a message
		{Kind: analyze.KindAssistantMessage, Sidechain: true, Time: t0, AssistantText: "x"}, // not counted
		{Kind: analyze.KindAssistantMessage, Time: t0, AssistantText: "ok"},
		toolAt(0, "ok", analyze.ToolStatusOK),
	}
	for i, ev := range evs {
		tr, ok := m.ShouldCheckpoint(ev)
		if want := i == len(evs)-1; ok != want {
			t.Fatalf("event %d: fired %v (%v)", i, ok, tr)
		}
		if ok && tr != MessageCount {
			t.Fatalf("trigger %v", tr)
		}
	}
	m.RecordCheckpoint(t0)
	if m.MessagesSinceCheckpoint() != 0 {
		t.Error("RecordCheckpoint did not reset the count")
	}
	if _, ok := m.ShouldCheckpoint(userAt(time.Second, "go on")); ok {
		t.Error("fired one message after a reset")
	}
}

func TestTriggers(t *testing.T) {
	p := mustPolicy(t, DefaultConfig())
	tests := []struct {
		name string
		ev   analyze.Event
		want Trigger // 0: none
	}{
		{"plain request", userAt(time.Minute, "add a --verbose flag"), 0},
		{"boundary done", userAt(time.Minute, "Done. Now the parser"), TaskBoundary},
		{"boundary uppercase", userAt(time.Minute, "MOVING ON to the CLI"), TaskBoundary},
		{"boundary now let's", userAt(time.Minute, "now let's write tests"), TaskBoundary},
		{"boundary perfect", userAt(time.Minute, "Perfect"), TaskBoundary},
		{"seed substring quirk", userAt(time.Minute, "the job was abandoned"), TaskBoundary},
		{"boundary only in human text", analyze.Event{Kind: analyze.KindAssistantMessage, Time: t0.Add(time.Minute), AssistantText: "Done!"}, 0},
		{"sidechain prompt is no boundary", analyze.Event{Kind: analyze.KindUserMessage, Sidechain: true, Time: t0.Add(time.Minute), UserContent: "when done, report"}, 0},
		{"git commit", toolAt(time.Minute, "[main 1a2b3c4] commit the parser fix\n 1 file changed", analyze.ToolStatusOK), GitCommit},
		{"seed rule misses a commit whose message lacks the word", toolAt(time.Minute, "[main 1a2b3c4] fix parser\n 1 file changed", analyze.ToolStatusOK), 0},
		{"git commit unknown status", toolAt(time.Minute, "[main (root-commit) 1a2b3c4] init", analyze.ToolStatusUnknown), GitCommit},
		{"failed commit", toolAt(time.Minute, "error: pathspec; [commit aborted]", analyze.ToolStatusError), 0},
		{"no bracket", toolAt(time.Minute, "nothing to commit, working tree clean", analyze.ToolStatusOK), 0},
		{"time", userAt(10*time.Minute+time.Second, "hello"), Time},
		{"time exactly at threshold", userAt(10*time.Minute, "hello"), 0},
	}
	for _, tt := range tests {
		m := p.NewManager()
		m.ShouldCheckpoint(userAt(0, "start")) // starts the clock
		tr, ok := m.ShouldCheckpoint(tt.ev)
		if !ok {
			tr = 0
		}
		if tr != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, tr, tt.want)
		}
	}
}

func TestTimeNeedsAMessage(t *testing.T) {
	m := mustPolicy(t, DefaultConfig()).NewManager()
	m.ShouldCheckpoint(userAt(0, "start"))
	m.RecordCheckpoint(t0)
	hook := analyze.Event{Kind: analyze.KindHook, HookName: "Notification", Time: t0.Add(time.Hour)}
	if _, ok := m.ShouldCheckpoint(hook); ok {
		t.Error("an empty segment fired on time")
	}
	if tr, ok := m.ShouldCheckpoint(userAt(time.Hour, "back")); !ok || tr != Time {
		t.Errorf("got %v %v, want time", tr, ok)
	}
	m.RecordCheckpoint(t0.Add(time.Hour))
	if _, ok := m.ShouldCheckpoint(userAt(time.Hour+time.Minute, "next step")); !ok {
		t.Error("boundary after a time checkpoint did not fire")
	}
}

func TestStrictGitCommit(t *testing.T) {
	cfg := DefaultConfig()
	cfg.GitCommit = StrictGitCommit()
	p := mustPolicy(t, cfg)
	for out, want := range map[string]bool{
		"[main 1a2b3c4] fix parser\n 1 file changed": true, // the seed rule misses this

		"[feature/x (root-commit) 0123456789abcdef] initial": true,
		`{"commit": "abc", "tags": ["v1"]}`:                  false, // the seed rule fires here
		"commit 1a2b3c4d\nAuthor: x":                         false,
	} {
		if got := p.IsGitCommit(out); got != want {
			t.Errorf("%q: %v, want %v", out, got, want)
		}
	}
	if !mustPolicy(t, DefaultConfig()).IsGitCommit(`{"commit": "abc", "tags": ["v1"]}`) {
		t.Error("the seed rule should fire on any output with commit and [")
	}
}

func TestNewPolicyErrors(t *testing.T) {
	for _, mut := range []func(*Config){
		func(c *Config) { c.MessageThreshold = 0 },
		func(c *Config) { c.TimeThreshold = 0 },
		func(c *Config) { c.BoundaryPhrases = []string{""} },
		func(c *Config) { c.GitCommit.AllOf, c.GitCommit.AnyOf = nil, nil },
	} {
		c := DefaultConfig()
		mut(&c)
		if _, err := NewPolicy(c); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
}

func TestContainsFoldASCII(t *testing.T) {
	for _, tt := range []struct {
		s, sub string
		want   bool
	}{
		{"All DONE", "done", true},
		{"don", "done", false},
		{"", "x", false},
		{"x", "", true},
		{"ddone", "done", true},
		{"Ça marche, c'est FINISHED", "finished", true},
	} {
		if got := containsFoldASCII(tt.s, tt.sub); got != tt.want {
			t.Errorf("containsFoldASCII(%q, %q) = %v", tt.s, tt.sub, got)
		}
	}
}

// anyPhrase is IsTaskBoundary's ASCII matching, phrase by phrase over the whole
// message: what the chunks must agree with.
func anyPhrase(p *Policy, content string) bool {
	for _, ph := range p.phrases {
		if containsFoldASCII(content, ph) {
			return true
		}
	}
	return false
}

// TestTaskBoundaryAcrossChunks puts a phrase, in mixed case, at every offset around
// the chunks' edges of messages of ASCII and non-ASCII filler, for phrase sets whose
// longest phrase is short, long, and too long for the chunks.
func TestTaskBoundaryAcrossChunks(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []rune("abcxyzABCXYZ 0.,\n\tÄöÇ→")
	filler := func(n int) string {
		var b strings.Builder
		for b.Len() < n {
			b.WriteRune(alphabet[rng.IntN(len(alphabet))])
		}
		return b.String()[:n] // may cut a rune: bytes, not text
	}
	long := strings.Repeat("déjà vu ", 20)                 // 200 bytes
	tooLong := strings.Repeat("x", foldChunk) + " the end" // longer than a chunk
	base := filler(6 * foldChunk)
	for _, phrases := range [][]string{SeedBoundaryPhrases(), {"q", long}, {"ok", tooLong}, {"Ça Marche"}, {}} {
		p := mustPolicy(t, Config{MessageThreshold: 1, TimeThreshold: DefaultConfig().TimeThreshold, GitCommit: SeedGitCommit(), BoundaryPhrases: phrases})
		step := foldChunk - (p.longest - 1) // where the chunks' edges are (foldChunk when there are none)
		if step <= 0 {
			step = foldChunk
		}
		for _, ph := range phrases {
			ph = strings.ToLower(ph)
			upper := []byte(ph) // its first half upper-cased (ASCII)
			for i := range len(ph) / 2 {
				if 'a' <= upper[i] && upper[i] <= 'z' {
					upper[i] -= 'a' - 'A'
				}
			}
			for _, edge := range []int{step, 2 * step, 3 * step} {
				for at := max(0, edge-len(ph)-2); at <= edge+2; at++ {
					if at > edge-len(ph)+4 && at < edge-4 { // a long phrase: its ends about the edge
						continue
					}
					msg := base[:at] + string(upper) + base[at:at+rng.IntN(2*foldChunk)]
					if got, want := p.IsTaskBoundary(msg), anyPhrase(p, msg); got != want || !want {
						t.Fatalf("phrases %.20q, %.20q at %d of %d bytes: %v, want %v", phrases, ph, at, len(msg), got, want)
					}
					cut := msg[:at+len(ph)-1] // the phrase's last byte gone
					if got, want := p.IsTaskBoundary(cut), anyPhrase(p, cut); got != want {
						t.Fatalf("phrases %.20q, %.20q cut at %d: %v, want %v", phrases, ph, len(cut), got, want)
					}
				}
			}
		}
		if len(phrases) == 0 && p.IsTaskBoundary("done, next") {
			t.Fatal("no phrases: a boundary")
		}
		for range 50 {
			msg := filler(rng.IntN(4 * foldChunk))
			if got, want := p.IsTaskBoundary(msg), anyPhrase(p, msg); got != want {
				t.Fatalf("phrases %.20q, %d bytes of filler: %v, want %v", phrases, len(msg), got, want)
			}
		}
	}
}

// FuzzTaskBoundary holds the chunked matching to the phrase-by-phrase one.
func FuzzTaskBoundary(f *testing.F) {
	f.Add("we're DONE here", "done", "next")
	f.Add(strings.Repeat("a", foldChunk-2)+"NEXT", "next", "x")
	f.Fuzz(func(t *testing.T, msg, a, b string) {
		var phrases []string
		for _, ph := range []string{a, b} {
			if ph != "" {
				phrases = append(phrases, ph)
			}
		}
		p, err := NewPolicy(Config{MessageThreshold: 1, TimeThreshold: DefaultConfig().TimeThreshold, GitCommit: SeedGitCommit(), BoundaryPhrases: phrases})
		if err != nil {
			t.Skip()
		}
		if got, want := p.IsTaskBoundary(msg), anyPhrase(p, msg); got != want {
			t.Fatalf("IsTaskBoundary(%q) with %q = %v, want %v", msg, phrases, got, want)
		}
	})
}

// TestSeedCounting checks each of the seed's counting rules (SeedConfig) against
// loopwatch's default.
func TestSeedCounting(t *testing.T) {
	hook := analyze.Event{Kind: analyze.KindHook, HookName: "PostToolUse", Time: t0}
	side := analyze.Event{Kind: analyze.KindAssistantMessage, Sidechain: true, Time: t0, AssistantText: "x"}
	failedCommit := toolAt(0, "[main 1a2b3c4] commit the parser fix\nerror: pre-push hook failed", analyze.ToolStatusError)
	kelvin := userAt(0, "that wor\u212As") // "that works" with the Kelvin sign, which lower-cases to k
	tests := []struct {
		name          string
		seed          func(*Config)
		evs           []analyze.Event
		def, seedWant Trigger
	}{
		{"every event counts", func(c *Config) { c.CountEveryEvent = true }, []analyze.Event{hook, side, hook}, 0, MessageCount},
		{"a commit in failed output", func(c *Config) { c.CommitOnError = true }, []analyze.Event{failedCommit}, 0, GitCommit},
		{"Unicode lower-casing", func(c *Config) { c.UnicodeCase = true }, []analyze.Event{kelvin}, 0, TaskBoundary},
		{"the time trigger without a message", func(c *Config) { c.CountEveryEvent = true },
			[]analyze.Event{{Kind: analyze.KindHook, HookName: "Stop", Time: t0.Add(11 * time.Minute)}}, 0, Time},
	}
	// last returns the last trigger the events fire under cfg (threshold 3).
	last := func(cfg Config, evs []analyze.Event) Trigger {
		cfg.MessageThreshold = 3
		m := mustPolicy(t, cfg).NewManager()
		m.RecordCheckpoint(t0)
		var got Trigger
		for _, ev := range evs {
			if tr, ok := m.ShouldCheckpoint(ev); ok {
				got = tr
			}
		}
		return got
	}
	for _, tt := range tests {
		if got := last(DefaultConfig(), tt.evs); got != tt.def {
			t.Errorf("%s, default: trigger %v, want %v", tt.name, got, tt.def)
		}
		if got := last(SeedConfig(), tt.evs); got != tt.seedWant {
			t.Errorf("%s, seed: trigger %v, want %v", tt.name, got, tt.seedWant)
		}
		one := DefaultConfig() // each rule is its own switch
		tt.seed(&one)
		if got := last(one, tt.evs); got != tt.seedWant {
			t.Errorf("%s alone: trigger %v, want %v", tt.name, got, tt.seedWant)
		}
	}
}
