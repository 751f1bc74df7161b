package detect

import (
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/loopwatch/loopwatch/analyze"
	"github.com/loopwatch/loopwatch/analyze/assess/duration"
)

// frictionKinds returns the friction kinds (and only those) among signals.
func frictionKinds(signals []Signal) []Kind {
	var out []Kind
	for _, s := range signals {
		switch s.Kind {
		case RepeatRequest, InterruptRedirect, NegationReply, StillProblem, Doubt, CorrectionPhrase, Exasperation, GiveUp:
			out = append(out, s.Kind)
		}
	}
	return out
}

// TestLexicalSignals is the hit-and-miss table of the lexical friction signals, read
// by the stateless Rules.Signals with the default configuration. Every phrase here is
// written for the test (synthetic), in the languages the lexicon covers, with the
// bait that must not fire.
func TestLexicalSignals(t *testing.T) {
	rules := MustCompile(DefaultConfig())
	tests := []struct {
		text string
		want []Kind
	}{
		// Negation-led replies.
		{"no, use the existing helper", []Kind{NegationReply}},
		{"Nope.", []Kind{NegationReply}},
		{"nah, leave it as it was", []Kind{NegationReply}},
		{"No this is on macOS", []Kind{NegationReply}},
		{"hmm no i haven't sorted them", []Kind{NegationReply}},
		{"nein, das andere Verzeichnis", []Kind{NegationReply}},
		{"não, usa o outro arquivo", []Kind{NegationReply}},
		{"NÃO, usa o outro", []Kind{NegationReply}},
		{"non, pas ça", []Kind{NegationReply, CorrectionPhrase}},
		{"No, eso no es", []Kind{NegationReply, CorrectionPhrase}},
		{"不是，我要另一个", []Kind{NegationReply}},
		{"いいえ、違います", []Kind{NegationReply, CorrectionPhrase}},
		{"нет, не так", []Kind{NegationReply, CorrectionPhrase}},
		{"ｎｏ、それは違う", []Kind{NegationReply, CorrectionPhrase}}, // full-width Latin
		// An anchored phrase whose first word is a filler starts the message too: the
		// fillers skipped before ^ do not swallow it.
		{"wait, what? why is that there", []Kind{Doubt}},
		{"ok but that is not it", []Kind{CorrectionPhrase}},
		{"hmm okay, but not like this", []Kind{CorrectionPhrase}},
		// A negator that also makes the prohibitive is a reply only standing alone:
		// "don't use X" is an instruction in any language.
		{"不要用全局变量", nil},
		{"别忘了更新文档", nil},
		{"Non usare variabili globali", nil},
		{"不要，用另一个", []Kind{NegationReply}},
		// ... and what only looks like one.
		{"No such file or directory", nil}, // a pasted error
		{"no problem", nil},
		{"No worries!", nil},
		{"no, thanks — that's all", nil},
		{"No, you're right, go ahead", nil},
		{"nope, that's all", nil},
		{"Not sure whether that matters", nil},
		{"now add a test for it", nil},
		{"can you also add a flag?", nil},
		{"não tem problema", nil},
		{"no hay problema", nil},
		{"pas de problème", nil},
		{"kein Problem", nil},
		{"没问题", nil},
		{"問題ない", nil},
		{"1. no 2. yes, keep the cache", nil}, // answering numbered options
		{"de nada", nil},
		{"obrigado, funcionou", nil},
		{"merci, ça marche", nil},
		{"danke, passt schon", nil},
		{"不用谢", nil},
		{"大丈夫です", nil},
		{"괜찮아요", nil},

		// Still / again + a problem.
		{"still not working", []Kind{StillProblem}},
		{"it's still failing", []Kind{StillProblem}},
		{"same error again", []Kind{StillProblem}},
		{"it's broken again", []Kind{StillProblem}},
		{"still doesnt work", []Kind{StillProblem}},
		{"it still doesn’t compile", []Kind{StillProblem}},
		{"not wokring", []Kind{StillProblem}},               // swapped letters
		{"it dosent work", []Kind{StillProblem}},            // swapped letters
		{"stil broken after the fix", []Kind{StillProblem}}, // listed misspelling
		{"I'm still seeing the same error", []Kind{StillProblem}},
		{"the fix didn't help", []Kind{StillProblem}},
		{"sigue sin funcionar", []Kind{StillProblem}},
		{"ainda não funciona", []Kind{StillProblem}},
		{"ça ne marche toujours pas", []Kind{StillProblem}},
		{"funktioniert immer noch nicht", []Kind{StillProblem}},
		{"ancora non funziona", []Kind{StillProblem}},
		{"все ещё не работает", []Kind{StillProblem}},
		{"还是不行", []Kind{StillProblem}},
		{"又报错了", []Kind{StillProblem}},
		{"まだ動かない", []Kind{StillProblem}},
		{"여전히 안 돼요", []Kind{StillProblem}},
		// ... and what does not say so.
		{"error handling looks great", nil},
		{"is it still used anywhere?", nil},
		{"we still need tests for this", nil},
		{"update again please", nil},
		{"do the same thing for the other file", nil},
		{"fix the failing test", nil},
		{"thanks, that works", nil},
		{"the skill with the manual strategy", nil}, // "skill" is not a typo of "still"

		// Doubt about the agent's work.
		{"did you even run the tests?", []Kind{Doubt}},
		{"are you sure?", []Kind{Doubt}},
		{"you didn't actually change it", []Kind{Doubt}},
		{"what??", []Kind{Doubt}},
		{"it printed nothing?!", []Kind{Doubt}},
		{"why did you delete the file", []Kind{Doubt}},
		{"why is it not showing the branch", []Kind{Doubt}},
		{"hmm, did we miss a comment?", []Kind{Doubt}},
		{"¿estás seguro?", []Kind{Doubt}},
		{"tem certeza?", []Kind{Doubt}},
		{"tu es sûr ?", []Kind{Doubt}},
		{"bist du sicher?", []Kind{Doubt}},
		{"你确定吗", []Kind{Doubt}},
		{"本当に確認した？", []Kind{Doubt}},
		// ... and ordinary questions.
		{"why are the tests slow?", nil},
		{"what does this function do?", nil},
		{"so a checkpoint is a commit, is that right?", nil},
		{"why not just use the cache?", nil},

		// Correction phrases.
		{"that's wrong", []Kind{CorrectionPhrase}},
		{"I meant the other config file", []Kind{CorrectionPhrase}},
		{"I already told you to keep the flag", []Kind{CorrectionPhrase}},
		{"how many times do I have to say it", []Kind{CorrectionPhrase}},
		{"that's not what I asked for", []Kind{CorrectionPhrase}},
		{"yes; but put them in the dotfiles", []Kind{CorrectionPhrase}},
		{"Sure, but the CLI should do it, not you", []Kind{CorrectionPhrase}},
		{"I don't really like this approach", []Kind{CorrectionPhrase}},
		{"eso está mal", []Kind{CorrectionPhrase}},
		{"está errado", []Kind{CorrectionPhrase}},
		{"c'est faux", []Kind{CorrectionPhrase}},
		{"das ist falsch", []Kind{CorrectionPhrase}},
		{"我是说另一个文件", []Kind{CorrectionPhrase}},
		{"そうじゃなくて、別のファイル", []Kind{CorrectionPhrase}},
		// ... and not.
		{"that's right", nil},
		{"I mean, it works", nil},
		{"revert the commit and push", nil},
		{"yes please", nil},
		{"ok, and then push", nil},

		// Exasperation.
		{"wtf", []Kind{Exasperation}},
		{"ugh", []Kind{Exasperation}},
		{"come on", []Kind{Exasperation}},
		{"lint fail 😭", []Kind{Exasperation}},
		{"thanks, perfect 😩", nil}, // read as success: the emoji is no exasperation
		{"putain", []Kind{Exasperation}},
		{"卧槽", []Kind{Exasperation}},
		{"ふざけるな", []Kind{Exasperation}},
		// ... and not.
		{"commit the merge", nil}, // "merge" is not a typo of "merde"
		{"let's come back to this later", nil},
		{"looks good 😅", nil},

		// Giving up on the agent.
		{"forget it, I'll write it myself", []Kind{GiveUp}},
		{"never mind the flag, forget about it", []Kind{GiveUp}},
		{"ugh, I give up", []Kind{Exasperation, GiveUp}},
		{"Ill just do it myself", []Kind{GiveUp}},
		{"olvídalo, lo hago yo", []Kind{GiveUp}},
		{"esquece, deixa pra lá", []Kind{GiveUp}},
		{"laisse tomber", []Kind{GiveUp}},
		{"vergiss es, ich mach das selbst", []Kind{GiveUp}},
		{"lascia perdere", []Kind{GiveUp}},
		{"算了，我自己来", []Kind{GiveUp}},
		{"もういい、自分でやる", []Kind{GiveUp}},
		{"забудь, сам сделаю", []Kind{GiveUp}},
		// ... and what only looks like it.
		{"don't forget it in the changelog", nil},
		{"I'll rename the keys myself later", nil},
		{"the server is still up, stop it and restart", nil},
		{"lass es uns testen", nil}, // "let's test it"
		{"I gave up on the cache approach earlier", nil},
		{"我计算了一下，结果是对的", nil}, // 计算了: "calculated", not 算了
		{"не забудь тесты", nil},
	}
	for _, tt := range tests {
		got := frictionKinds(rules.Signals(&analyze.Event{Kind: analyze.KindUserMessage, UserContent: tt.text}))
		if !slices.Equal(got, tt.want) {
			t.Errorf("%q: %v, want %v", tt.text, got, tt.want)
		}
	}
}

