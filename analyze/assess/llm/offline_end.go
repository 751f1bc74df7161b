package llm

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/loopwatch/loopwatch/analyze"
	"github.com/loopwatch/loopwatch/analyze/assess/detect"
	"github.com/loopwatch/loopwatch/analyze/assess/session"
)

// DefaultAcceptancePatterns returns the patterns that read a human turn as acceptance
// of the work: thanks, praise, "works", "lgtm", "ship it", a request to commit, push,
// merge or open a PR (keeping the change), in English and in Chinese, Japanese,
// Korean, Spanish, Portuguese, French, German and Italian. RE2's \b is ASCII-only, so
// the non-Latin words stand without it. A turn that also carries a frustration or
// correction signal is friction, not acceptance.
func DefaultAcceptancePatterns() []string {
	return []string{
		`(?i)\b(?:thanks?|thank\s+you|thx|ty|cheers|kudos)\b`,
		`(?i)\b(?:perfect|excellent|great|awesome|amazing|fantastic|nice|brilliant|good\s+job|well\s+done)\b`,
		`(?i)\b(?:(?:it|that|this)\s+)?works?(?:\s+(?:now|great|perfectly|well|fine))?\s*[.!]*$|\bworking\s+now\b|\bthat\s+did\s+it\b|\bfixed\s+it\b`,
		`(?i)\b(?:lgtm|looks\s+good|sounds\s+good|ship\s+it|good\s+to\s+go|all\s+good)\b`,
		`(?i)^\W*(?:now\s+|please\s+|ok(?:ay)?,?\s+|great,?\s+|yes,?\s+)?(?:(?:commit|push|merge)\b|(?:open|create|make)\s+(?:a\s+)?(?:draft\s+)?(?:pr|pull\s+request)\b)`,
		`(?i)\b(?:gracias|perfecto|funciona|obrigad[oa]|valeu|perfeito|merci|parfait|ça\s+marche|danke|funktioniert|grazie|perfetto)\b`,
		`谢谢|多谢|完美|可以了|好了|ありがとう|完璧|動いた|감사|고마워|완벽`,
		`👍|🎉|🙏|✅`,
	}
}

// DefaultDoneClaims returns the patterns of a final agent message that reports the
// work done ("All done", "Done.", "All tests pass", "Clean.", "Pushed", "Committed
// as", "✅"), read at the message's start.
func DefaultDoneClaims() []string {
	return []string{
		`(?i)^\W*(?:all\s+done|done|clean|fixed|pushed|committed|complete|all\s+(?:green|set|good)|perfect)\b`,
		`(?i)\ball\s+(?:\d+\s+)?(?:tests?|checks?)\s+(?:now\s+)?pass|\b(?:tests?|lint|build)\s+(?:is\s+|are\s+)?(?:now\s+)?(?:passing|clean|green)\b|\bsuccessfully\b|✅`,
	}
}

// DefaultProblemClaims returns the patterns of a final agent message that concedes a
// problem still open ("You're absolutely right", "I can see the problem", "still
// failing"), read at the message's start.
func DefaultProblemClaims() []string {
	return []string{
		`(?i)\byou'?re\s+(?:absolutely\s+|completely\s+|totally\s+)?right\b`,
		`(?i)\bI\s+(?:can\s+)?see\s+the\s+(?:problem|issue)\b|\bthe\s+(?:problem|issue)\s+(?:is\s+still|persists|remains)\b`,
		`(?i)\bstill\s+(?:failing|broken|not\s+working|getting\s+(?:the\s+)?(?:same|an?)\s+error)\b`,
	}
}

// claimWindow is how much of the final agent message the claims are read in.
const claimWindow = 400

