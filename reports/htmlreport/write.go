package htmlreport

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/loopwatch/loopwatch/internal/atomicfile"
	"github.com/loopwatch/loopwatch/reports"
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
// .html, not be a folder, and its folder must exist and take a new file.
func CheckPath(path string) error {
	if !strings.HasSuffix(path, ".html") {
		return fmt.Errorf("--report %s: must end in .html", path)
	}
	if err := reports.Folder(filepath.Dir(path)); err != nil {
		return fmt.Errorf("--report %s: cannot write to %s: %w", path, filepath.Dir(path), err)
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("--report %s: is a folder", path)
	}
	// The report is written last, beside what the command commits before it: a folder
	// it cannot be written into is found now, not after the tables are in place.
	probe, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".probe-*")
	if err != nil {
		return fmt.Errorf("--report %s: cannot write to %s: %w", path, filepath.Dir(path), reports.UnwrapPathError(err))
	}
	probe.Close()
	return os.Remove(probe.Name())
}