// TestLexicalSignalsSwitchedOff checks that each switch silences its signal and
// nothing else.
func TestLexicalSignalsSwitchedOff(t *testing.T) {
	const text = "no, still not working?? did you even test it, I meant the other one, wtf. forget it"
	all := []Kind{NegationReply, StillProblem, Doubt, CorrectionPhrase, Exasperation, GiveUp}
	for _, tt := range []struct {
		off  func(*FrictionConfig)
		kind Kind
	}{
		{func(c *FrictionConfig) { c.NegationReply = false }, NegationReply},
		{func(c *FrictionConfig) { c.StillProblem = false }, StillProblem},
		{func(c *FrictionConfig) { c.Doubt = false }, Doubt},
		{func(c *FrictionConfig) { c.CorrectionPhrase = false }, CorrectionPhrase},
		{func(c *FrictionConfig) { c.Exasperation = false }, Exasperation},
		{func(c *FrictionConfig) { c.GiveUp = false }, GiveUp},
	} {
		cfg := DefaultConfig()
		tt.off(&cfg.Friction)
		got := frictionKinds(MustCompile(cfg).Signals(&analyze.Event{Kind: analyze.KindUserMessage, UserContent: text}))
		want := slices.DeleteFunc(slices.Clone(all), func(k Kind) bool { return k == tt.kind })
		if !slices.Equal(got, want) {
			t.Errorf("%v off: %v, want %v", tt.kind, got, want)
		}
	}
	cfg := DefaultConfig()
	cfg.Friction.DoubtQuestionMarks = 0
	if got := frictionKinds(MustCompile(cfg).Signals(&analyze.Event{Kind: analyze.KindUserMessage, UserContent: "what??"})); got != nil {
		t.Errorf("question marks off: %v", got)
	}
	cfg = DefaultConfig()
	cfg.Friction.NegationMaxTokens = 3
	if got := frictionKinds(MustCompile(cfg).Signals(&analyze.Event{Kind: analyze.KindUserMessage, UserContent: "no, use the helper from the other package"})); got != nil {
		t.Errorf("long negation reply: %v", got)
	}
	cfg = DefaultConfig()
	cfg.Friction.Lexicon.Fuzzy = false
	if got := frictionKinds(MustCompile(cfg).Signals(&analyze.Event{Kind: analyze.KindUserMessage, UserContent: "not wokring"})); got != nil {
		t.Errorf("fuzzy off: %v", got)
	}
}

// TestSeedConfigHasNoFriction checks the seed preset: no friction signal ever, and ’
// read as itself, so "doesn’t" misses the seed's `doesn'?t`.
func TestSeedConfigHasNoFriction(t *testing.T) {
	seed := NewLightweightDetector(MustCompile(SeedConfig()))
	def := NewLightweightDetector(MustCompile(DefaultConfig()))
	for _, ev := range []analyze.Event{
		{Kind: analyze.KindAssistantMessage, AssistantText: "Done."},
		user("it still doesn’t compile"),
		{Kind: analyze.KindInterrupt},
		user("no, use the helper"),
		user("it still doesn’t compile"),
	} {
		if got := frictionKinds(seed.Detect(ev)); got != nil {
			t.Errorf("seed: %q: %v", ev.UserContent, got)
		}
	}
	if got := kinds(seed.rules.Signals(&analyze.Event{Kind: analyze.KindUserMessage, UserContent: "it still doesn’t compile"})); len(got) != 0 {
		t.Errorf("seed reads ’ as an apostrophe: %v", got)
	}
	if got := kinds(def.rules.Signals(&analyze.Event{Kind: analyze.KindUserMessage, UserContent: "it still doesn’t compile"})); !slices.Contains(got, Frustration) {
		t.Errorf("default misses the seed pattern through ’: %v", got)
	}
	p := SeedPatterns()
	if len(p.ExtraFrustration) != 0 || !slices.Equal(p.Frustration, SeedFrustrationPatterns()) || !slices.Equal(p.Correction, DefaultCorrectionPatterns()) {
		t.Errorf("SeedPatterns() = %+v", p)
	}
	if c := SeedConfig(); !c.EMA.EveryEvent || c.TypographicApostrophes || c.Window != (TextWindow{}) || len(c.ExtraToolRules) != 0 || c.Friction.any() {
		t.Errorf("SeedConfig() = %+v", c)
	}
	// The human side and the tool side compose: each With… keeps the other side.
	mixed := WithSeedHumanText(DefaultConfig())
	if !reflect.DeepEqual(mixed.Tools, DefaultToolConfig()) || !reflect.DeepEqual(mixed.ExtraToolRules, DefaultExtraToolRules()) || mixed.Friction.any() {
		t.Errorf("WithSeedHumanText(DefaultConfig()) = %+v", mixed)
	}
	if !reflect.DeepEqual(WithDefaultHumanText(SeedConfig()), WithSeedTools(DefaultConfig())) {
		t.Error("WithDefaultHumanText(SeedConfig()) is not the default human side with the seed's tools")
	}
}

