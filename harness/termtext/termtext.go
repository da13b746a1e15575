// Package termtext is text for a terminal. It makes text from outside — a
// model's reply, a tool's name, a journal's or a cassette's fields — safe
// to print or to write as text (Plain: one sanitiser for everything
// Skillet prints or exports, so that no such field can drive the reader's
// terminal), and measures, fits and wraps text in cells for the panes
// (cells.go).
package termtext

import (
	"io"
	"strings"
	"unicode"

	"github.com/charmbracelet/x/ansi"
)

// Plain removes terminal escape sequences (OSC 52 clipboard writes,
// window titles, clearing the screen, cursor moves) and other control
// characters from text that came from outside, keeping newlines and tabs:
// a model's reply printed to a terminal must not be able to drive it.
func Plain(s string) string {
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

// Writer passes each write through Plain. Writes should be whole pieces
// of text (a line), so that a sequence split between two is not left as
// visible text; ESC and every other control character are taken out
// either way.
type Writer struct{ W io.Writer }

// Write writes b made plain; it reports all of b written when it wrote.
func (p Writer) Write(b []byte) (int, error) {
	if _, err := io.WriteString(p.W, Plain(string(b))); err != nil {
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
