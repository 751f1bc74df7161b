package checkparse

import "strings"

// parseLocation splits `file:line[:col]: message`. The file must be free of white
// space and have an extension; a Windows drive prefix (`C:\`) is allowed.
func parseLocation(c string) (file string, line, col int, msg string, ok bool) {
	start := 0
	if len(c) > 2 && isLetter(c[0]) && c[1] == ':' && (c[2] == '\\' || c[2] == '/') {
		start = 2
	}
	i := strings.IndexByte(c[start:], ':')
	if i < 0 {
		return "", 0, 0, "", false
	}
	i += start
	file = c[:i]
	if file == "" || strings.ContainsAny(file, " \t") || !hasExt(file) {
		return "", 0, 0, "", false
	}
	rest := c[i+1:]
	line, n := leadingInt(rest)
	if n == 0 || n == len(rest) || rest[n] != ':' {
		return "", 0, 0, "", false
	}
	rest = rest[n+1:]
	if col, n = leadingInt(rest); n > 0 {
		if n == len(rest) || rest[n] != ':' {
			return "", 0, 0, "", false
		}
		rest = rest[n+1:]
	}
	msg = strings.TrimSpace(rest)
	if msg == "" {
		return "", 0, 0, "", false
	}
	return file, line, col, msg, true
}

// parseFrameFile splits a goroutine trace file line: `/path/file.go:12 +0x1d`.
func parseFrameFile(c string) (file string, line int, ok bool) {
	if i := strings.LastIndex(c, " +0x"); i >= 0 {
		c = c[:i]
	}
	i := strings.LastIndexByte(c, ':')
	if i <= 0 {
		return "", 0, false
	}
	line, n := leadingInt(c[i+1:])
	if n == 0 || n != len(c)-i-1 {
		return "", 0, false
	}
	return c[:i], line, true
}

// frameFunc returns the function of a goroutine trace function line:
// `example.com/m.(*T).Method(0xc000012345, ...)` gives `example.com/m.(*T).Method`.
func frameFunc(c string) (string, bool) {
	if !strings.HasSuffix(c, ")") {
		return "", false
	}
	depth := 0
	for i := len(c) - 1; i >= 0; i-- {
		switch c[i] {
		case ')':
			depth++
		case '(':
			depth--
			if depth == 0 {
				if i == 0 || strings.ContainsAny(c[:i], " \t") {
					return "", false
				}
				return c[:i], true
			}
		}
	}
	return "", false
}

// testStatus splits `--- FAIL: TestName (0.00s)` (also PASS and SKIP).
func testStatus(c string) (name, status string, ok bool) {
	rest, ok := strings.CutPrefix(c, "--- ")
	if !ok {
		return "", "", false
	}
	status, rest, ok = strings.Cut(rest, ": ")
	if !ok || (status != "FAIL" && status != "PASS" && status != "SKIP") {
		return "", "", false
	}
	name, _, _ = strings.Cut(rest, " ")
	if name == "" {
		return "", "", false
	}
	return name, status, true
}

// summaryLine recognises go test's per-package and final summary lines and returns
// the package they name ("" for the bare FAIL/PASS/ok lines).
func summaryLine(c string) (pkg string, ok bool) {
	switch c {
	case "FAIL", "PASS", "ok":
		return "", true
	}
	for _, prefix := range [...]string{"FAIL\t", "ok  \t", "?   \t"} {
		if rest, ok := strings.CutPrefix(c, prefix); ok {
			pkg, _, _ = strings.Cut(rest, "\t")
			pkg, _, _ = strings.Cut(pkg, " ")
			return pkg, pkg != ""
		}
	}
	return "", false
}

// panicStart recognises the first line of a panic, fatal error or test timeout and
// returns it without the `[recovered]` marks.
func panicStart(c string) (string, bool) {
	if !strings.HasPrefix(c, "panic: ") && !strings.HasPrefix(c, "fatal error: ") {
		return "", false
	}
	for _, suffix := range [...]string{" [recovered, repanicked]", " [recovered]"} {
		c = strings.TrimSuffix(c, suffix)
	}
	return c, true
}

// lintSummary recognises golangci-lint's `3 issues:` and `* errcheck: 2` lines.
func lintSummary(c string) bool {
	if _, k := leadingInt(c); k > 0 && (c[k:] == " issues:" || c[k:] == " issue:") {
		return true
	}
	if rest, ok := strings.CutPrefix(c, "* "); ok {
		name, count, ok := strings.Cut(rest, ": ")
		return ok && isLinterName(name) && allDigits(count)
	}
	return false
}

// splitLinter splits golangci-lint's trailing ` (linter)` off a message.
func splitLinter(msg string) (string, string) {
	if !strings.HasSuffix(msg, ")") {
		return msg, ""
	}
	i := strings.LastIndex(msg, " (")
	if i < 0 || !isLinterName(msg[i+2:len(msg)-1]) {
		return msg, ""
	}
	return strings.TrimSpace(msg[:i]), msg[i+2 : len(msg)-1]
}

func isLinterName(s string) bool {
	if s == "" || !isLetter(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !isLetter(c) && !isDigit(c) && c != '-' && c != '_' {
			return false
		}
	}
	return true
}

// leadingInt parses up to 9 leading digits and returns the value and their count;
// more than 9 digits is no number (count 0).
func leadingInt(s string) (int, int) {
	n, i := 0, 0
	for i < len(s) && isDigit(s[i]) {
		if i == 9 {
			return 0, 0
		}
		n = n*10 + int(s[i]-'0')
		i++
	}
	return n, i
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

func hasExt(file string) bool {
	base := file[strings.LastIndexAny(file, "/\\")+1:]
	dot := strings.LastIndexByte(base, '.')
	return dot >= 0 && dot < len(base)-1
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool  { return '0' <= c && c <= '9' }
