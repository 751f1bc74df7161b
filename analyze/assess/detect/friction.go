package detect

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/loopwatch/loopwatch/analyze/assess/duration"
)

// FrictionConfig configures loopwatch's human-text friction signals, each its own
// [Kind]: [RepeatRequest], [InterruptRedirect], [NegationReply], [StillProblem],
// [Doubt], [CorrectionPhrase], [Exasperation] and [GiveUp]. The seed has none of them
// ([SeedFrictionConfig] switches every one off).
//
// The lexical ones match the [Lexicon]'s phrases against a message's normalised
// tokens, so they read any language the lexicon lists, with or without apostrophes
// and accents. The others need the session: a [LightweightDetector] remembers a
// bounded history of the human's requests (a fixed-size sketch of each, whatever its
// length), whether the human's last turn was an interrupt, and whether the agent's
// last message asked a question. [Rules.Signals], which has no session, raises only
// the lexical ones.
type FrictionConfig struct {
	// Lexicon holds the phrases and word lists (default [DefaultLexicon]).
	Lexicon Lexicon `json:"lexicon"`
	// NegationReply raises NegationReply for a reply led by a negation. Default true.
	NegationReply bool `json:"negation_reply"`
	// NegationAfterQuestion lets a negation-led reply count when the agent's last
	// message asked a question: "no" then answers it rather than pushing back.
	// Default false.
	NegationAfterQuestion bool `json:"negation_after_question"`
	// NegationMaxTokens: a negation-led reply longer than this many tokens is not a
	// short reply and does not count (0: no limit). Default 40.
	NegationMaxTokens int `json:"negation_max_tokens"`
	// StillProblem raises StillProblem for "still"/"again" + a problem. Default true.
	StillProblem bool `json:"still_problem"`
	// Doubt raises Doubt for doubt about the agent's work. Default true.
	Doubt bool `json:"doubt"`
	// DoubtQuestionMarks: a run of at least this many question (or exclamation) marks
	// holding a question mark ("??", "?!", "？？") is doubt — but not a run between
	// spaces with more of its line after it, or one followed by "=": the operators of
	// pasted code ("user.name ?? 'anon'", "x ??= 1"). 0 switches it off. Default 2.
	DoubtQuestionMarks int `json:"doubt_question_marks"`
	// CorrectionPhrase raises CorrectionPhrase for the lexicon's corrections.
	// Default true.
	CorrectionPhrase bool `json:"correction_phrase"`
	// Exasperation raises Exasperation for exasperated interjections and emoji.
	// Default true.
	Exasperation bool `json:"exasperation"`
	// GiveUp raises GiveUp when the human gives up on the agent doing the task.
	// Default true.
	GiveUp bool `json:"give_up"`
	// Repeat configures RepeatRequest.
	Repeat RepeatConfig `json:"repeat_request"`
	// Redirect configures InterruptRedirect.
	Redirect RedirectConfig `json:"interrupt_redirect"`
	// SkipFirstMessage keeps the lexical signals off a session's first human
	// message: the agent has done nothing yet to push back on, and a session often
	// opens by describing a problem ("the server still doesn't start", "why did the
	// deploy stop halfway?"). Only the session's very first message: where the
	// assessment reopens a session after an inactivity timeout or an end hook, the
	// first message after the pause answers the work before it ("lint fail 😭",
	// "logs are still leaking") and is read (see [LightweightDetector.Resume]).
	// Default true: on the labelled corpus it removes two false alarms and no caught
	// moment, all in one of the five sources (cross-validation chooses it on every
	// fold but the one holding that source out, where it ties). A session the
	// assessment has not seen before is new: a fresh session id opened to complain
	// about an earlier one, or a session resumed after the processor forgot it (see
	// assess.Processor), has its first message skipped.
	SkipFirstMessage bool `json:"skip_first_message"`
	// IgnoreSelfInterrupts: an interrupt that comes before the agent has done anything
	// (no assistant text or tool result) since the human's last message is the human
	// amending their own prompt, not a reaction to the agent: a detector raises no
	// Interrupt signal for it, and the message after it is not a redirect. Default
	// true.
	IgnoreSelfInterrupts bool `json:"ignore_self_interrupts"`
	// SkipTagged reads only the human's own words in a user message that opens with
	// an XML-like tag: the text after its last closing tag (an IDE's
	// "<ide_opened_file>…</ide_opened_file> still failing" is read as "still
	// failing"), and nothing of a message that ends with its elements
	// ("<ci-monitor-event>…</ci-monitor-event>": text a tool or hook put in the prompt),
	// which stays out of every friction signal and of the request history. A message
	// that opens with a tag no closing tag near its end follows is read whole. Off,
	// every message is read whole. Default true.
	SkipTagged bool `json:"skip_tagged"`
}

