package jsonl

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

type got struct {
	Num          int
	Text         string
	Len          int
	Unterminated bool
	Oversize     bool
}

func readAll(t *testing.T, r io.Reader, limit int) ([]got, error) {
	t.Helper()
	rd := NewReader(r, limit)
	var out []got
	for {
		l, err := rd.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, got{l.Num, string(l.Bytes), l.Len, l.Unterminated, l.Oversize})
	}
}

func TestReader(t *testing.T) {
	big := strings.Repeat("x", 300<<10) // longer than the 64 KiB read buffer
	tests := []struct {
		name  string
		in    string
		limit int
		want  []got
	}{
		{"empty", "", 0, nil},
		{"one terminated line", "{}\n", 0, []got{{1, "{}", 2, false, false}}},
		{"final line without newline", "a\nb", 0, []got{{1, "a", 1, false, false}, {2, "b", 1, true, false}}},
		{"CRLF terminators are trimmed", "a\r\nb\r\n", 0, []got{{1, "a", 1, false, false}, {2, "b", 1, false, false}}},
		{"blank lines are returned", "\n\nx\n", 0, []got{{1, "", 0, false, false}, {2, "", 0, false, false}, {3, "x", 1, false, false}}},
		{"line longer than the read buffer", big + "\nz\n", 0, []got{{1, big, len(big), false, false}, {2, "z", 1, false, false}}},
		{"oversize line is skipped and reading goes on", "ok\n" + big + "\nnext\n", 1 << 10,
			[]got{{1, "ok", 2, false, false}, {2, "", len(big), false, true}, {3, "next", 4, false, false}}},
		{"line exactly at the limit is kept", "abcd\nabcde\n", 4,
			[]got{{1, "abcd", 4, false, false}, {2, "", 5, false, true}}},
		{"unterminated oversize final line", "ok\n" + big, 10,
			[]got{{1, "ok", 2, false, false}, {2, "", len(big), true, true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := readAll(t, strings.NewReader(tt.in), tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			if len(out) != len(tt.want) {
				t.Fatalf("got %d lines, want %d", len(out), len(tt.want))
			}
			for i := range out {
				if out[i] != tt.want[i] {
					g, w := out[i], tt.want[i]
					g.Text, w.Text = abbrev(g.Text), abbrev(w.Text)
					t.Errorf("line %d: got %+v, want %+v", i+1, g, w)
				}
			}
		})
	}
}

func TestReaderOneByteReads(t *testing.T) {
	out, err := readAll(t, iotest.OneByteReader(strings.NewReader("ab\ncd")), 0)
	if err != nil || len(out) != 2 || out[1].Text != "cd" || !out[1].Unterminated {
		t.Fatalf("got %+v, %v", out, err)
	}
}

func TestReaderPropagatesErrors(t *testing.T) {
	boom := errors.New("disk gone")
	r := io.MultiReader(strings.NewReader("a\nb"), iotest.ErrReader(boom))
	out, err := readAll(t, r, 0)
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want %v", err, boom)
	}
	if len(out) != 1 || out[0].Text != "a" {
		t.Fatalf("lines before the error: %+v", out)
	}
	// The error is sticky.
	rd := NewReader(iotest.ErrReader(boom), 0)
	rd.Next()
	if _, err := rd.Next(); !errors.Is(err, boom) {
		t.Fatalf("second Next: %v", err)
	}
}

func TestLineHelpers(t *testing.T) {
	if !(Line{Bytes: []byte(" \t")}).Blank() || (Line{Bytes: []byte("x")}).Blank() || (Line{Oversize: true}).Blank() {
		t.Error("Blank")
	}
	if (Line{Bytes: []byte("ok \xff")}).ValidUTF8() || !(Line{Bytes: []byte("é")}).ValidUTF8() {
		t.Error("ValidUTF8")
	}
}

// FuzzReader checks that the lines returned are exactly the input split at "\n" with a
// trailing "\r" trimmed, whatever the input and the limit.
func FuzzReader(f *testing.F) {
	f.Add([]byte("a\nb\r\n\nc"), 0)
	f.Add([]byte("xxxxxxxx\nyy"), 3)
	f.Add([]byte{0xff, '\n', 0}, 1)
	f.Fuzz(func(t *testing.T, in []byte, limit int) {
		if limit < 0 {
			limit = -limit
		}
		limit %= 64
		rd := NewReader(bytes.NewReader(in), limit)
		segs := bytes.Split(in, []byte("\n"))
		if len(segs[len(segs)-1]) == 0 {
			segs = segs[:len(segs)-1]
		}
		for i, seg := range segs {
			l, err := rd.Next()
			if err != nil {
				t.Fatalf("line %d: %v", i+1, err)
			}
			want := bytes.TrimSuffix(seg, []byte("\r"))
			if i == len(segs)-1 && !bytes.HasSuffix(in, []byte("\n")) {
				if !l.Unterminated {
					t.Fatalf("line %d: not marked unterminated", i+1)
				}
			}
			if l.Num != i+1 {
				t.Fatalf("Num = %d, want %d", l.Num, i+1)
			}
			if limit > 0 && len(want) > limit {
				if !l.Oversize || l.Bytes != nil {
					t.Fatalf("line %d of %d bytes not oversize at limit %d", i+1, len(want), limit)
				}
				continue
			}
			if l.Oversize || !bytes.Equal(l.Bytes, want) {
				t.Fatalf("line %d = %q (oversize %v), want %q", i+1, l.Bytes, l.Oversize, want)
			}
		}
		if _, err := rd.Next(); err != io.EOF {
			t.Fatalf("after the last line: %v", err)
		}
	})
}

func abbrev(s string) string {
	if len(s) > 20 {
		return s[:20] + "…"
	}
	return s
}

func TestReaderDropsByteOrderMark(t *testing.T) {
	out, err := readAll(t, strings.NewReader("\xef\xbb\xbf{\"a\":1}\n\xef\xbb\xbfx\n"), 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []got{{1, `{"a":1}`, 7, false, false}, {2, "\xef\xbb\xbfx", 4, false, false}}
	if len(out) != 2 || out[0] != want[0] || out[1] != want[1] {
		t.Fatalf("got %+v, want %+v (only the input's first bytes are a byte order mark)", out, want)
	}
}

// TestReaderReuse: a Reader made from a closed one — left mid-file with bytes
// buffered, or after a long line — reads the next input from its first line, with
// nothing of the last one.
func TestReaderReuse(t *testing.T) {
	long := strings.Repeat("y", 2*maxKeptLine)
	reused := 0
	for i := range 20 {
		a := NewReader(strings.NewReader("a1\na2\na3\n"+long+"\n"), 0)
		a.Next()
		if i%2 == 1 {
			for {
				if _, err := a.Next(); err != nil {
					break
				}
			}
		}
		a.Close()
		b := NewReader(strings.NewReader("\xef\xbb\xbfb1\nb2"), 0)
		if b == a {
			reused++
			if cap(b.buf) > maxKeptLine {
				t.Errorf("a closed reader kept a %d-byte line buffer", cap(b.buf))
			}
		}
		var lines []got
		for {
			l, err := b.Next()
			if err != nil {
				break
			}
			lines = append(lines, got{l.Num, string(l.Bytes), l.Len, l.Unterminated, l.Oversize})
		}
		want := []got{{1, "b1", 2, false, false}, {2, "b2", 2, true, false}}
		if len(lines) != 2 || lines[0] != want[0] || lines[1] != want[1] {
			t.Fatalf("round %d: %+v", i, lines)
		}
		b.Close()
	}
	if reused == 0 {
		t.Error("no closed reader was reused")
	}
}

// TestReaderInputOffset: each line is the input's bytes between the InputOffset before
// and after it, terminators included, over a small buffer too.
func TestReaderInputOffset(t *testing.T) {
	in := "\xef\xbb\xbf{\"a\":1}\r\n\n" + strings.Repeat("x", 40000) + "\nlast"
	rd := NewReader(strings.NewReader(in), 100)
	var ends []int64
	for {
		if _, err := rd.Next(); err != nil {
			break
		}
		ends = append(ends, rd.InputOffset())
	}
	want := []int64{int64(len("\xef\xbb\xbf{\"a\":1}\r\n")), int64(len("\xef\xbb\xbf{\"a\":1}\r\n\n")), int64(len(in) - len("last")), int64(len(in))}
	if !slices.Equal(ends, want) {
		t.Errorf("offsets %v, want %v", ends, want)
	}
}
