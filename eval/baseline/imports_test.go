package baseline

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImports keeps the baselines beside the evaluation code and out of the data flow
// above them: they read analyze's types, the seed's struggle configuration and
// replay's normalised runs and sessions, and the standard library; nothing else.
func TestImports(t *testing.T) {
	allowed := map[string]bool{
		"github.com/loopwatch/loopwatch/analyze":          true,
		"github.com/loopwatch/loopwatch/analyze/struggle": true,
		"github.com/loopwatch/loopwatch/replay/input":     true,
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if strings.Contains(strings.SplitN(p, "/", 2)[0], ".") && !allowed[p] {
				t.Errorf("%s imports %s: the baselines may import only the standard library, analyze, analyze/struggle and replay/input", name, p)
			}
		}
	}
}