// RepeatConfig configures [RepeatRequest]: a human message whose content words are
// similar to one of the session's last History requests. Content words are the
// message's tokens less the lexicon's "stop" words and one-letter tokens; in Han and
// Kana text, pairs of adjacent characters. Similarity is the Jaccard index of the two
// sets (estimated from fixed-size sketches for long messages).
type RepeatConfig struct {
	// Enabled switches the signal on. Default true.
	Enabled bool `json:"enabled"`
	// History is how many earlier requests are remembered (at most 64). Default 8.
	History int `json:"history"`
	// Threshold is the similarity, in (0, 1], at which a message repeats a request.
	// Default 0.8: lower, requests that follow one template ("use the skill with
	// the manual strategy", "… with the auto strategy") read as repeats.
	Threshold float64 `json:"threshold"`
	// MinTokens: messages with fewer content words are not requests ("yes",
	// "commit", "push") and are neither compared nor remembered. Default 3.
	MinTokens int `json:"min_tokens"`
	// NeedAgentAction: a request counts as made again only when the agent has acted
	// (written or run a tool) since it was made; before that, the human is sending
	// it again (a hook blocked it, the first try errored), not asking again. Default
	// true.
	NeedAgentAction bool `json:"need_agent_action"`
	// SkipInterrupted: a request the human interrupted is not remembered as one the
	// agent failed at; asking it later resumes it. Default true.
	SkipInterrupted bool `json:"skip_interrupted"`
}

// RedirectConfig configures [InterruptRedirect], raised on the human message that
// follows an interrupt unless that message is approval only ("ok", "continue", "go
// on", "继续" — every token a word of the lexicon's "approval" class or in a GoOn
// phrase), says the interrupt was a slip and asks nothing else ("sorry, hit escape by
// accident" — see Lexicon.Slip) or sends the interrupted request again (its content
// words overlap the previous message's by at least ResubmitOverlap).
type RedirectConfig struct {
	// Enabled switches the signal on. Default true.
	Enabled bool `json:"enabled"`
	// Within: a message later than this after the interrupt is a new start, not a
	// redirect (0: no limit). Default 5m.
	Within duration.Duration `json:"within"`
	// ResubmitOverlap is the overlap coefficient, in (0, 1], at which the message is
	// the interrupted request sent again. Default 0.8.
	ResubmitOverlap float64 `json:"resubmit_overlap"`
}

// DefaultFrictionConfig returns the defaults documented on [FrictionConfig].
func DefaultFrictionConfig() FrictionConfig {
	return FrictionConfig{
		Lexicon:            DefaultLexicon(),
		NegationReply:      true,
		NegationMaxTokens:  40,
		StillProblem:       true,
		Doubt:              true,
		DoubtQuestionMarks: 2,
		CorrectionPhrase:   true,
		Exasperation:       true,
		GiveUp:             true,
		Repeat: RepeatConfig{Enabled: true, History: 8, Threshold: 0.8, MinTokens: 3, NeedAgentAction: true,
			SkipInterrupted: true},
		Redirect:             RedirectConfig{Enabled: true, Within: duration.Duration(5 * time.Minute), ResubmitOverlap: 0.8},
		SkipFirstMessage:     true,
		IgnoreSelfInterrupts: true,
		SkipTagged:           true,
	}
}

// SeedFrictionConfig returns a configuration with every friction signal off: the
// seed's detector.
func SeedFrictionConfig() FrictionConfig { return FrictionConfig{} }

// maxRepeatHistory bounds RepeatConfig.History.
const maxRepeatHistory = 64

