package replay_test

import (
	"fmt"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/loopwatch/loopwatch/analyze/struggle"
	"github.com/loopwatch/loopwatch/replay"
)

// genKeys are the run keys of the generated traces: q-1 and q-2 are runs of the
// quasar history too (historyFS), as duplicates.
var genKeys = []string{"q-1", "q-2", "a", "b", "c", "d", "e", "f", "g", "h"}

// genLine returns a random trace line: events good and bad (no run key: a bad ts, an
// unknown kind, no task, not JSON), invalid UTF-8, two records on a line, a blank line.
func genLine(r *rand.Rand) string {
	task := genKeys[r.IntN(len(genKeys))]
	epoch := ""
	if r.IntN(6) == 0 {
		epoch = `,"epoch":"e` + strconv.Itoa(r.IntN(2)) + `"`
	}
	ts := fmt.Sprintf("2026-03-01T10:%02d:00Z", r.IntN(60))
	ev := func(kind, data string) string {
		return fmt.Sprintf(`{"ts":%q,"kind":%q,"task":%q%s,"data":%s}`, ts, kind, task, epoch, data)
	}
	switch r.IntN(22) {
	case 0, 1, 2, 3, 4:
		return ev("cycle_done", fmt.Sprintf(`{"cycle":%d,"total_cost_usd":%d,"approved":%v}`, 1+r.IntN(3), r.IntN(5), r.IntN(3) == 0))
	case 5:
		return ev("cycle_done", `{"cycle":"two"}`)
	case 6:
		return ev("agent_done", `{"cycle":1,"role":"coder","cost_usd":0.5}`)
	case 7:
		return ev("agent_done", `{"cycle":1}`)
	case 8:
		return ev("filter_result", `{"cycle":1,"check":"build","passed":false}`)
	case 9:
		return ev("filter_fix_attempt", `{"cycle":1,"check":"build","attempt":1,"passed":true}`)
	case 10:
		return ev("task_state", `{"outcome":"approved"}`)
	case 11:
		return ev("task_state", `{"outcome":"weird"}`)
	case 12:
		return strings.Replace(ev("cycle_done", `{"cycle":1}`), ts, "noon", 1)
	case 13:
		return ev("no_such_kind", `{}`)
	case 14:
		return `{"ts":"2026-03-01T10:00:00Z","kind":"cycle_done","data":{}}`
	case 15:
		return "not json"
	case 16:
		return strings.Replace(ev("cycle_done", `{"cycle":1,"total_cost_usd":1}`), `"task":"`, "\"task\":\"\xff", 1)
	case 17:
		return ev("cycle_done", `{"cycle":1}`) + genLine(r)
	case 18:
		return ""
	case 19:
		return ev("task_start", `{"title":"T","max_cycles":3}`)
	case 20:
		return strings.Replace(ev("cycle_done", `{"cycle":2}`), ts, "2026-03-01T04:00:00Z", 1)
	default:
		return ev("cycle_done", `{"cycle":1,"total_cost_usd":"x"}`)
	}
}

