package claudecode

import (
	"encoding/csv"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/loopwatch/loopwatch/analyze"
	"github.com/loopwatch/loopwatch/internal/corpus"
	"github.com/loopwatch/loopwatch/replay/input"
)

// corpusDir returns the shared Claude Code corpus: $LOOPWATCH_CORPORA/claude-code, or
// ../shared/corpora/claude-code beside the module root (the folder holding go.mod).
// It skips the test when there is none.
func corpusDir(t testing.TB) string {
	t.Helper()
	dir, err := corpus.Dir("claude-code")
	if err != nil {
		t.Skip(err)
	}
	return dir
}

// corpusFigures is what one corpus session maps to.
type corpusFigures struct {
	key       string
	human     int // user_message events outside sidechains
	subagents int
	// events by kind: user_message (sidechains included), assistant_message,
	// tool_result, interrupt, hook, system
	user, assistant, tool, interrupt, hook, system int
	sidechain                                      int // events from subagents
}

// corpusWant freezes the mapping of every main transcript of the corpus. The human
// counts equal labels.csv's human_msgs for every session (checked below).
var corpusWant = map[string]corpusFigures{
	"cctrace/main.jsonl": {key: "132b2f66-ee5f-46f6-8904-32d9dc4d36c3", human: 18,
		user: 18, assistant: 75, tool: 151, interrupt: 1, hook: 16},
	"sniffly/ba79134d-b6e9-4867-af0c-6941038c9e4b.jsonl": {key: "ba79134d-b6e9-4867-af0c-6941038c9e4b", human: 5,
		user: 5, assistant: 10, tool: 30, system: 1},
	"sniffly/d3ad4cdc-5657-435d-98fa-0035d53e383d.jsonl": {key: "d3ad4cdc-5657-435d-98fa-0035d53e383d", human: 5,
		user: 5, assistant: 14, tool: 58},
	"sniffly/fed8ce56-bc79-401f-a83e-af084253362f.jsonl": {key: "fed8ce56-bc79-401f-a83e-af084253362f", human: 2,
		user: 2, assistant: 3, tool: 7, interrupt: 1},
	"sniffly/ff71dbed-a4f2-4284-a4fc-fe2fb90de929.jsonl": {key: "ff71dbed-a4f2-4284-a4fc-fe2fb90de929"},
	"spotter/258c7280-ae70-4798-800f-63464d01a85d.jsonl": {key: "258c7280-ae70-4798-800f-63464d01a85d", human: 2, subagents: 2,
		user: 4, assistant: 89, tool: 188, interrupt: 1, hook: 3, system: 7, sidechain: 10},
	"spotter/4d5611e5-241a-462a-8d15-5122611a9569.jsonl": {key: "4d5611e5-241a-462a-8d15-5122611a9569", human: 2, subagents: 2,
		user: 4, assistant: 92, tool: 183, hook: 3, system: 8, sidechain: 46},
	"spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl": {key: "8463c716-a2ea-4c14-9efa-87158ebd9f20", human: 1, subagents: 2,
		user: 3, assistant: 92, tool: 196, hook: 2, system: 9, sidechain: 40},
	"spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl": {key: "ae4a77f8-aedd-4bc1-888f-c94edc91af04", human: 2, subagents: 2,
		user: 4, assistant: 162, tool: 254, hook: 2, system: 8, sidechain: 18},
	"spotter/fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl": {key: "fa812bfe-b295-4cca-9c2f-fdf01028cb46", human: 2, subagents: 3,
		user: 5, assistant: 120, tool: 243, hook: 3, system: 18, sidechain: 83},
	"spotter/short.jsonl": {key: "55604662-cf2a-4331-851a-ec234028f8ca", human: 1,
		user: 1, assistant: 1, tool: 2, interrupt: 1, system: 2},
	"spotter/subagent.jsonl": {key: "491e126e-1e71-469c-ade2-fcc8af567c74", human: 1,
		user: 1, assistant: 7, tool: 16, interrupt: 1, hook: 1, system: 2},
	"spotter/tool_heavy.jsonl": {key: "d6e0bada-1959-4eec-a9d2-0bfade768d8f", human: 2,
		user: 2, assistant: 1, tool: 6, interrupt: 2, system: 5},
}

// corpusLabel is one row of labels.csv.
type corpusLabel struct {
	session  string
	human    int
	friction []string
}

