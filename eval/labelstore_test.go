package eval

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// checkAgainstReference fails unless ls and ref hold the same records, at the same
// positions, for every key in keys (and none for a key neither holds).
func checkAgainstReference(t testing.TB, ls *Labels, ref *referenceLabels, keys []string) {
	t.Helper()
	if ls.Len() != len(ref.index) {
		t.Fatalf("Len %d, reference %d", ls.Len(), len(ref.index))
	}
	if got, want := ls.Keys(), ref.Keys(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Keys %.200q, reference %.200q", got, want)
	}
	for _, k := range append(keys, "never set", "") {
		got, ok := ls.Get(k)
		want, wok := ref.Get(k)
		if ok != wok || !reflect.DeepEqual(got, want) {
			t.Fatalf("Get(%.40q) = %+v, %v; reference %+v, %v", k, got, ok, want, wok)
		}
		i, ok := ls.Index(k)
		wi, wok := ref.Index(k)
		if ok != wok || i != wi {
			t.Fatalf("Index(%.40q) = %d, %v; reference %d, %v", k, i, ok, wi, wok)
		}
		if r, li, lok := ls.Lookup(k); lok != wok || !reflect.DeepEqual(r, want) || (lok && li != wi) || (!lok && li != -1) {
			t.Fatalf("Lookup(%.40q) = %+v, %d, %v; reference %+v, %d, %v", k, r, li, lok, want, wi, wok)
		}
	}
}

func TestLabelsMatchReference(t *testing.T) {
	at := time.Date(2026, 3, 1, 10, 0, 0, 5, time.UTC)
	est := time.FixedZone("EST", -5*3600)
	inArena := strings.Repeat("k", spanTime-1) // the longest key the arena holds
	long := strings.Repeat("k", spanTime)      // the shortest kept apart
	rec := func(key string, lab Label, line int, moments ...Moment) LabelRecord {
		return LabelRecord{Key: key, Label: lab, Outcome: "failure", Source: SourceHuman, Line: line, HumanMsgs: -1, Moments: moments}
	}
	for _, tt := range []struct {
		name string
		set  []LabelRecord
		long int // texts kept apart from the arena
	}{
		{"empty", nil, 0},
		{"keys that differ in a byte", []LabelRecord{rec("q-1", Positive, 2), rec("q-2", Negative, 3), rec("q-1 ", Negative, 4), rec("Q-1", Excluded, 5)}, 0},
		{"a key set again keeps its position and takes the later record",
			[]LabelRecord{rec("a", Positive, 2, Moment{ID: "m1"}), rec("b", Negative, 3), rec("a", Negative, 4), rec("c", Ambiguous, 5), rec("b", Positive, 6, Moment{ID: "m2"}, Moment{Time: at})}, 0},
		{"Unicode keys and moment ids", []LabelRecord{rec("séance-é", Positive, 2, Moment{ID: "ü-1"}, Moment{ID: "日本"}), rec("日本語", Negative, 3), rec("\u00e9", Positive, 4), rec("e\u0301", Negative, 5)}, 0},
		{"the empty key", []LabelRecord{rec("", Positive, 2), rec("x", Negative, 3)}, 0},
		{"times keep their zone", []LabelRecord{rec("t", Positive, 2, Moment{Time: at.In(est)}, Moment{ID: "x"}, Moment{Time: at})}, 0},
		{"every field", []LabelRecord{{Key: "s-1", Label: Positive, Outcome: "success", Source: SourceModel, Rule: "r", Line: 7, Confidence: "high",
			HumanMsgs: 1 << 40, Path: "a/s-1.jsonl", Notes: "why", Moments: []Moment{{ID: "u"}}}, {Key: "s-2", Label: Negative, Line: 1 << 40, Notes: "n"}}, 0},
		{"huge keys, in the arena and apart", []LabelRecord{rec(inArena, Positive, 2, Moment{ID: long}), rec("x", Negative, 3), rec(long, Negative, 4, Moment{ID: inArena}),
			rec(long+"x", Positive, 5), rec(long, Positive, 6)}, 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ls, ref := NewLabels(), newReferenceLabels()
			var keys []string
			for _, r := range tt.set {
				ls.Set(r)
				ref.Set(r)
				keys = append(keys, r.Key)
			}
			checkAgainstReference(t, ls, ref, keys)
			if len(ls.mem.arena.long) != tt.long {
				t.Errorf("%d texts kept apart, want %d", len(ls.mem.arena.long), tt.long)
			}
		})
	}
}

