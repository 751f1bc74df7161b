// Package fixprompt builds the focused prompt the inner fix loop sends to the coder
// after a filter check fails: the task (bead and title), the failing check, the
// parsed errors grouped by file, the tools the coder may use, and an optional spend
// hint — and nothing else (no task description, no review findings, no history).
//
// The prompt has three parts:
//
//  1. a header: `Task (bead <id>): <title>`, the failing check and the attempt, and
//     the instruction to fix only the listed errors;
//  2. the error section: `ERRORS (N in M files):`, then one group per file — files
//     with more errors first, ties in order of first appearance — each error on a
//     line `  line:col: message` (test name, linter, package where known), sorted by
//     line; or, when the parser found nothing, the raw output's tail;
//  3. the rules: the tool list (the fix loop passes Read, Edit, Write, Glob — no Bash,
//     so the coder cannot run anything; the check is re-run for it) and the budget.
//
// Size: the error section is at most [Builder.MaxErrorBytes] bytes (default
// [DefaultMaxErrorBytes]); errors that do not fit are replaced by one line
// `… N more errors omitted`, and each message is cut to a quarter of the cap (at most
// 500 bytes). The raw fallback keeps the last [Builder.MaxRawBytes] bytes (default
// [DefaultMaxRawBytes]) of the output, starting at a line boundary when one is near,
// after a line saying how much was left out. The header and rules are bounded too:
// the title is cut to its first line and 200 bytes.
//
// What it refuses to do: I/O, reading clocks, keeping state, or deciding anything —
// the caller chooses the tools, the budget and the attempt numbers. It does not
// re-parse output; give it a checkparse.ParseResult.
package fixprompt
