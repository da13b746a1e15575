package main

import (
	"io"
	"strings"
	"unicode"

	"github.com/charmbracelet/x/ansi"
)

// plainText removes terminal escape sequences (OSC 52 clipboard writes,
// window titles, clearing the screen, cursor moves) and other control
// characters from text that came from outside, keeping newlines and tabs:
// a model's reply printed to a terminal must not be able to drive it.
func plainText(s string) string {
	if !hasControl(s) {
		return s
	}
	// A C1 control (U+009B is CSI) starts a sequence as ESC and its 7-bit
	// partner do; spelled that way, the sequence is stripped whole.
	s = strings.Map(func(r rune) rune {
		if r >= 0x80 && r <= 0x9f {
			return -1
		}
		return r
	}, c1ToESC(s))
	s = ansi.Strip(s)
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if r == '\n' || r == '\t' || !unicode.IsControl(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func hasControl(s string) bool {
	for _, r := range s {
		if (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r <= 0x9f) {
			return true
		}
	}
	return false
}

// plainWriter passes each write through plainText. Writes must be whole
// pieces of text (a line), so that no sequence is split between two.
type plainWriter struct{ w io.Writer }

func (p plainWriter) Write(b []byte) (int, error) {
	if _, err := io.WriteString(p.w, plainText(string(b))); err != nil {
		return 0, err
	}
	return len(b), nil
}

// c1ToESC spells each C1 control as ESC and its 7-bit partner.
func c1ToESC(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if r >= 0x80 && r <= 0x9f {
			b.WriteByte(0x1b)
			b.WriteByte(byte(r - 0x40))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
