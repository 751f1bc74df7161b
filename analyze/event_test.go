package analyze

import (
	"fmt"
	"testing"
)

func TestExitCodeOf(t *testing.T) {
	tests := []struct {
		out  string
		code int
		ok   bool
	}{
		{"Exit code 1\n--- FAIL: TestX", 1, true},
		{"Exit code 2", 2, true},
		{"Exit code 127\r\nbash: foo: command not found", 127, true},
		{"Error: Exit code 128\nfatal: not a git repository", 128, true},
		{"Exit code -1\n", -1, true},
		{"Exit code \n", 0, false},
		{"Exit code 1x\n", 0, false},
		{"Exit code 99999999999\n", 0, false},
		{"exit code 1\n", 0, false},
		{"  Exit code 1\n", 0, false},
		{"ok  \tpkg\t0.1s", 0, false},
		{"", 0, false},
	}
	for _, tt := range tests {
		code, ok := ExitCodeOf(tt.out)
		if code != tt.code || ok != tt.ok {
			t.Errorf("ExitCodeOf(%q) = %d, %v; want %d, %v", tt.out, code, ok, tt.code, tt.ok)
		}
	}
}

func FuzzExitCodeOf(f *testing.F) {
	for _, s := range []string{"Exit code 1\nx", "Error: Exit code 128", "Exit code -", "ok"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, out string) {
		code, ok := ExitCodeOf(out)
		if !ok && code != 0 {
			t.Fatalf("ExitCodeOf(%q) = %d without ok", out, code)
		}
		if ok {
			again, ok2 := ExitCodeOf(fmt.Sprintf("Exit code %d\n", code))
			if !ok2 || again != code {
				t.Fatalf("ExitCodeOf(%q) = %d, but its rendering reads %d, %v", out, code, again, ok2)
			}
		}
	})
}

func TestMidTurn(t *testing.T) {
	for _, tt := range []struct {
		ev   Event
		want bool
	}{
		{Event{Kind: KindUserMessage}, false},
		{Event{Kind: KindUserMessage, Subtype: SubtypeQueued}, true},
		{Event{Kind: KindUserMessage, Subtype: "other"}, false},
		{Event{Kind: KindSystem, Subtype: SubtypeQueued}, false},
	} {
		if got := tt.ev.MidTurn(); got != tt.want {
			t.Errorf("%+v.MidTurn() = %v", tt.ev, got)
		}
	}
}
