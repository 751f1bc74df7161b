package htmlreport

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/loopwatch/loopwatch/internal/atomicfile"
)

// WriteFile renders the report to path atomically: to a hidden temporary file beside
// it, renamed into place once complete, so an interrupted run leaves no partial
// report.
func WriteFile(path string, d *Data) error {
	var buf bytes.Buffer
	if err := Render(&buf, d); err != nil {
		return err
	}
	if err := atomicfile.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("report %s: %w", path, err)
	}
	return nil
}

// CheckPath rejects a --report path before anything is replayed: it must end in
// .html and its folder must exist.
func CheckPath(path string) error {
	if !strings.HasSuffix(path, ".html") {
		return fmt.Errorf("--report %s: must end in .html", path)
	}
	if fi, err := os.Stat(filepath.Dir(path)); err != nil || !fi.IsDir() {
		return fmt.Errorf("--report %s: cannot write to %s: not a folder", path, filepath.Dir(path))
	}
	return nil
}
