package htmlreport

import (
	"bytes"
	"fmt"

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