// TestLabelsMatchReferenceMany: many keys, set in random order, some twice — the
// index grows and every key is found again, where the reference finds it.
func TestLabelsMatchReferenceMany(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	ls, ref := NewLabels(), newReferenceLabels()
	var keys []string
	for i := range 20_000 {
		k := fmt.Sprintf("%08x-%04x", rng.Uint32(), rng.IntN(1<<16))
		if i%7 == 0 && len(keys) > 0 {
			k = keys[rng.IntN(len(keys))]
		}
		var ms []Moment
		for j := range rng.IntN(3) {
			ms = append(ms, Moment{ID: fmt.Sprint(k, "/", j)})
		}
		r := LabelRecord{Key: k, Label: []Label{Positive, Negative}[rng.IntN(2)], Line: i + 2, HumanMsgs: rng.IntN(5) - 1, Moments: ms}
		ls.Set(r)
		ref.Set(r)
		keys = append(keys, k)
	}
	checkAgainstReference(t, ls, ref, keys)
}

// TestReadLabelsArena: what a label file reads into the arena — Unicode, quoted and
// huge keys, keys labelled twice (reported with the first line, the later label
// kept) — is found again exactly, Keys in order.
func TestReadLabelsArena(t *testing.T) {
	huge := strings.Repeat("é", 1<<20)
	for _, tt := range []struct {
		name  string
		in    string
		want  map[string]string // key → label/line/moments
		keys  []string
		probs []string
	}{
		{name: "Unicode and quoted keys", in: "run_key,label\nséance-é,positive\n\"日本,語\",negative\n\"a\"\"b\",excluded\n",
			want: map[string]string{"séance-é": "positive/2/[]", "日本,語": "negative/3/[]", `a"b`: "excluded/4/[]"},
			keys: []string{`a"b`, "séance-é", "日本,語"}},
		{name: "keys are trimmed; the empty key is a problem", in: "run_key,label\n  q-1 ,positive\n ,negative\n",
			want: map[string]string{"q-1": "positive/2/[]"}, keys: []string{"q-1"}, probs: []string{"3:no run_key"}},
		{name: "a key labelled twice keeps the later label, reported with the first line",
			in:   "session_id,outcome,friction_uuids\ns-1,failure,u-1;u-2\ns-2,success,\ns-1,success,u-3\ns-1,abandoned,\n",
			want: map[string]string{"s-1": "positive/5/[]", "s-2": "negative/3/[]"}, keys: []string{"s-1", "s-2"},
			probs: []string{"4:run s-1 already labelled on line 2", "5:run s-1 already labelled on line 4"}},
		{name: "moments keep their order, ids and times", in: "session_id,outcome,friction_uuids,friction_times\ns,failure, ü-1 ;u-2,2026-03-01T10:00:00+01:00\n",
			want: map[string]string{"s": "positive/2/[ü-1 u-2 2026-03-01T09:00:00Z]"}, keys: []string{"s"}},
		{name: "huge keys", in: "run_key,label\n" + huge + ",positive\n" + huge + "x,negative\n",
			want: map[string]string{huge: "positive/2/[]", huge + "x": "negative/3/[]"}, keys: []string{huge, huge + "x"}},
		{name: "JSONL", in: `{"session_id":"s-é","outcome":"failure","friction_uuids":["a","b"]}` + "\n" + `{"run_key":"q","label":"positive"}`,
			want: map[string]string{"s-é": "positive/1/[a b]", "q": "positive/2/[]"}, keys: []string{"q", "s-é"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ls, probs, err := ReadLabels(strings.NewReader(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			for k, w := range tt.want {
				r, ok := ls.Get(k)
				if got := fmt.Sprintf("%s/%d/%v", r.Label, r.Line, r.Moments); !ok || got != w {
					t.Errorf("%.20q: %s, %v; want %s", k, got, ok, w)
				}
			}
			if got := ls.Keys(); !reflect.DeepEqual(got, tt.keys) {
				t.Errorf("Keys %.100q, want %.100q", got, tt.keys)
			}
			if len(probs) != len(tt.probs) {
				t.Fatalf("problems %+v, want %v", probs, tt.probs)
			}
			for i, p := range probs {
				if got := fmt.Sprintf("%d:%s", p.Line, p.Detail); !strings.Contains(got, tt.probs[i]) {
					t.Errorf("problem %s, want %s", got, tt.probs[i])
				}
			}
		})
	}
}

// FuzzLabelsSet sets records keyed by the fuzzer's strings, some twice, into Labels
// and into the reference: both must hold the same.
func FuzzLabelsSet(f *testing.F) {
	f.Add("q-1;q-2;q-1;;séance;日本")
	f.Add(";;;")
	f.Fuzz(func(t *testing.T, in string) {
		ls, ref := NewLabels(), newReferenceLabels()
		keys := strings.Split(in, ";")
		for i, k := range keys {
			var ms []Moment
			if i%2 == 0 {
				ms = []Moment{{ID: k + "/m"}, {Time: time.Unix(int64(i), 0).UTC()}}
			}
			r := LabelRecord{Key: k, Label: Positive, Rule: k, Line: i + 1, Moments: ms}
			ls.Set(r)
			ref.Set(r)
		}
		checkAgainstReference(t, ls, ref, keys)
	})
}

// BenchmarkLabelLookup measures what a replay reads from its labels for each unit —
// Get of a labelled session (key, fields, moments), Get of a key without a label,
// Index — from 100,000 session labels, as Labels holds them in memory (impl=arena),
// as they were held before the arena (impl=map), kept in their file, each lookup
// reading its record again (impl=file), and kept in their file with their index moved
// into a scratch file, each lookup reading a block of the index too (impl=fileindex;
// a miss reads the block only). Compare with benchstat:
//
//	go test -run '^$' -bench LabelLookup -benchmem -count 6 ./eval > labels.txt
//	benchstat -col /impl labels.txt
func BenchmarkLabelLookup(b *testing.B) {
	const n = 100_000
	rng := rand.New(rand.NewPCG(7, 8))
	uuid := func() string {
		return fmt.Sprintf("%08x-%04x-4%03x-%04x-%012x", rng.Uint32(), rng.IntN(1<<16), rng.IntN(1<<12), rng.IntN(1<<16), rng.Uint64()&(1<<48-1))
	}
	ls, ref := NewLabels(), newReferenceLabels()
	keys := make([]string, n)
	for i := range keys {
		keys[i] = uuid()
		r := LabelRecord{Key: keys[i], Label: Negative, Outcome: "success", Source: SourceHuman, Confidence: "high", Line: i + 2, HumanMsgs: 2}
		for range rng.IntN(3) {
			r.Moments = append(r.Moments, Moment{ID: uuid()})
		}
		ls.Set(r)
		ref.Set(r)
	}
	// The same labels in a session label file, kept in it (impl=file).
	var csvb strings.Builder
	csvb.WriteString("session_id,outcome,confidence,human_msgs,friction_uuids\n")
	for _, k := range keys {
		r, _ := ls.Get(k)
		var ids []string
		for _, m := range r.Moments {
			ids = append(ids, m.ID)
		}
		fmt.Fprintf(&csvb, "%s,success,high,2,%s\n", k, strings.Join(ids, ";"))
	}
	name := filepath.Join(b.TempDir(), "sessions.csv")
	if err := os.WriteFile(name, []byte(csvb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	f, err := os.Open(name)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	inFile, _, err := ReadLabelsWith(io.NewSectionReader(f, 0, int64(csvb.Len())), LabelOptions{Source: f, NoText: true})
	if err != nil || inFile.Len() != n {
		b.Fatal(err, inFile.Len())
	}
	// The same, the index moved into a scratch file (impl=fileindex).
	movedIndex, _, err := ReadLabelsWith(io.NewSectionReader(f, 0, int64(csvb.Len())), LabelOptions{Source: f, NoText: true})
	if err != nil {
		b.Fatal(err)
	}
	scratch, err := os.Create(filepath.Join(b.TempDir(), "index"))
	if err != nil {
		b.Fatal(err)
	}
	defer scratch.Close()
	if err := movedIndex.MoveIndex(func() (IndexScratch, error) { return scratch, nil }); err != nil {
		b.Fatal(err)
	}
	misses := make([]string, n)
	for i := range misses {
		misses[i] = uuid()
	}
	for _, impl := range []struct {
		name  string
		get   func(string) (LabelRecord, bool)
		index func(string) (int, bool)
	}{{"arena", ls.Get, ls.Index}, {"map", ref.Get, ref.Index}, {"file", inFile.Get, inFile.Index}, {"fileindex", movedIndex.Get, movedIndex.Index}} {
		for _, op := range []struct {
			name string
			keys []string
			do   func(string) bool
		}{
			{"get", keys, func(k string) bool { r, ok := impl.get(k); return ok && len(r.Moments) < 5 }},
			{"miss", misses, func(k string) bool { _, ok := impl.get(k); return !ok }},
			{"index", keys, func(k string) bool { _, ok := impl.index(k); return ok }},
		} {
			b.Run(fmt.Sprintf("op=%s/impl=%s", op.name, impl.name), func(b *testing.B) {
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					if !op.do(op.keys[i]) {
						b.Fatal("wrong answer")
					}
					if i++; i == len(op.keys) {
						i = 0
					}
				}
			})
		}
	}
}
