package browser

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func page(t *testing.T, html string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "page.html")
	if err := os.WriteFile(path, []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	return "file://" + path
}

// TestLoad checks that the client sees what it must: console errors and exceptions
// when scripts run, a blocked load as an error, the requests, and a screenshot of the
// whole page.
func TestLoad(t *testing.T) {
	exe := ForTest(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	url := page(t, `<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'"/></head>
<body style="margin:0"><div style="height:2000px;background:#0072B2">tall</div><img src="data:image/png;base64,AAAA"/>
<script>console.error("boom", 42); console.log("fine"); noSuchFunction();</script></body></html>`)
	b, err := Start(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := b.Close(); err != nil {
			t.Error(err)
		}
	}()
	p, err := b.Load(ctx, url, Options{Width: 400, Scripts: true})
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, m := range p.Errors() {
		texts = append(texts, m.String())
	}
	all := strings.Join(texts, "\n")
	for _, want := range []string{"error (console): boom 42", "error (exception): Uncaught", "Content Security Policy"} {
		if !strings.Contains(all, want) {
			t.Errorf("no %q among the errors:\n%s", want, all)
		}
	}
	if slices.ContainsFunc(p.Errors(), func(m Message) bool { return m.Text == "fine" }) {
		t.Error("console.log reported as an error")
	}
	if len(p.Requests) == 0 || p.Requests[0] != url {
		t.Errorf("requests %v, want the page first", p.Requests)
	}
	img, err := png.Decode(bytes.NewReader(p.PNG))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 400 || b.Dy() < 2000 {
		t.Errorf("screenshot %v, want the whole 400×2000+ page", b)
	}

	// Scripts are off by default: the same page, in the same browser, logs nothing;
	// the screenshot stops at Height.
	p, err = b.Load(ctx, url, Options{Width: 400, Height: 300})
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(p.Messages, func(m Message) bool { return m.Source == "console" || m.Source == "exception" }) {
		t.Errorf("scripts ran with Scripts off: %v", p.Messages)
	}
	if cfg, err := png.DecodeConfig(bytes.NewReader(p.PNG)); err != nil || cfg.Width != 400 || cfg.Height != 300 {
		t.Errorf("screenshot %d×%d (%v), want 400×300", cfg.Width, cfg.Height, err)
	}
}

func TestFindHonoursEnv(t *testing.T) {
	t.Setenv(EnvVar, filepath.Join(t.TempDir(), "no-such-chromium"))
	if _, err := Find(); err == nil || !strings.Contains(err.Error(), EnvVar) {
		t.Errorf("Find with a bad %s: %v", EnvVar, err)
	}
}
