package struggle

import (
	"math"
	"slices"
	"strings"
)

// MaxPriorDescriptions bounds the distinct earlier finding descriptions a [Tracker]
// compares a cycle's findings with: the most recently raised ones. Quasar's runs stop
// at MaxCycles (a handful to a few dozen cycles of a few findings each), far below it,
// so a Tracker measures them exactly as [Measure] does; past it, the descriptions
// raised longest ago are forgotten, and a finding that repeats only one of them is not
// overlap.
const MaxPriorDescriptions = 1024

// Tracker measures one run's cycles in order, as [Measure] does, at a cost per cycle
// bounded by the cycle's own findings, whatever the run's length: [Measure] reads the
// whole of FilterHistory and splits and sorts every earlier finding's description
// again at each cycle, so a run of n cycles costs it O(n²). A Tracker keeps the
// trailing filter run and each distinct earlier description's token set (at most
// MaxPriorDescriptions of them) from one cycle to the next.
//
// A Tracker follows one run: each state it is given must extend the one before it as
// [analyze.CycleState.EndCycle] extends it (a later Cycle, entries appended to
// FilterHistory, and to AllFindings in cycle order; what was there before unchanged).
// Given a state that does not — an earlier or the same Cycle, a shorter history,
// findings appended out of cycle order — it measures that state afresh with [Measure]
// and starts again from it. The zero Tracker is not ready: use [NewTracker]. Not safe
// for concurrent use.
type Tracker struct {
	caseFold bool
	// The filter history read so far, and its trailing run of identical non-empty
	// entries.
	history int
	last    string
	repeat  int
	// The AllFindings entries read so far, and the distinct token sets of those
	// raised before the cycle being measured: at most MaxPriorDescriptions, each with
	// when it was last raised, and an index by their joined tokens.
	findings int
	cycle    int // the Cycle of the last finding read
	at       int // the Cycle of the last state measured; 0 before the first
	sets     [][]string
	seen     []int // when each set was last read, in findings read
	index    map[string]int
}

// NewTracker returns a Tracker for a run; caseFold compares descriptions
// case-insensitively ([StruggleConfig.CaseFold]).
func NewTracker(caseFold bool) *Tracker {
	return &Tracker{caseFold: caseFold, index: map[string]int{}}
}

// Measure returns state's measures, as [Measure](state, caseFold) does.
func (t *Tracker) Measure(state *CycleState) Measures {
	if !t.follows(state) {
		m := Measure(state, t.caseFold)
		*t = Tracker{caseFold: t.caseFold, index: map[string]int{}}
		t.catchUp(state)
		return m
	}
	t.catchUp(state)
	m := Measures{Cycle: state.Cycle, FilterRepeat: t.repeat, BudgetBurnRate: burnRate(state)}
	if len(state.Findings) > 0 {
		m.FindingSimilarity = make([]float64, len(state.Findings))
		if len(t.sets) > 0 {
			for i, f := range state.Findings {
				cur := tokenSet(f.Description, t.caseFold)
				for _, p := range t.sets {
					m.FindingSimilarity[i] = math.Max(m.FindingSimilarity[i], jaccardSets(cur, p))
				}
			}
			slices.Sort(m.FindingSimilarity)
		}
	}
	return m
}

// Evaluate returns state's signal under cfg, as [EvaluateStruggle] does.
func (t *Tracker) Evaluate(state *CycleState, cfg StruggleConfig) StruggleSignal {
	if !cfg.Enabled || state == nil {
		return StruggleSignal{Reason: "struggle detection disabled"}
	}
	m := t.Measure(state)
	sig := Score(&m, cfg)
	repeat, overlap, burn := components(sig, cfg)
	sig.Reason = reason(state, cfg, sig, repeat, overlap, burn)
	return sig
}

// follows reports whether state extends what the tracker has read: no shorter, at a
// cycle after every finding read, and the findings it has not read yet in cycle order
// from the last one read (so the earlier cycles' all come before the current one's).
func (t *Tracker) follows(state *CycleState) bool {
	if t.at > 0 && state.Cycle <= t.at || len(state.FilterHistory) < t.history || len(state.AllFindings) < t.findings ||
		t.findings > 0 && t.cycle >= state.Cycle {
		return false
	}
	prev := t.cycle
	for _, f := range state.AllFindings[t.findings:] {
		if f.Cycle < prev {
			return false
		}
		prev = f.Cycle
	}
	return true
}

// catchUp reads the entries of state the tracker has not read: the filter history's,
// and the findings raised before the current cycle (the current cycle's are read once
// a later cycle is measured).
func (t *Tracker) catchUp(state *CycleState) {
	for _, h := range state.FilterHistory[t.history:] {
		switch {
		case h == "":
			t.last, t.repeat = "", 0
		case h == t.last:
			t.repeat++
		default:
			t.last, t.repeat = h, 1
		}
	}
	t.history, t.at = len(state.FilterHistory), state.Cycle
	for t.findings < len(state.AllFindings) {
		f := &state.AllFindings[t.findings]
		if f.Cycle >= state.Cycle {
			break
		}
		t.add(tokenSet(f.Description, t.caseFold))
		t.findings++
		t.cycle = f.Cycle
	}
}

// add keeps set among the distinct earlier descriptions, forgetting the one read
// longest ago past MaxPriorDescriptions: a description the reviewer raises again is
// recent again (a finding raised every cycle is what the overlap looks for).
func (t *Tracker) add(set []string) {
	key := strings.Join(set, " ")
	if i, ok := t.index[key]; ok {
		t.seen[i] = t.findings
		return
	}
	if len(t.sets) < MaxPriorDescriptions {
		t.index[key] = len(t.sets)
		t.sets, t.seen = append(t.sets, set), append(t.seen, t.findings)
		return
	}
	old := 0
	for i, s := range t.seen {
		if s < t.seen[old] {
			old = i
		}
	}
	delete(t.index, strings.Join(t.sets[old], " "))
	t.sets[old], t.seen[old] = set, t.findings
	t.index[key] = old
}
