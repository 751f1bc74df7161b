package claudecode

import (
	"encoding/csv"
	"fmt"
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
	queued    int // of which typed while the agent was busy (subtype queued)
	subagents int
	// events by kind: user_message (sidechains included), assistant_message,
	// tool_result, interrupt, hook, system
	user, assistant, tool, interrupt, hook, system int
	sidechain                                      int // events from subagents
	problems                                       int // problems reported (each a real fault of the file)
	continued                                      int // records of a resumed earlier session
}

// corpusWant freezes the mapping of every main transcript of the corpus. The human
// counts equal labels.csv's human_msgs for every session but those in
// labelsHumanDiffers (checked below). Two files have a real fault each (problems): a
// line where a cut-off record runs into the next. One (entire-cli/4931d45a…) resumes
// an earlier session, whose records open the file. (dotfiles/8e0afadf… holds a stop-hook
// summary written after the next prompt's queue operations, with its own turn's time:
// no fault, and none reported.)
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
	"spotter/258c7280-ae70-4798-800f-63464d01a85d.jsonl": {key: "258c7280-ae70-4798-800f-63464d01a85d", human: 4, queued: 2, subagents: 2,
		user: 6, assistant: 89, tool: 188, interrupt: 1, hook: 3, system: 7, sidechain: 10},
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
	"dotfiles/6558d13f-7f71-4408-a984-bb57913b37fb.jsonl":   {key: "6558d13f-7f71-4408-a984-bb57913b37fb", human: 6, user: 6, assistant: 14, tool: 53, interrupt: 1, hook: 3, system: 1},
	"dotfiles/8e0afadf-2a97-4843-84b1-1a93234d5975.jsonl":   {key: "8e0afadf-2a97-4843-84b1-1a93234d5975", human: 6, queued: 1, user: 6, assistant: 45, tool: 97, interrupt: 1, hook: 10, system: 24},
	"dotfiles/f74f367b-57e7-40e1-a7ba-b5155463d1b1.jsonl":   {key: "f74f367b-57e7-40e1-a7ba-b5155463d1b1", human: 5, user: 5, assistant: 5, tool: 26, interrupt: 1, hook: 3},
	"dotfiles/fe0cad35-f552-4e6e-82a4-cdf665911a10.jsonl":   {key: "fe0cad35-f552-4e6e-82a4-cdf665911a10", human: 3, user: 3, assistant: 3, tool: 67, interrupt: 1, hook: 2},
	"entire-cli/00ef13bd-99a1-4001-a829-09985a069ab2.jsonl": {key: "00ef13bd-99a1-4001-a829-09985a069ab2", human: 5, user: 5, assistant: 19, tool: 23, hook: 5, system: 2},
	"entire-cli/0240bd7a-75c0-4610-8e14-089e984d6001.jsonl": {key: "0240bd7a-75c0-4610-8e14-089e984d6001", human: 2, user: 2, assistant: 53, tool: 108, hook: 1, system: 1},
	"entire-cli/030e1e67-6bf0-492d-8bd3-cc3383ec93ab.jsonl": {key: "030e1e67-6bf0-492d-8bd3-cc3383ec93ab", human: 10, user: 10, assistant: 32, tool: 70, hook: 7, system: 8},
	"entire-cli/0442a060-edc3-4307-bddb-11a2951fd1a1.jsonl": {key: "0442a060-edc3-4307-bddb-11a2951fd1a1", human: 13, user: 13, assistant: 85, tool: 224, interrupt: 1, hook: 11, system: 15},
	"entire-cli/04cd0da1-dee3-4738-8139-524dfe55de83.jsonl": {key: "04cd0da1-dee3-4738-8139-524dfe55de83", human: 6, user: 6, assistant: 22, tool: 46, hook: 5, system: 8},
	"entire-cli/09a2c705-b334-4632-b1bf-b68e510ca0b5.jsonl": {key: "09a2c705-b334-4632-b1bf-b68e510ca0b5", human: 2, user: 2, assistant: 19, tool: 33, hook: 2, system: 4},
	"entire-cli/0a76fbfe-d767-433e-b4b1-a39e044f21e8.jsonl": {key: "0a76fbfe-d767-433e-b4b1-a39e044f21e8", human: 2, user: 2, assistant: 24, tool: 71, hook: 1, system: 1},
	"entire-cli/0c275b1b-9732-433e-9e70-9b7bfdb578a3.jsonl": {key: "0c275b1b-9732-433e-9e70-9b7bfdb578a3", human: 37, queued: 1, user: 37, assistant: 78, tool: 95, interrupt: 2, hook: 32, system: 26},
	"entire-cli/0cf3db51-1c73-43bb-8d05-dc02739514a5.jsonl": {key: "0cf3db51-1c73-43bb-8d05-dc02739514a5", human: 28, user: 28, assistant: 47, tool: 58, hook: 28, system: 11},
	"entire-cli/0d3f9b14-1f89-4bc8-b69c-2396e3aa6d50.jsonl": {key: "0d3f9b14-1f89-4bc8-b69c-2396e3aa6d50", human: 5, user: 5, assistant: 27, tool: 37, hook: 5, system: 9},
	"entire-cli/1284c080-f9cd-45f8-9942-ff58f5c517e5.jsonl": {key: "1284c080-f9cd-45f8-9942-ff58f5c517e5", human: 39, queued: 3, user: 39, assistant: 155, tool: 248, interrupt: 1, hook: 35, system: 32},
	"entire-cli/1c341e47-b281-4cb7-82da-3ad6d3013b7f.jsonl": {key: "1c341e47-b281-4cb7-82da-3ad6d3013b7f", human: 6, queued: 2, user: 6, assistant: 19, tool: 51, interrupt: 2, hook: 1, system: 1},
	"entire-cli/21a2e002-8b63-45db-8e0d-1978fe0600aa.jsonl": {key: "21a2e002-8b63-45db-8e0d-1978fe0600aa", human: 20, user: 20, assistant: 56, tool: 173, hook: 19, system: 18},
	"entire-cli/253fd5ef-38bf-4f4a-804a-98df5088a868.jsonl": {key: "253fd5ef-38bf-4f4a-804a-98df5088a868", human: 6, user: 6, assistant: 37, tool: 66, hook: 6, system: 15},
	"entire-cli/28596a79-6247-4bc2-a031-f5848b31e039.jsonl": {key: "28596a79-6247-4bc2-a031-f5848b31e039", human: 3, user: 3, assistant: 3, tool: 6, hook: 2, system: 3},
	"entire-cli/2a55af89-4e4f-4460-b18f-42a07287ae76.jsonl": {key: "2a55af89-4e4f-4460-b18f-42a07287ae76", human: 13, user: 13, assistant: 83, tool: 191, hook: 13, system: 10},
	"entire-cli/3ae3ab59-52bc-413d-ad30-02b165c91785.jsonl": {key: "3ae3ab59-52bc-413d-ad30-02b165c91785", human: 5, user: 5, assistant: 43, tool: 87, interrupt: 1, hook: 4, system: 5},
	"entire-cli/3b1b6293-65e1-4c3e-9f95-d530143332f2.jsonl": {key: "3b1b6293-65e1-4c3e-9f95-d530143332f2", human: 6, user: 6, assistant: 24, tool: 36, hook: 5, system: 5},
	"entire-cli/3cd520f7-d4af-469f-97ac-bcad4933d9d4.jsonl": {key: "3cd520f7-d4af-469f-97ac-bcad4933d9d4", human: 4, user: 4, assistant: 18, tool: 50, hook: 3, system: 2},
	"entire-cli/43b2bd6e-ccc5-4d83-bbe5-9cd1cd19cc82.jsonl": {key: "43b2bd6e-ccc5-4d83-bbe5-9cd1cd19cc82", human: 18, user: 18, assistant: 81, tool: 209, hook: 18, system: 20},
	"entire-cli/43c87127-491b-488e-a553-95aa3f0414ac.jsonl": {key: "43c87127-491b-488e-a553-95aa3f0414ac", human: 6, queued: 1, user: 6, assistant: 51, tool: 86, interrupt: 3, hook: 2, system: 5},
	"entire-cli/45f2ccfd-0915-42eb-9164-09d13a9dd8ee.jsonl": {key: "45f2ccfd-0915-42eb-9164-09d13a9dd8ee", human: 10, user: 10, assistant: 53, tool: 80, hook: 10, system: 8},
	"entire-cli/47fd13df-2018-45de-8102-afe43bbc5e17.jsonl": {key: "47fd13df-2018-45de-8102-afe43bbc5e17", human: 8, user: 8, assistant: 42, tool: 71, hook: 8, system: 7},
	"entire-cli/4931d45a-d447-44b4-8475-1e6fcfcc28bf.jsonl": {key: "4931d45a-d447-44b4-8475-1e6fcfcc28bf", human: 3, user: 3, assistant: 12, tool: 58, interrupt: 1, hook: 1, system: 1, continued: 13},
	"entire-cli/4ddad80c-b9d6-490f-bd13-3f41ed52caf5.jsonl": {key: "4ddad80c-b9d6-490f-bd13-3f41ed52caf5", human: 3, user: 3, assistant: 58, tool: 94, hook: 3, system: 2},
	"entire-cli/4fec7ea0-3335-43ec-a178-d4ab47d5aef3.jsonl": {key: "4fec7ea0-3335-43ec-a178-d4ab47d5aef3", human: 7, user: 7, assistant: 31, tool: 62, hook: 5, system: 4, problems: 1},
	"entire-cli/533ff7a3-d390-41ff-b9e8-1b09fb4c2fe2.jsonl": {key: "533ff7a3-d390-41ff-b9e8-1b09fb4c2fe2", human: 3, user: 3, assistant: 99, tool: 178, interrupt: 1, hook: 2, system: 4},
	"entire-cli/569aed7b-6ead-4790-a3fe-c7028466112c.jsonl": {key: "569aed7b-6ead-4790-a3fe-c7028466112c", human: 6, user: 6, assistant: 33, tool: 49, hook: 5},
	"entire-cli/61cb3ba8-484b-4a21-bf99-34f7dc361170.jsonl": {key: "61cb3ba8-484b-4a21-bf99-34f7dc361170", human: 2, user: 2, assistant: 10, tool: 15, hook: 1, system: 4},
	"entire-cli/69847031-200c-4c30-baad-1ab1aab0c8ab.jsonl": {key: "69847031-200c-4c30-baad-1ab1aab0c8ab", human: 3, user: 3, assistant: 47, tool: 88, hook: 4, system: 8},
	"entire-cli/70d782f7-b303-4e48-9512-6bec16c37abd.jsonl": {key: "70d782f7-b303-4e48-9512-6bec16c37abd", human: 18, user: 18, assistant: 79, tool: 220, interrupt: 1, hook: 15, system: 20},
	"entire-cli/75a1a0f1-e0f8-4f3a-bca5-50167cdf0a53.jsonl": {key: "75a1a0f1-e0f8-4f3a-bca5-50167cdf0a53", human: 5, user: 5, assistant: 34, tool: 50, hook: 4, system: 4},
	"entire-cli/75c838dd-10e3-40cf-8df3-17f9955149f8.jsonl": {key: "75c838dd-10e3-40cf-8df3-17f9955149f8", human: 4, user: 4, assistant: 33, tool: 65, hook: 3, system: 2},
	"entire-cli/768de5d6-9fad-475b-8a4f-dfa7ddc01bb0.jsonl": {key: "768de5d6-9fad-475b-8a4f-dfa7ddc01bb0", human: 5, user: 5, assistant: 12, tool: 25, hook: 4, system: 3},
	"entire-cli/7aa4bfa8-4970-452c-9f43-5adba81a0617.jsonl": {key: "7aa4bfa8-4970-452c-9f43-5adba81a0617", human: 7, user: 7, assistant: 18, tool: 49, interrupt: 1, hook: 6, system: 5},
	"entire-cli/8897bd54-16f4-4a28-8e23-cb187c639e40.jsonl": {key: "8897bd54-16f4-4a28-8e23-cb187c639e40", human: 3, user: 3, assistant: 15, tool: 39, hook: 2, system: 2},
	"entire-cli/97007e37-53bd-4456-9a49-c0f8081081a7.jsonl": {key: "97007e37-53bd-4456-9a49-c0f8081081a7", human: 2, user: 2, assistant: 15, tool: 38, hook: 1, system: 1},
	"entire-cli/9e2434f3-c800-4ed9-b78e-e494ef59bd78.jsonl": {key: "9e2434f3-c800-4ed9-b78e-e494ef59bd78", human: 9, queued: 2, user: 9, assistant: 90, tool: 182, interrupt: 1, hook: 6, system: 13},
	"entire-cli/9f26971d-da0a-46db-b911-e156aad9548e.jsonl": {key: "9f26971d-da0a-46db-b911-e156aad9548e", human: 2, user: 2, assistant: 13, tool: 49, hook: 2, system: 5},
	"entire-cli/9fd328aa-ecda-4618-b1ed-047b284117c6.jsonl": {key: "9fd328aa-ecda-4618-b1ed-047b284117c6", human: 2, user: 2, assistant: 7, tool: 12, hook: 2, system: 4},
	"entire-cli/9ff9c26d-319d-4a47-843a-3d60f73295c9.jsonl": {key: "9ff9c26d-319d-4a47-843a-3d60f73295c9", human: 3, user: 3, assistant: 14, tool: 21, interrupt: 1, hook: 2, system: 5},
	"entire-cli/a2b25ca9-1cbb-41d7-a3b1-89c66f8697f9.jsonl": {key: "a2b25ca9-1cbb-41d7-a3b1-89c66f8697f9", human: 7, user: 7, assistant: 35, tool: 56, hook: 5, system: 5, problems: 1},
	"entire-cli/acdd84ab-e724-42c8-925d-420b2a4f1861.jsonl": {key: "acdd84ab-e724-42c8-925d-420b2a4f1861", human: 3, user: 3, assistant: 11, tool: 17, hook: 2, system: 1},
	"entire-cli/afb1dd35-5084-4acb-84b8-59b9d3c48d3e.jsonl": {key: "afb1dd35-5084-4acb-84b8-59b9d3c48d3e", human: 9, queued: 1, user: 9, assistant: 58, tool: 138, interrupt: 1, hook: 9, system: 10},
	"entire-cli/b5f6af67-9cd0-42bb-8323-9ac99badee2d.jsonl": {key: "b5f6af67-9cd0-42bb-8323-9ac99badee2d", human: 3, user: 3, assistant: 11, tool: 32, hook: 3, system: 5},
	"entire-cli/be437104-4a61-49d9-b754-592ad3e357ce.jsonl": {key: "be437104-4a61-49d9-b754-592ad3e357ce", human: 2, user: 2, assistant: 8, tool: 26, hook: 2, system: 2},
	"entire-cli/c010174c-a7cd-4bcc-b7d4-61258d6c463f.jsonl": {key: "c010174c-a7cd-4bcc-b7d4-61258d6c463f", human: 8, queued: 2, user: 8, assistant: 45, tool: 104, interrupt: 1, hook: 4, system: 7},
	"entire-cli/c2b51eb0-d0e9-43cf-b431-42c05d49450b.jsonl": {key: "c2b51eb0-d0e9-43cf-b431-42c05d49450b", human: 3, user: 3, assistant: 12, tool: 19, hook: 3, system: 4},
	"entire-cli/c35cf82b-0486-4d17-94d7-7fa36376faff.jsonl": {key: "c35cf82b-0486-4d17-94d7-7fa36376faff", human: 15, user: 15, assistant: 121, tool: 243, hook: 12, system: 12},
	"entire-cli/cacf6cfb-e843-47af-9dc2-6a5af1137c53.jsonl": {key: "cacf6cfb-e843-47af-9dc2-6a5af1137c53", human: 2, user: 2, assistant: 8, tool: 18, hook: 1},
	"entire-cli/cc432c40-914a-4c1a-a972-0103199a736a.jsonl": {key: "cc432c40-914a-4c1a-a972-0103199a736a", human: 6, user: 6, assistant: 19, tool: 28, hook: 5, system: 4},
	"entire-cli/d1423492-e4f5-4a86-a997-1f1c8d09a940.jsonl": {key: "d1423492-e4f5-4a86-a997-1f1c8d09a940", human: 2, user: 2, assistant: 19, tool: 105, hook: 1, system: 1},
	"entire-cli/e5fcdc73-b9fc-4991-b532-6bf8440fd12d.jsonl": {key: "e5fcdc73-b9fc-4991-b532-6bf8440fd12d", human: 4, user: 4, assistant: 24, tool: 51, interrupt: 1, hook: 3, system: 9},
	"entire-cli/eb4bcc15-3ff5-4d73-bac5-9bc1d786b2bb.jsonl": {key: "eb4bcc15-3ff5-4d73-bac5-9bc1d786b2bb", human: 10, user: 10, assistant: 30, tool: 143, interrupt: 1, hook: 9, system: 9},
	"entire-cli/f6833005-7be4-4178-bb37-a0e9feadc36b.jsonl": {key: "f6833005-7be4-4178-bb37-a0e9feadc36b", human: 5, user: 5, assistant: 26, tool: 78, hook: 2, system: 1},
	"entire-cli/f744aef5-5139-4c21-91e5-3f44ce902105.jsonl": {key: "f744aef5-5139-4c21-91e5-3f44ce902105", human: 6, user: 6, assistant: 21, tool: 43, hook: 5, system: 4},
}

