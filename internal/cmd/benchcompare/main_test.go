package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loopwatch/loopwatch/internal/doctest"
)

// childEnv makes the test binary a child command for runWorkload: "same" writes a
// fixed file, "other" a different one, "drift" a different one on every run (a
// counter in the folder above), "fail" exits 3; "cores" prints GOMAXPROCS, NumCPU and
// the shard it was given (--shard), "shard-fails" fails as shard 1/2 and runs a minute
// as any other.
const childEnv = "BENCHCOMPARE_TEST_CHILD"

func TestMain(m *testing.M) {
	if code, hidden := hiddenCommand(context.Background(), os.Args[1:], os.Stdout, os.Stderr); hidden {
		os.Exit(code)
	}
	if mode := os.Getenv(childEnv); mode != "" {
		if mode == "cores" { // what the child may run on, and the shard it was given
			shard := ""
			if i := slices.Index(os.Args, "--shard"); i >= 0 && i+1 < len(os.Args) {
				shard = " " + os.Args[i+1]
			}
			fmt.Printf("%d %d%s\n", runtime.GOMAXPROCS(0), runtime.NumCPU(), shard)
			os.Exit(0)
		}
		if mode == "hold" { // 64 MiB touched and held while the others start
			b := make([]byte, 64<<20)
			for i := range b {
				if i%4096 == 0 {
					b[i] = 1
				}
			}
			time.Sleep(300 * time.Millisecond)
			runtime.KeepAlive(b)
			os.Exit(0)
		}
		if mode == "shard-fails" { // shard 1 fails at once, the others would run long
			if slices.Contains(os.Args, "1/2") {
				fmt.Fprintln(os.Stderr, "cannot replay shard 1")
				os.Exit(3)
			}
			time.Sleep(time.Minute)
			os.Exit(0)
		}
		out := os.Args[len(os.Args)-1]
		content := "same output\n"
		switch mode {
		case "other":
			content = "other output\n"
		case "drift":
			counter := filepath.Join(filepath.Dir(out), "drift-counter")
			b, _ := os.ReadFile(counter)
			b = append(b, 'x')
			os.WriteFile(counter, b, 0o644)
			content = string(b)
		case "fail":
			fmt.Fprintln(os.Stderr, "cannot replay: bad input")
			os.Exit(3)
		}
		if err := os.WriteFile(filepath.Join(out, "results.parquet"), []byte(content), 0o644); err != nil {
			os.Exit(4)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func childVariant(t *testing.T, name, mode string) variant {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return variant{name: name, outputs: true, command: func(out string) *exec.Cmd {
		cmd := exec.Command(exe, "-test.run", "^$", out)
		cmd.Env = append(os.Environ(), childEnv+"="+mode)
		return cmd
	}}
}

func TestRunWorkload(t *testing.T) {
	tests := []struct {
		name    string
		modes   []string
		same    []mustMatch
		reps    int
		warmups int
		err     string
		runs    int // runs made before returning
	}{
		{name: "pairs", modes: []string{"same", "same", "other"}, same: []mustMatch{{0, 1, "must match"}}, reps: 2, warmups: 1, runs: 9},
		{name: "old and new differ: stop after the warm-ups", modes: []string{"same", "other", "same"}, same: []mustMatch{{0, 1, "pass --allow-output-change"}},
			reps: 5, warmups: 1, err: "the outputs of a and b differ: results.parquet: pass --allow-output-change", runs: 2},
		{name: "without warm-ups: stop in the first repetition", modes: []string{"same", "other"}, same: []mustMatch{{0, 1, "x"}},
			reps: 5, err: "the outputs of a and b differ", runs: 2},
		{name: "not deterministic", modes: []string{"same", "drift"}, reps: 3, err: "b: the outputs of its rep 2/3 and of an earlier run of the same command differ: results.parquet — the replay is not deterministic", runs: 3},
		{name: "a run fails", modes: []string{"same", "fail"}, reps: 3, warmups: 1, err: "w, b, warm-up: ", runs: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var vs []variant
			for i, mode := range tt.modes {
				vs = append(vs, childVariant(t, string(rune('a'+i)), mode))
			}
			var log bytes.Buffer
			tmp := t.TempDir()
			m, err := runWorkload("w", vs, tt.reps, tt.warmups, tt.same, tmp, &log)
			if runs := strings.Count(log.String(), "\n"); runs != tt.runs {
				t.Errorf("%d runs logged, want %d:\n%s", runs, tt.runs, log.String())
			}
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one saying %q", err, tt.err)
				}
				if tt.modes[1] == "fail" && !strings.Contains(err.Error(), "cannot replay: bad input") {
					t.Errorf("the error %q does not quote the child's stderr", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range m.variants {
				if len(v.Samples) != tt.reps || v.Name != vs[i].name || !strings.Contains(v.Command, "-test.run") {
					t.Errorf("variant %d: %+v", i, v)
				}
			}
			if d, ok := m.digests[0].diff(m.digests[2]); ok || d != "differ: results.parquet" {
				t.Errorf("same vs other: %s", d)
			}
			if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
				t.Errorf("runs' folders left behind: %v", entries)
			}
		})
	}
}

func TestDigestDiff(t *testing.T) {
	a := digest{"x": "1", "y": "2"}
	for _, tt := range []struct {
		b    digest
		want string
	}{
		{digest{"x": "1", "y": "2"}, "identical"},
		{digest{"x": "1", "y": "3"}, "differ: y"},
		{digest{"x": "1"}, "differ: y"},
		{digest{"x": "9", "y": "2", "z": "0"}, "differ: x, z"},
	} {
		if got, same := a.diff(tt.b); got != tt.want || same != (tt.want == "identical") {
			t.Errorf("diff %v: %q %v, want %q", tt.b, got, same, tt.want)
		}
	}
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "part=1"), 0o755)
	os.WriteFile(filepath.Join(dir, "a.parquet"), []byte("a"), 0o644)
	os.WriteFile(filepath.Join(dir, "part=1", "b.parquet"), []byte("b"), 0o644)
	d, err := digestDir(dir)
	if err != nil || len(d) != 2 || d["part=1/b.parquet"] != "3e23e8160039594a33894f6564e1b1348bbd7a0088d42c4acb73eeaed59c009d" {
		t.Errorf("digestDir: %v %v", d, err)
	}
}

