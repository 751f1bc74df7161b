package htmlreport

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
)

// WriteFile renders the report to path atomically: to a hidden temporary file beside
// it, renamed into place once complete, so an interrupted run leaves no partial
// report.
func WriteFile(path string, d *Data) error {
	var buf bytes.Buffer
	if err := Render(&buf, d); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("report %s: %w", path, err)
	}
	tmp := f.Name()
	fail := func(err error) error {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("report %s: %w", path, err)
	}
	if _, err := f.Write(buf.Bytes()); err != nil {
		return fail(err)
	}
	if err := f.Chmod(0o644); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("report %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("report %s: %w", path, err)
	}
	return nil
}
