package reports

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loopwatch/loopwatch/internal/tmpname"
)

// TestStaleTemporariesAreCleaned: a killed replay's temporaries (its process gone, or
// of the naming before pids and old) are removed by the next output to the same place;
// a live process's, another output's and other files stay.
func TestStaleTemporariesAreCleaned(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no process signals: only the age rule applies")
	}
	dead := exec.Command(os.Args[0], "-test.run=^$")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	deadPID := dead.Process.Pid
	dir := t.TempDir()
	write := func(name string, age time.Duration) {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		old := time.Now().Add(-age)
		os.Chtimes(p, old, old)
	}
	gone := []string{
		fmt.Sprintf(".res.parquet.tmp-%d-111", deadPID),
		fmt.Sprintf(".res.events.parquet.tmp-%d-222", deadPID),
		fmt.Sprintf(".res.manifest.json.tmp-%d-333", deadPID),
		fmt.Sprintf(".res.manifest.json.tmp-%d-scratch.predictions.0-334", deadPID), // a killed replay's scratch file
		fmt.Sprintf(".loopwatch-probe-%d-444", deadPID),
		".res.cycles.parquet.tmp-555", // the naming before pids, two days old
	}
	kept := []string{
		fmt.Sprintf(".res.parquet.tmp-%d-666", os.Getppid()), // a live process: a concurrent replay
		".res.cycles.parquet.tmp-777",                        // the naming before pids, fresh
		fmt.Sprintf(".other.parquet.tmp-%d-888", deadPID),    // another output's
		fmt.Sprintf(".res.notes.txt.tmp-%d-999", deadPID),    // not our naming
		"res.parquet",
	}
	for _, n := range gone {
		write(n, 48*time.Hour)
	}
	for _, n := range kept {
		write(n, 48*time.Hour)
	}
	write(".res.cycles.parquet.tmp-777", time.Minute)
	out, err := NewOutput(filepath.Join(dir, "res.parquet"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Abort()
	var cleaned []string
	for _, p := range out.Cleaned() {
		cleaned = append(cleaned, filepath.Base(p))
	}
	slices.Sort(cleaned)
	slices.Sort(gone)
	if !slices.Equal(cleaned, gone) {
		t.Errorf("cleaned %v, want %v", cleaned, gone)
	}
	have := entries(t, dir)
	for _, n := range kept {
		if !slices.Contains(have, n) {
			t.Errorf("%s was removed", n)
		}
	}
}

func writeOutput(t *testing.T, path, fingerprint string, rows int) *Output {
	t.Helper()
	out, err := NewOutput(path, map[string]string{"loopwatch.input_fingerprint": fingerprint})
	if err != nil {
		t.Fatal(err)
	}
	runs := mustTable[ProblemRow](t, out, "")
	events := mustTable[ProblemRow](t, out, "events")
	for i := 0; i < rows; i++ {
		if err := runs.Write(ProblemRow{File: "f", Line: int32(i)}); err != nil {
			t.Fatal(err)
		}
		if err := events.Write(ProblemRow{File: "e", Line: int32(i)}); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestCommitWritesAManifestLast: the manifest lists the set with sizes and hashes and
// the replay id every table carries; the same input and settings give the same files.
func TestCommitWritesAManifestLast(t *testing.T) {
	dirs := []string{t.TempDir(), t.TempDir()}
	for _, d := range dirs {
		if err := writeOutput(t, filepath.Join(d, "res.parquet"), "fp1", 10).Commit(); err != nil {
			t.Fatal(err)
		}
	}
	m, err := ReadManifest(filepath.Join(dirs[0], "res.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if m.ReplayID == "" || m.InputFingerprint != "fp1" || len(m.Tables) != 2 || m.Table("events") == nil || m.Table("runs").File != "res.parquet" {
		t.Fatalf("manifest %+v", m)
	}
	for _, tb := range m.Tables {
		fi, err := os.Stat(filepath.Join(dirs[0], tb.File))
		if err != nil || fi.Size() != tb.Bytes || len(tb.SHA256) != 64 {
			t.Errorf("table %+v: %v, size %d", tb, err, fi.Size())
		}
	}
	for _, name := range []string{"res.parquet", "res.events.parquet", "res.manifest.json"} {
		a, _ := os.ReadFile(filepath.Join(dirs[0], name))
		b, _ := os.ReadFile(filepath.Join(dirs[1], name))
		if string(a) != string(b) || len(a) == 0 {
			t.Errorf("%s differs between two identical replays", name)
		}
	}
	out := writeOutput(t, filepath.Join(dirs[0], "x.parquet"), "fp", 1)
	defer out.Abort()
	if got := fmt.Sprint(out.Files()); !strings.Contains(got, "x.events.parquet") || !strings.HasSuffix(got, "x.manifest.json]") {
		t.Errorf("Files() = %s", got)
	}
}

// snapshot reads every file of dir by name (temporaries included).
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	for _, e := range entries(t, dir) {
		b, err := os.ReadFile(filepath.Join(dir, e))
		if err == nil {
			files[e] = string(b)
		}
	}
	return files
}

// TestCommitRefusesAFolder: a destination that is a folder is refused before anything
// moves; the previous output stands as it was, and no temporary is left.
func TestCommitRefusesAFolder(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "res.parquet")
	if err := writeOutput(t, path, "old", 5).Commit(); err != nil {
		t.Fatal(err)
	}
	events := filepath.Join(dir, "res.events.parquet")
	os.Remove(events)
	os.MkdirAll(filepath.Join(events, "x"), 0o755)
	before := snapshot(t, dir)
	err := writeOutput(t, path, "new", 7).Commit()
	if err == nil || !strings.Contains(err.Error(), "res.events.parquet: is a folder; nothing was replaced") {
		t.Fatalf("commit: %v", err)
	}
	if after := snapshot(t, dir); !maps.Equal(before, after) {
		t.Errorf("files changed by a refused commit: %v, before %v", slices.Sorted(maps.Keys(after)), slices.Sorted(maps.Keys(before)))
	}
}

// TestFailedCommitPutsThePreviousBack: whichever rename of a commit fails — moving a
// previous table or the manifest aside, or putting a new one in place — the previous
// output is left byte for byte as it was, manifest and all, or, with none, nothing;
// and no temporary is left. Only when moving back fails too is the output said to be
// incomplete, with no manifest.
func TestFailedCommitPutsThePreviousBack(t *testing.T) {
	for _, previous := range []bool{true, false} {
		for fail := 0; ; fail++ {
			dir := t.TempDir()
			path := filepath.Join(dir, "res.parquet")
			if previous {
				if err := writeOutput(t, path, "old", 5).Commit(); err != nil {
					t.Fatal(err)
				}
			}
			// A file of the previous set the new one does not write: retired with the commit.
			stale := filepath.Join(dir, "res.stale.json")
			if err := os.WriteFile(stale, []byte("{}"), 0o644); err != nil {
				t.Fatal(err)
			}
			before := snapshot(t, dir)
			out := writeOutput(t, path, "new", 7)
			sum := sha256.Sum256([]byte("{}"))
			out.Retire(PreviousFile{Path: stale, Bytes: 2, SHA256: hex.EncodeToString(sum[:])})
			calls := 0
			out.rename = func(oldpath, newpath string) error {
				calls++
				if calls == fail+1 {
					return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: errors.New("injected")}
				}
				return os.Rename(oldpath, newpath)
			}
			err := out.Commit()
			if err == nil { // past the commit's last rename: every one was failed once
				if fail < 3 {
					t.Fatalf("previous %v: only %d renames", previous, calls)
				}
				if m, rerr := ReadManifest(path); rerr != nil || m.InputFingerprint != "new" {
					t.Errorf("previous %v: after a commit that went through: %+v, %v", previous, m, rerr)
				}
				if _, serr := os.Lstat(stale); !os.IsNotExist(serr) || !slices.Equal(out.Retired(), []string{stale}) {
					t.Errorf("previous %v: the retired file after the commit: %v, retired %v", previous, serr, out.Retired())
				}
				break
			}
			if !strings.Contains(err.Error(), "injected; nothing was replaced") {
				t.Errorf("previous %v, rename %d failing: %v", previous, fail+1, err)
			}
			if after := snapshot(t, dir); !maps.Equal(before, after) {
				t.Errorf("previous %v, rename %d failing: files %v, before %v", previous, fail+1, slices.Sorted(maps.Keys(after)), slices.Sorted(maps.Keys(before)))
			}
		}
	}
	t.Run("moving back fails too", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "res.parquet")
		if err := writeOutput(t, path, "old", 5).Commit(); err != nil {
			t.Fatal(err)
		}
		out := writeOutput(t, path, "new", 7)
		calls := 0
		out.rename = func(oldpath, newpath string) error {
			calls++
			if calls >= 4 { // the manifest and the run table aside, the new run table in place; then nothing
				return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: errors.New("injected")}
			}
			return os.Rename(oldpath, newpath)
		}
		err := out.Commit()
		if err == nil || !strings.Contains(err.Error(), "incomplete") || !strings.Contains(err.Error(), "putting the previous ones back failed too") {
			t.Fatalf("commit: %v", err)
		}
		if _, err := ReadManifest(path); !os.IsNotExist(err) {
			t.Errorf("a manifest stands for an incomplete output: %v", err)
		}
	})
}

