package checkparse

import (
	"strings"

	"github.com/loopwatch/loopwatch/analyze/fixloop/filter"
)

// Kind says what produced a [Diagnostic].
type Kind string

// The kinds of diagnostic.
const (
	KindBuild  Kind = "build"  // a package or test file failed to compile (go build, or go test building it)
	KindVet    Kind = "vet"    // a go vet report (also `vet:`-prefixed type errors)
	KindLint   Kind = "lint"   // a golangci-lint issue
	KindTest   Kind = "test"   // a failing test's `file_test.go:line: message`
	KindPanic  Kind = "panic"  // a panic, fatal error or test timeout in go test
	KindClaims Kind = "claims" // a modified file not claimed by the task
	KindOther  Kind = "other"  // a location line in the output of a check of unknown name
)

// Diagnostic is one structured error found in a check's output.
type Diagnostic struct {
	Kind    Kind
	File    string // as printed, minus a leading "./"; "" when unknown
	Line    int    // 1-based; 0 when unknown
	Column  int    // 1-based; 0 when unknown
	Message string // the message; continuation lines are joined with "\n"
	Test    string // failing test ("TestA" or "TestA/sub") for test and panic kinds
	Package string // import path, from a `# pkg` header or a `FAIL\tpkg` summary line
	Linter  string // golangci-lint linter name, for the lint kind
}

// ParseResult is what [ParseCheckOutput] found in one check's output.
type ParseResult struct {
	CheckName    string       // the check's name ("build", "vet", "lint", "test", "claims", …)
	Errors       []Diagnostic // de-duplicated, in order of appearance; empty when nothing parsed
	RawOutput    string       // the check's output, unchanged
	Recognized   int          // non-blank lines understood (errors, headers, traces, summaries)
	Unrecognized int          // non-blank lines not understood
	Duplicates   int          // errors dropped as duplicates of an earlier (file, line, message)
}

// ParseCheckOutput extracts structured errors from a check's output. The check's name
// selects the kind of location lines outside tests (build, vet, lint; test output's
// compile errors are build errors); output of a check with another name is still
// parsed, its location lines being [KindOther]. It never fails: whatever it does not
// understand is counted in Unrecognized and left in RawOutput.
func ParseCheckOutput(cr filter.CheckResult) ParseResult {
	p := parser{res: ParseResult{CheckName: cr.Name, RawOutput: cr.Output}, last: -1}
	out := cr.Output
	for len(out) > 0 {
		line := out
		if i := strings.IndexByte(out, '\n'); i >= 0 {
			line, out = out[:i], out[i+1:]
		} else {
			out = ""
		}
		p.line(strings.TrimSuffix(line, "\r"))
	}
	p.endError()
	p.endPanic()
	p.dedupe()
	return p.res
}

// Parsed reports whether any structured error was found.
func (r *ParseResult) Parsed() bool { return len(r.Errors) > 0 }

type testFrame struct {
	indent int
	name   string
	failed bool
}

type mode int

const (
	modeNormal mode = iota
	modePanic
	modeClaims
)

type parser struct {
	res   ParseResult
	mode  mode
	tests []testFrame // --- FAIL/PASS/SKIP lines seen in the current package, by indent
	pkg   string      // package of the last `# pkg` header
	from  int         // first error not yet given a package by a summary line

	last       int    // index of the error that continuation lines extend, or -1
	lastIndent int    // indentation of that error's line
	cont       []byte // its continuation lines so far, each after a "\n"
	snippet    int    // source-snippet lines still allowed after a golangci-lint issue

	claimsTask string

	// panic block being read
	pan      Diagnostic
	fn       string // function of the frame whose file line comes next
	running  bool   // inside "running tests:" of a timeout
	userSet  bool   // pan has a non-standard-library frame
	testFile string // first _test.go frame, fallback location
	testLine int
	goroot   string // "<GOROOT>/src/", learned from standard-library frames
}

func (p *parser) line(raw string) {
	content := strings.TrimLeft(raw, " \t")
	if content == "" {
		return
	}
	indent := len(raw) - len(content)
	content = strings.TrimRight(content, " \t")

	switch p.mode {
	case modePanic:
		if p.panicLine(content, indent) {
			p.res.Recognized++
			return
		}
		p.endPanic()
	case modeClaims:
		if indent > 0 {
			p.claimsLine(content)
			p.res.Recognized++
			return
		}
		p.mode = modeNormal
	}
	if p.normalLine(content, indent) {
		p.res.Recognized++
		return
	}
	p.res.Unrecognized++
	p.endError()
	p.snippet = 0
}

// maxSnippet bounds the source lines golangci-lint prints under one issue before its
// caret line.
const maxSnippet = 16

