// Package fixsim answers the question the inner filter fix loop exists for: on these
// recorded runs, how many outer cycles and how many dollars would the loop have saved?
//
// For every recorded filter failure (a cycle whose filter chain failed a check) of a
// run recorded without the loop it runs
// the real [fixloop.FixLoop.RunFilterFixLoop] — claims guard, attempt limit, budget
// check and all — with a simulated coder and a simulated single-check runner, many
// times (a seeded Monte Carlo), and reports the expected number of fix attempts, the
// probability the failure is fixed inside the cycle, the outer cycles saved and the
// cost delta, each with an interval.
//
// The loop is deterministic: on the same re-run results it does the same. So it is run
// once per failure for each sequence of re-run results it can meet (k failed re-runs,
// then a pass; k = 0 … MaxFilterFixes), and each trial draws its re-run results one at
// a time as the loop would ask for them and takes what the loop did on that sequence —
// exactly what running the loop in every trial gives, draw for draw, at a fraction of
// the cost.
//
// A run recorded with the loop already on (Case.LoopOn: fix events, a filter_fix
// call, a cycle's fix counts) is not simulated: its failures carry what the loop did
// on them (Recorded), its results are those figures in every draw, and its attempts
// — each a re-run that passed or not — give its checks' p (Rate.Source "recorded").
//
// # Model and assumptions
//
// These are assumptions, not measurements; every figure derived from them is a
// simulation (a loop-on run's figures are none: they are recorded).
//
//   - A fix attempt passes the re-run of the check with probability p, independently
//     of earlier attempts. p is per check. By default it is estimated from the history
//     being replayed: of the failures of check c that were followed by another cycle,
//     the share where the next outer cycle cleared c (the chain passed, or failed a
//     check later in the chain; a failure of an earlier check says nothing about c and
//     is not counted) — or, for a check with recorded fix attempts, the share of
//     them whose re-run passed, which measures p itself; the failures a loop-on run
//     leaves to its next cycle are the ones the loop could not fix and are not
//     counted. The estimate carries its uncertainty: p is drawn from the
//     Jeffreys posterior Beta(cleared + ½, not cleared + ½), so a check seen rarely gets
//     a wide interval, never a false certainty. A flag can fix p instead.
//   - A fix attempt costs CostFraction × the run's mean coder call (from its agent_done
//     events; without them, half the run's mean cycle cost, and the result says so),
//     at most the budget the loop gives each call (fixloop.FilterFixBudget), as a real
//     coder's spend is capped at it.
//   - A failure fixed inside the cycle saves one outer cycle and that cycle's cost (the
//     run's mean cycle cost): the cycle goes on to the reviewer instead of bouncing.
//     The cost delta is the fix attempts' cost minus the saved cycle's cost: negative
//     is a saving.
//   - Each recorded failure is simulated as the loop would have met it, independently
//     of the others (the counterfactual run after an earlier fix is not rebuilt).
//   - Within the cycle limit: an approved run finished already; a run stopped by its
//     cycle limit is counted as finishing within it when at least one of its failures
//     is fixed, assuming it needed exactly one more review cycle — an optimistic upper
//     bound. For other outcomes it is unknown.
//
// # Intervals
//
// The simulation draws Draws values of every check's p (the same draws for every run,
// since p is a property of the check, not of one run) and runs TrialsPerDraw trials
// per failure and draw. Expectations are means over all trials; intervals are
// percentile intervals over the per-draw means, so they show how uncertain each
// expectation is given the history, plus a little Monte Carlo noise. Totals over runs
// are summed per draw before taking percentiles.
//
// Results depend only on the inputs and the seed — each run's random stream is derived
// from the seed and its run key — never on the order runs are simulated in or the
// number of workers.
package fixsim