// session feeds events through one detector and returns each event's friction kinds.
func runSession(t *testing.T, cfg Config, evs []analyze.Event) [][]Kind {
	t.Helper()
	d := NewLightweightDetector(MustCompile(cfg))
	out := make([][]Kind, len(evs))
	for i, ev := range evs {
		out[i] = frictionKinds(d.Detect(ev))
	}
	return out
}

var t0 = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

func at(d time.Duration, ev analyze.Event) analyze.Event { ev.Time = t0.Add(d); return ev }

// queued is a human message typed while the agent worked, read mid-turn.
func queued(text string) analyze.Event {
	ev := user(text)
	ev.Subtype = analyze.SubtypeQueued
	return ev
}

func agent(text string) analyze.Event {
	return analyze.Event{Kind: analyze.KindAssistantMessage, AssistantText: text}
}

var (
	interrupt = analyze.Event{Kind: analyze.KindInterrupt, UserContent: "[Request interrupted by user]"}
	toolOK    = analyze.Event{Kind: analyze.KindToolResult, ToolName: "Bash", ToolOutput: "ok", ToolStatus: analyze.ToolStatusOK}
)

// TestSessionSignals covers the signals that need the session: repeated requests,
// redirects after interrupts, self-interrupts, negations that answer the agent's
// question, the first message and tagged text.
func TestSessionSignals(t *testing.T) {
	def := DefaultConfig()
	tests := []struct {
		name string
		cfg  func(*Config)
		evs  []analyze.Event
		want [][]Kind
	}{
		{
			name: "a request made again is a repeat",
			evs: []analyze.Event{
				user("please add a verbose flag to the replay command"), agent("Added it."),
				user("add the verbose flag to the replay command please"),
			},
			want: [][]Kind{nil, nil, {RepeatRequest}},
		},
		{
			name: "in Chinese too (character pairs)",
			cfg:  func(c *Config) { c.Friction.Repeat.Threshold = 0.7 },
			evs: []analyze.Event{
				user("请把日志级别改成调试模式"), agent("好的。"), user("我说了，把日志级别改成调试模式"),
			},
			want: [][]Kind{nil, nil, {CorrectionPhrase, RepeatRequest}},
		},
		{
			name: "in Spanish, without accents",
			evs: []analyze.Event{
				user("añade una opción --verbose al comando replay"), agent("Hecho."),
				user("anade la opcion --verbose al comando replay por favor"),
			},
			want: [][]Kind{nil, nil, {RepeatRequest}},
		},
		{
			name: "a different request of the same shape is not",
			evs: []analyze.Event{
				user("add a verbose flag to the replay command"), agent("Added."),
				user("add a quiet flag to the assess command"),
			},
			want: [][]Kind{nil, nil, nil},
		},
		{
			name: "short messages are not requests",
			evs:  []analyze.Event{user("commit"), agent("Committed."), user("commit")},
			want: [][]Kind{nil, nil, nil},
		},
		{
			name: "the history is bounded",
			cfg:  func(c *Config) { c.Friction.Repeat.History = 1 },
			evs: []analyze.Event{
				user("add a verbose flag to the replay command"), agent("Added."),
				user("document the configuration fields in the readme"), agent("Documented."),
				user("add a verbose flag to the replay command"),
			},
			want: [][]Kind{nil, nil, nil, nil, nil},
		},
		{
			name: "within it, an older request made again is a repeat",
			evs: []analyze.Event{
				user("add a verbose flag to the replay command"), agent("Added."),
				user("document the configuration fields in the readme"), agent("Documented."),
				user("add a verbose flag to the replay command"),
			},
			want: [][]Kind{nil, nil, nil, nil, {RepeatRequest}},
		},
		{
			name: "a request sent again before the agent acted is a resubmission",
			evs: []analyze.Event{
				user("can you use the test skill with the manual strategy"), user("Operation stopped by hook: commit first"),
				user("can you use the test skill with the manual strategy"), agent("Running it."),
			},
			want: [][]Kind{nil, nil, nil, nil},
		},
		{
			name: "unless switched off",
			cfg:  func(c *Config) { c.Friction.Repeat.NeedAgentAction = false },
			evs: []analyze.Event{
				user("can you use the test skill with the manual strategy"),
				user("can you use the test skill with the manual strategy"),
			},
			want: [][]Kind{nil, {RepeatRequest}},
		},
		{
			name: "an interrupted request asked again resumes it",
			evs: []analyze.Event{
				user("review the pull request comments"), toolOK, interrupt, user("first fix the merge conflict"),
				agent("Fixed."), user("okay, now review the pull request comments"),
			},
			want: [][]Kind{nil, nil, nil, {InterruptRedirect}, nil, nil},
		},
		{
			name: "unless switched off",
			cfg:  func(c *Config) { c.Friction.Repeat.SkipInterrupted = false },
			evs: []analyze.Event{
				user("review the pull request comments"), toolOK, interrupt, user("first fix the merge conflict"),
				agent("Fixed."), user("okay, now review the pull request comments"),
			},
			want: [][]Kind{nil, nil, nil, {InterruptRedirect}, nil, {RepeatRequest}},
		},
		{
			name: "a redirect after an interrupt",
			evs:  []analyze.Event{user("refactor the parser"), toolOK, interrupt, user("use the existing lexer instead")},
			want: [][]Kind{nil, nil, nil, {InterruptRedirect}},
		},
		{
			name: "approval after an interrupt is not a redirect",
			evs:  []analyze.Event{user("refactor the parser"), toolOK, interrupt, user("ok, continue please")},
			want: [][]Kind{nil, nil, nil, nil},
		},
		{
			name: "nor in Chinese",
			evs:  []analyze.Event{user("重构解析器"), toolOK, interrupt, user("好的，继续")},
			want: [][]Kind{nil, nil, nil, nil},
		},
		{
			name: "nor in Spanish, Portuguese, German or Japanese",
			evs: []analyze.Event{
				user("refactoriza el parser"), toolOK, interrupt, user("sí, sigue por favor"), toolOK, interrupt,
				user("pode, segue"), toolOK, interrupt, user("ja, weiter bitte"), toolOK, interrupt, user("はい、続けてください"),
			},
			want: [][]Kind{nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil},
		},
		{
			name: "a redirect in German",
			evs:  []analyze.Event{user("refactor the parser"), toolOK, interrupt, user("nimm lieber den vorhandenen Lexer")},
			want: [][]Kind{nil, nil, nil, {InterruptRedirect}},
		},
		{
			name: "nor the interrupted request sent again, with more",
			evs: []analyze.Event{
				user("add the missing transitions to the plan"), toolOK, interrupt,
				user("add the missing transitions to the plan, and list the states first"),
			},
			want: [][]Kind{nil, nil, nil, nil},
		},
		{
			name: "a queued message sent again after an interrupt is a redirect: the agent did not act on it",
			evs: []analyze.Event{
				user("add the missing transitions to the plan"), toolOK, queued("open up an appropriate branch off main"), toolOK, interrupt,
				user("open up an appropriate branch off main (but main is checked out in a different worktree)"),
			},
			want: [][]Kind{nil, nil, nil, nil, nil, {InterruptRedirect}},
		},
		{
			name: "the turn's request sent again after a queued message and an interrupt is a resubmission",
			evs: []analyze.Event{
				user("add the missing transitions to the plan"), toolOK, queued("also keep the old names"), toolOK, interrupt,
				user("add the missing transitions to the plan, and list the states first"),
			},
			want: [][]Kind{nil, nil, nil, nil, nil, nil},
		},
		{
			name: "the interrupt marks the turn's request, not the queued one: asking it again later resumes it",
			evs: []analyze.Event{
				user("review the pull request comments"), toolOK, queued("and reply to the bot's threads too"), toolOK, interrupt,
				user("first fix the merge conflict"), agent("Fixed."), user("okay, now review the pull request comments"),
			},
			want: [][]Kind{nil, nil, nil, nil, nil, {InterruptRedirect}, nil, nil},
		},
		{
			name: "an interrupt right after a queued message stops the agent's turn: not a self-interrupt",
			evs: []analyze.Event{
				user("refactor the parser"), toolOK, queued("and keep the old names"), interrupt, user("use the existing lexer instead"),
			},
			want: [][]Kind{nil, nil, nil, nil, {InterruptRedirect}},
		},
		{
			name: "a queued message repeating an earlier request is a repeat",
			evs: []analyze.Event{
				user("please add a verbose flag to the replay command"), agent("Added it."), user("now document it"), toolOK,
				queued("add the verbose flag to the replay command please"),
			},
			want: [][]Kind{nil, nil, nil, nil, {RepeatRequest}},
		},
		{
			name: "queued messages that fill the history forget the turn's request",
			cfg:  func(c *Config) { c.Friction.Repeat.History = 2 },
			evs: []analyze.Event{
				user("review the pull request comments"), toolOK, queued("and reply to the bot's threads too"), toolOK,
				queued("then rebase the branch onto main"), toolOK, interrupt, user("first fix the merge conflict"),
				agent("Fixed."), user("okay, now rebase the branch onto main"),
			},
			want: [][]Kind{nil, nil, nil, nil, nil, nil, nil, {InterruptRedirect}, nil, {RepeatRequest}},
		},
		{
			name: "a redirect long after the interrupt is a new start",
			evs: []analyze.Event{
				at(0, user("refactor the parser")), at(time.Minute, toolOK), at(2*time.Minute, interrupt),
				at(20*time.Minute, user("use the existing lexer instead")),
			},
			want: [][]Kind{nil, nil, nil, nil},
		},
		{
			name: "with no time limit it is still a redirect",
			cfg:  func(c *Config) { c.Friction.Redirect.Within = 0 },
			evs: []analyze.Event{
				at(0, user("refactor the parser")), at(time.Minute, toolOK), at(2*time.Minute, interrupt),
				at(20*time.Minute, user("use the existing lexer instead")),
			},
			want: [][]Kind{nil, nil, nil, {InterruptRedirect}},
		},
		{
			name: "an interrupt before the agent acted amends the human's own prompt",
			evs:  []analyze.Event{user("refactor the parser"), interrupt, user("refactor the lexer, not the parser")},
			want: [][]Kind{nil, nil, nil},
		},
		{
			name: "unless switched off",
			cfg:  func(c *Config) { c.Friction.IgnoreSelfInterrupts = false },
			evs:  []analyze.Event{user("refactor the parser"), interrupt, user("use the existing lexer")},
			want: [][]Kind{nil, nil, {InterruptRedirect}},
		},
		{
			name: "no to the agent's question answers it",
			evs:  []analyze.Event{user("fix the parser"), agent("Fixed. Want me to commit?"), user("no, not yet")},
			want: [][]Kind{nil, nil, nil},
		},
		{
			name: "... as to a question followed by its options",
			evs: []analyze.Event{user("fix the parser"), agent("Fixed. Should I also:\n\nWould you like me to add tests?\n1. Unit tests\n2. A fuzz target"),
				user("no, just commit")},
			want: [][]Kind{nil, nil, nil},
		},
		{
			name: "no after a statement pushes back",
			evs:  []analyze.Event{user("fix the parser"), agent("Fixed it by skipping empty lines."), user("no, keep them")},
			want: [][]Kind{nil, nil, {NegationReply}},
		},
		{
			name: "answers count when configured",
			cfg:  func(c *Config) { c.Friction.NegationAfterQuestion = true },
			evs:  []analyze.Event{user("fix the parser"), agent("Fixed. Want me to commit?"), user("no, keep them")},
			want: [][]Kind{nil, nil, {NegationReply}},
		},
		{
			name: "the session's first message is skipped by default: the agent did nothing yet",
			evs:  []analyze.Event{user("the server still doesn't start"), agent("Restarted."), user("still doesn't start")},
			want: [][]Kind{nil, nil, {StillProblem}},
		},
		{
			name: "and read when configured",
			cfg:  func(c *Config) { c.Friction.SkipFirstMessage = false },
			evs:  []analyze.Event{user("the server still doesn't start")},
			want: [][]Kind{{StillProblem}},
		},
		{
			name: "text a tool put in the prompt is not the human's",
			evs: []analyze.Event{
				user("<ci-monitor-event>CI still failing on PR #12</ci-monitor-event>"),
				user("<ci-monitor-event>CI still failing on PR #12</ci-monitor-event>"),
			},
			want: [][]Kind{nil, nil},
		},
		{
			name: "the human's words after an IDE's context are the human's, the context not",
			evs: []analyze.Event{
				user("<ide_opened_file>The user opened the file /src/client.ts in the IDE. This may or may not be related.</ide_opened_file>\nadd a retry option to the client"),
				agent("Added it."),
				user("<ide_selection>The user selected the lines 10 to 12: still wrong() ?? x</ide_selection>\nstill not working, same error again"),
				agent("Fixed."),
				user("<ide_opened_file>The user opened the file /src/client.ts in the IDE.</ide_opened_file>\nthanks, looks good"),
			},
			want: [][]Kind{nil, nil, {StillProblem}, nil, nil},
		},
		{
			name: "and read whole when off",
			cfg:  func(c *Config) { c.Friction.SkipTagged, c.Friction.SkipFirstMessage = false, false },
			evs: []analyze.Event{
				user("<ide_selection>x still fails?? y</ide_selection>\nthanks, looks good"),
			},
			want: [][]Kind{{StillProblem, Doubt}},
		},
		{
			name: "sidechain prompts are not the human's",
			evs: []analyze.Event{
				{Kind: analyze.KindUserMessage, Sidechain: true, UserContent: "no, still failing, are you sure?"},
			},
			want: [][]Kind{nil},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := def
			if tt.cfg != nil {
				tt.cfg(&cfg)
			}
			if got := runSession(t, cfg, tt.evs); !slices.EqualFunc(got, tt.want, slices.Equal) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// TestSlipAfterInterrupt: a message owning up to an interrupt made by mistake, and
// asking nothing else, lets the agent go on (no redirect); one that asks for
// something else, or corrects the agent, is still a redirect.
func TestSlipAfterInterrupt(t *testing.T) {
	var got [][]Kind
	for _, tt := range []struct {
		msg      string
		redirect bool
	}{
		{"sorry, hit escape by accident", false},
		{"oops, accidentally pressed esc — please continue", false},
		{"I didn't mean to interrupt you, carry on", false},
		{"my bad, go on", false},
		{"fat-fingered the escape key, keep going", false},
		{"perdón, sin querer, sigue", false},
		{"desculpa, apertei sem querer, pode continuar", false},
		{"pardon, j'ai appuyé par erreur, continue", false},
		{"sorry, aus Versehen gedrückt, weiter bitte", false},
		{"scusa, per sbaglio, avanti", false},
		{"случайно нажал, продолжай", false},
		{"不小心按了esc，继续", false},
		{"うっかり押しちゃった、続けてください", false},
		{"실수로 눌렀어 계속해", false},
		{"ctrl+c by accident lol", false},
		{"sorry, I didn't mean to stop you", false},
		{"my mistake, keep going", false},
		{"ups, sin querer", false},
		{"foi sem querer", false},
		{"oups, j'ai appuyé sur échap par erreur", false},
		{"scusa, ho premuto per sbaglio", false},
		{"случайно нажал, продолжай пожалуйста", false},
		{"不好意思，不小心按到了，继续", false},
		{"すみません、うっかり押しちゃった", false},
		{"ごめんなさい、続けてください", false},
		{"실수로 눌렀어요 계속해주세요", false},
		{"pressed the wrong key", false},
		{"hit the wrong button lol", false},
		{"잘못 눌렀어", false},
		{"미안, 잘못 눌렀어", false},
		{"sorry, hit enter by accident", false},
		{"oops, didn't mean to press escape", false},
		{"sorry, didn't mean to cancel", false},
		{"ya my bad, keep going", false},
		{"間違えてEsc押しちゃった", false},
		{"lo siento, sin querer", false},
		{"извините, случайно, продолжайте", false},
		{"простите, случайно", false},
		{"죄송합니다, 실수로 눌렀습니다", false},
		{"foi mal, pode continuar", false},
		{"oups, appuyé sur la mauvaise touche, continue", false},
		{"不小心按到了，继续", false},
		{"fue sin querer, puedes continuar", false},
		{"нечаянно, сорри", false},
		{"Sorry I hit esc by accident, please continue where you left off", false},
		{"aus Versehen abgebrochen, weiter", false},
		{"ho interrotto per sbaglio, continua pure", false},
		{"ミスった、続けて", false},
		{"sorry about that, by accident", false},
		{"🤦 my bad, hit esc", false},
		{"不小心打断你了，继续", false},

		{"accidentally hit escape, but use the v2 API instead", true},
		{"I accidentally gave you the wrong path, it is src/lexer.go", true},
		{"my bad, not that one", true},
		{"wrong, use the lexer", true},
		{"hit escape because you were editing the wrong file", true},
		{"不小心按了esc，不过先修复测试", true},
		// The agent's slip, not the human's; an instruction, a stop or a "no" beside
		// the slip phrase; words that complain; a question.
		{"you pushed it by mistake", true},
		{"you submitted it by mistake", true},
		{"you stopped it by accident", true},
		{"did you push it by accident?", true},
		{"you misclicked", true},
		{"my bad, push it", true},
		{"by accident, but push it now", true},
		{"by accident, cancel it", true},
		{"my bad, press enter", true},
		{"by mistake, then push", true},
		{"my bad, stop", true},
		{"sin querer, para", true},
		{"sem querer, para", true},
		{"sin querer, no", true},
		{"per sbaglio, no", true},
		{"間違えてます", true},
		{"誤っています", true},
		{"you clicked the wrong button", true},
		{"no, you did it by mistake", true},
		{"不对，不小心按了", true},
		{"hit escape by accident, is the lexer done?", true},
		{"すみません、押してください", true},
		{"ごめん、キーを押して", true},
		{"sin querer, pulse el botón", true},
		{"by mistake you sent it", true},
		{"accidentally you submitted it", true},
		{"by mistake, you stopped it", true},
		{"thank you, by accident", true},
		// A wrong key alone is as likely a map's or a form's; sent by mistake withdraws
		// the request; "wait" holds the agent; "that's enough" is no approval.
		{"wrong key sorry", true},
		{"wrong key!", true},
		{"mauvaise touche, continue", true},
		{"sorry, sent that by mistake", true},
		{"my bad, submitted that by accident", true},
		{"I stopped you", true},
		{"my bad, wait", true},
		{"by accident, actually", true},
		{"不好意思，可以了，谢谢", true},
		{"ごめん、ちゃう", true},
	} {
		got = runSession(t, DefaultConfig(), []analyze.Event{user("refactor the parser"), toolOK, interrupt, user(tt.msg)})
		if redirect := slices.Contains(got[3], InterruptRedirect); redirect != tt.redirect {
			t.Errorf("%q: signals %v, want a redirect %v", tt.msg, got[3], tt.redirect)
		} else if !tt.redirect && len(got[3]) > 0 {
			t.Errorf("%q: a slip, yet signals %v", tt.msg, got[3]) // its words are the slip's ("pressed the wrong key")
		}
	}
	// Approval after an interrupt asks nothing: the interrupted request stays the
	// turn's, so sending it again after a second interrupt resubmits it.
	got = runSession(t, DefaultConfig(), []analyze.Event{
		user("add the missing transitions to the plan"), toolOK, interrupt, user("ok continue"), toolOK, interrupt,
		user("add the missing transitions to the plan"),
	})
	if want := [][]Kind{nil, nil, nil, nil, nil, nil, nil}; !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("a request resent after approval and a second interrupt: got %v, want %v", got, want)
	}
	// Approval without an interrupt begins a turn of its own: what the next interrupt
	// stops is the agent's work then, not the request before ("thanks", a "yes" to its
	// question) — that request asked again later is a repeat, sent right after the
	// interrupt a redirect.
	got = runSession(t, DefaultConfig(), []analyze.Event{
		user("add the missing transitions to the plan"), toolOK, agent("Done."), user("great, thanks"), toolOK, interrupt,
		user("rename the lexer package"), toolOK, agent("Done."), user("add the missing transitions to the plan"),
	})
	if want := [][]Kind{nil, nil, nil, nil, nil, nil, {InterruptRedirect}, nil, nil, {RepeatRequest}}; !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("a request asked again after thanks and an interrupt: got %v, want %v", got, want)
	}
	got = runSession(t, DefaultConfig(), []analyze.Event{
		user("add the missing transitions to the plan"), toolOK, agent("Should I also update the docs?"), user("yes"), toolOK,
		interrupt, user("add the missing transitions to the plan"),
	})
	if want := [][]Kind{nil, nil, nil, nil, nil, nil, {InterruptRedirect}}; !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("a request sent again after a yes and an interrupt: got %v, want %v", got, want)
	}
	// A slip is no request: owning up to a second slip repeats none.
	got = runSession(t, DefaultConfig(), []analyze.Event{
		user("refactor the parser"), toolOK, interrupt, user("sorry, I hit the escape key by accident"), toolOK, agent("Done."),
		user("now rename the lexer package"), toolOK, interrupt, user("sorry, I hit the escape key by accident"),
	})
	if want := [][]Kind{nil, nil, nil, nil, nil, nil, nil, nil, nil, nil}; !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("two slips: got %v, want %v", got, want)
	}
}

