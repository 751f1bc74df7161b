package detect

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/loopwatch/loopwatch/analyze"
)

var update = flag.Bool("update", false, "rewrite the want/text/seed lines of testdata/toolchains/")

// toolFixture is one file of testdata/toolchains: a header of "# key: value" lines
// (source, command, exit, and the four readings want, text, seed and piped), "---", then
// the output the command printed (stdout and stderr together, as Claude Code's Bash
// tool shows it).
type toolFixture struct {
	header  []string // the lines, in order
	fields  map[string]string
	command string
	exit    int
	output  string
}

func readFixture(t *testing.T, path string) toolFixture {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	head, out, ok := strings.Cut(string(b), "\n---\n")
	if !ok {
		t.Fatalf("%s: no --- line", path)
	}
	f := toolFixture{header: strings.Split(head, "\n"), fields: map[string]string{}, output: strings.TrimSuffix(out, "\n")}
	for _, l := range f.header {
		k, v, ok := strings.Cut(strings.TrimPrefix(l, "# "), ":")
		if !ok || !strings.HasPrefix(l, "# ") {
			t.Fatalf("%s: header line %q is not \"# key: value\"", path, l)
		}
		f.fields[k] = strings.TrimSpace(v)
	}
	for _, k := range []string{"source", "command", "exit", "want", "text", "seed", "piped"} {
		if _, ok := f.fields[k]; !ok {
			t.Fatalf("%s: header lacks %q", path, k)
		}
	}
	if !strings.HasPrefix(f.fields["source"], "captured here with ") && !strings.HasPrefix(f.fields["source"], "written from ") {
		t.Fatalf("%s: source must say \"captured here with …\" or \"written from …\"", path)
	}
	f.command = f.fields["command"]
	if f.exit, err = strconv.Atoi(f.fields["exit"]); err != nil {
		t.Fatalf("%s: exit: %v", path, err)
	}
	return f
}

// event is the tool result as Claude Code 2.x records a Bash call: a failed command's
// output opens with "Exit code N" and is flagged as an error.
func (f toolFixture) event() analyze.Event {
	ev := analyze.Event{Kind: analyze.KindToolResult, ToolName: "Bash", ToolCommand: f.command, ToolOutput: f.output, ToolStatus: analyze.ToolStatusOK}
	if f.exit != 0 {
		ev.ToolOutput = fmt.Sprintf("Exit code %d\n%s", f.exit, f.output)
		ev.ToolStatus, ev.ExitCode, ev.HasExitCode = analyze.ToolStatusError, f.exit, true
	}
	return ev
}

// piped is the same run as an agent often runs it, its last 40 lines through a pipe:
// "CMD 2>&1 | tail -40", whose status says nothing of the command's.
func (f toolFixture) piped() analyze.Event {
	lines := strings.Split(f.output, "\n")
	out := strings.Join(lines[max(0, len(lines)-40):], "\n")
	return analyze.Event{Kind: analyze.KindToolResult, ToolName: "Bash", ToolCommand: f.command + " 2>&1 | tail -40", ToolOutput: out,
		ToolStatus: analyze.ToolStatusOK, HasExitCode: true}
}

func renderSignals(sig []Signal) string {
	if len(sig) == 0 {
		return "none"
	}
	parts := make([]string, len(sig))
	for i, s := range sig {
		parts[i] = s.Kind.String()
		if s.Target != "" {
			parts[i] += "@" + s.Target
		}
	}
	return strings.Join(parts, ", ")
}

// TestToolchainGoldens reads every captured or documented toolchain output three
// ways and compares with the fixture's header (rewritten with -update):
//
//	want: loopwatch's default reading of the Bash result (command, exit code, status);
//	text: the default rules over the output alone (no command, no status: a hook
//	      payload or an old transcript);
//	seed: the seed's literal rules;
//	piped: the default reading of the run's last 40 lines piped into tail (its
//	       status hidden: only the text can say).
func TestToolchainGoldens(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "toolchains", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	def := MustCompile(DefaultConfig())
	seed := MustCompile(WithSeedTools(DefaultConfig()))
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			f := readFixture(t, path)
			ev := f.event()
			bare := analyze.Event{Kind: analyze.KindToolResult, ToolOutput: f.output}
			piped := f.piped()
			got := map[string]string{
				"want":  renderSignals(def.Signals(&ev)),
				"text":  renderSignals(def.Signals(&bare)),
				"seed":  renderSignals(seed.Signals(&ev)),
				"piped": renderSignals(def.Signals(&piped)),
			}
			if *update {
				var b strings.Builder
				for _, l := range f.header {
					k, _, _ := strings.Cut(strings.TrimPrefix(l, "# "), ":")
					if v, ok := got[k]; ok {
						l = "# " + k + ": " + v
					}
					b.WriteString(l + "\n")
				}
				b.WriteString("---\n" + f.output + "\n")
				if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			for _, k := range []string{"want", "text", "seed", "piped"} {
				if got[k] != f.fields[k] {
					t.Errorf("%s: %s, golden says %s (rerun with -update if intended)", k, got[k], f.fields[k])
				}
			}
		})
	}
}

// TestToolchainGoldensAgree checks the goldens against what each fixture is: a run
// that exited 0 must read as a success of its command's step and nothing else, a
// failing one as a failure of it; piped, where only its text can say, it must read
// the same or as inconclusive, never the other way — so a golden rewritten with
// -update cannot hide a misreading.
func TestToolchainGoldensAgree(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "toolchains", "*.txt"))
	def := MustCompile(DefaultConfig())
	for _, path := range files {
		f := readFixture(t, path)
		ev := f.event()
		sig := def.Signals(&ev)
		if len(sig) == 0 {
			t.Errorf("%s: no signal", path)
			continue
		}
		for _, s := range sig {
			if f.exit == 0 && !s.Kind.IsToolSuccess() || f.exit != 0 && !s.Kind.IsToolFailure() {
				t.Errorf("%s: exit %d read as %v", path, f.exit, renderSignals(sig))
			}
		}
		piped := f.piped()
		for _, s := range def.Signals(&piped) {
			if f.exit == 0 && s.Kind.IsToolFailure() || f.exit != 0 && s.Kind.IsToolSuccess() {
				t.Errorf("%s: exit %d, piped, read as %v", path, f.exit, renderSignals(def.Signals(&piped)))
			}
		}
	}
}