// genVibes returns a random vibes event log of the sessions v-a … v-f, which other logs
// of one input share: good events, and bad ones — a clock fault, a session named only
// inside its event or twice, fields of the wrong type, an unknown type, not JSON, an
// event of no session, two records on a line.
func genVibes(r *rand.Rand, file int) string {
	var b strings.Builder
	b.WriteString(`{"event_id":"019cb3ff-9f00-7000-8000-000000000000","type":"client_connected"}` + "\n") // recognised as vibes
	for n := range 1 + r.IntN(30) {
		sid := "v-" + string(rune('a'+r.IntN(6)))
		ms := r.IntN(4000) * 1000
		if r.IntN(12) == 0 {
			ms -= 40 * 60 * 1000
		}
		at := fmt.Sprintf(`{"event_id":%q`, vibesEventID(ms, file<<8|n))
		ev := func(typ, extra string) string {
			return fmt.Sprintf(`%s,"type":%q,"session_id":%q,%s}`, at, typ, sid, extra)
		}
		var line string
		switch r.IntN(14) {
		case 0, 1:
			line = ev("user_input", `"content":"fix the test"`)
		case 2:
			line = ev("hook", `"event":{"type":"user_prompt_submit","session_id":"cc","prompt":"fix the test"}`)
		case 3:
			line = ev("claude", `"event":{"type":"tool_use_start","id":"t1","name":"Bash"}`)
		case 4:
			line = ev("hook", `"event":{"type":"post_tool_use","session_id":"cc","tool_name":"Bash","tool_input":{"command":"go test"},"tool_response":{"stdout":"FAIL"}}`)
		case 5:
			line = ev("claude", `"event":{"type":"tool_result","id":"t1","output":"FAIL","is_error":true}`)
		case 6:
			line = ev("claude", `"event":{"type":"text_delta","text":5}`)
		case 7:
			line = fmt.Sprintf(`%s,"type":"hook","event":{"type":"stop","session_id":%q,"hook_event_name":"Stop"}}`, at, sid)
		case 8:
			line = ev("user_input", `"content":"again","session_id":"v-a"`)
		case 9:
			line = ev("hologram", `"x":1`)
		case 10:
			line = "{not json"
		case 11:
			line = at + `,"type":"user_input","content":"of no session"}`
		case 12:
			line = ev("session_created", `"name":"a title"`) + ev("claude", `"event":{"type":"turn_complete"}`)
		default:
			line = ev("claude", `"event":{"type":"text_delta","text":"done"}`)
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// genFS returns a random input: a few traces of random lines, some larger than
// sniffSize, of exactly sniffSize or one byte less, between quickSniff and sniffSize, or
// with their last line cut; an empty or blank file; sometimes vibes event logs (genVibes)
// and the quasar history or the whole shardFS beside them.
func genFS(t *testing.T, r *rand.Rand) fstest.MapFS {
	out := fstest.MapFS{}
	switch r.IntN(5) {
	case 0:
		out = historyFS()
	case 1:
		out = shardFS(t)
	}
	dirs := []string{"a", "b", "a/x", "u"}
	nf := 1 + r.IntN(7)
	for i := range nf {
		name := fmt.Sprintf("%s/t%d.jsonl", dirs[r.IntN(len(dirs))], i)
		var b strings.Builder
		nl := 1 + r.IntN(8)
		for range nl {
			b.WriteString(genLine(r))
			b.WriteString("\n")
		}
		s := b.String()
		switch r.IntN(10) {
		case 0: // large: pad to past 64 KiB with events of one key
			pad := fmt.Sprintf(`{"ts":"2026-03-01T11:00:00Z","kind":"agent_done","task":%q,"data":{"cycle":1,"role":"coder"}}`+"\n", genKeys[r.IntN(len(genKeys))])
			for len(s) < 70<<10 {
				s += pad
			}
		case 1: // exactly 64 KiB or one less, padded with blank lines
			target := 64 << 10
			if r.IntN(2) == 0 {
				target--
			}
			if len(s) < target {
				s += strings.Repeat(" ", target-len(s)-1) + "\n"
			}
		case 2: // truncated last line
			s += `{"ts":"2026-03-01T10:00:00Z","kind":"cycle_done","task":"a"`
		case 3: // between quickSniff and sniffSize
			for len(s) < 20<<10 {
				s += genLine(r) + "\n"
			}
		}
		out[name] = &fstest.MapFile{Data: []byte(s)}
	}
	if r.IntN(2) == 0 {
		for i := range 1 + r.IntN(3) {
			out[fmt.Sprintf("v/log-%d.jsonl", i)] = &fstest.MapFile{Data: []byte(genVibes(r, i))}
		}
	}
	switch r.IntN(5) {
	case 0:
		out["e/empty.jsonl"] = &fstest.MapFile{Data: nil}
	case 1:
		out["e/blank.jsonl"] = &fstest.MapFile{Data: []byte("\n\n  \n")}
	}
	return out
}

func sumString(s *replay.Summary) string { return fmt.Sprintf("%+v", *s) }

// TestShardsAddUpOnGeneratedTraces holds split replays of generated inputs to the
// whole replay (TestShardsAddUpToTheWhole's checks, on many more odd traces): for n =
// 2 to 5 shards, each at 1, 2 and 3 workers (3 with scratch files) alike, every run
// replayed by its key's shard, the problems the whole's, each digest handed over once
// and folding to the whole's fingerprint, one listing, the file counts the whole's, the
// merged summary the whole's, every session read as the whole replay reads it; and
// shard 0/1 the whole replay. LOOPWATCH_GEN_ITERS and
// LOOPWATCH_GEN_SEED run more inputs, or others.
func TestShardsAddUpOnGeneratedTraces(t *testing.T) {
	iters := 40
	if testing.Short() {
		iters = 10
	}
	if v, err := strconv.Atoi(os.Getenv("LOOPWATCH_GEN_ITERS")); err == nil {
		iters = v
	}
	seed0 := uint64(1)
	if v, err := strconv.ParseUint(os.Getenv("LOOPWATCH_GEN_SEED"), 10, 64); err == nil {
		seed0 = v
	}
	fails := 0
	for it := range iters {
		seed := seed0 + uint64(it)
		r := rand.New(rand.NewPCG(seed, 7))
		fsys := genFS(t, r)
		whole := replayShard(t, fsys, replay.Shard{}, 1+it%3)
		one := replayShard(t, fsys, replay.Shard{Index: 0, Count: 1}, 2)
		if !slices.Equal(one.keys, whole.keys) || sumString(one.sum) != sumString(whole.sum) || !slices.Equal(one.digests, whole.digests) {
			t.Errorf("seed %d: 0/1 differs from the whole", seed)
		}
		bad := func(format string, args ...any) {
			fails++
			t.Errorf("seed %d: "+format, append([]any{seed}, args...)...)
		}
		for n := 2; n <= 5; n++ {
			var keys []string
			var problems []string
			var digests [][2]string
			var sums []*replay.Summary
			var listing string
			for i := range n {
				var ref shardRun
				for w := 1; w <= 3; w++ {
					var part shardRun
					if w == 3 {
						part = replayShardScratch(t, fsys, replay.Shard{Index: i, Count: n}, w)
					} else {
						part = replayShardScratch(t, fsys, replay.Shard{Index: i, Count: n}, -w)
					}
					if w == 1 {
						ref = part
						continue
					}
					if !slices.Equal(part.keys, ref.keys) || !slices.Equal(problemSet(part.problems), problemSet(ref.problems)) ||
						!slices.Equal(part.digests, ref.digests) || sumString(part.sum) != sumString(ref.sum) {
						bad("%d/%d: workers %d differs from workers 1", i, n, w)
					}
				}
				part := ref
				for _, k := range part.keys {
					if replay.ShardOf(k, n) != i {
						bad("%d/%d replayed %s of shard %d", i, n, k, replay.ShardOf(k, n))
					}
				}
				for k, s := range part.sessions {
					if !reflect.DeepEqual(s, whole.sessions[k]) {
						bad("%d/%d read session %s otherwise than the whole replay", i, n, k)
					}
				}
				if i == 0 {
					listing = part.sum.Listing
				} else if part.sum.Listing != listing {
					bad("%d/%d listing differs", i, n)
				}
				if part.sum.Files != whole.sum.Files || part.sum.Ignored != whole.sum.Ignored || !maps.Equal(part.sum.FilesByFmt, whole.sum.FilesByFmt) {
					bad("%d/%d files %d %v, whole %d %v", i, n, part.sum.Files, part.sum.FilesByFmt, whole.sum.Files, whole.sum.FilesByFmt)
				}
				keys = append(keys, part.keys...)
				problems = append(problems, problemSet(part.problems)...)
				digests = append(digests, part.digests...)
				sums = append(sums, part.sum)
			}
			slices.Sort(keys)
			if want := slices.Sorted(slices.Values(whole.keys)); !slices.Equal(keys, want) {
				bad("n=%d keys %v want %v", n, keys, want)
			}
			slices.Sort(problems)
			if want := problemSet(whole.problems); !slices.Equal(problems, want) {
				var extra, missing []string
				for _, p := range problems {
					if !slices.Contains(want, p) {
						extra = append(extra, p)
					}
				}
				for _, p := range want {
					if !slices.Contains(problems, p) {
						missing = append(missing, p)
					}
				}
				bad("n=%d problems differ (%d vs %d)\nextra %q\nmissing %q", n, len(problems), len(want), extra, missing)
			}
			slices.SortStableFunc(digests, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
			if !slices.Equal(digests, whole.digests) {
				bad("n=%d digests\n%v\nwant\n%v", n, digests, whole.digests)
			}
			if fold(digests) != whole.sum.Fingerprint {
				bad("n=%d fingerprint", n)
			}
			merged, err := replay.MergeSummaries(sums)
			if err != nil {
				bad("n=%d merge: %v", n, err)
				continue
			}
			merged.Fingerprint = fold(digests)
			w := *whole.sum
			w.Problems, merged.Problems = nil, nil
			w.Listing = listing
			if fmt.Sprintf("%+v", *merged) != fmt.Sprintf("%+v", w) {
				bad("n=%d merged\n%+v\nwhole\n%+v", n, *merged, w)
			}
		}
		if fails > 10 {
			t.FailNow()
		}
	}
}

// replayShardScratch is replayShard, with scratch files (workers > 0) or without
// (workers < 0: -workers workers).
func replayShardScratch(t *testing.T, fsys fs.FS, shard replay.Shard, workers int) shardRun {
	t.Helper()
	opts := replay.Options{Workers: max(workers, -workers), Struggle: struggle.DefaultStruggleConfig(), Shard: shard}
	if workers > 0 {
		dir := t.TempDir()
		opts.Scratch = func(name string) (*os.File, error) { return os.Create(filepath.Join(dir, name)) }
	}
	return replayWith(t, fsys, opts)
}
