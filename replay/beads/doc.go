// Package beads rebuilds quasar runs from a beads export (.beads/issues.jsonl): the
// only record of quasar's real history, where every run left comments on its task's
// bead and every review finding became a child bead.
//
// # What is read
//
// One JSON object (a bead) per line: id, title, description, status, created_at,
// close_reason, labels, comments ({id, issue_id, author, text, created_at}) and
// dependencies ({issue_id, depends_on_id, type}). Timestamps are RFC 3339, with
// fractional seconds and an offset (older exports) or whole seconds in UTC (newer);
// both are read and kept in UTC. A time that parses to Go's zero time,
// 0001-01-01T00:00:00Z, is a far-off time like any other, not "no time". A bead is keyed by (id, created_at): quasar reused an
// id once.
//
// # How runs are rebuilt
//
// Only quasar's comment conventions are read: `[coder cycle N]`, `[reviewer cycle N]`
// (both cut by quasar at 2000 bytes, marked `... [truncated]`), `[reviewer report]`
// (approved at the run's last cycle; Satisfaction, Risk, Needs human review, Summary),
// `Max cycles reached (N).` (the run hit its limit; N is the true MaxCycles) and
// `Budget exceeded: $X / $Y` (the run hit its budget Y).
//
//   - Comments are taken in time order (ties in export order) and a bead's runs split at
//     each `[coder cycle 1]`: a bead holds one run per attempt.
//   - A cycle ends at its reviewer comment (or its last comment); its time is that
//     comment's. A run without a report, max-cycles or budget comment is incomplete.
//   - Findings come from the review-finding child beads (label review-finding, parent by
//     a parent-child dependency): severity from the title's `[severity]`, the full
//     description from the child's description, the ID recomputed with
//     [analyze.FindingID]. A child joins the cycle of the latest reviewer comment of its
//     parent at or before the child's created_at.
//   - Limits: the nebula phase of the bead ([join.Context.PhaseFor]) resolves them in
//     quasar's order; a max-cycles or budget comment overrides.
//   - Cost: nothing per call is recorded. When the bead is a phase of a nebula whose
//     state records total_cost_usd, every coder and reviewer comment over the nebula's
//     phase beads in the same export is charged an equal share of that total, and the
//     run's CostSource is "estimated"; otherwise cost is "unknown" and zero.
//   - Lint fixes: a cycle's lint-fix calls are the " (lint fix)" cycle commits that join
//     it (see package commits). A commit joins the run of its bead that has its cycle
//     and whose comment for that cycle is nearest in time (within [CommitWindow]).
//   - The filter chain never ran in recorded history: FilterKnown is false.
//
// Run keys are `<bead id>#<attempt>` (attempt 1, 2, … in time order). When an id is
// held by several beads of the input, each of them is told apart by its creation time:
// `<bead id>@<created_at in UTC as 20060102T150405Z>#<attempt>`, with the fraction of
// the second (`20060102T150405.999999999Z`) when two of them were created in one second.
//
// # Bad input
//
// Nothing stops the replay. A line that is not JSON, a bead without an id, a duplicate
// (id, created_at), a comment without a readable time or with one more than a year from
// the bead's other comments (a clock fault; an export's order says nothing of time, so
// nothing finer can be told), a run's bead created more than a year from its comments
// (kept as written: it tells a reused id's beads apart), a cycle out of sequence, a
// comment after the run's outcome, a comment that follows no convention inside a run, a
// review-finding child without a parent (or whose parent has no reviewer comment before
// it; one created more than a year after its parent's last reviewer comment joins that
// comment's cycle, reported), a cycle commit that matches no cycle: each is an
// [input.Problem] with the file, the bead's line and what to do, and the rest is used as
// far as it is consistent. A run whose first comment is not cycle 1 is reported and
// skipped. A cycle comment whose cycle is negative or lies outside the range of a
// 32-bit integer (the tables' columns) is reported and skipped; a max-cycles comment
// whose N is either is reported and gives no MaxCycles. A field of the wrong JSON type
// is reported and the bead read without it; a line holding several beads (a lost
// newline, or a bead cut off mid-write with the next written straight after it) is
// reported and its complete beads are read. Beads of other projects — no cycle comments
// at all — are not problems: they are counted in the notes.
package beads