// endReading is what the end of a transcript says, read by [OfflineAnalyzer] with
// OfflineConfig.EndReading.
type endReading struct {
	lastText      *session.Entry // the human's last text turn (not an interrupt), if buffered
	trailingStop  bool           // the human's last turn is an interrupt
	planHandoff   bool           // … of a rejected ExitPlanMode: the plan went to a fresh session
	accepted      bool           // the last text turn accepts the work
	roundFriction int            // friction since the last text turn (rejections with feedback, interrupts)
	unresolved    string         // a build/test/lint target whose last outcome after the last human turn failed
	workedOn      bool           // … and the agent edited a file after the last such failure
	verified      bool           // a build/test/lint success after the last human turn, nothing left failing
	doneClaim     bool           // the agent's final message reports the work done
	problemClaim  bool           // … or concedes an open problem
}

// rejectionFeedback marks a rejected tool call that carries the human's words.
const rejectionFeedback = "the user said:"

// readEnd reads the end of a transcript.
func (a *OfflineAnalyzer) readEnd(t *session.Transcript) endReading {
	var r endReading
	es := t.Entries
	lastHuman, lastText := -1, -1
	for i := range es {
		if detect.IsHumanTurn(&es[i].Event) {
			lastHuman = i
			if es[i].Event.Kind == analyze.KindUserMessage {
				lastText = i
			}
		}
	}
	if lastText >= 0 {
		e := &es[lastText]
		r.lastText = e
		neg := seedNegative(e.Signals) || frictionWords(e.Signals)
		r.accepted = !neg && (detect.Has(e.Signals, detect.Success) || a.accepts(e.Event.UserContent))
	}
	if lastHuman >= 0 && lastHuman != lastText {
		r.trailingStop = true
		for j := lastHuman - 1; j > lastText; j-- {
			if ev := &es[j].Event; ev.Kind == analyze.KindToolResult && !ev.Sidechain {
				r.planHandoff = ev.ToolName == "ExitPlanMode" && detect.Has(es[j].Signals, detect.ToolRejected)
				break
			}
		}
	}
	for j := lastText + 1; j < len(es); j++ {
		e := &es[j]
		switch {
		case detect.IsHumanTurn(&e.Event):
			r.roundFriction++
		case detect.Has(e.Signals, detect.ToolRejected) && strings.Contains(e.Event.ToolOutput, rejectionFeedback):
			r.roundFriction++
		}
	}
	// A build, test or lint failure after the last human turn is resolved by a later
	// success of the same target or of the same step (a "mise run lint" failure by a
	// passing "golangci-lint", a pre-push hook's build failure by the push going
	// through).
	type failure struct {
		target string
		step   detect.Kind // the success kind that resolves it
		at     int         // its entry
	}
	var open []failure
	checked := false
	lastEdit := -1 // the agent's last edit of a file
	for j := lastHuman + 1; j < len(es); j++ {
		if ev := &es[j].Event; ev.Kind == analyze.KindToolResult && isEdit(ev.ToolName) && ev.ToolStatus != analyze.ToolStatusError {
			lastEdit = j
		}
		for _, s := range es[j].Signals {
			switch s.Kind {
			case detect.BuildFailure, detect.TestFailure, detect.LintError:
				checked = true
				open = append(open, failure{s.Target, map[detect.Kind]detect.Kind{detect.BuildFailure: detect.BuildSuccess,
					detect.TestFailure: detect.TestSuccess, detect.LintError: detect.LintSuccess}[s.Kind], j})
			case detect.BuildSuccess, detect.TestSuccess, detect.LintSuccess, detect.ToolSuccess:
				checked = checked || s.Kind != detect.ToolSuccess
				kept := open[:0]
				for _, f := range open {
					if f.target != s.Target && f.step != s.Kind {
						kept = append(kept, f)
					}
				}
				open = kept
			}
		}
	}
	if len(open) > 0 {
		r.unresolved = open[0].target
		if r.unresolved == "" {
			r.unresolved = "a build or test"
		}
		r.workedOn = lastEdit > open[len(open)-1].at
	}
	r.verified = checked && r.unresolved == ""
	if a.cfg.AgentClaims {
		for j := len(es) - 1; j > lastHuman; j-- {
			if ev := &es[j].Event; ev.Kind == analyze.KindAssistantMessage && !ev.Sidechain {
				text := strings.TrimSpace(ev.AssistantText)
				if len(text) > claimWindow {
					text = text[:claimWindow]
				}
				r.problemClaim = matchAny(a.problem, text)
				r.doneClaim = !r.problemClaim && matchAny(a.done, text)
				break
			}
		}
	}
	return r
}

