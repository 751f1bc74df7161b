package htmlreport

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckPath: a --report path is refused before anything is written when it does
// not end in .html, names a folder, or sits in a folder that is missing or takes no
// new file; an accepted path leaves nothing behind.
func TestCheckPath(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "r.html"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "plain"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ path, want string }{
		{filepath.Join(dir, "ok.html"), ""},
		{filepath.Join(dir, "r.txt"), "must end in .html"},
		{filepath.Join(dir, "none", "r.html"), "no such folder"},
		{filepath.Join(dir, "plain", "r.html"), "not a folder"},
		{filepath.Join(dir, "r.html"), "is a folder"},
	}
	if fi, err := os.Stat("/sys"); err == nil && fi.IsDir() {
		if f, err := os.CreateTemp("/sys", "probe"); err == nil { // a machine where /sys takes files
			f.Close()
			os.Remove(f.Name())
		} else {
			tests = append(tests, struct{ path, want string }{"/sys/r.html", "cannot write to /sys"})
		}
	}
	for _, tt := range tests {
		err := CheckPath(tt.path)
		if (err == nil) != (tt.want == "") || err != nil && !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.path, err, tt.want)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("the checks left %v", entries)
	}
}