// normalLine handles a line outside panic and claims blocks.
func (p *parser) normalLine(c string, indent int) bool {
	if p.snippet > 0 {
		// golangci-lint prints the offending source line(s) as they are in the file,
		// at any indentation, then a caret line under the column.
		p.snippet--
		if c == "^" {
			p.snippet = 0
			return true
		}
		if _, _, _, _, isLoc := parseLocation(strings.TrimPrefix(c, "vet: ")); !isLoc && !lintSummary(c) {
			return true
		}
		p.snippet = 0
	}
	if name, status, ok := testStatus(c); ok {
		p.popTests(indent)
		p.tests = append(p.tests, testFrame{indent: indent, name: name, failed: status == "FAIL"})
		p.endError()
		return true
	}
	if strings.HasPrefix(c, "=== ") {
		for _, v := range [...]string{"RUN ", "PAUSE ", "CONT ", "NAME "} {
			if strings.HasPrefix(c[4:], v) {
				p.endError()
				return true
			}
		}
	}
	if indent == 0 && strings.HasPrefix(c, "# ") {
		pkg := strings.TrimSpace(c[2:])
		if f, _, ok := strings.Cut(pkg, " "); ok {
			pkg = f
		}
		p.pkg = strings.TrimSuffix(strings.TrimPrefix(pkg, "["), "]")
		p.endError()
		return true
	}
	if indent == 0 {
		if pkg, ok := summaryLine(c); ok {
			if pkg != "" {
				for i := p.from; i < len(p.res.Errors); i++ {
					if p.res.Errors[i].Package == "" {
						p.res.Errors[i].Package = pkg
					}
				}
				p.from = len(p.res.Errors)
			}
			p.tests = p.tests[:0]
			p.pkg = ""
			p.endError()
			return true
		}
		if strings.HasPrefix(c, "exit status ") && allDigits(c[len("exit status "):]) {
			return true
		}
		if msg, ok := panicStart(c); ok {
			p.startPanic(msg)
			return true
		}
		if task, ok := strings.CutPrefix(c, "Modified files not claimed by task "); ok && strings.HasSuffix(task, ":") {
			p.mode = modeClaims
			p.claimsTask = strings.TrimSuffix(task, ":")
			p.endError()
			return true
		}
	}
	if p.location(c, indent) {
		return true
	}
	if p.last >= 0 && indent > p.lastIndent {
		// A continuation line: have/want of a compile error, the rest of a multi-line
		// test message.
		p.cont = append(append(p.cont, '\n'), c...)
		return true
	}
	if lintSummary(c) {
		p.endError()
		return true
	}
	return false
}

// location handles `file:line[:col]: message` lines.
func (p *parser) location(c string, indent int) bool {
	vet := false
	if rest, ok := strings.CutPrefix(c, "vet: "); ok {
		c, vet = rest, true
	}
	file, line, col, msg, ok := parseLocation(c)
	if !ok {
		return false
	}
	d := Diagnostic{File: strings.TrimPrefix(file, "./"), Line: line, Column: col, Message: msg, Package: p.pkg}
	if t := p.owner(indent); t != nil {
		if !t.failed {
			p.endError() // a log line of a passing or skipped test
			return true
		}
		d.Kind, d.Test = KindTest, t.name
	} else {
		switch {
		case vet || p.res.CheckName == filter.CheckVet:
			d.Kind = KindVet
		case p.res.CheckName == filter.CheckBuild || p.res.CheckName == filter.CheckTest:
			d.Kind = KindBuild
		case p.res.CheckName == filter.CheckLint:
			d.Kind = KindLint
			d.Message, d.Linter = splitLinter(msg)
			p.snippet = maxSnippet
		default:
			d.Kind = KindOther
		}
	}
	p.res.Errors = append(p.res.Errors, d)
	p.endError()
	p.last, p.lastIndent = len(p.res.Errors)-1, indent
	return true
}

// owner returns the innermost test a line at this indentation is nested under.
func (p *parser) owner(indent int) *testFrame {
	for i := len(p.tests) - 1; i >= 0; i-- {
		if p.tests[i].indent < indent {
			return &p.tests[i]
		}
	}
	return nil
}

func (p *parser) popTests(indent int) {
	for len(p.tests) > 0 && p.tests[len(p.tests)-1].indent >= indent {
		p.tests = p.tests[:len(p.tests)-1]
	}
}

// endError closes the error that continuation lines extend, joining them to its
// message in one allocation.
func (p *parser) endError() {
	if p.last >= 0 && len(p.cont) > 0 {
		p.res.Errors[p.last].Message += string(p.cont)
	}
	p.last, p.cont = -1, p.cont[:0]
}

func (p *parser) claimsLine(c string) {
	file, msg := c, "modified but not claimed by task "+p.claimsTask
	if i := strings.LastIndex(c, " (owned by "); i > 0 && strings.HasSuffix(c, ")") {
		file = c[:i]
		msg += "; owned by " + c[i+len(" (owned by "):len(c)-1]
	}
	p.res.Errors = append(p.res.Errors, Diagnostic{Kind: KindClaims, File: strings.TrimPrefix(file, "./"), Message: msg})
	p.endError()
}

