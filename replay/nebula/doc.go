// Package nebula reads quasar's nebula files into the replay's join context
// ([join.Context]): the side tables that beads runs are joined against.
//
// A nebula is a folder of quasar work. The files read, each recognised by its name and
// its content:
//
//	nebula.toml        the manifest: [nebula] name, [execution] max_review_cycles and
//	                   max_budget_usd (the nebula's limits for every phase)
//	nebula.state.toml  what ran: total_cost_usd, and per phase ([phases.<id>], legacy
//	                   files [tasks.<id>]) bead_id, status, created_at, updated_at and an
//	                   optional [...report] (satisfaction, risk, needs_human_review, summary)
//	<phase>.md         a phase file whose TOML front matter (between +++ lines) may set
//	                   the phase's own max_review_cycles and max_budget_usd
//	*.yaml             quasar's global configuration (.quasar.yaml, default.yaml): its
//	                   top-level max_review_cycles and max_budget_usd
//
// Files of one nebula are joined by folder. Runs are joined to phases by bead id in
// [join.Context.PhaseFor], and their limits resolve in quasar's order in
// [join.Context.Limits]: phase file → nebula.toml [execution] → global configuration →
// 3 cycles / 5.0 USD.
//
// The package refuses to guess: a file that is not valid TOML, a value of the wrong
// type, a negative limit or one outside the range of a 32-bit integer (the tables'
// columns), a phase time that is Go's zero time (0001-01-01T00:00:00Z, which stands for
// no time; left unknown), a phase time more than a year from the median of the
// nebula's phase times ([clockfault.Far]: a clock fault, kept as written), an unknown
// phase status, a phase without a bead id is reported as an [input.Problem] with the
// file, the line where one is known, and what to do; the rest of the file is used as
// far as it can be. It reads only the fields named above, and only quasar's YAML keys
// (no general YAML).
package nebula
