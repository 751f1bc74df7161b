// Package struggle implements quasar's struggle detection (seed struggle-detection.md):
// after each coder–reviewer cycle it scores whether a phase is stuck — cycling without
// progress — and should be paused for decomposition instead of burning the rest of its
// budget.
//
// Three signals are combined into a score in [0, 1]:
//
//   - filter repeat: trailing consecutive cycles whose filter chain failed on the same
//     check (from [analyze.CycleState.FilterHistory]); seed weight 0.35, normalised by
//     FilterRepeatThreshold;
//   - finding overlap: the fraction of the current cycle's findings whose description has
//     a whitespace-token Jaccard similarity above FindingSimilarity (seed 0.8) with a
//     finding of a prior cycle; seed weight 0.40, normalised by FindingOverlapThreshold;
//   - budget burn: actual cost per cycle (TotalCostUSD / Cycle) over the ideal even burn
//     (MaxBudgetUSD / MaxCycles); seed weight 0.25, normalised by BudgetBurnThreshold.
//
// Each normalised component is min(signal / threshold, 1), weighted by
// StruggleConfig.Weights; the score is their sum capped at 1. The signal triggers when
// the score is at least CompositeThreshold and Cycle is at least MinCyclesBeforeCheck.
//
// [SeedStruggleConfig] is the seed's literal configuration; [DefaultStruggleConfig]
// differs from it only in comparing descriptions case-insensitively (CaseFold). The
// seed's budget threshold of 0.3 makes the burn signal saturate at 0.3× the even pace,
// so burn alone adds its whole weight (0.25) to almost every run: the weights and the
// threshold are configuration, so a replay can show and fix that.
//
// [Measure] computes a cycle's raw signals once and [Score] scores them under a
// configuration without allocating; EvaluateStruggle is Score(Measure(…)) plus the
// Reason. Sweeping thresholds over measures gives exactly the signals of evaluating
// each configuration (tested). Both read the whole run at every cycle; a [Tracker]
// follows a run cycle by cycle and gives the same measures at a cost per cycle that
// does not grow with the run (bounded by [MaxPriorDescriptions]).
//
// # Readings of the seed
//
// Where the seed is silent this package decides as follows; each decision is tested.
//
//   - Prior cycles only. Overlap compares Findings with the AllFindings entries raised in
//     an earlier cycle (ReviewFinding.Cycle < CycleState.Cycle). A finding therefore never
//     matches itself, whether or not the caller has already accumulated the current
//     cycle's findings into AllFindings, as long as they carry their cycle:
//     [analyze.CycleState.EndCycle] stamps them. (quasar's shipped code compares against
//     the whole list after appending, so every finding matches itself and overlap is 1.0
//     whenever the reviewer raised anything; that is the bug the seed's wording rules
//     out.) AllFindings entries with Cycle 0 carry no cycle and count as prior — so a
//     caller that appends the current cycle's findings itself without stamping them
//     makes each match itself: call EndCycle.
//   - Tokens and case. Descriptions are split on Unicode white space
//     ([strings.Fields]); with CaseFold (loopwatch's default, not the seed's) they are
//     compared case-insensitively ([strings.ToLower]); tokens form sets, so repeated
//     words count once. "Above 0.8" is strict: a similarity of exactly 0.8 does not
//     overlap.
//   - Empty descriptions. Two descriptions with no tokens at all have similarity 0: an
//     empty finding carries no evidence of repetition. A cycle without findings has
//     overlap 0.
//   - Filter repeat counts the trailing run of identical, non-empty entries of
//     FilterHistory; a trailing "" (the chain passed) gives 0. The current cycle counts
//     only once it is in FilterHistory: call [analyze.CycleState.EndCycle] before
//     evaluating.
//   - Degenerate budget and cycles. With Cycle ≤ 0, MaxCycles ≤ 0 or MaxBudgetUSD ≤ 0
//     the even-burn ideal is undefined and the burn rate is 0 (no signal); a negative
//     TotalCostUSD is treated as 0.
//   - Thresholds. A component whose threshold is zero, negative or NaN contributes 0
//     (it is switched off) instead of dividing by zero. A NaN CompositeThreshold never
//     triggers. NaN or infinite inputs never produce a NaN score: a NaN signal
//     contributes 0, +Inf saturates at 1.
//   - Score and components are computed at every cycle while Enabled, also before
//     MinCyclesBeforeCheck (the replay records them); only Triggered is gated by the
//     cycle count. With Enabled false the signal is the zero value with Reason
//     "struggle detection disabled".
//   - Reason names every non-zero component with its raw value and its share of the
//     score, prefixed with the verdict, so a cycle that did not trigger still explains
//     its score.
//
// The package is pure: it reads a [analyze.CycleState] and never mutates it, and does
// no I/O; its functions keep no state between calls (a [Tracker] keeps what it read
// of one run, in itself).
package struggle
