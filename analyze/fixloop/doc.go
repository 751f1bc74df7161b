// Package fixloop is quasar's inner filter fix loop (seed inner-fix-loop.md): when a
// filter check fails inside a coder–reviewer cycle, [FixLoop.RunFilterFixLoop] parses
// the check's output, sends the coder a focused fix prompt with a restricted tool set
// (Read, Edit, Write, Glob — no Bash), re-runs only the failing check, and repeats up
// to MaxFilterFixes times (default [DefaultMaxFilterFixes]) before the caller falls
// back to the outer cycle.
//
// Its sub-packages are the pieces it runs on: filter (the chain and the single-check
// re-run, [SingleCheckRunner] being satisfied by *filter.Chain), checkparse (the
// error parser) and fixprompt (the prompt builder).
//
// Each attempt, in the seed's order:
//
//  1. build the prompt from the current parse (fixprompt.Build unless
//     FixLoop.BuildPrompt is set);
//  2. call [Coder.Fix] with the prompt, [FixTools] and the fix budget;
//  3. add the reported cost to CycleState.TotalCostUSD and CycleState.FilterFixCostUSD;
//  4. check the budget ([BudgetChecker]; [StateBudget] — quasar's checkBudget — unless
//     FixLoop.Budget is set): an error stops the loop and is returned as is, after the
//     cost was added, before any commit or re-run;
//  5. commit, when a [Committer] is set, with summary + [CommitSuffix] (" (filter fix)");
//  6. re-run only the failing check through [SingleCheckRunner.RunCheck];
//  7. passed: return with [OutcomeFixed]; failed: re-parse the new output, increment
//     CycleState.FilterFixAttempts, and go round again.
//
// Before any of that, the seed's guards fall through without doing anything, returning
// a nil error: a "claims" check ([OutcomeSkippedClaims]: claims need coordination, not
// code), a nil Filter ([OutcomeSkippedNoFilter]) and a Filter that is not a
// SingleCheckRunner ([OutcomeSkippedNotRunner]).
//
// Readings of the seed (where it leaves room):
//
//   - FilterFixAttempts is incremented only in step 7's failure branch, as the seed's
//     step h says: it counts fix attempts whose re-run still failed. A fix that passes
//     on the first attempt leaves it unchanged (0 for a fresh cycle); exhausting three
//     attempts adds 3; a budget stop, a coder or re-run error, or a cancellation does
//     not increment it for the attempt it interrupts. The number of
//     coder invocations is [Result.CoderCalls] — one [Attempt] per call — and never
//     has to be inferred from FilterFixAttempts.
//   - The loop adds to FilterFixAttempts and FilterFixCostUSD; it never resets them and
//     never touches FilterOutput or FilterCheckName. Resetting at a cycle's start and
//     clearing after a fix is the caller's (runLoop's) job, as in the seed's integration
//     block. The latest check output is [Result.LastOutput].
//   - "summary" in the commit message is quasar's commit summary — FixLoop.CommitSummary,
//     else the first line of the task title cut to 72 bytes — not the coder's free-text
//     reply, so the commit subject reads `<bead>/cycle-N: <summary> (filter fix)` like
//     the ` (lint fix)` commits. [Committer] is quasar's CycleCommitter.CommitCycle, so
//     quasar's git committer plugs in unchanged. A commit error does not stop the loop
//     (quasar logs and goes on); it is recorded in [Attempt.CommitErr].
//   - The fix budget, filterFixBudget(), is one quarter of quasar's per-agent cap
//     MaxBudgetUSD/(2·MaxCycles) — the companion seed fix-prompt-builder's definition —
//     taken from the CycleState ([FilterFixBudget]); FixLoop.FixBudgetUSD overrides it.
//     No budget (MaxBudgetUSD ≤ 0) means no cap (0), as in quasar.
//   - The budget check is quasar's: exceeded when MaxBudgetUSD > 0 and
//     TotalCostUSD ≥ MaxBudgetUSD. Any error from the BudgetChecker stops the loop with
//     [OutcomeBudgetExceeded].
//   - MaxFilterFixes ≤ 0 uses the default (the seed's "0 uses DefaultMaxFilterFixes",
//     extended to negative values).
//   - The context is checked before every coder call, so a cancelled context stops the
//     loop even when the coder and runner ignore it.
//
// What it refuses to do: I/O of its own (the coder, committer, budget and runner are
// the caller's), reading clocks, keeping state between calls (a FixLoop is read-only
// and may be shared by goroutines if its parts are), running the whole chain again
// (the caller re-validates, as quasar's runLoop does), and deciding anything about the
// outer cycle.
//
// For replays and simulations: any type with RunCheck and filter.Filter's Run method
// can be FixLoop.Filter (Run is never called here), so a simulated check needs no work
// directory; so can a filter.Chain of simulated Checks. Set Parse and BuildPrompt to
// cheap functions when the prompt text does not matter.
package fixloop
