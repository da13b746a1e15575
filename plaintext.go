package main

import (
	"fmt"
	"io"
	"strings"

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

// turnRule heads a turn's answer in `skillet run`'s output when it runs
// several: the turn and the start of its message.
func turnRule(turn int, msg string) string {
	msg = strings.Join(strings.Fields(msg), " ")
	if r := []rune(msg); len(r) > 60 {
		msg = string(r[:59]) + "…"
	}
	return fmt.Sprintf("── turn %d: %s", turn, msg)
}

// unescapeMarkdown prints Markdown's backslash escapes (run\_checks) as the
// characters they stand for, outside code spans and fenced code, where a
// backslash is itself: what `skillet run` prints is read as plain text.
func unescapeMarkdown(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	fenced := false
	for _, line := range strings.SplitAfter(s, "\n") {
		if t := strings.TrimSpace(line); strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fenced = !fenced
			b.WriteString(line)
			continue
		}
		if fenced {
			b.WriteString(line)
			continue
		}
		tick := 0 // the length of the backtick run that opened a code span
		for j := 0; j < len(line); j++ {
			c := line[j]
			if c == '`' {
				n := 1
				for j+n < len(line) && line[j+n] == '`' {
					n++
				}
				switch {
				case tick == 0:
					tick = n
				case tick == n:
					tick = 0
				}
				b.WriteString(line[j : j+n])
				j += n - 1
				continue
			}
			if c == '\\' && tick == 0 && j+1 < len(line) && strings.IndexByte(markdownPunct, line[j+1]) >= 0 {
				b.WriteByte(line[j+1])
				j++
				continue
			}
			b.WriteByte(c)
		}
	}
	return b.String()
}

// markdownPunct is the ASCII punctuation a backslash escapes in CommonMark.
const markdownPunct = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"