func TestRepeatAndRedirectSwitchedOff(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Friction.Repeat.Enabled, cfg.Friction.Redirect.Enabled = false, false
	got := runSession(t, cfg, []analyze.Event{
		user("please add a verbose flag to the replay command"), toolOK, interrupt,
		user("use the existing flag package"), user("please add a verbose flag to the replay command"),
	})
	if !slices.EqualFunc(got, [][]Kind{nil, nil, nil, nil, nil}, slices.Equal) {
		t.Errorf("got %v", got)
	}
}

func TestEndsWithQuestion(t *testing.T) {
	for text, want := range map[string]bool{
		"Want me to commit?":       true,
		"Shall I push it?**\n\n":   true,
		"Should I go ahead? (y/n)": true,
		"Proceed? [Y/n]":           true,
		"Which do you prefer?\n\n1. Keep the flag\n2. Drop it\n": true,
		"Fixed (see #12).": false,
		"## What was wrong?\nThe parser skipped empty lines. I fixed it and the tests pass.":                        false,
		"Options?\n- keep the flag\n- drop it\n":                                                                    true,
		"Which one?\n\na) the cache\nb) the index":                                                                  true,
		"Why did it fail?\n\nThe cache was stale.\nI cleared it.\nTests pass.\nThe build is green.\nPushed.\nDone.": false,
		"要我提交吗？":                          true,
		"Done.":                           false,
		"Is this what you wanted?\n```\n": true, // a closing fence is markup
		"":                                false,
	} {
		if got := endsWithQuestion(text); got != want {
			t.Errorf("%q: %v", text, got)
		}
	}
}