// TestRetire: Commit removes the retired files that stand as regular files beside the
// set, are none of its own, however spelled, and still hold what the previous output
// wrote (its size and SHA-256); the others are left alone, those changed since named
// by Kept.
func TestRetire(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "res.parquet")
	if err := writeOutput(t, path, "old", 5).Commit(); err != nil {
		t.Fatal(err)
	}
	stale, folder := filepath.Join(dir, "res.stale.json"), filepath.Join(dir, "res.folder.json")
	if err := os.Mkdir(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	const written = "{}" // the stale file as the previous output wrote it
	sum := sha256.Sum256([]byte(written))
	previous := func(path string) PreviousFile {
		return PreviousFile{Path: path, Bytes: int64(len(written)), SHA256: hex.EncodeToString(sum[:])}
	}
	for _, tt := range []struct {
		name    string
		retire  string
		content string // what stale holds at the commit
		retired bool   // removed by the commit
		kept    bool   // left as changed since
	}{
		{"a file of the previous set", stale, written, true, false},
		{"the same again", stale, written, true, false},
		{"edited since, its size the same", stale, "[]", false, true},
		{"edited since, its size another", stale, "{\"a\":1}", false, true},
		{"a table of the new set, spelled otherwise", dir + "/./res.events.parquet", written, false, false},
		{"the new set's run table", path, written, false, false},
		{"a folder", folder, written, false, false},
		{"no such file", filepath.Join(dir, "res.none.json"), written, false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := os.WriteFile(stale, []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := os.Lstat(tt.retire)
			existed := err == nil
			out := writeOutput(t, path, "new", 7)
			out.Retire(previous(tt.retire), previous(tt.retire))
			if err := out.Commit(); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Lstat(tt.retire); (err == nil) != (existed && !tt.retired) {
				t.Errorf("%s after the commit: %v", tt.retire, err)
			}
			if want := map[bool][]string{true: {tt.retire}}[tt.retired]; !slices.Equal(out.Retired(), want) {
				t.Errorf("retired %v, want %v", out.Retired(), want)
			}
			if want := map[bool][]string{true: {tt.retire}}[tt.kept]; !slices.Equal(out.Kept(), want) {
				t.Errorf("kept %v, want %v", out.Kept(), want)
			}
			if tt.kept {
				if b, err := os.ReadFile(tt.retire); err != nil || string(b) != tt.content {
					t.Errorf("%s after the commit: %q, %v; want it as edited", tt.retire, b, err)
				}
			}
			if m, err := ReadManifest(path); err != nil || m.InputFingerprint != "new" || len(m.Tables) != 2 {
				t.Errorf("manifest %+v, %v", m, err)
			}
		})
	}
}