func (p *parser) startPanic(msg string) {
	p.mode = modePanic
	p.pan = Diagnostic{Kind: KindPanic, Message: msg}
	if len(p.tests) > 0 && p.tests[len(p.tests)-1].failed {
		p.pan.Test = p.tests[len(p.tests)-1].name
	}
	p.fn, p.running, p.userSet, p.testFile, p.testLine = "", false, false, "", 0
	p.endError()
}

// panicLine handles a line inside a panic block and reports whether it belongs there.
func (p *parser) panicLine(c string, indent int) bool {
	switch {
	case strings.HasPrefix(c, "goroutine ") && strings.HasSuffix(c, ":"):
		p.running, p.fn = false, ""
	case indent > 0 && (strings.HasPrefix(c, "panic: ") || strings.HasPrefix(c, "fatal error: ")):
		// the re-panic of a recovered panic repeats the message
	case strings.HasPrefix(c, "[signal ") || strings.HasPrefix(c, "...") || strings.HasPrefix(c, "exit status "):
	case c == "running tests:":
		p.running = true
	case p.running && indent > 0:
		if p.pan.Test == "" {
			name, _, _ := strings.Cut(c, " ")
			p.pan.Test = name
		}
	case strings.HasPrefix(c, "created by "):
		fn := strings.TrimPrefix(c, "created by ")
		if i := strings.Index(fn, " in goroutine "); i >= 0 {
			fn = fn[:i]
		}
		p.fn = fn
	case indent > 0:
		file, line, ok := parseFrameFile(c)
		if !ok {
			return false
		}
		p.frame(p.fn, file, line)
		p.fn = ""
	default:
		fn, ok := frameFunc(c)
		if !ok {
			return false
		}
		p.fn = fn
	}
	return true
}

func (p *parser) frame(fn, file string, line int) {
	if p.userSet {
		return
	}
	if !p.harnessFrame(fn, file) {
		p.pan.File, p.pan.Line, p.userSet = file, line, true
		return
	}
	if p.testFile == "" && strings.HasSuffix(file, "_test.go") {
		p.testFile, p.testLine = file, line
	}
}

func (p *parser) endPanic() {
	if p.mode != modePanic {
		return
	}
	p.mode = modeNormal
	if !p.userSet && p.testFile != "" {
		p.pan.File, p.pan.Line = p.testFile, p.testLine
	}
	p.res.Errors = append(p.res.Errors, p.pan)
	p.endError()
}

// dedupe drops errors whose (file, line, message) appeared before, keeping the first.
// A bare file name (no directory, as go test prints) is only the same file within
// one package, so for those the package is part of the key.
func (p *parser) dedupe() {
	errs := p.res.Errors
	if len(errs) < 2 {
		return
	}
	type key struct {
		file, pkg string
		line      int
		msg       string
	}
	keyOf := func(d *Diagnostic) key {
		k := key{file: d.File, line: d.Line, msg: d.Message}
		if !strings.ContainsAny(d.File, `/\`) {
			k.pkg = d.Package
		}
		return k
	}
	var seen map[key]struct{}
	if len(errs) > 16 {
		seen = make(map[key]struct{}, len(errs))
	}
	out := errs[:0]
	for i := range errs {
		d := errs[i]
		k, dup := keyOf(&d), false
		if seen != nil {
			_, dup = seen[k]
			seen[k] = struct{}{}
		} else {
			for j := range out {
				if keyOf(&out[j]) == k {
					dup = true
					break
				}
			}
		}
		if dup {
			p.res.Duplicates++
			continue
		}
		out = append(out, d)
	}
	clear(errs[len(out):])
	p.res.Errors = out
}

// harnessFrame reports whether a trace frame is in the standard library (including
// the runtime and testing), the generated test main, or is the panic call itself:
// frames a coder cannot or should not edit.
//
// A frame is standard when its file lies under GOROOT/src. GOROOT is learned from the
// frames themselves: a function whose package's first path element has no dot (as
// every standard package's) and whose file lies under `<dir>/src/<package>/` gives
// GOROOT = <dir> — the panic call's frame (`panic(…)` in `<GOROOT>/src/runtime/`)
// and the testing frames always do. Functions of the main package and of packages
// whose first element has a dot are never standard.
func (p *parser) harnessFrame(fn, file string) bool {
	file = strings.ReplaceAll(file, "\\", "/")
	if fn == "" || strings.HasSuffix(file, "/_testmain.go") || file == "_testmain.go" {
		return true
	}
	pkg := fn
	if fn == "panic" {
		pkg = "runtime"
	} else {
		slash := strings.LastIndexByte(fn, '/')
		if dot := strings.IndexByte(fn[slash+1:], '.'); dot >= 0 {
			pkg = fn[:slash+1+dot]
		}
	}
	if first, _, _ := strings.Cut(pkg, "/"); pkg == "main" || strings.Contains(first, ".") {
		return false
	}
	if i := strings.Index(file, "/src/"+pkg+"/"); i >= 0 {
		if p.goroot == "" {
			p.goroot = file[:i+len("/src/")]
		}
		return true
	}
	return p.goroot != "" && strings.HasPrefix(file, p.goroot) || fn == "panic"
}