func TestTokenize(t *testing.T) {
	tests := []struct {
		text  string
		apos  bool
		words string // tokens joined by " ", a "|" where a clause ends
		qrun  int
	}{
		{"Doesn't work", true, "doesnt work", 0},
		{"Doesn’t work", true, "doesnt work", 0},
		{"Doesn’t work", false, "doesn t work", 0},
		{"NÃO funciona", true, "nao funciona", 0},
		{"Straße müde Ærø", true, "strasse mude aero", 0},
		{"e\u0301te\u0301", true, "ete", 0}, // combining accents
		{"还是不行", true, "还 是 不 行", 0},
		{"まだ動かない。もう一度", true, "ま だ 動 か な い | も う 一 度", 0},
		{"ｎｏ，ＯＫ", true, "no ok", 0},
		{"xterm.js works. Next", true, "xterm js works | next", 0},
		{"what?? really?!", true, "what | really |", 2},
		{"??", true, "", 2},
		{"what ? ?", true, "what |", 2},
		{"why ??\nfix it", true, "why | fix it", 2},
		// Operators of pasted code are no questions.
		{"name := user.name ?? 'anon'", true, "name user name | anon", 0},
		{"x ??= 1", true, "x | 1", 0},
		{"a ?? b ??? c", true, "a | b | c", 0},
		// Pasted code is not the human's words: fenced blocks (fences included) are
		// skipped; inline code is part of its sentence.
		{"still fails:\n```\nError: not working?? again\n```\nsee above", true, "still fails | see above", 0},
		{"  ~~~ log\nwrong\n  ~~~\nok", true, "ok", 0},
		{"```\n\nwrong\n\n```\n\nok\n```", true, "ok", 0},
		{"use `x ?? y`, not `wrong()`", true, "use x | y not wrong", 0},
		{"snake_case v2", true, "snake_case v2", 0},
		{"всё ещё", true, "все еще", 0},
	}
	for _, tt := range tests {
		var tk tokens
		tk.tokenize([]byte(tt.text), tt.apos, true)
		var b strings.Builder
		for i := range tk.toks {
			if i > 0 {
				if tk.toks[i].clause != tk.toks[i-1].clause {
					b.WriteString(" |")
				}
				b.WriteByte(' ')
			}
			b.Write(tk.raw(i))
		}
		got := strings.TrimSpace(b.String())
		if want := strings.TrimSuffix(tt.words, " |"); got != want && got+" |" != tt.words {
			t.Errorf("%q: %q, want %q", tt.text, got, tt.words)
		}
		if tk.qrun != tt.qrun {
			t.Errorf("%q: question run %d, want %d", tt.text, tk.qrun, tt.qrun)
		}
	}
	var tk tokens
	tk.tokenize([]byte("no, use it"), true, true)
	if !tk.toks[0].punct || tk.toks[1].punct || !tk.toks[2].punct {
		t.Errorf("punctuation flags %+v", tk.toks)
	}
}