// TestCommitRemovesWhatItSupersedes: the files derived from an output (a split
// replay's merged files, derived from a shard's partition) are removed by a commit
// that replaces the output by another — before any table moves, and again once the
// manifest is in place, in case a concurrent process put them back — and by one that
// fails part-way too (the previous output then stands, but another part of the
// dataset may have changed meanwhile); a commit of the very output in place keeps
// them.
func TestCommitRemovesWhatItSupersedes(t *testing.T) {
	for _, tt := range []struct {
		name     string
		previous string // the previous output's fingerprint ("": none)
		putBack  bool   // the derived files are put back while the tables move
		fail     bool   // the commit's second rename fails
		kept     bool
	}{
		{name: "no previous output"},
		{name: "another output", previous: "old"},
		{name: "the same output again", previous: "new", kept: true},
		{name: "put back while the tables move", previous: "old", putBack: true},
		{name: "a failed commit", previous: "old", fail: true},
		{name: "a failed commit of the same output", previous: "new", fail: true, kept: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "res.parquet")
			if tt.previous != "" {
				if err := writeOutput(t, path, tt.previous, 7).Commit(); err != nil {
					t.Fatal(err)
				}
			}
			derived := []string{filepath.Join(dir, "merged.manifest.json"), filepath.Join(dir, "metrics", "part-0.parquet")}
			putDerived := func() {
				for _, f := range derived {
					if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil || os.WriteFile(f, []byte(f), 0o644) != nil {
						t.Fatal(err)
					}
				}
			}
			putDerived()
			before := snapshot(t, dir)
			out := writeOutput(t, path, "new", 7)
			out.Supersedes(derived...)
			calls := 0
			out.rename = func(oldpath, newpath string) error {
				calls++
				if tt.fail && calls == 2 {
					return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: errors.New("injected")}
				}
				if tt.putBack && calls == 2 {
					putDerived()
				}
				return os.Rename(oldpath, newpath)
			}
			err := out.Commit()
			if tt.fail != (err != nil) {
				t.Fatalf("commit: %v", err)
			}
			for _, f := range derived {
				if _, err := os.Stat(f); (err == nil) != tt.kept {
					t.Errorf("%s: kept %v, want %v", f, err == nil, tt.kept)
				}
			}
			if tt.fail { // the previous output stands as it was
				for f, b := range before {
					if got, err := os.ReadFile(filepath.Join(dir, f)); !slices.Contains(derived, filepath.Join(dir, f)) && (err != nil || string(got) != b) {
						t.Errorf("%s changed by a failed commit", f)
					}
				}
			}
		})
	}
}

