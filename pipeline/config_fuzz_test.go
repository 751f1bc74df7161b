package pipeline

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzConfigFiles feeds any bytes as a --struggle-config and an --assess-config file.
// A file is refused with a one-line error naming the flag and the file, or it loads
// into a configuration that validates (and, for the assessment, compiles), and that
// loads back the same when written out as --print-config prints it: what the
// metadata records is what was computed.
func FuzzConfigFiles(f *testing.F) {
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"composite_threshold": 0.7, "weights": {"budget_burn": 0.5}}`))
	f.Add([]byte(`{"preset": "seed", "case_fold": true}`))
	f.Add([]byte(`{"composite_threshold": -5}`))
	f.Add([]byte(`{"composite_threshold": 0.5} {"enabled": false}`))
	f.Add([]byte(`{"preset": "seed", "breaker": {"cooldown": "1m"}}`))
	f.Add([]byte(`{"detect": {"ema": {"alpha": 7}}, "checkpoint": {"message_threshold": -4}}`))
	f.Add([]byte(`{"detect": {"patterns": {"frustration": ["(unclosed"]}}}`))
	f.Add([]byte("\xef\xbb\xbf{\"poll_max\": 3}"))
	f.Add([]byte(`{"preset": 7}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		path := filepath.Join(dir, "config.json")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		refused := func(flag string, err error) {
			msg := err.Error()
			if strings.Contains(msg, "\n") || !strings.HasPrefix(msg, flag+" "+path+": ") {
				t.Fatalf("%s: the error is not one line naming the flag and the file: %q", flag, msg)
			}
		}
		reload := func(flag string, cfg any, load func(string) (any, error)) {
			b, err := json.MarshalIndent(cfg, "", "  ")
			if err != nil {
				t.Fatalf("%s: %v", flag, err)
			}
			again := filepath.Join(dir, "printed.json")
			if err := os.WriteFile(again, b, 0o644); err != nil {
				t.Fatal(err)
			}
			back, err := load(again)
			if err != nil {
				t.Fatalf("%s: the printed configuration does not load: %v\n%s", flag, err, b)
			}
			b2, _ := json.MarshalIndent(back, "", "  ")
			if !bytes.Equal(b, b2) {
				t.Fatalf("%s: the printed configuration loads as another:\n%s\nvs\n%s", flag, b, b2)
			}
		}

		if cfg, err := LoadStruggleConfig(path); err != nil {
			refused("--struggle-config", err)
		} else {
			if err := cfg.Validate(); err != nil {
				t.Fatalf("loaded an invalid struggle configuration: %v", err)
			}
			reload("--struggle-config", cfg, func(p string) (any, error) { return LoadStruggleConfig(p) })
		}
		if cfg, err := LoadAssessConfig(path); err != nil {
			refused("--assess-config", err)
		} else {
			reload("--assess-config", cfg, func(p string) (any, error) { return LoadAssessConfig(p) })
		}
	})
}
