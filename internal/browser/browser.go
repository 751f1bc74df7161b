// Package browser loads a page in headless Chromium for tests: a full-page PNG
// screenshot, the console messages, exceptions and log entries, and every URL the
// page requested. It drives Debian's chromium over the DevTools protocol on a pipe
// (--remote-debugging-pipe: commands on the child's fd 3, replies on fd 4, each JSON
// message ended by a NUL byte), so it needs no port, no network and no module beyond
// the standard library. It is for tests only.
package browser

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// EnvVar names the environment variable that gives Chromium's path; when unset,
// chromium, chromium-browser and google-chrome are looked up on PATH.
const EnvVar = "LOOPWATCH_CHROMIUM"

// Flags are the flags every start gets: headless, and none of the background
// connections that a machine without network refuses (and that would make a test
// depend on the network).
var Flags = []string{
	"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
	"--disable-background-networking", "--disable-component-update", "--disable-sync",
	"--disable-default-apps", "--disable-extensions", "--mute-audio", "--hide-scrollbars",
}

// Find returns the path of a Chromium executable, or an error saying where it looked.
func Find() (string, error) {
	if p := os.Getenv(EnvVar); p != "" {
		if _, err := exec.LookPath(p); err != nil {
			return "", fmt.Errorf("%s=%s: %w", EnvVar, p, err)
		}
		return p, nil
	}
	names := []string{"chromium", "chromium-browser", "google-chrome"}
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no Chromium on PATH (looked for %s; set %s, or apt-get install chromium)", strings.Join(names, ", "), EnvVar)
}

// RequireVar names the environment variable that makes a missing Chromium a test
// failure rather than a skip: `make test` sets LOOPWATCH_BROWSER=required.
const RequireVar = "LOOPWATCH_BROWSER"

// ForTest returns Chromium's path, or skips the test saying why — or fails it when
// LOOPWATCH_BROWSER=required.
func ForTest(t testing.TB) string {
	t.Helper()
	exe, err := Find()
	if err != nil {
		if os.Getenv(RequireVar) == "required" {
			t.Fatalf("%v (%s=required)", err, RequireVar)
		}
		t.Skip(err)
	}
	return exe
}

// CheckFile opens the page at path in Chromium (exe) at 1280×2400 (the top of a longer page) and fails the test
// for every console error, for every request but the file itself, and when the
// screenshot is blank or lacks one of colours (hex "#rrggbb", as the page's series
// are drawn). It returns the page for further checks.
func CheckFile(t testing.TB, exe, path string, colours []string) *Page {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	url := "file://" + path
	page, err := Load(ctx, exe, url, Options{Width: 1280, Height: 2400})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range page.Errors() {
		t.Errorf("console: %s", m)
	}
	for _, r := range page.Requests {
		if r != url {
			t.Errorf("the page requested %s", r)
		}
	}
	if err := CheckScreenshot(page.PNG, colours); err != nil {
		t.Error(err)
	}
	return page
}

// Options configure a load.
type Options struct {
	Width int // viewport width in CSS pixels; 1280 when 0
	// Height bounds the screenshot to the top of the page, in CSS pixels; 0 takes the
	// whole page. (Decoding a tall PNG takes seconds under the race detector.)
	Height int
	// Scripts allows the page's JavaScript; off by default, to see the page as a
	// reader with JavaScript off would.
	Scripts bool
}

// Message is one console message, uncaught exception or browser log entry.
type Message struct {
	Level  string // error, warning, info, log, debug…
	Source string // console, exception, or the log entry's source (network, security…)
	Text   string
}

func (m Message) String() string { return m.Level + " (" + m.Source + "): " + m.Text }

// Page is what loading one page showed.
type Page struct {
	PNG      []byte    // screenshot of the whole page
	Messages []Message // in the order they came
	Requests []string  // URLs requested, the page's own first
}

// Errors returns the messages of level error.
func (p *Page) Errors() []Message {
	var errs []Message
	for _, m := range p.Messages {
		if m.Level == "error" {
			errs = append(errs, m)
		}
	}
	return errs
}

// Load starts Chromium at exe, loads one page (see [Browser.Load]) and stops it.
func Load(ctx context.Context, exe, url string, opts Options) (*Page, error) {
	b, err := Start(exe)
	if err != nil {
		return nil, err
	}
	page, err := b.Load(ctx, url, opts)
	if closeErr := b.Close(); err == nil && closeErr != nil {
		err = closeErr
	}
	return page, err
}

// Browser is a running headless Chromium with a fresh profile, driven over its
// DevTools pipe. It loads one page at a time.
type Browser struct {
	cmd     *exec.Cmd
	profile string
	out     *os.File // our end of the command pipe
	msgs    chan message
	err     error // why msgs was closed; read after it is
	stderr  *tailBuffer
	nextID  int
	closed  bool

	// The page being loaded.
	target string // its session id
	page   Page
	loaded bool // its load event came
}

