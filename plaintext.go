package main

import (
	"io"

	"skillet/harness/termtext"
)

// plainText removes terminal escape sequences and other control characters
// from text that came from outside, keeping newlines and tabs
// (termtext.Plain).
func plainText(s string) string { return termtext.Plain(s) }

// plainWriter passes each write through plainText. Writes must be whole
// pieces of text (a line), so that no sequence is split between two.
type plainWriter struct{ w io.Writer }

func (p plainWriter) Write(b []byte) (int, error) {
	return termtext.Writer{W: p.w}.Write(b)
}
