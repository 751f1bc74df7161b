// Package corpus finds the real-world corpora that loopwatch's corpus tests replay.
// The corpora are not part of the module: they live in a folder beside it
// (../shared/corpora from the folder holding go.mod) or wherever the environment
// variable LOOPWATCH_CORPORA points. Tests skip when a corpus is absent.
//
// The package only locates folders; it never copies or reads corpus files.
package corpus

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// EnvVar names the environment variable that points at the corpora folder.
const EnvVar = "LOOPWATCH_CORPORA"

// Dir returns the folder of the named corpus (e.g. "quasar"): under $LOOPWATCH_CORPORA
// when it is set, else under ../shared/corpora beside the module root found by walking
// up from the working directory to the folder holding go.mod. It returns an error
// saying where it looked when the corpus is not there.
//
// In a test run with -short it returns an error, so corpus tests skip: `make test`
// runs them in a pass of their own, without the race detector, which would make
// replaying the real corpora many times slower for no gain (the code paths they
// exercise run under the race detector on the small fixtures).
func Dir(name string) (string, error) {
	if testing.Testing() && testing.Short() {
		return "", fmt.Errorf("corpus %s: corpus tests are skipped in -short mode (make test runs them without -short in a pass of their own)", name)
	}
	if root := os.Getenv(EnvVar); root != "" {
		dir := filepath.Join(root, name)
		if isDir(dir) {
			return dir, nil
		}
		return "", fmt.Errorf("corpus %s not found in %s=%s", name, EnvVar, root)
	}
	root, err := ModuleRoot()
	if err != nil {
		return "", err
	}
	dir := filepath.Clean(filepath.Join(root, "..", "shared", "corpora", name))
	if isDir(dir) {
		return dir, nil
	}
	return "", fmt.Errorf("corpus %s not found at %s (set %s to the corpora folder)", name, dir, EnvVar)
}

// ModuleRoot returns the folder holding go.mod, found by walking up from the working
// directory (a test's package folder).
func ModuleRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", errors.New("no go.mod above the working directory")
		}
	}
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// BenchDir is [Dir] for a benchmark: where the corpus is absent it says so on stderr
// before skipping — go test -bench shows a benchmark's skip only with -v, and a
// benchmark that vanished from a report without a word reads as one that never
// existed.
func BenchDir(b *testing.B, name string) string {
	b.Helper()
	dir, err := Dir(name)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: skipped: %v\n", b.Name(), err)
		b.Skip(err)
	}
	return dir
}

// Readme returns the text of the module's README, for the tests that hold what it
// quotes to what the commands print.
func Readme(t testing.TB) string {
	t.Helper()
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
