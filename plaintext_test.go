package main

import (
	"strings"
	"testing"
)

func TestPlainTextLeavesOutWhatDrivesATerminal(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain text, ünïcode — 日本 🙂\n\tindented", "plain text, ünïcode — 日本 🙂\n\tindented"},
		{"a\x1b]52;c;cm0gLXJmIH4K\x07b", "ab"},           // clipboard write, BEL-terminated
		{"a\x1b]0;title\x1b\\b", "ab"},                   // window title, ST-terminated
		{"a\x1b[2J\x1b[Hb", "ab"},                        // clear screen, cursor home
		{"\x1b[1;31mred\x1b[0m", "red"},                  // colours
		{"a\u009b2Jb\u009d0;t\u009cc", "abc"},            // C1 CSI and OSC
		{"a\x1bPq#0;2;0;0;0#0~~\x1b\\b", "ab"},           // DCS (sixel)
		{"over\rwrite\x08\x00\x7f!", "overwrite!"},       // CR, backspace, NUL, DEL
		{"unterminated \x1b]52;c;AAAA", "unterminated "}, // an open OSC swallows the rest
	} {
		got := plainText(tc.in)
		if got != tc.want {
			t.Errorf("plainText(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if strings.ContainsAny(got, "\x1b\x07\u009b\u009d") {
			t.Errorf("plainText(%q) kept a control: %q", tc.in, got)
		}
	}
}