// accepts reports whether text matches an acceptance pattern.
func (a *OfflineAnalyzer) accepts(text string) bool {
	text = strings.TrimSpace(text)
	if len(text) > 4096 {
		text = text[:4096]
	}
	return matchAny(a.accept, text)
}

func matchAny(res []*regexp.Regexp, text string) bool {
	for _, re := range res {
		if re.MatchString(text) {
			return true
		}
	}
	return false
}

// analyzeEnd classifies a session by what its end says (OfflineConfig.EndReading),
// the first rule that applies:
//
//  1. no human turn in the transcript (the part of a session after an inactivity
//     gap): abandoned (0.5) if a build, test or lint is left failing, else success
//     (0.5): the work went on by itself;
//  2. final frustration EMA ≥ FailureEMA → failure (0.7);
//  3. the human's last turn interrupts a plan hand-off (Claude Code's plan mode
//     exits by rejecting ExitPlanMode and continuing in a fresh session) → success
//     (0.6), or partial (0.5) after other friction since the human's last text turn
//     (a rejection that said why, another interrupt);
//  4. the human's last text turn gives up on the task (detect.GiveUp: "forget it,
//     I'll do it myself", "算了") → failure (0.7);
//  5. the human's last text turn was friction — the seed's frustration or
//     correction patterns, or friction words (detect's NegationReply, StillProblem,
//     Doubt, CorrectionPhrase, Exasperation: "still not working", "funktioniert
//     immer noch nicht", "are you sure") that no passing check or final report of
//     work done answered: partial (0.5) if a build or test then passed and nothing
//     is left failing; otherwise failure (0.6) when a hook ended the session,
//     abandoned (0.6) when it stopped;
//  6. the human interrupted the agent last (and it was no hand-off): failure (0.5)
//     on a hook end, abandoned (0.5) otherwise;
//  7. a build, test or lint is left failing after the human's last turn, and the
//     agent's final message does not report the work done (AgentClaims) — a report
//     settles the failure only when the agent edited a file after it, not when it
//     reports over a failure it did not touch — or that
//     message concedes an open problem ("You're absolutely right", "I can see the
//     problem", "still failing"): partial (0.5) on a hook end, abandoned (0.5)
//     otherwise;
//  8. the last text turn accepts the work (thanks, works, lgtm, ship it, commit,
//     push, open a PR; see DefaultAcceptancePatterns) → success (0.8), or partial
//     (0.6) after heavy friction;
//  9. heavy friction → partial (0.5): at least PartialFriction friction events, and
//     at least PartialFrictionShare of the human turns;
//  10. otherwise → success: 0.7 when a build or test passed after the last human turn,
//     0.6 when nothing visibly went wrong.
func (a *OfflineAnalyzer) analyzeEnd(t *session.Transcript, friction int) (Outcome, float64, string) {
	st := &t.Stats
	r := a.readEnd(t)
	hook := t.Reason == session.EndHook
	turns := st.UserMessages + st.Interrupts
	heavy := friction >= a.cfg.PartialFriction && float64(friction) >= a.cfg.PartialFrictionShare*float64(turns)
	// The agent's report of work done settles a failure it went on to work on (an
	// edit after it, not run again), never one it reports over without touching
	// anything: "Done!" right after a failing test run is contradicted by it.
	settled := r.doneClaim && r.workedOn
	// The seed's patterns make the last text turn friction outright; loopwatch's
	// friction words do unless the agent answered them: a check that passed after
	// it, or a final message reporting the work done.
	lastNeg := r.lastText != nil && (seedNegative(r.lastText.Signals) || frictionWords(r.lastText.Signals) && !r.verified && !r.doneClaim)
	switch {
	case turns == 0 && r.unresolved != "" && !settled:
		return OutcomeAbandoned, 0.5, fmt.Sprintf("no human turn, and %s is left failing", r.unresolved)
	case turns == 0:
		return OutcomeSuccess, 0.5, "no human turn; the work went on without a failure left"
	case st.FrustrationEMA >= a.cfg.FailureEMA:
		return OutcomeFailure, 0.7, fmt.Sprintf("final frustration EMA %.2f", st.FrustrationEMA)
	case r.planHandoff && r.roundFriction > 1:
		return OutcomePartial, 0.5, "the plan was handed off after friction over it"
	case r.planHandoff:
		return OutcomeSuccess, 0.6, "the session ends handing its plan off to a fresh session"
	case r.lastText != nil && detect.Has(r.lastText.Signals, detect.GiveUp):
		return OutcomeFailure, 0.7, "the human gave up on the task"
	case lastNeg && r.verified && !r.trailingStop:
		return OutcomePartial, 0.5, "the human's last turn was friction; a build or test passed after it"
	case lastNeg && hook:
		return OutcomeFailure, 0.6, "the human's last turn was friction"
	case lastNeg:
		return OutcomeAbandoned, 0.6, "the human's last turn was friction and the session stopped"
	case r.trailingStop && hook:
		return OutcomeFailure, 0.5, "the human interrupted the agent last"
	case r.trailingStop:
		return OutcomeAbandoned, 0.5, "the human interrupted the agent and the session stopped"
	case r.unresolved != "" && !settled && hook:
		return OutcomePartial, 0.5, fmt.Sprintf("%s is left failing", r.unresolved)
	case r.unresolved != "" && !settled:
		return OutcomeAbandoned, 0.5, fmt.Sprintf("the session stopped with %s failing", r.unresolved)
	case r.problemClaim && hook:
		return OutcomePartial, 0.5, "the agent's last message concedes an open problem"
	case r.problemClaim:
		return OutcomeAbandoned, 0.5, "the session stopped with the agent conceding an open problem"
	case r.accepted && heavy:
		return OutcomePartial, 0.6, "accepted after heavy friction"
	case r.accepted:
		return OutcomeSuccess, 0.8, "the human's last turn accepts the work"
	case heavy:
		return OutcomePartial, 0.5, "heavy friction"
	case r.verified:
		return OutcomeSuccess, 0.7, "a build or test passed after the human's last turn"
	}
	return OutcomeSuccess, 0.6, "nothing visibly went wrong"
}

func compileAcceptance(patterns []string) ([]*regexp.Regexp, error) {
	out := make([]*regexp.Regexp, 0, len(patterns))
	for _, p := range patterns {
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, fmt.Errorf("llm: offline pattern %q: %w", p, err)
		}
		out = append(out, re)
	}
	return out, nil
}

// seedNegative reports whether signals hold the seed's negative human kinds:
// frustration or correction.
func seedNegative(signals []detect.Signal) bool {
	return detect.Has(signals, detect.Frustration) || detect.Has(signals, detect.UserCorrection)
}

// frictionWords reports whether signals hold a friction signal the human's words
// raise by themselves (not a repeat, an interrupt or the message after one, which
// say nothing of the work's state at the end). A turn that says so does not accept
// the work, whatever praise it holds ("great, still not working").
func frictionWords(signals []detect.Signal) bool {
	return slices.ContainsFunc(signals, func(s detect.Signal) bool { return s.Kind.Lexical() })
}

// isEdit reports whether a tool of this name changes files (Claude Code's Edit,
// MultiEdit, Write and NotebookEdit).
func isEdit(tool string) bool {
	switch tool {
	case "Edit", "MultiEdit", "Write", "NotebookEdit":
		return true
	}
	return false
}