// TestOwnText covers what of a message that opens with a tag is the human's.
func TestOwnText(t *testing.T) {
	long := "<ide_selection>" + strings.Repeat("x := 1\n", 2000) + "</ide_selection>"
	for _, tt := range []struct {
		text, own string
		tagged    bool
	}{
		{"<ci-monitor-event>CI failing</ci-monitor-event>", "", true},
		{"<ci-monitor-event>CI failing</ci-monitor-event>\n  ", "", true},
		{"<ide_opened_file>The user opened /src/a.ts</ide_opened_file>\nstill not working", "still not working", true},
		{"<ide_opened_file>a</ide_opened_file>\n<ide_selection>b</ide_selection>\nno, that's wrong", "no, that's wrong", true},
		{long + "\nthis still fails", "this still fails", true},
		{"<ide_opened_file path=\"a.ts\"/>", "", true},
		{"<Button onClick={save}/>\nthis still doesn't fire", "<Button onClick={save}/>\nthis still doesn't fire", false},
		{"<div> is never closed, fix it", "<div> is never closed, fix it", false},
		{"<3 thanks", "<3 thanks", false},
		{"a <b>x</b> c", "a <b>x</b> c", false},
		{"<>", "<>", false},
		{"<command-name>/clear", "<command-name>/clear", false},
		// The tag is looked for near the start and the closing tag near the end only:
		// farther, the message is read whole, at a bounded cost.
		{strings.Repeat(" ", 5000) + "<ci-monitor-event>x</ci-monitor-event>", strings.Repeat(" ", 5000) + "<ci-monitor-event>x</ci-monitor-event>", false},
		{"<ci-monitor-event>x</ci-monitor-event>" + strings.Repeat("\n", 5000), "<ci-monitor-event>x</ci-monitor-event>" + strings.Repeat("\n", 5000), false},
		{"<ide_selection>x</ide_selection>\n" + strings.Repeat("word ", 1000), "<ide_selection>x</ide_selection>\n" + strings.Repeat("word ", 1000), false},
	} {
		own, tagged := ownText(tt.text)
		if own != tt.own || tagged != tt.tagged {
			t.Errorf("ownText(%.60q) = %.60q, %v; want %.60q, %v", tt.text, own, tagged, tt.own, tt.tagged)
		}
	}
}