// TestScratchFilesAreRemoved: an output's scratch files are temporaries beside it,
// removed by Commit — also when it fails — and by Abort.
func TestScratchFilesAreRemoved(t *testing.T) {
	scratch := func(out *Output) string {
		t.Helper()
		f, err := out.Scratch("predictions.0")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString("records"); err != nil {
			t.Fatal(err)
		}
		if dest, pid, ok := tmpname.Parse(filepath.Base(f.Name())); !ok || pid != os.Getpid() || dest != "res.manifest.json" {
			t.Errorf("scratch file %s: a temporary of %q, pid %d, %v", f.Name(), dest, pid, ok)
		}
		return f.Name()
	}
	left := func(dir, when string) {
		t.Helper()
		for _, e := range entries(t, dir) {
			if strings.Contains(e, ".tmp-") {
				t.Errorf("%s: temporary %s left behind", when, e)
			}
		}
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "res.parquet")
	out := writeOutput(t, path, "fp", 3)
	name := scratch(out)
	if _, err := os.Stat(name); err != nil {
		t.Fatalf("scratch file not there before the commit: %v", err)
	}
	if err := out.Commit(); err != nil {
		t.Fatal(err)
	}
	left(dir, "committed")
	if _, err := out.Scratch("late"); err == nil {
		t.Error("a scratch file of a committed output")
	}

	out = writeOutput(t, path, "fp", 3)
	scratch(out)
	out.Abort()
	left(dir, "aborted")

	// A commit that fails (a table's destination is a folder that is not empty).
	events := filepath.Join(dir, "res.events.parquet")
	os.Remove(events)
	os.MkdirAll(filepath.Join(events, "x"), 0o755)
	out = writeOutput(t, path, "fp", 3)
	scratch(out)
	if err := out.Commit(); err == nil {
		t.Fatal("commit succeeded")
	}
	out.Abort()
	left(dir, "failed commit")
}