// Validate checks the ranges of the enabled signals' settings.
func (c FrictionConfig) Validate() error {
	switch {
	case c.NegationMaxTokens < 0:
		return errors.New("detect: friction negation_max_tokens must be ≥ 0")
	case c.DoubtQuestionMarks < 0 || c.DoubtQuestionMarks == 1:
		return errors.New("detect: friction doubt_question_marks must be 0 (off) or ≥ 2")
	}
	if r := c.Repeat; r.Enabled {
		switch {
		case r.History < 1 || r.History > maxRepeatHistory:
			return fmt.Errorf("detect: friction repeat_request history must be in [1, %d]", maxRepeatHistory)
		case !(r.Threshold > 0 && r.Threshold <= 1):
			return fmt.Errorf("detect: friction repeat_request threshold %v outside (0, 1]", r.Threshold)
		case r.MinTokens < 1:
			return errors.New("detect: friction repeat_request min_tokens must be ≥ 1")
		}
	}
	if r := c.Redirect; r.Enabled {
		switch {
		case r.Within < 0:
			return errors.New("detect: friction interrupt_redirect within must be ≥ 0")
		case !(r.ResubmitOverlap > 0 && r.ResubmitOverlap <= 1):
			return fmt.Errorf("detect: friction interrupt_redirect resubmit_overlap %v outside (0, 1]", r.ResubmitOverlap)
		}
	}
	return nil
}

// lexical reports whether any lexicon signal is on.
func (c *FrictionConfig) lexical() bool {
	return c.NegationReply || c.StillProblem || c.Doubt || c.CorrectionPhrase || c.Exasperation || c.GiveUp
}

// any reports whether any friction signal is on.
func (c *FrictionConfig) any() bool { return c.lexical() || c.Repeat.Enabled || c.Redirect.Enabled }

// session is what a detector remembers of its session for the friction signals.
type session struct {
	humanMsgs      int       // human messages read (tagged ones excluded)
	resumed        bool      // the session had human messages before this detector (see LightweightDetector.Resume)
	afterInterrupt bool      // the human's last turn was an interrupt
	interruptAt    time.Time // its time
	agentAsked     bool      // the agent's last message since the human's last turn ends with a question
	agentActed     bool      // the agent wrote or ran a tool since the human's last message
	actedAfter     int       // humanMsgs when the agent last acted: it acted after the messages before it
	last           sketch    // the turn's request: the human's last message but one read mid-turn
	hasLast        bool
	hist           []request // the last requests, a ring
	histNext       int       // where the next request goes
	histLen        int
	lastStored     bool // the turn's request is in hist, at lastAt
	lastAt         int
}

// request is a remembered request of the human: its content words, the index of its
// message among the human's (session.humanMsgs when it was read), and whether the
// human interrupted the agent working on it.
type request struct {
	sk          sketch
	seq         int
	interrupted bool
}

// noteInterrupt records that the human interrupted the agent: the request it was
// working on, the turn's request, is marked interrupted.
func (s *session) noteInterrupt() {
	if s.lastStored {
		s.hist[s.lastAt].interrupted = true
	}
}

// lexicalSignals appends the lexicon's signals for a tokenised message. first says
// whether it is the session's first human message, asked whether the agent's last
// message asked a question; stateless callers pass false for both.
func (r *Rules) lexicalSignals(dst []Signal, t *tokens, text []byte, first, asked bool) []Signal {
	c := &r.friction
	if !c.lexical() || first && c.SkipFirstMessage {
		return dst
	}
	lx := r.lex
	hits := lx.scan(t)
	if h := hits[catNegation]; c.NegationReply && h.ok && (!asked || c.NegationAfterQuestion) &&
		(c.NegationMaxTokens == 0 || len(t.toks) <= c.NegationMaxTokens) {
		dst = append(dst, Signal{Kind: NegationReply, Source: h.src})
	}
	if h := hits[catStill]; c.StillProblem && h.ok {
		dst = append(dst, Signal{Kind: StillProblem, Source: h.src})
	}
	if c.Doubt {
		if h := hits[catDoubt]; h.ok {
			dst = append(dst, Signal{Kind: Doubt, Source: h.src})
		} else if c.DoubtQuestionMarks > 0 && t.qrun >= c.DoubtQuestionMarks {
			dst = append(dst, Signal{Kind: Doubt, Source: "??"})
		}
	}
	if h := hits[catCorrection]; c.CorrectionPhrase && h.ok {
		dst = append(dst, Signal{Kind: CorrectionPhrase, Source: h.src})
	}
	if c.Exasperation {
		if h := hits[catExasperation]; h.ok {
			dst = append(dst, Signal{Kind: Exasperation, Source: h.src})
		} else if lx.hasEmoji(text) && !Has(dst, Success) {
			// An emoji of relief ("thanks, perfect 😩") is no exasperation: an emoji
			// counts only in a message the success patterns do not read as success.
			dst = append(dst, Signal{Kind: Exasperation, Source: "emoji"})
		}
	}
	if h := hits[catGiveUp]; c.GiveUp && h.ok {
		dst = append(dst, Signal{Kind: GiveUp, Source: h.src})
	}
	return dst
}