func TestTextWindow(t *testing.T) {
	w := TextWindow{Head: 8, Tail: 4}
	for _, tt := range []struct{ in, want string }{
		{"short", "short"},
		{"exactly12byt", "exactly12byt"},
		{"0123456789abcdefXYZW", "01234567" + windowSep + "XYZW"},
		{"0123456éééé", "0123456" + windowSep + "éé"},      // cuts fall on rune boundaries
		{"it’s 0123456789", "it's 0" + windowSep + "6789"}, // the window counts ’ as its 3 bytes
	} {
		if got := string(w.appendWindow(nil, tt.in, true)); got != tt.want {
			t.Errorf("%q: %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := string((TextWindow{}).appendWindow(nil, strings.Repeat("x", 100000), false)); len(got) != 100000 {
		t.Errorf("unbounded window read %d bytes", len(got))
	}
	// A complaint at the end of a long paste is read; one in its middle is not.
	rules := MustCompile(DefaultConfig())
	paste := strings.Repeat("DEBUG hook invoked session=28c304f6 ok\n", 5000)
	if got := frictionKinds(rules.Signals(&analyze.Event{Kind: analyze.KindUserMessage, UserContent: paste + "still failing"})); !slices.Equal(got, []Kind{StillProblem}) {
		t.Errorf("tail: %v", got)
	}
	mid := paste[:len(paste)/2] + "still failing\n" + paste[len(paste)/2:]
	if got := frictionKinds(rules.Signals(&analyze.Event{Kind: analyze.KindUserMessage, UserContent: mid})); got != nil {
		t.Errorf("middle: %v", got)
	}
}

func TestSketchSimilarity(t *testing.T) {
	mk := func(words ...string) *sketch {
		var s sketch
		for _, w := range words {
			s.add(hashToken([]byte(w), 0))
		}
		return &s
	}
	a, b := mk("add", "verbose", "flag", "replay", "command"), mk("add", "verbose", "flag", "assess", "command")
	if j, o := similarity(a, b); math.Abs(j-4.0/6) > 1e-9 || math.Abs(o-0.8) > 1e-9 {
		t.Errorf("jaccard %v overlap %v", j, o)
	}
	if j, _ := similarity(a, mk("add", "add", "verbose", "flag", "replay", "command")); j != 1 {
		t.Errorf("duplicates: %v", j)
	}
	if j, o := similarity(a, &sketch{}); j != 0 || o != 0 {
		t.Error("empty set is similar")
	}
	// Large sets: estimated from the sketches, within a few points.
	var x, y sketch
	for i := range 1000 {
		w := []byte(strings.Repeat("w", 1+i%7) + string(rune('a'+i%26)) + string(rune('a'+i/26)))
		x.add(hashToken(w, 0))
		if i < 700 {
			y.add(hashToken(w, 0))
		} else {
			y.add(hashToken(append(w, 'z'), 0))
		}
	}
	if j, _ := similarity(&x, &y); math.Abs(j-700.0/1300) > 0.2 {
		t.Errorf("estimated jaccard %v, true %v", j, 700.0/1300)
	}
}

func TestLexiconErrors(t *testing.T) {
	base := func() Lexicon { return Lexicon{Classes: map[string][]string{"c": {"word"}}} }
	for name, mut := range map[string]func(*Lexicon){
		"unknown class":       func(l *Lexicon) { l.Still = []string{"still %nope"} },
		"gap first":           func(l *Lexicon) { l.Still = []string{"* still"} },
		"gap last":            func(l *Lexicon) { l.Still = []string{"still *"} },
		"gap then punct":      func(l *Lexicon) { l.Still = []string{"still * , x"} },
		"anchor not first":    func(l *Lexicon) { l.Negation = []string{"no ^"} },
		"short prefix":        func(l *Lexicon) { l.Still = []string{"fai~"} },
		"no letters":          func(l *Lexicon) { l.Doubt = []string{"??"} },
		"multi-word class":    func(l *Lexicon) { l.Classes["c"] = []string{"go ahead"} },
		"typo is a word":      func(l *Lexicon) { l.Typos = map[string]string{"word": "word"} },
		"ascii emoji":         func(l *Lexicon) { l.ExasperationEmoji = ":(" },
		"negative gap":        func(l *Lexicon) { l.MaxGap = -1 },
		"multi-word typo key": func(l *Lexicon) { l.Typos = map[string]string{"a b": "word"} },
	} {
		l := base()
		mut(&l)
		if _, err := compileLexicon(l, true); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
	if _, err := compileLexicon(DefaultLexicon(), false); err != nil {
		t.Errorf("default lexicon without apostrophes: %v", err)
	}
}

// TestLexiconJSONOverride checks that a JSON configuration over the defaults can
// change the lexicon: a class replaced by key, a phrase list replaced whole.
func TestLexiconJSONOverride(t *testing.T) {
	cfg := DefaultConfig()
	in := `{"friction": {"lexicon": {"classes": {"lead_neg": ["niente"]}, "still": ["totally borked"]}}}`
	if err := json.Unmarshal([]byte(in), &cfg); err != nil {
		t.Fatal(err)
	}
	rules := MustCompile(cfg)
	for text, want := range map[string][]Kind{
		"niente, l'altro": {NegationReply}, "no, the other one": nil, "totally borked": {StillProblem}, "still not working": nil,
		"are you sure?": {Doubt}, // untouched lists keep their defaults
	} {
		if got := frictionKinds(rules.Signals(&analyze.Event{Kind: analyze.KindUserMessage, UserContent: text})); !slices.Equal(got, want) {
			t.Errorf("%q: %v, want %v", text, got, want)
		}
	}
}

func TestTypoOf(t *testing.T) {
	for _, tt := range []struct {
		w, v string
		want bool
	}{
		{"dosent", "doesnt", true},   // swap
		{"wokring", "working", true}, // swap
		{"stilll", "still", true},    // doubled
		{"workng", "working", true},  // dropped, long word
		{"mean", "meant", false},     // dropped, short word
		{"skill", "still", false},    // changed
		{"merge", "merde", false},    // changed
		{"still", "still", false},    // equal: not a typo
		{"sitll", "still", true},
		{"stlil", "still", true},
	} {
		if got := typoOf([]byte(tt.w), []byte(tt.v)); got != tt.want {
			t.Errorf("typoOf(%q, %q) = %v", tt.w, tt.v, got)
		}
	}
}

// TestDetectBoundedCost checks that a huge message is read through its window: the
// detector keeps no more than the window's worth of scratch space.
func TestDetectBoundedCost(t *testing.T) {
	d := NewLightweightDetector(MustCompile(DefaultConfig()))
	d.Detect(user(strings.Repeat("a long pasted line of log output\n", 1<<15)))
	w := DefaultTextWindow()
	if n := cap(d.sc.win); n > 2*(w.Head+w.Tail+len(windowSep)) {
		t.Errorf("window buffer grew to %d bytes", n)
	}
	if n := len(d.sc.tok.toks); n > w.Head+w.Tail {
		t.Errorf("%d tokens", n)
	}
}

func TestRedirectWithinDuration(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Friction.Redirect.Within = duration.Duration(30 * time.Second)
	got := runSession(t, cfg, []analyze.Event{
		at(0, user("refactor the parser")), at(time.Second, toolOK), at(2*time.Second, interrupt),
		at(time.Minute, user("use the existing lexer instead")),
	})
	if got[3] != nil {
		t.Errorf("late redirect: %v", got[3])
	}
}

// FuzzHumanText reads arbitrary text as a human message: the detector never panics,
// gives the same signals twice, keeps its tokens within the window, and every token
// it makes is valid UTF-8 with no separator in it.
func FuzzHumanText(f *testing.F) {
	for _, s := range []string{"no, still not working??", "还是不行", "ｎｏ，ＯＫ", "e\u0301", "<tag>x", "dosent wokring",
		"’’’", "\xff\xfe", strings.Repeat("no ", 2000), "```\n\nno\n```\nstill `x` ??", "<ide_selection>a</ide_selection>\nno, wrong"} {
		f.Add(s)
	}
	rules := MustCompile(DefaultConfig())
	f.Fuzz(func(t *testing.T, text string) {
		ev := user(text)
		a := NewLightweightDetector(rules)
		b := NewLightweightDetector(rules)
		ka, kb := kinds(a.Detect(ev)), kinds(b.Detect(ev))
		if !slices.Equal(ka, kb) {
			t.Fatalf("%q: %v then %v", text, ka, kb)
		}
		w := DefaultTextWindow()
		for i := range a.sc.tok.toks {
			tok := a.sc.tok.raw(i)
			if len(tok) == 0 || len(tok) > w.Head+w.Tail || !utf8.Valid(tok) || strings.ContainsAny(string(tok), " \n\t,.") {
				t.Fatalf("%q: bad token %q", text, tok)
			}
		}
	})
}

// TestResume: a resumed session's first message is read, a new session's is not.
func TestResume(t *testing.T) {
	rules := MustCompile(DefaultConfig()) // SkipFirstMessage on
	for _, resumed := range []bool{false, true} {
		d := NewLightweightDetector(rules)
		if resumed {
			d.Resume()
		}
		got := Has(d.Detect(user("the server still doesn't start")), StillProblem)
		if got != resumed {
			t.Errorf("resumed %v: still_problem %v", resumed, got)
		}
	}
}

// TestApprovalAfterInterrupt: approval is whole words — in Chinese and Japanese the
// GoOn phrases, not the characters they are written with ("まだ", "not yet", is made of
// characters of "ください" and "いいです", and redirects).
func TestApprovalAfterInterrupt(t *testing.T) {
	for _, tt := range []struct {
		msg      string
		redirect bool
	}{
		{"ok, continue please", false},
		{"好的，继续", false},
		{"继续", false},
		{"请继续", false},
		{"是的，可以", false},
		{"はい、続けてください", false},
		{"続けて", false},
		{"どうぞ", false},
		{"うん、お願いします", false},
		{"그래, 계속해", false},
		{"ok, continue what you were doing", false},
		{"please continue where you left off", false},
		{"続行してください", false},
		{"好的吧", false},
		{"继续呀", false},
		{"可以啊", false},
		{"続けてくださいね", false},
		{"いいですよ", false},
		{"收到，继续", false},
		{"ありがとう、続けて", false},
		{"続けて下さい", false},
		{"OKです", false},
		{"按错了，继续吧", false},
		{"对不起，继续", false},

		{"まだ", true},
		{"どうして", true},
		{"ううん", true},
		{"おしまい", true},
		{"可以了", true},
		{"不行", true},
		{"好了好了", true},
		{"いいです", true},
		{"そのまま", true},
		{"ok, but use the lexer", true},
		{"what were you doing", true},
	} {
		got := runSession(t, DefaultConfig(), []analyze.Event{user("refactor the parser"), toolOK, interrupt, user(tt.msg)})
		if redirect := slices.Contains(got[3], InterruptRedirect); redirect != tt.redirect {
			t.Errorf("%q: signals %v, want a redirect %v", tt.msg, got[3], tt.redirect)
		}
	}
}

// TestSlipWordsAreNoTypoTargets: a token is read as a typo of the lexicon's words that
// raise signals, never of a word only the slip lists use ("sklipped" is "skipped", not
// "slipped"; "sbaglito" is "sbagliato", not "sbaglio").
func TestSlipWordsAreNoTypoTargets(t *testing.T) {
	rules := MustCompile(DefaultConfig())
	for _, tt := range []struct{ typo, word string }{
		{"you sklipped the tests", "you skipped the tests"},
		{"you slkipped the tests", "you skipped the tests"},
		{"è sbaglito", "è sbagliato"},
		{"è sbagliao", "è sbagliato"},
	} {
		want := frictionKinds(rules.Signals(&analyze.Event{Kind: analyze.KindUserMessage, UserContent: tt.word}))
		if len(want) == 0 {
			t.Fatalf("%q raises no friction signal: the test no longer tests anything", tt.word)
		}
		if got := frictionKinds(rules.Signals(&analyze.Event{Kind: analyze.KindUserMessage, UserContent: tt.typo})); !slices.Equal(got, want) {
			t.Errorf("%q: %v, want %v (as %q)", tt.typo, got, want, tt.word)
		}
	}
}

// TestKindLexical: the kinds the lexicon reads in a message's words are exactly its
// categories' — what the session buffer's feedback and the offline analyzer's last
// turn count — and no seed, tool, turn-taking or zero kind.
func TestKindLexical(t *testing.T) {
	want := map[Kind]bool{NegationReply: true, StillProblem: true, Doubt: true, CorrectionPhrase: true, Exasperation: true, GiveUp: true}
	for k := range Kind(NumKinds) {
		if got := k.Lexical(); got != want[k] {
			t.Errorf("%v.Lexical() = %v, want %v", k, got, want[k])
		}
	}
}

// TestSlipClassesAreNoTypoTargets: the words of a class no phrase names outside the
// Slip and GoOn phrases — a configuration's as the default's slip_press — are no typo
// targets; named by another phrase too, they are, as every other class's.
func TestSlipClassesAreNoTypoTargets(t *testing.T) {
	fuzzy := func(lx *lexicon, word string) bool {
		for _, e := range lx.dict.entries {
			if string(e.word) == word {
				return e.fuzzy
			}
		}
		t.Fatalf("%q is no word of the lexicon", word)
		return false
	}
	for _, tt := range []struct {
		name       string
		correction []string
		want       bool
	}{
		{"named by slips only", nil, false},
		{"named by a correction too", []string{"%keypress * wrong"}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l := Lexicon{Classes: map[string][]string{"keypress": {"smashed"}, "slip_act": {"tapped"}, "second_person": {"thou"}, "filler": {"welll"}},
				Slip: []string{"%keypress * by accident"}, Correction: tt.correction}
			lx, err := compileLexicon(l, false)
			if err != nil {
				t.Fatal(err)
			}
			if got := fuzzy(lx, "smashed"); got != tt.want {
				t.Errorf("keypress's word a typo target: %v, want %v", got, tt.want)
			}
			if fuzzy(lx, "tapped") || fuzzy(lx, "thou") {
				t.Error("a slip_act or second_person word is a typo target")
			}
			if !fuzzy(lx, "welll") {
				t.Error("a filler word is no typo target")
			}
		})
	}
}