// labelsHumanDiffers holds labels.csv's human_msgs where the labeller counted
// differently from the reader, as judgement calls the rubric leaves open: bash-mode
// input (`<bash-input>`, typed by the human with `!`) counted in some sessions and not in
// others, a skill invocation's text, a queued message, a CI plugin's and a PR tool's
// messages wholly in one tag (`<ci-monitor-event>`, `<create-pr-command>`; the label's
// note calls the first a "CI-bot interrupt"). The reader's rule is fixed: typed text
// that is not a command wrapper, caveat, meta or injected record.
var labelsHumanDiffers = map[string]int{
	"dotfiles/8e0afadf-2a97-4843-84b1-1a93234d5975.jsonl":   8,
	"entire-cli/04cd0da1-dee3-4738-8139-524dfe55de83.jsonl": 7,
	"entire-cli/0c275b1b-9732-433e-9e70-9b7bfdb578a3.jsonl": 35,
	"entire-cli/1284c080-f9cd-45f8-9942-ff58f5c517e5.jsonl": 37,
	"entire-cli/1c341e47-b281-4cb7-82da-3ad6d3013b7f.jsonl": 3,
	"entire-cli/253fd5ef-38bf-4f4a-804a-98df5088a868.jsonl": 8,
	"entire-cli/9e2434f3-c800-4ed9-b78e-e494ef59bd78.jsonl": 8,
	"entire-cli/afb1dd35-5084-4acb-84b8-59b9d3c48d3e.jsonl": 6,
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
	proved := 0              // sessions whose key the first 64 KiB prove (a split replay leaves them to their shard)
	queued, queuedIn := 0, 0 // queued human messages, and the sessions holding them (the README's figure)
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
			if s == nil {
				t.Fatal("no session")
			}
			checkInvariants(t, s)
			if key, ok := KeyFromHead(name, head[:n]); ok {
				proved++
				if key != s.Key {
					t.Errorf("the head proves key %s, the session is %s", key, s.Key)
				}
			}
			got := corpusFigures{key: s.Key, subagents: s.Subagents, problems: len(probs), continued: s.Records[ContinuedRecords]}
			for _, p := range probs {
				t.Logf("problem: %s", p)
			}
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
						if ev.Subtype == analyze.SubtypeQueued {
							got.queued++
						}
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
			queued += got.queued
			if got.queued > 0 {
				queuedIn++
			}
			if want, ok := corpusWant[name]; !ok {
				t.Errorf("no figures frozen for %s: %#v", name, got)
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
			// The rubric does not count what the human typed while the agent was busy
			// (LABELS.md: "they are not counted"); the reader does.
			wantHuman := got.human - got.queued
			if n, ok := labelsHumanDiffers[name]; ok {
				wantHuman = n
			}
			if lab.human != wantHuman {
				t.Errorf("%d human messages (%d queued), labels.csv's human_msgs says %d (known differences: %v)", got.human, got.queued, lab.human, labelsHumanDiffers[name])
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
	if queued != 15 || queuedIn != 9 {
		t.Errorf("%d queued human messages in %d sessions, the README says 15 in 9", queued, queuedIn)
	}
	// The README's figures of the same: sessions whose human count is the labeller's,
	// and the others (labelsHumanDiffers, each checked above).
	root, err := corpus.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("the %d main sessions of `../shared/corpora/claude-code` the number of human messages, less the queued ones the rubric does not count (%d in %d sessions), equals the labeller's `human_msgs` for %d; the other %d are",
		len(seen), queued, queuedIn, len(seen)-len(labelsHumanDiffers), len(labelsHumanDiffers))
	if !strings.Contains(strings.Join(strings.Fields(string(readme)), " "), want) {
		t.Errorf("the README does not say: %s", want)
	}
	if proved != 68 {
		t.Errorf("the first 64 KiB prove the key of %d of %d sessions, want 68", proved, len(seen))
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