// contentSketch fills sk with the message's content words (see [RepeatConfig]) and
// returns how many it offered.
func (r *Rules) contentSketch(t *tokens, sk *sketch) int {
	sk.reset()
	n := 0
	for i := range t.toks {
		tk := &t.toks[i]
		if tk.cjk {
			// A pair with the next character of the same clause; a lone character alone.
			if i+1 < len(t.toks) && t.toks[i+1].cjk && t.toks[i+1].clause == tk.clause {
				sk.add(mix(tk.h ^ t.toks[i+1].h*0x9E3779B97F4A7C15))
				n++
			} else if i == 0 || !t.toks[i-1].cjk || t.toks[i-1].clause != tk.clause {
				sk.add(tk.h)
				n++
			}
			continue
		}
		if tk.n < 2 || r.lex.isStop(t, i) {
			continue
		}
		h := tk.h
		if tk.canon {
			h = r.lex.dict.entries[tk.ent].h
		}
		sk.add(h)
		n++
	}
	return n
}

// sessionSignals appends the signals that need the session — RepeatRequest and
// InterruptRedirect — for a human message at time at, and updates what the session
// remembers. A message the agent read mid-turn ([analyze.Event.MidTurn]: queued while
// it worked) is a request of its own, but not the turn's: an interrupt after it stops
// the request the turn began with, and the human sending those words again after
// interrupting is redirecting an agent that did not act on them, not resubmitting
// what they interrupted. dst holds the message's signals so far (a slip owned up to
// in words the seed's patterns read a complaint in is no approval).
func (r *Rules) sessionSignals(dst []Signal, s *session, t *tokens, cur *sketch, at time.Time, midTurn bool) []Signal {
	c := &r.friction
	words := r.contentSketch(t, cur)
	// Approval, or a slip of the hand owned up to ("sorry, hit escape by accident") in
	// a message the seed's patterns read no complaint in: the agent may go on with what
	// it was doing.
	slip := s.afterInterrupt && !Has(dst, Frustration) && !Has(dst, UserCorrection) && r.lex.onlySlip(t)
	if slip {
		// Its words are the slip's: a phrase over them ("pressed the wrong key") is no
		// complaint here.
		dst = slices.DeleteFunc(dst, func(s Signal) bool { return s.Kind.Lexical() })
	}
	approval := slip || r.lex.onlyApproval(t)
	if s.afterInterrupt {
		resubmit := false
		if s.hasLast {
			_, overlap := similarity(cur, &s.last)
			resubmit = overlap >= c.Redirect.ResubmitOverlap
		}
		late := c.Redirect.Within > 0 && at.Sub(s.interruptAt) > c.Redirect.Within.Std()
		if c.Redirect.Enabled && !approval && !resubmit && !late {
			dst = append(dst, Signal{Kind: InterruptRedirect, Source: "after interrupt"})
		}
	} else if c.Repeat.Enabled && words >= c.Repeat.MinTokens {
		for i := 0; i < s.histLen; i++ {
			h := &s.hist[i]
			if c.Repeat.SkipInterrupted && h.interrupted || c.Repeat.NeedAgentAction && s.actedAfter <= h.seq {
				continue
			}
			if j, _ := similarity(cur, &h.sk); j >= c.Repeat.Threshold {
				dst = append(dst, Signal{Kind: RepeatRequest, Source: fmt.Sprintf("similarity %.2f", j)})
				break
			}
		}
	}
	stored := c.Repeat.Enabled && words >= c.Repeat.MinTokens && !approval
	if stored {
		if s.lastStored && s.histNext == s.lastAt {
			s.lastStored = false // the turn's request is overwritten (mid-turn messages filled the ring)
		}
		s.hist[s.histNext] = request{sk: *cur, seq: s.humanMsgs}
		if !midTurn {
			s.lastAt = s.histNext
		}
		s.histNext = (s.histNext + 1) % len(s.hist)
		s.histLen = min(s.histLen+1, len(s.hist))
	}
	if !midTurn && !(approval && s.afterInterrupt) {
		// Approval after an interrupt lets the interrupted turn go on: its request stays
		// the turn's. Any other message begins a turn ("thanks", "yes" to the agent's
		// question: the agent's work is what the next interrupt stops).
		s.lastStored = stored
		s.last, s.hasLast = *cur, words > 0
	}
	return dst
}
