package analyze_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestProductionImports enforces what the online loops rely on: the production code
// under analyze/ imports the standard library and analyze/ itself only — no Parquet,
// no Arrow, no flags, no other loopwatch package. Tests may import more.
func TestProductionImports(t *testing.T) {
	const self = "github.com/loopwatch/loopwatch/analyze"
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != "." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			stdlib := !strings.Contains(strings.SplitN(p, "/", 2)[0], ".")
			if !stdlib && p != self && !strings.HasPrefix(p, self+"/") {
				t.Errorf("%s imports %s: analyze/ may import only the standard library and analyze/ itself", path, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
