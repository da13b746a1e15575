package tools

import (
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"
)

// CutOutput returns s when it fits in max bytes; otherwise its first max
// bytes (ending on a whole character) and a note saying how much was cut.
// A max of zero or less means DefaultMaxOutput.
func CutOutput(s string, max int) string {
	if max <= 0 {
		max = DefaultMaxOutput
	}
	if len(s) <= max {
		return s
	}
	head := cutHead(s, max)
	return head + cutNote(len(s)-len(head), len(s))
}

// cutHead returns the longest prefix of s of at most max bytes that does not
// end inside a UTF-8 sequence.
func cutHead(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && cut > max-utf8.UTFMax && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

func cutNote(cut, total int) string {
	return fmt.Sprintf("\n[output cut: %s of %s bytes not shown]", groupDigits(cut), groupDigits(total))
}

// groupDigits writes n with thousands separators, so sizes read at a glance.
func groupDigits(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return s
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// headBuffer keeps the first max bytes written to it and counts the rest, so
// a tool printing megabytes costs no more memory than the cap.
type headBuffer struct {
	mu    sync.Mutex
	max   int
	buf   []byte
	total int
}

func (h *headBuffer) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.total += len(p)
	if room := h.max - len(h.buf); room > 0 {
		h.buf = append(h.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// String returns what was kept, with a cut note when more was written.
func (h *headBuffer) String() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := string(h.buf)
	if h.total <= len(h.buf) {
		return s
	}
	head := trimPartialRune(s)
	return head + cutNote(h.total-len(head), h.total)
}

// trimPartialRune drops an incomplete UTF-8 sequence at the end of s, left
// there when a byte cap fell inside a character.
func trimPartialRune(s string) string {
	for i := len(s) - 1; i >= 0 && i >= len(s)-utf8.UTFMax; i-- {
		if utf8.RuneStart(s[i]) {
			if !utf8.FullRuneInString(s[i:]) {
				return s[:i]
			}
			return s
		}
	}
	return s
}

// trimLeadingPartial drops continuation bytes at the start of s, left there
// when a cap kept only the end of a character.
func trimLeadingPartial(s string) string {
	for i := 0; i < len(s) && i < utf8.UTFMax; i++ {
		if utf8.RuneStart(s[i]) {
			return s[i:]
		}
	}
	return s
}

// tailBuffer keeps the last max bytes written to it: the end of stderr is
// where a failing program says why.
type tailBuffer struct {
	mu    sync.Mutex
	max   int
	buf   []byte
	total int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.total += len(p)
	if len(p) >= t.max {
		t.buf = append(t.buf[:0], p[len(p)-t.max:]...)
		return len(p), nil
	}
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

// String returns the kept tail, with a leading note when earlier bytes were
// dropped.
func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := string(t.buf)
	if t.total <= len(t.buf) {
		return s
	}
	s = trimLeadingPartial(s)
	return fmt.Sprintf("[first %s of %s bytes not shown]\n", groupDigits(t.total-len(s)), groupDigits(t.total)) + s
}

// Last returns at most n bytes from the end of what was kept.
func (t *tailBuffer) Last(n int) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := string(t.buf)
	if len(s) <= n {
		return s
	}
	return trimLeadingPartial(s[len(s)-n:])
}
