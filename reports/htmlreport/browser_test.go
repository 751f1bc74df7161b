package htmlreport

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
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
	if err := checkScreenshot(page.PNG, palette[:4]); err != nil {
		t.Error(err)
	}
}

// Minimum share of the page that is not background, and pixels of each curve colour
// (a legend swatch alone has about 50; the fixture's curves 2,500 to 12,000).
const (
	minInk         = 0.03
	minColourPixel = 1000
)

// checkScreenshot checks that a screenshot is not blank — at least minInk of its
// pixels differ from the background (the most common colour of a sample of pixels)
// — and that each colour (#rrggbb) covers at least minColourPixel pixels, allowing
// for anti-aliasing.
func checkScreenshot(b []byte, colours []string) error {
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("screenshot: %w", err)
	}
	rgba, ok := img.(*image.RGBA)
	if !ok {
		rgba = image.NewRGBA(img.Bounds())
		draw.Draw(rgba, rgba.Bounds(), img, img.Bounds().Min, draw.Src)
	}
	want := make([][3]int, len(colours))
	for i, c := range colours {
		v, err := strconv.ParseUint(c[1:], 16, 32)
		if err != nil {
			return err
		}
		want[i] = [3]int{int(v >> 16 & 0xff), int(v >> 8 & 0xff), int(v & 0xff)}
	}
	pix := rgba.Pix
	n := len(pix) / 4
	if n == 0 {
		return fmt.Errorf("screenshot is empty")
	}
	pixel := func(i int) [3]int { return [3]int{int(pix[4*i]), int(pix[4*i+1]), int(pix[4*i+2])} }
	sample := map[[3]int]int{}
	for i := 0; i < n; i += 97 {
		sample[pixel(i)]++
	}
	var bg [3]int
	for c, k := range sample {
		if k > sample[bg] || (k == sample[bg] && pack(c) < pack(bg)) {
			bg = c
		}
	}
	ink := 0
	near := make([]int, len(colours))
	for i := 0; i < len(pix); i += 4 {
		if int(pix[i]) == bg[0] && int(pix[i+1]) == bg[1] && int(pix[i+2]) == bg[2] {
			continue // most pixels: neither ink nor a wanted colour (checked below)
		}
		c := [3]int{int(pix[i]), int(pix[i+1]), int(pix[i+2])}
		if distance(c, bg) > 24 {
			ink++
		}
		for k, w := range want {
			if distance(c, w) <= 60 {
				near[k]++
			}
		}
	}
	for k, w := range want {
		if distance(bg, w) <= 60 {
			return fmt.Errorf("colour %s is the background's", colours[k])
		}
	}
	bounds := rgba.Bounds()
	if share := float64(ink) / float64(n); share < minInk {
		return fmt.Errorf("screenshot %dx%d is nearly blank: %.2f%% of its pixels differ from the background %v", bounds.Dx(), bounds.Dy(), 100*share, bg)
	}
	for i, k := range near {
		if k < minColourPixel {
			return fmt.Errorf("colour %s covers %d pixels, want ≥ %d: its curves are not drawn", colours[i], k, minColourPixel)
		}
	}
	return nil
}

func pack(c [3]int) int { return c[0]<<16 | c[1]<<8 | c[2] }

// distance is the sum of the channels' absolute differences.
func distance(a, b [3]int) int {
	return abs(a[0]-b[0]) + abs(a[1]-b[1]) + abs(a[2]-b[2])
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
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
	if err := checkScreenshot(encode(img), nil); err == nil {
		t.Error("a white page passed")
	}
	blue := color.RGBA{0x00, 0x72, 0xB2, 255}
	for y := range 40 { // 8,000 blue pixels: 40% ink
		for x := range 200 {
			img.Set(x, y, blue)
		}
	}
	if err := checkScreenshot(encode(img), []string{"#0072B2"}); err != nil {
		t.Errorf("a page with blue: %v", err)
	}
	if err := checkScreenshot(encode(img), []string{"#0072B2", "#D55E00"}); err == nil {
		t.Error("a page without vermillion passed")
	}
	if err := checkScreenshot([]byte("not a png"), nil); err == nil {
		t.Error("garbage passed")
	}
}