func TestCopyIDs(t *testing.T) {
	in := []byte(`{"sessionId":"132b2f66-ee5f-46f6-8904-32d9dc4d36c3","uuid":"4fd1cd70-0992-4351-896c-27940e239422",` +
		`"parentUuid":"132b2f66-ee5f-46f6-8904-32d9dc4d36c3","text":"not-an-id 132B2F66-EE5F-46F6-8904-32D9DC4D36C3 12345678-1234"}` +
		"\nab-cdef01234-ee5f-46f6-8904-32d9dc4d36c3") // the id is the 36 bytes from "def01234"
	if got := copyIDs(in, 0); !bytes.Equal(got, in) {
		t.Errorf("copy 0 changed: %s", got)
	}
	one, two := copyIDs(in, 1), copyIDs(in, 2)
	want1 := strings.NewReplacer("132b2f66-", fmt.Sprintf("%08x-", 0x132b2f66^0x9e3779b1), "4fd1cd70-", fmt.Sprintf("%08x-", 0x4fd1cd70^0x9e3779b1),
		"def01234-", fmt.Sprintf("%08x-", 0xdef01234^0x9e3779b1)).Replace(string(in))
	if string(one) != want1 {
		t.Errorf("copy 1:\n%s\nwant\n%s", one, want1)
	}
	if bytes.Equal(one, two) || bytes.Equal(one, in) {
		t.Error("copies 1 and 2 share ids")
	}
	if !bytes.Contains(one, []byte("132B2F66-EE5F")) || !bytes.Contains(one, []byte("12345678-1234")) {
		t.Errorf("upper-case or partial ids were changed: %s", one)
	}
	if &in[0] == &one[0] {
		t.Error("the input was modified in place")
	}
}