type message struct {
	ID        int             `json:"id,omitempty"`
	Method    string          `json:"method,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// Start starts the Chromium at exe with a fresh profile in a temporary folder that
// Close removes.
func Start(exe string) (*Browser, error) {
	profile, err := os.MkdirTemp("", "loopwatch-chromium-*")
	if err != nil {
		return nil, err
	}
	cmdR, cmdW, err := os.Pipe() // we write commands, chromium reads them on fd 3
	if err != nil {
		os.RemoveAll(profile)
		return nil, err
	}
	resR, resW, err := os.Pipe() // chromium writes replies on fd 4, we read them
	if err != nil {
		cmdR.Close()
		cmdW.Close()
		os.RemoveAll(profile)
		return nil, err
	}
	args := append(append([]string{}, Flags...), "--user-data-dir="+profile, "--remote-debugging-pipe", "about:blank")
	s := &Browser{cmd: exec.Command(exe, args...), profile: profile, out: cmdW, msgs: make(chan message, 64),
		stderr: &tailBuffer{max: 8 << 10}}
	s.cmd.ExtraFiles = []*os.File{cmdR, resW}
	s.cmd.Stderr = s.stderr
	s.cmd.Stdout = s.stderr
	err = s.cmd.Start()
	cmdR.Close()
	resW.Close()
	if err != nil {
		cmdW.Close()
		resR.Close()
		os.RemoveAll(profile)
		return nil, fmt.Errorf("starting %s: %w", exe, err)
	}
	go s.read(resR)
	return s, nil
}

// read decodes the replies and events until the pipe closes.
func (s *Browser) read(r *os.File) {
	defer r.Close()
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		b, err := br.ReadBytes(0)
		if err != nil {
			s.err = fmt.Errorf("reading chromium's pipe: %w", err)
			close(s.msgs)
			return
		}
		var m message
		if err := json.Unmarshal(b[:len(b)-1], &m); err != nil {
			s.err = fmt.Errorf("chromium sent %.200q: %w", b, err)
			close(s.msgs)
			return
		}
		s.msgs <- m
	}
}

// next returns the next message, or an error when ctx ends or the pipe fails.
func (s *Browser) next(ctx context.Context) (message, error) {
	select {
	case m, ok := <-s.msgs:
		if !ok {
			return message{}, s.err
		}
		return m, nil
	case <-ctx.Done():
		return message{}, ctx.Err()
	}
}

// call sends a command (to the page when sessionID is set) and returns its result,
// recording the events that arrive meanwhile.
func (s *Browser) call(ctx context.Context, sessionID, method string, params any, result any) error {
	s.nextID++
	id := s.nextID
	m := map[string]any{"id": id, "method": method}
	if params != nil {
		m["params"] = params
	}
	if sessionID != "" {
		m["sessionId"] = sessionID
	}
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if _, err := s.out.Write(append(b, 0)); err != nil {
		return fmt.Errorf("%s: writing to chromium: %w", method, err)
	}
	for {
		msg, err := s.next(ctx)
		if err != nil {
			return fmt.Errorf("%s: %w", method, err)
		}
		if msg.ID != id {
			s.event(msg)
			continue
		}
		if msg.Error != nil {
			return fmt.Errorf("%s: %s (%d)", method, msg.Error.Message, msg.Error.Code)
		}
		if result != nil {
			return json.Unmarshal(msg.Result, result)
		}
		return nil
	}
}

// event records what the page reported.
func (s *Browser) event(m message) {
	if m.ID != 0 || (s.target != "" && m.SessionID != s.target) {
		return
	}
	switch m.Method {
	case "Page.loadEventFired":
		s.loaded = true
	case "Runtime.consoleAPICalled":
		var p struct {
			Type string `json:"type"`
			Args []struct {
				Value       any    `json:"value"`
				Description string `json:"description"`
			} `json:"args"`
		}
		json.Unmarshal(m.Params, &p)
		var parts []string
		for _, a := range p.Args {
			if a.Value != nil {
				parts = append(parts, fmt.Sprint(a.Value))
			} else {
				parts = append(parts, a.Description)
			}
		}
		level := p.Type
		if level == "assert" {
			level = "error"
		}
		s.page.Messages = append(s.page.Messages, Message{level, "console", strings.Join(parts, " ")})
	case "Runtime.exceptionThrown":
		var p struct {
			Details struct {
				Text      string `json:"text"`
				Exception struct {
					Description string `json:"description"`
				} `json:"exception"`
			} `json:"exceptionDetails"`
		}
		json.Unmarshal(m.Params, &p)
		s.page.Messages = append(s.page.Messages, Message{"error", "exception", strings.TrimSpace(p.Details.Text + " " + p.Details.Exception.Description)})
	case "Log.entryAdded":
		var p struct {
			Entry struct {
				Level, Source, Text, URL string
			} `json:"entry"`
		}
		json.Unmarshal(m.Params, &p)
		text := p.Entry.Text
		if p.Entry.URL != "" {
			text += " (" + p.Entry.URL + ")"
		}
		s.page.Messages = append(s.page.Messages, Message{p.Entry.Level, p.Entry.Source, text})
	case "Network.requestWillBeSent":
		var p struct {
			Request struct {
				URL string `json:"url"`
			} `json:"request"`
		}
		json.Unmarshal(m.Params, &p)
		s.page.Requests = append(s.page.Requests, p.Request.URL)
	}
}

// Load loads url in a new tab, waits for its load event and takes a screenshot of
// the whole page. ctx bounds the load.
func (s *Browser) Load(ctx context.Context, url string, opts Options) (*Page, error) {
	page, err := s.load(ctx, url, opts)
	if err != nil {
		return nil, fmt.Errorf("%w\nchromium's stderr (last lines):\n%s", err, s.stderr.String())
	}
	return page, nil
}

func (s *Browser) load(ctx context.Context, url string, opts Options) (*Page, error) {
	if opts.Width <= 0 {
		opts.Width = 1280
	}
	s.target, s.page, s.loaded = "", Page{}, false
	var created struct {
		TargetID string `json:"targetId"`
	}
	if err := s.call(ctx, "", "Target.createTarget", map[string]any{"url": "about:blank"}, &created); err != nil {
		return nil, err
	}
	var attached struct {
		SessionID string `json:"sessionId"`
	}
	if err := s.call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": created.TargetID, "flatten": true}, &attached); err != nil {
		return nil, err
	}
	s.target = attached.SessionID
	for _, c := range []struct {
		method string
		params any
	}{
		{"Page.enable", nil}, {"Runtime.enable", nil}, {"Log.enable", nil}, {"Network.enable", nil},
		{"Emulation.setScriptExecutionDisabled", map[string]any{"value": !opts.Scripts}},
		{"Emulation.setDeviceMetricsOverride", map[string]any{"width": opts.Width, "height": 900, "deviceScaleFactor": 1, "mobile": false}},
		{"Page.navigate", map[string]any{"url": url}},
	} {
		if err := s.call(ctx, s.target, c.method, c.params, nil); err != nil {
			return nil, err
		}
	}
	for !s.loaded {
		m, err := s.next(ctx)
		if err != nil {
			return nil, fmt.Errorf("waiting for %s to load: %w", url, err)
		}
		s.event(m)
	}
	var metrics struct {
		Content struct {
			Width  float64 `json:"width"`
			Height float64 `json:"height"`
		} `json:"cssContentSize"`
	}
	if err := s.call(ctx, s.target, "Page.getLayoutMetrics", nil, &metrics); err != nil {
		return nil, err
	}
	var shot struct {
		Data string `json:"data"`
	}
	height := max(metrics.Content.Height, 1)
	if opts.Height > 0 {
		height = min(height, float64(opts.Height))
	}
	clip := map[string]any{"x": 0, "y": 0, "width": max(metrics.Content.Width, float64(opts.Width)), "height": height, "scale": 1}
	if err := s.call(ctx, s.target, "Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": true, "clip": clip}, &shot); err != nil {
		return nil, err
	}
	png, err := base64.StdEncoding.DecodeString(shot.Data)
	if err != nil {
		return nil, fmt.Errorf("screenshot: %w", err)
	}
	s.page.PNG = png
	page := s.page
	if err := s.call(ctx, "", "Target.closeTarget", map[string]any{"targetId": created.TargetID}, nil); err != nil {
		return nil, err
	}
	return &page, nil
}

// Close closes the browser, kills it if it has not exited within a few seconds, and
// removes its profile.
func (s *Browser) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	defer os.RemoveAll(s.profile)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s.target = ""
	closeErr := s.call(ctx, "", "Browser.close", nil, nil)
	s.out.Close()
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		s.cmd.Process.Kill()
		<-done
		return errors.Join(closeErr, errors.New("chromium did not exit after Browser.close: killed"))
	}
	// The pipe closes as the browser exits; a close reply may not come first.
	if closeErr != nil && !errors.Is(closeErr, io.EOF) {
		return closeErr
	}
	return nil
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   bytes.Buffer
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b.Write(p)
	if over := t.b.Len() - t.max; over > 0 {
		t.b.Next(over)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.b.String()
}