func readCorpusLabels(t *testing.T, dir string) map[string]corpusLabel {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "labels.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	out := map[string]corpusLabel{}
	for _, r := range rows[1:] {
		n, err := strconv.Atoi(r[col["human_msgs"]])
		if err != nil {
			t.Fatalf("labels.csv human_msgs %q: %v", r[col["human_msgs"]], err)
		}
		var fr []string
		if s := r[col["friction_uuids"]]; s != "" {
			fr = strings.Split(s, ";")
		}
		out[r[col["file"]]] = corpusLabel{session: r[col["session_id"]], human: n, friction: fr}
	}
	return out
}

// TestCorpus maps every main transcript of the shared corpus and checks its figures,
// the labels' human_msgs and session ids, and that every friction uuid of the labels
// is a human message or interrupt of its session.
func TestCorpus(t *testing.T) {
	dir := corpusDir(t)
	fsys := os.DirFS(dir)
	labels := readCorpusLabels(t, dir)
	seen := map[string]bool{}
	err := fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(name, ".jsonl") {
			return err
		}
		if IsSubagentFile(name) {
			if _, err := fs.Stat(fsys, ParentOf(name)); err != nil {
				t.Errorf("%s: parent %s missing: %v", name, ParentOf(name), err)
			}
			return nil
		}
		head := make([]byte, 64<<10)
		f, err := fsys.Open(name)
		if err != nil {
			return err
		}
		n, _ := f.Read(head)
		f.Close()
		if !Sniff(name, head[:n]) {
			t.Errorf("%s does not sniff as a Claude Code transcript", name)
		}
		seen[name] = true
		t.Run(name, func(t *testing.T) {
			s, probs := Read(fsys, name)
			for _, p := range probs {
				t.Errorf("problem: %s", p)
			}
			if s == nil {
				t.Fatal("no session")
			}
			checkInvariants(t, s)
			got := corpusFigures{key: s.Key, subagents: s.Subagents}
			ids := map[string]analyze.Event{}
			for _, ev := range s.Events {
				if ev.Sidechain {
					got.sidechain++
				} else if ev.ID != "" {
					if _, dup := ids[ev.ID]; !dup {
						ids[ev.ID] = ev
					}
				}
				switch ev.Kind {
				case analyze.KindUserMessage:
					got.user++
					if !ev.Sidechain {
						got.human++
					}
				case analyze.KindAssistantMessage:
					got.assistant++
				case analyze.KindToolResult:
					got.tool++
				case analyze.KindInterrupt:
					got.interrupt++
				case analyze.KindHook:
					got.hook++
				case analyze.KindSystem:
					got.system++
				}
			}
			if want, ok := corpusWant[name]; !ok {
				t.Errorf("no figures frozen for %s: %+v", name, got)
			} else if got != want {
				t.Errorf("figures\n got %+v\nwant %+v", got, want)
			}
			lab, ok := labels[name]
			if !ok {
				t.Fatalf("%s not in labels.csv", name)
			}
			if lab.session != s.Key {
				t.Errorf("key %s, labels.csv says %s", s.Key, lab.session)
			}
			if lab.human != got.human {
				t.Errorf("%d human messages, labels.csv's human_msgs says %d", got.human, lab.human)
			}
			for _, id := range lab.friction {
				ev, ok := ids[id]
				if !ok {
					t.Errorf("friction uuid %s is no main event of the session", id)
					continue
				}
				if ev.Kind != analyze.KindUserMessage && ev.Kind != analyze.KindInterrupt {
					t.Errorf("friction uuid %s is a %s event", id, ev.Kind)
				}
			}
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for name := range corpusWant {
		if !seen[name] {
			t.Errorf("%s not found in the corpus", name)
		}
	}
}

// TestCorpusSubagentsAlone reads each subagent transcript of the corpus as an orphan:
// it must be reported, never replayed, and its lines must read cleanly.
func TestCorpusSubagentsAlone(t *testing.T) {
	dir := corpusDir(t)
	fsys := os.DirFS(dir)
	n := 0
	err := fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !IsSubagentFile(name) {
			return err
		}
		n++
		probs := ReadOrphan(fsys, name)
		if len(probs) != 1 || probs[0].Kind != input.ProblemUnusable || !strings.Contains(probs[0].Detail, ParentOf(name)) {
			t.Errorf("%s: %v", name, probs)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != 11 {
		t.Errorf("%d subagent transcripts, want 11", n)
	}
}
