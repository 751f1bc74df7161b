package checkpoint

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/loopwatch/loopwatch/analyze"
	"github.com/loopwatch/loopwatch/analyze/assess/detect"
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
		func(c *Config) { c.TextWindow.Head = -1 },
		func(c *Config) { c.TextWindow.Tail = -1 },
		func(c *Config) { c.ScanBytes = -1 },
		func(c *Config) { c.ScanBytes = 1023 },
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

// TestReadingWindow checks that the boundary phrases are looked for in the head and
// the tail of a long human message, and the git-commit rule in the head and the tail
// of a long tool output, by default; and everywhere with the seed's reading.
func TestReadingWindow(t *testing.T) {
	def, seed := DefaultConfig(), SeedConfig()
	w, n := def.TextWindow, def.ScanBytes
	pad := func(k int) string { return strings.Repeat("lorem ipsum ", k/12+1)[:k] }
	long := 100 * (w.Head + w.Tail) // a pasted log
	for _, tt := range []struct {
		name, msg  string
		def, whole bool // IsTaskBoundary by default and as the seed reads
	}{
		{"short, phrase at its end", pad(w.Head+w.Tail-4) + "done", true, true},
		{"long, phrase at its start", "Done. " + pad(long), true, true},
		{"long, phrase at its end", pad(long) + " moving on", true, true},
		{"long, phrase in the middle", pad(long/2) + " done " + pad(long/2), false, true},
		{"long, phrase across the head's end", pad(w.Head-2) + "done" + pad(long), false, true},
		{"long, phrase just inside the tail", pad(long) + "done" + pad(w.Tail-4), true, true},
		{"long, phrase just before the tail", pad(long) + "done" + pad(w.Tail-3), false, true},
		{"long, none", pad(long), false, false},
	} {
		if got := mustPolicy(t, def).IsTaskBoundary(tt.msg); got != tt.def {
			t.Errorf("%s: default %v, want %v", tt.name, got, tt.def)
		}
		if got := mustPolicy(t, seed).IsTaskBoundary(tt.msg); got != tt.whole {
			t.Errorf("%s: seed %v, want %v", tt.name, got, tt.whole)
		}
	}
	commit := "[main 1a2b3c4] fix parser\n 1 file changed\n"
	strict := def
	strict.GitCommit = StrictGitCommit()
	for _, tt := range []struct {
		name, out  string
		def, whole bool
	}{
		{"commit alone", commit, true, true},
		{"commit, then a long log", commit + pad(10*n), true, true},
		{"a long test log, then the commit", pad(10*n) + "\n" + commit, true, true},
		{"commit in the middle of a long log", pad(5*n) + "\n" + commit + pad(5*n), false, true},
		{"a long log", pad(10 * n), false, false},
	} {
		if got := mustPolicy(t, strict).IsGitCommit(tt.out); got != tt.def {
			t.Errorf("%s: default %v, want %v", tt.name, got, tt.def)
		}
		whole := strict
		whole.ScanBytes = 0
		if got := mustPolicy(t, whole).IsGitCommit(tt.out); got != tt.whole {
			t.Errorf("%s: whole %v, want %v", tt.name, got, tt.whole)
		}
	}
	if !mustPolicy(t, seed).IsGitCommit(pad(5*n) + "commit [" + pad(5*n)) {
		t.Error("the seed's reading missed a commit in the middle of an output")
	}
}

// FuzzReadingWindow holds IsTaskBoundary under a small window to the phrases found
// anywhere in the message whose bytes all lie in its head or in its tail.
func FuzzReadingWindow(f *testing.F) {
	f.Add("DONE with this, and the rest of a long message", 8, 4, "done")
	f.Add("a long message ending in next", 3, 5, "next")
	f.Add("héllo wörld, next thing please ok", 5, 3, "next")
	f.Fuzz(func(t *testing.T, msg string, head, tail int, phrase string) {
		if phrase == "" || head < 0 || tail < 0 || head > 1<<10 || tail > 1<<10 {
			t.Skip()
		}
		p, err := NewPolicy(Config{MessageThreshold: 1, TimeThreshold: DefaultConfig().TimeThreshold, GitCommit: SeedGitCommit(),
			BoundaryPhrases: []string{phrase}, TextWindow: detect.TextWindow{Head: head, Tail: tail}})
		if err != nil {
			t.Skip()
		}
		ph := p.phrases[0]
		// The window's edges, found here byte by byte: the head ends at the last rune
		// start at or before head, the tail starts at the last at or before len-tail.
		edge := func(i int) int {
			for i > 0 && i < len(msg) && !utf8.RuneStart(msg[i]) {
				i--
			}
			return min(i, len(msg))
		}
		headEnd, tailStart := len(msg), len(msg)
		if (head != 0 || tail != 0) && len(msg) > head+tail {
			headEnd, tailStart = edge(head), edge(len(msg)-tail)
		}
		want := false
		for i := 0; i+len(ph) <= len(msg) && !want; i++ {
			inside := i+len(ph) <= headEnd || i >= tailStart
			want = inside && containsFoldASCII(msg[i:i+len(ph)], ph)
		}
		if got := p.IsTaskBoundary(msg); got != want {
			t.Fatalf("IsTaskBoundary(%q) with %q, window %d/%d: %v, want %v", msg, phrase, head, tail, got, want)
		}
	})
}

// BenchmarkShouldCheckpoint is the cost of one event by its size, with the default
// reading: the same for a pasted megabyte as for a paragraph.
func BenchmarkShouldCheckpoint(b *testing.B) {
	p, err := NewPolicy(DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	for _, size := range []int{1 << 10, 100 << 10, 1 << 20} {
		text := strings.Repeat("lorem ipsum dolor sit amet ", size/27+1)[:size]
		for _, ev := range []analyze.Event{userAt(0, text), toolAt(0, text, analyze.ToolStatusOK)} {
			b.Run(fmt.Sprintf("%s/%dKB", ev.Kind, size>>10), func(b *testing.B) {
				m := p.NewManager()
				for b.Loop() {
					if _, ok := m.ShouldCheckpoint(ev); ok {
						m.RecordCheckpoint(ev.Time)
					}
				}
			})
		}
	}
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
