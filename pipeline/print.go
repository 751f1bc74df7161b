package pipeline

import (
	"fmt"
	"io"
	"strings"

	"github.com/loopwatch/loopwatch/internal/plural"
	"github.com/loopwatch/loopwatch/internal/printable"
	"github.com/loopwatch/loopwatch/replay"
	"github.com/loopwatch/loopwatch/reports"
)

// WriteResult prints a Result as the replay and metrics commands do: the first
// showProblems input problems and the warnings on stderr, each warning prefixed by the
// command's name; the summary on stdout — what was read, then, unless the Result is of
// one shard of several, the detectors, the interventions at friction moments and the
// fix-loop simulation — and last the tables written.
func WriteResult(stdout, stderr io.Writer, command string, res *Result, showProblems int) error {
	sum := res.Summary
	if sum.Files == 0 {
		fmt.Fprintf(stderr, "%s: no input file is in a recognised format (%s)\n", command, strings.Join(replay.FormatNames(), ", "))
	}
	where := res.Out.Path("problems")
	if res.Out.Folder() != "" {
		where = res.Out.TableFolder("problems")
	}
	reports.WriteProblems(stderr, sum, showProblems, " (all are in "+where+")")
	for _, w := range res.Warnings { // of the input: one line each, safe for a terminal
		fmt.Fprintf(stderr, "%s: %s\n", command, printable.Line(w.Error()))
	}
	labelsNote := LabelsNote(res.LabelsNote, res.LabelProblems)
	if n := res.UnmatchedCount; n > 0 {
		labelsNote += fmt.Sprintf("; %s %s no run or session (%s)", plural.Count(n, "label key"), plural.Form(n, "matches", "match"), examples(res.UnmatchedLabels, n, 3))
	}
	if res.Shard.Split() {
		reports.WriteInput(stdout, sum, labelsNote)
		_, err := fmt.Fprintf(stdout, "\nshard %s: wrote %s: %s (%d runs and sessions), %s\n"+
			"the metrics need every shard: once all %d are written, run: metrics %s\n",
			res.Shard, res.Out.Folder(), res.Out.TableFolder(""), res.Tables[0].Rows, countList(res.Tables[1:]), res.Shard.Count, res.Out.Folder())
		return err
	}
	if err := reports.WriteSummary(stdout, sum, labelsNote, res.Detectors); err != nil {
		return err
	}
	if err := reports.WriteMomentSummary(stdout, res.Moments); err != nil {
		return err
	}
	if err := reports.WriteOutcomeSummary(stdout, res.Outcomes); err != nil {
		return err
	}
	if res.FixTotals != nil {
		fmt.Fprintln(stdout)
		reports.WriteFixSummary(stdout, res.FixTotals)
	}
	if res.Merged != nil {
		_, err := fmt.Fprintf(stdout, "\nwrote %s from %s: %s (%d runs and sessions), %s; derived from them: %s\n", res.Out.Folder(),
			shards(res.Shards), reports.RunTableFolder, res.Merged[0].Rows, countList(res.Merged[1:]), countList(res.Tables))
		return err
	}
	_, err := fmt.Fprintf(stdout, "\nwrote %s (%d runs and sessions) and beside it: %s\n", res.Out.Path(""), res.Tables[0].Rows, countList(res.Tables[1:]))
	return err
}

func shards(n int) string {
	if n == 1 {
		return "1 shard"
	}
	return fmt.Sprintf("%d shards", n)
}

func countList(tables []TableCount) string {
	var out []string
	for _, t := range tables {
		out = append(out, fmt.Sprintf("%s (%d)", t.Table, t.Rows))
	}
	return strings.Join(out, ", ")
}

// LabelsNote is the summary's labels line: note, and how many bad rows the labels
// files had (each printed on stderr), when they had any.
func LabelsNote(note string, problems int) string {
	if problems > 0 {
		note += fmt.Sprintf("; %s in the labels (listed above, by file and line)", plural.Count(problems, "problem"))
	}
	return note
}

// examples lists the first n of keys, the first of total, and how many more there are.
func examples(keys []string, total, n int) string {
	n = min(n, len(keys), total)
	shown := make([]string, n)
	for i, k := range keys[:n] {
		shown[i] = printable.Line(k)
	}
	if total <= n {
		return strings.Join(shown, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(shown, ", "), total-n)
}
