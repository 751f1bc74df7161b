package htmlreport

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/loopwatch/loopwatch/internal/browser"
)

// TestChromium renders the fixture's report in headless Chromium with JavaScript off,
// as a reader would open the file: the console has no error, the page requests
// nothing but itself, and the screenshot is not blank and shows the curves' colours.
// It skips when Chromium is absent, unless LOOPWATCH_BROWSER=required (make test).
// The screenshot covers the top of the page, the summary and the curves (decoding a
// whole page's PNG takes seconds under the race detector); LOOPWATCH_SCREENSHOT=
// FILE.png takes the whole page and keeps it.
func TestChromium(t *testing.T) {
	exe := browser.ForTest(t)
	path := filepath.Join(t.TempDir(), "report.html")
	if err := WriteFile(path, fixture()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	url := "file://" + path
	out := os.Getenv("LOOPWATCH_SCREENSHOT")
	opts := browser.Options{Width: 1280, Height: 1600}
	if out != "" {
		opts.Height = 0
	}
	page, err := browser.Load(ctx, exe, url, opts)
	if err != nil {
		t.Fatal(err)
	}
	if out != "" {
		if err := os.WriteFile(out, page.PNG, 0o644); err != nil {
			t.Error(err)
		}
	}
	for _, m := range page.Errors() {
		t.Errorf("console: %s", m)
	}
	for _, r := range page.Requests {
		if r != url {
			t.Errorf("the report requested %s", r)
		}
	}
	// The struggle detector's four configurations have the first four colours.
	if err := browser.CheckScreenshot(page.PNG, SeriesColours()[:4]); err != nil {
		t.Error(err)
	}
}

// TestCheckScreenshot: the check fails on a blank page and on a missing colour.
func TestCheckScreenshot(t *testing.T) {
	encode := func(img image.Image) []byte {
		var b bytes.Buffer
		if err := png.Encode(&b, img); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	img := image.NewRGBA(image.Rect(0, 0, 200, 100))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	if err := browser.CheckScreenshot(encode(img), nil); err == nil {
		t.Error("a white page passed")
	}
	blue := color.RGBA{0x00, 0x72, 0xB2, 255}
	for y := range 40 { // 8,000 blue pixels: 40% ink
		for x := range 200 {
			img.Set(x, y, blue)
		}
	}
	if err := browser.CheckScreenshot(encode(img), []string{"#0072B2"}); err != nil {
		t.Errorf("a page with blue: %v", err)
	}
	if err := browser.CheckScreenshot(encode(img), []string{"#0072B2", "#D55E00"}); err == nil {
		t.Error("a page without vermillion passed")
	}
	if err := browser.CheckScreenshot([]byte("not a png"), nil); err == nil {
		t.Error("garbage passed")
	}
}