// TestSealedTablesCommitAsTheOthers: a table sealed before the commit is the same file,
// byte for byte, as one Commit closes, and is put in place with the others; it takes
// no more rows; a change of the metadata or the tables after a Seal fails the commit
// and leaves nothing; Abort removes a sealed table's temporary.
func TestSealedTablesCommitAsTheOthers(t *testing.T) {
	write := func(dir string, seal bool) (*Output, *Table[ProblemRow], *Table[ProblemRow]) {
		out, err := NewOutput(filepath.Join(dir, "res.parquet"), map[string]string{"k": "v"})
		if err != nil {
			t.Fatal(err)
		}
		runs := mustTable[ProblemRow](t, out, "")
		events := mustTable[ProblemRow](t, out, "events")
		for i := range 3000 {
			if err := runs.Write(ProblemRow{File: "f", Line: int32(i)}); err != nil {
				t.Fatal(err)
			}
		}
		if seal {
			if err := runs.Seal(); err != nil {
				t.Fatal(err)
			}
			if err := runs.Write(ProblemRow{File: "late"}); err == nil {
				t.Error("a sealed table took a row")
			}
		}
		if err := events.Write(ProblemRow{File: "e"}); err != nil {
			t.Fatal(err)
		}
		return out, runs, events
	}
	plain, sealed := t.TempDir(), t.TempDir()
	for dir, seal := range map[string]bool{plain: false, sealed: true} {
		out, _, _ := write(dir, seal)
		if err := out.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"res.parquet", "res.events.parquet", "res.manifest.json"} {
		a, _ := os.ReadFile(filepath.Join(plain, name))
		b, _ := os.ReadFile(filepath.Join(sealed, name))
		if len(a) == 0 || string(a) != string(b) {
			t.Errorf("%s: sealed early, it differs from the one the commit wrote", name)
		}
	}

	for _, tc := range []struct {
		name   string
		change func(out *Output)
	}{
		{"metadata", func(out *Output) { out.SetMetadata("late", "x") }},
		{"tables", func(out *Output) { NewTable[ProblemRow](out, "more") }},
	} {
		dir := t.TempDir()
		out, _, events := write(dir, true)
		tc.change(out)
		if err := events.Seal(); err == nil || !strings.Contains(err.Error(), "changed after") {
			t.Errorf("%s changed: sealing another table: %v", tc.name, err)
		}
		if err := out.Commit(); err == nil || !strings.Contains(err.Error(), "changed after") {
			t.Errorf("%s changed: commit: %v", tc.name, err)
		}
		if got := entries(t, dir); len(got) != 0 {
			t.Errorf("%s changed: the failed commit left %v", tc.name, got)
		}
	}

	dir := t.TempDir()
	out, runs, _ := write(dir, true)
	out.Abort()
	if got := entries(t, dir); len(got) != 0 {
		t.Errorf("abort left %v", got)
	}
	if err := runs.Seal(); err == nil {
		t.Error("sealed a table of an aborted output")
	}
}

// TestFolder: a folder is one to write into; a missing path and a file are not, each
// said so.
func TestFolder(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		path string
		want error
	}{{dir, nil}, {filepath.Join(dir, "none"), ErrNoSuchFolder}, {file, ErrNotAFolder}} {
		if err := Folder(tt.path); !errors.Is(err, tt.want) || (err == nil) != (tt.want == nil) {
			t.Errorf("Folder(%s) = %v, want %v", tt.path, err, tt.want)
		}
	}
}
