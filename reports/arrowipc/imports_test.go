package arrowipc

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/loopwatch/loopwatch/internal/corpus"
)

// TestOnlyImporterOfArrow enforces DESIGN's rule: every import of Apache Arrow is in
// this package (its tests included), so a version move is one import path.
func TestOnlyImporterOfArrow(t *testing.T) {
	root, err := corpus.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	here, _ := filepath.Abs(".")
	fset := token.NewFileSet()
	seen := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if !strings.HasPrefix(p, "github.com/apache/arrow") {
				continue
			}
			seen++
			if filepath.Dir(path) != here {
				t.Errorf("%s imports %s: only reports/arrowipc may import Arrow", path, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen == 0 {
		t.Error("no import of Arrow found at all: the walk looked in the wrong place")
	}
}
