package tmpname

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		base string
		dest string
		pid  int
		ok   bool
	}{
		{".results.parquet.tmp-4242-81723", "results.parquet", 4242, true},
		{".results.events.parquet.tmp-7-1", "results.events.parquet", 7, true},
		{".results.manifest.json.tmp-99-123", "results.manifest.json", 99, true},
		{".results.parquet.tmp-81723", "results.parquet", 0, true}, // the naming before pids
		{".loopwatch-probe-12-345", "", 12, true},
		{".loopwatch-probe-345", "", 0, true},
		{"results.parquet", "", 0, false},
		{".notes.txt.tmp-1-2", "", 0, false},
		{"results.parquet.tmp-1-2", "", 0, false},
		{".gitignore", "", 0, false},
		{".datagen.tmp-4242-81723", "datagen", 4242, true}, // a temporary folder
		{".datagen.tmp-81723", "datagen", 0, true},
		{".other.tmp-1-2", "", 0, false},
	}
	for _, tt := range tests {
		dest, pid, ok := Parse(tt.base)
		if dest != tt.dest || pid != tt.pid || ok != tt.ok {
			t.Errorf("Parse(%q) = %q, %d, %v; want %q, %d, %v", tt.base, dest, pid, ok, tt.dest, tt.pid, tt.ok)
		}
	}
}

func TestCreateNamesParse(t *testing.T) {
	dir := t.TempDir()
	f, err := Create(filepath.Join(dir, "out.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	l, err := CreateLabelled(filepath.Join(dir, "out.manifest.json"), "scratch.predictions.0")
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	if dest, _, _ := Parse(filepath.Base(l.Name())); dest != "out.manifest.json" {
		t.Errorf("labelled: dest %q", dest)
	}
	d, err := MkdirTemp(dir, "datagen")
	if err != nil {
		t.Fatal(err)
	}
	if dest, pid, ok := Parse(filepath.Base(d)); dest != "datagen" || pid != os.Getpid() || !ok || !IsFolder(filepath.Base(d)) {
		t.Errorf("folder %s: parsed %q pid %d ok %v", d, dest, pid, ok)
	}
	if _, err := MkdirTemp(dir, "results.parquet"); err == nil {
		t.Error("MkdirTemp of a name not in Folders: no error")
	}
	p, err := CreateProbe(dir)
	if err != nil {
		t.Fatal(err)
	}
	p.Close()
	for _, name := range []string{f.Name(), l.Name(), p.Name()} {
		dest, pid, ok := Parse(filepath.Base(name))
		if !ok || pid != os.Getpid() {
			t.Errorf("%s: parsed %q pid %d ok %v, want pid %s", name, dest, pid, ok, strconv.Itoa(os.Getpid()))
		}
	}
	if dest, _, _ := Parse(filepath.Base(f.Name())); dest != "out.parquet" {
		t.Errorf("dest %q", dest)
	}
}
