package datasets

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// TestReadmeRegistryExcerpt: the README's excerpt of the registry quotes the committed
// file line by line (its comments aside), so its figures are the recorded baselines.
func TestReadmeRegistryExcerpt(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	reg, err := os.ReadFile("registry.toml")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(readme), "```toml\nversion = 1\n")
	if !ok {
		t.Fatal("the README quotes no registry")
	}
	block, _, _ = strings.Cut("version = 1\n"+block, "```")
	lines := strings.Split(string(reg), "\n")
	n := 0
	for _, l := range strings.Split(block, "\n") {
		if i := strings.Index(l, "   #"); i >= 0 { // the README's comments
			l = l[:i]
		}
		if l = strings.TrimSpace(l); l == "" {
			continue
		}
		n++
		if !slices.Contains(lines, l) {
			t.Errorf("the README's registry has %q, which datasets/registry.toml does not", l)
		}
	}
	if n < 10 {
		t.Errorf("the excerpt has %d lines", n)
	}
}