func TestCorpusCopies(t *testing.T) {
	src := t.TempDir()
	files := map[string]string{
		"proj/aaaaaaaa-0000-0000-0000-000000000001.jsonl":                   `{"sessionId":"aaaaaaaa-0000-0000-0000-000000000001","uuid":"bbbbbbbb-0000-0000-0000-000000000002"}` + "\n",
		"proj/aaaaaaaa-0000-0000-0000-000000000001/subagents/agent-1.jsonl": `{"sessionId":"aaaaaaaa-0000-0000-0000-000000000001"}` + "\n",
		"LABELS.md": "not copied",
		"labels.csv": "session_id,file,outcome,friction_uuids\n" +
			"aaaaaaaa-0000-0000-0000-000000000001,proj/aaaaaaaa-0000-0000-0000-000000000001.jsonl,success,bbbbbbbb-0000-0000-0000-000000000002\n",
	}
	for name, content := range files {
		if err := writeFile(filepath.Join(src, name), strings.NewReader(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	w, err := corpusCopies(src, dir, 3)
	if err != nil {
		t.Fatal(err)
	}
	if w.files != 6 || w.name != "corpus-x3" || len(w.labels) != 1 {
		t.Errorf("workload %+v", w)
	}
	labels, _ := os.ReadFile(w.labels[0])
	rows := strings.Split(strings.TrimSpace(string(labels)), "\n")
	if len(rows) != 4 || !strings.HasPrefix(rows[1], "aaaaaaaa-0000-0000-0000-000000000001,copy-00/proj/aaaaaaaa-") {
		t.Fatalf("labels:\n%s", labels)
	}
	id2 := fmt.Sprintf("%08x-0000-0000-0000-000000000001", 0xaaaaaaaa^(2*0x9e3779b1&0xffffffff))
	uuid2 := fmt.Sprintf("%08x-0000-0000-0000-000000000002", 0xbbbbbbbb^(2*0x9e3779b1&0xffffffff))
	if rows[3] != id2+",copy-02/proj/"+id2+".jsonl,success,"+uuid2 {
		t.Errorf("copy 2's label: %s", rows[3])
	}
	data, err := os.ReadFile(filepath.Join(w.in, "copy-02", "proj", id2+".jsonl"))
	if err != nil || !strings.Contains(string(data), id2) || !strings.Contains(string(data), uuid2) {
		t.Errorf("copy 2's transcript: %s %v", data, err)
	}
	if _, err := os.Stat(filepath.Join(w.in, "copy-01", "LABELS.md")); err == nil {
		t.Error("a file that is not a transcript was copied")
	}
}

func TestJSONValid(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "a.jsonl"), []byte("{\"a\":1}\n\n[1,2]\n{bad\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "sub", "b.jsonl"), []byte(`{"b":"`+strings.Repeat("x", 200000)+`"}`), 0o644)
	var out strings.Builder
	if err := jsonValid(dir, &out); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.HasPrefix(got, "2 files, 4 lines (1 not valid JSON), ") {
		t.Errorf("json-valid printed %q", got)
	}
}

func TestDuckDBArgs(t *testing.T) {
	args := duckDBArgs("s.mjs", "/tmp/it's", "/o/x.parquet", 2)
	if len(args) != 3 || args[1] != "SET threads=2" ||
		!strings.Contains(args[2], "read_json('/tmp/it''s/**/*.jsonl', format='newline_delimited'") ||
		!strings.Contains(args[2], "TO '/o/x.parquet' (FORMAT parquet, COMPRESSION zstd)") {
		t.Errorf("%q", args)
	}
}

func TestCount(t *testing.T) {
	for n, want := range map[int]string{10000: "10k", 100000: "100k", 1500: "1500", 20: "20"} {
		if got := count(n); got != want {
			t.Errorf("count(%d) = %q, want %q", n, got, want)
		}
	}
}

// gitRepo makes a repository: commit A on main, branch topic with B, main with C.
func gitRepo(t *testing.T) (dir string, commits map[string]string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir = t.TempDir()
	ctx := context.Background()
	run := func(args ...string) string {
		t.Helper()
		out, err := git(ctx, dir, args...)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	run("init", "-q", "-b", "main")
	run("config", "user.email", "t@example.com")
	run("config", "user.name", "t")
	commits = map[string]string{}
	commit := func(name string) {
		os.WriteFile(filepath.Join(dir, name+".txt"), []byte(name), 0o644)
		os.MkdirAll(filepath.Join(dir, "bin"), 0o755)
		os.WriteFile(filepath.Join(dir, "bin", "run.sh"), []byte("#!/bin/sh\necho "+name+"\n"), 0o755)
		run("add", ".")
		run("commit", "-q", "-m", name)
		commits[name] = run("rev-parse", "HEAD")
	}
	commit("A")
	run("checkout", "-q", "-b", "topic")
	commit("B")
	run("checkout", "-q", "main")
	commit("C")
	return dir, commits
}

func TestBaseRef(t *testing.T) {
	dir, c := gitRepo(t)
	ctx := context.Background()
	if _, err := git(ctx, dir, "checkout", "-q", "topic"); err != nil {
		t.Fatal(err)
	}
	if got, how, err := baseRef(ctx, dir, ""); err != nil || got != c["A"] || !strings.Contains(how, "merge-base") {
		t.Errorf("on a branch: %s (%s), %v; want A %s", got, how, err, c["A"])
	}
	if got, _, err := baseRef(ctx, dir, "main"); err != nil || got != c["C"] {
		t.Errorf("--base main: %s, %v; want C", got, err)
	}
	if _, _, err := baseRef(ctx, dir, "no-such-ref"); err == nil {
		t.Error("an unknown ref resolved")
	}
	if _, err := git(ctx, dir, "checkout", "-q", "main"); err != nil {
		t.Fatal(err)
	}
	if got, how, err := baseRef(ctx, dir, ""); err != nil || got != c["A"] || !strings.Contains(how, "HEAD^1") {
		t.Errorf("on main: %s (%s), %v; want HEAD^1 = A", got, how, err)
	}
	// The export holds the commit's files, modes included, and the repository is as it was.
	out := t.TempDir()
	if err := exportTree(ctx, dir, c["B"], out); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(out, "B.txt")); err != nil || string(b) != "B" {
		t.Errorf("B.txt: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(out, "C.txt")); err == nil {
		t.Error("the export holds a file of another commit")
	}
	if info, err := os.Stat(filepath.Join(out, "bin", "run.sh")); err != nil || info.Mode()&0o100 == 0 {
		t.Errorf("run.sh lost its mode: %v %v", info, err)
	}
	if status, _ := git(ctx, dir, "status", "--porcelain"); status != "" {
		t.Errorf("the repository changed: %s", status)
	}
	if d, err := describeHead(ctx, dir); err != nil || d != c["C"][:12] {
		t.Errorf("describeHead: %q %v", d, err)
	}
	os.WriteFile(filepath.Join(dir, "A.txt"), []byte("changed"), 0o644)
	if d, _ := describeHead(ctx, dir); !strings.HasSuffix(d, "+ uncommitted changes") {
		t.Errorf("describeHead of a changed tree: %q", d)
	}
}

func runCommand(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr strings.Builder
	code := run(context.Background(), args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestUsage(t *testing.T) {
	code, _, stderr := runCommand(t, "--help")
	if code != 0 {
		t.Fatalf("--help: exit %d", code)
	}
	doctest.Examples(t, "benchcompare", stderr, 8)
	for _, args := range [][]string{
		{"--workloads", "nope"},
		{"--base", "main", "--old", "x"},
		{"--reps", "0"},
		{"scale", "--sizes", "100,10"},
		{"scale", "--kinds", "beads"},
		{"scale", "--kinds", "merge", "--shards", "0"},
		{"scale", "--kinds", "shards", "--shard-counts", "8,2"},
		{"scale", "--kinds", "shards", "--shard-runs", "0"},
		{"scale", "--kinds", "shard-replay", "--replay-shards", "4,2"},
		{"scale", "--kinds", "shard-replay", "--replay-shards", "1,2"},
		{"scale", "--kinds", "shard-replay-runs", "--runs", "0"},
		{"scale", "--kinds", "shard-replay-vibes", "--vibes", "0"},
		{"extra"},
	} {
		if code, _, stderr := runCommand(t, args...); code != 2 || !strings.Contains(stderr, "see benchcompare --help") {
			t.Errorf("%v: exit %d, %s", args, code, stderr)
		}
	}
}

// TestFailureIsNoFigure: when a workload cannot be made (here datagen fails), the
// command fails and leaves no report, not even an earlier one.
func TestFailureIsNoFigure(t *testing.T) {
	out := t.TempDir()
	stale := filepath.Join(out, "bench-compare.json")
	os.WriteFile(stale, []byte("{}"), 0o644)
	code, stdout, stderr := runCommand(t, "--old", "/bin/false", "--new", "/bin/false", "--datagen", "/bin/false",
		"--workloads", "sample", "--out", out, "--tmp", t.TempDir())
	if code != 1 || !strings.Contains(stderr, "FAILED: workload sample: /bin/false --sample --out") || stdout != "" {
		t.Errorf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	if _, err := os.Stat(stale); err == nil {
		t.Error("a stale report was left in place")
	}
}

// TestOneCore: a command run by the one-core subcommand sees one CPU and starts with
// GOMAXPROCS 1, where it sees more unpinned; bad arguments fail, saying why.
func TestOneCore(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	child := exec.Command(exe, "-test.run", "^$")
	child.Env = append(os.Environ(), childEnv+"=cores")
	if !canPinOneCore {
		if err := oneCore(child.Args); err == nil {
			t.Fatal("oneCore succeeded where it cannot pin")
		}
		t.Skip("a command is pinned to one core on Linux only")
	}
	var stderr bytes.Buffer
	pinned := onOneCore(context.Background(), exe, 1, child)
	pinned.Stderr = &stderr
	out, err := pinned.Output()
	if err != nil && strings.Contains(stderr.String(), "operation not permitted") {
		t.Skipf("this machine refuses to set a CPU affinity: %s", stderr.String())
	}
	if err != nil {
		t.Fatalf("%v: %s%s", err, out, stderr.String())
	}
	// NumCPU is the CPUs the process may run on; the runtime starts with as many Ps.
	if got := strings.TrimSpace(string(out)); got != "1 1" {
		t.Errorf("pinned child: GOMAXPROCS and NumCPU %q, want \"1 1\"", got)
	}
	out, err = child.Output()
	if err != nil {
		t.Fatal(err)
	}
	if runtime.NumCPU() > 1 && strings.TrimSpace(string(out)) == "1 1" {
		t.Errorf("unpinned child runs on one core: %q", out)
	}

	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"0", filepath.Join(t.TempDir(), "missing")}, "missing"},
		{[]string{"x", exe}, `"x" is not a number`},
		{[]string{"-1", exe}, `"-1" is not a number`},
		{[]string{"0"}, "usage: one-core N COMMAND"},
	} {
		bad := exec.Command(exe, append([]string{oneCoreCommand}, tt.args...)...)
		if out, err := bad.CombinedOutput(); err == nil || !strings.Contains(string(out), tt.want) {
			t.Errorf("one-core %q: %v: %s, want %q", tt.args, err, out, tt.want)
		}
	}
}

// TestEndToEnd builds the replay and datagen from the working tree, then compares
// HEAD (built from its export) with them on the sample, and runs the scale mode on
// tiny sizes. It builds binaries, so -short skips it.
func TestEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the replay twice: skipped in -short mode")
	}
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := git(context.Background(), root, "rev-parse", "HEAD"); err != nil {
		t.Skipf("not in a git repository: %v", err)
	}
	bins, err := goBuild(context.Background(), root, t.TempDir(), "./cmd/replay", "./cmd/datagen")
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	code, stdout, stderr := runCommand(t, "--base", "HEAD", "--new", bins["replay"], "--datagen", bins["datagen"],
		"--workloads", "sample", "--reps", "2", "--warmup", "0", "--allow-output-change", "--out", out, "--tmp", t.TempDir())
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"old: " + mustGit(t, root, "rev-parse", "--short=12", "HEAD") + " (HEAD), built from a clean export",
		"New against old", "WALL NEW/OLD", "sample ", "New with --workers 2 against --workers 1", "FLOOR NEW/NEW-W1", "CORES NEW-W1", "New with --workers 1 against a bare json.Valid pass"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if canPinOneCore {
		for _, want := range []string{"What the cores buy: new with --workers 2", "WALL NEW/NEW-1CORE", "both pinned to one core",
			"Split between processes that share nothing", "WALL NEW-PARTS/NEW-W1", "WALL NEW/NEW-PARTS",
			"The control — what the machine's cores give work that shares nothing", "WALL JSON.VALID-PARTS/JSON.VALID"} {
			if !strings.Contains(stdout, want) {
				t.Errorf("stdout lacks %q:\n%s", want, stdout)
			}
		}
	}
	var rep struct {
		Workloads []struct {
			Name     string
			Variants []struct {
				Name    string
				Samples []struct {
					Wall   int64 `json:"wall_ns"`
					MaxRSS int64 `json:"max_rss_bytes"`
				}
			}
			Comparisons []struct {
				Name    string
				Outputs string
				Floor   struct{ Median, Low, High float64 } `json:"floor_ratio"`
				Cores   float64                             `json:"base_cores"`
			}
		}
	}
	data, err := os.ReadFile(filepath.Join(out, "bench-compare.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Workloads) != 1 || len(rep.Workloads[0].Variants) < 4 {
		t.Fatalf("report: %s", data)
	}
	for _, v := range rep.Workloads[0].Variants {
		if len(v.Samples) != 2 || v.Samples[0].Wall <= 0 {
			t.Errorf("variant %s: %+v", v.Name, v.Samples)
		}
	}
	if canPinOneCore {
		found := false
		for _, c := range rep.Workloads[0].Comparisons {
			found = found || c.Name == "control"
		}
		if !found {
			t.Errorf("no control comparison: %s", data)
		}
	}
	for _, c := range rep.Workloads[0].Comparisons {
		if (c.Name == "workers" || c.Name == "cores") && c.Outputs != "identical" {
			t.Errorf("%s outputs: %q", c.Name, c.Outputs)
		}
		// Pinned to one core, the replay keeps at most that core busy (and a little
		// more: CPU and wall are read at different moments).
		if c.Name == "cores" && !(c.Cores > 0 && c.Cores < 1.2) {
			t.Errorf("cores: the pinned replay kept %.2f cores busy", c.Cores)
		}
		// The control's base is the json.Valid pass pinned to one core.
		if c.Name == "control" && !(c.Cores > 0 && c.Cores < 1.2) {
			t.Errorf("control: the pinned json.Valid pass kept %.2f cores busy", c.Cores)
		}
		if !(c.Cores > 0) {
			t.Errorf("%s: base cores %v", c.Name, c.Cores)
		}
		// --workers 2 spends CPU: spread over at most 2 cores it takes some wall time.
		if c.Name == "workers" && !(c.Floor.Median > 0 && c.Floor.Low <= c.Floor.Median && c.Floor.Median <= c.Floor.High) {
			t.Errorf("workers floor: %+v", c.Floor)
		}
		if c.Name != "workers" && c.Floor.Median != 0 {
			t.Errorf("%s has a floor: %+v", c.Name, c.Floor)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "bench-compare.md")); err != nil {
		t.Error(err)
	}

	code, stdout, stderr = runCommand(t, "scale", "--kinds", "runs,sessions", "--sizes", "20,40", "--new", bins["replay"],
		"--datagen", bins["datagen"], "--out", out, "--tmp", t.TempDir())
	if code != 0 {
		t.Fatalf("scale: exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"40 against 20 (2× the input)", "WALL 40/20", "runs ", "sessions "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("scale: stdout lacks %q:\n%s", want, stdout)
		}
	}
	// The merge: metrics over the runs replayed in 2 shards, built beside the replay.
	code, stdout, stderr = runCommand(t, "scale", "--kinds", "merge", "--sizes", "20,40", "--shards", "2", "--new", bins["replay"],
		"--datagen", bins["datagen"], "--out", out, "--tmp", t.TempDir())
	if code != 0 {
		t.Fatalf("scale merge: exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"merge: metrics (", "in 2 shards", "merge ", "WALL 40/20"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("scale merge: stdout lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "replaying shard 1/2 of 40 runs") {
		t.Errorf("scale merge: the shards were not replayed:\n%s", stderr)
	}
	// The shards: metrics over the same runs replayed in 2 and in 5 shards.
	code, stdout, stderr = runCommand(t, "scale", "--kinds", "shards", "--shard-runs", "30", "--shard-counts", "2,5", "--new", bins["replay"],
		"--datagen", bins["datagen"], "--out", out, "--tmp", t.TempDir())
	if code != 0 {
		t.Fatalf("scale shards: exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"shards: metrics (", "over 30 runs replayed in each of [2 5] shards", "the merge of 5 shards against 2 (the same 30 runs)", "WALL 5-SHARDS/2-SHARDS", "RSS 5-SHARDS/2-SHARDS"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("scale shards: stdout lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "replaying shard 4/5 of 30 runs") {
		t.Errorf("scale shards: the shards were not replayed:\n%s", stderr)
	}
	// One shard of the same sessions, and of the same runs, split in 2 and in 5.
	code, stdout, stderr = runCommand(t, "scale", "--kinds", "shard-replay,shard-replay-runs,shard-replay-vibes", "--sessions", "30", "--runs", "40", "--vibes", "15", "--replay-shards", "2,5",
		"--new", bins["replay"], "--datagen", bins["datagen"], "--out", out, "--tmp", t.TempDir())
	if code != 0 {
		t.Fatalf("scale shard-replay: exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"shard-replay: replay --shard 0/n --out DIR/ over the same 30 synthetic sessions, n in [2 5]",
		"shard-replay-runs: replay --shard 0/n --out DIR/ over the same 40 synthetic runs, n in [2 5]",
		"shard-replay-vibes: replay --shard 0/n --out DIR/ over the same 15 synthetic vibes event logs (30 sessions), n in [2 5]",
		"one shard of 5 against one of 2 (the same input; were nothing paid per shard whatever its share, 2/5 = 0.4)",
		"WALL SHARD-OF-5/SHARD-OF-2", "RSS SHARD-OF-5/SHARD-OF-2"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("scale shard-replay: stdout lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Count(stdout, "one shard of 5 against one of 2") != 1 {
		t.Errorf("scale shard-replay: not one table of the three kinds' rows:\n%s", stdout)
	}
	for _, kind := range []string{"shard-replay", "shard-replay-runs", "shard-replay-vibes"} {
		if !strings.Contains(stderr, kind+" rep 1/1 shard-of-5: wall") {
			t.Errorf("scale %s: no shard of 5 was replayed:\n%s", kind, stderr)
		}
	}
	// datagen itself, writing 20 and 40 runs and sessions, the same dataset every time.
	scaleTwoSizes(t, "datagen", bins, out,
		[]string{bins["datagen"] + " --runs n --sessions n --seed 1 --out DIR, n in [20 40]", "40 against 20 (2× the input)", "RSS 40/20", "datagen "},
		[]string{"datagen rep 2/2 40: wall"})
	// assess: a page of the history over 20 and 40 sessions replayed, assess built from
	// the working tree.
	scaleTwoSizes(t, "assess", bins, out,
		[]string{"--results FILE history --days 0 --limit 20 over n synthetic sessions replayed into FILE (not measured), n in [20 40]",
			"40 against 20 (2× the input)", "RSS 40/20", "assess "},
		[]string{"building ./cmd/assess", "replaying assess-40 into", "assess rep 2/2 40: wall"})
	// tune: its default grids over 20 and 40 sessions and their labels, tune built
	// from the working tree, its outputs the same in both repetitions.
	scaleTwoSizes(t, "tune", bins, out,
		[]string{"--in DIR/inputs --labels DIR/labels/sessions.csv --out DIR/sweep.parquet --workers 2 over n synthetic sessions and their labels",
			"40 against 20 (2× the input)", "RSS 40/20", "tune "},
		[]string{"building ./cmd/tune", "tune rep 2/2 40: wall"})
	code, _, stderr = runCommand(t, "scale", "--kinds", "runs", "--sizes", "20,40", "--new", bins["replay"],
		"--datagen", bins["datagen"], "--out", out, "--tmp", t.TempDir(), "--max-rss-growth", "0.01")
	if code != 1 || !strings.Contains(stderr, "peak RSS grew") {
		t.Errorf("scale with an impossible --max-rss-growth: exit %d\n%s", code, stderr)
	}
}

// scaleTwoSizes runs scale --kinds kind at sizes 20 and 40, twice each, and checks
// that it succeeds and that its stdout and stderr hold what is wanted.
func scaleTwoSizes(t *testing.T, kind string, bins map[string]string, out string, stdoutWants, stderrWants []string) {
	t.Helper()
	code, stdout, stderr := runCommand(t, "scale", "--kinds", kind, "--sizes", "20,40", "--reps", "2",
		"--new", bins["replay"], "--datagen", bins["datagen"], "--out", out, "--tmp", t.TempDir())
	if code != 0 {
		t.Fatalf("scale %s: exit %d\n%s\n%s", kind, code, stdout, stderr)
	}
	for _, want := range stdoutWants {
		if !strings.Contains(stdout, want) {
			t.Errorf("scale %s: stdout lacks %q:\n%s", kind, want, stdout)
		}
	}
	for _, want := range stderrWants {
		if !strings.Contains(stderr, want) {
			t.Errorf("scale %s: stderr lacks %q:\n%s", kind, want, stderr)
		}
	}
}

func mustGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := git(context.Background(), dir, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestFlagErrors: a selection that measures nothing or names a workload twice (both
// copies were written into one folder, the second truncating the first's files), and
// an RSS growth bound that cannot apply, are usage errors before anything runs.
func TestFlagErrors(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--workloads", "sample,sample"}, `workload "sample" named twice`},
		{[]string{"--workloads", ""}, "--workloads: name at least one workload"},
		{[]string{"scale", "--kinds", "runs,runs"}, `kind "runs" named twice`},
		{[]string{"scale", "--kinds", ""}, "--kinds: name at least one kind"},
		{[]string{"scale", "--max-rss-growth", "-1"}, "--max-rss-growth -1"},
		{[]string{"scale", "--max-rss-growth", "NaN"}, "--max-rss-growth NaN"},
		{[]string{"scale", "--sizes", "20", "--max-rss-growth", "1.5"}, "give two --sizes or more"},
	} {
		var out, errb bytes.Buffer
		if code := run(context.Background(), tt.args, &out, &errb); code != 2 || !strings.Contains(errb.String(), tt.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tt.args, code, errb.String(), tt.want)
		}
	}
}

// TestLinkNeverOverwrites: linking a file where its link already is leaves it whole.
func TestLinkNeverOverwrites(t *testing.T) {
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "a"), filepath.Join(dir, "b", "a")
	if err := os.WriteFile(src, []byte("content"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := link(src, dst); err != nil {
		t.Fatal(err)
	}
	if err := link(src, dst); err == nil {
		t.Error("a second link over the first succeeded")
	}
	if b, _ := os.ReadFile(src); string(b) != "content" {
		t.Errorf("the source holds %q", b)
	}
}
