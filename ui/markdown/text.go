package markdown

import (
	"strings"
	"unicode/utf8"

	"skillet/harness/termtext"
)

// streamText is the sanitized text of a growing reply. Whole lines are
// sanitized once, as they complete, so a long reply is not scanned and
// copied again on every render. This matches termtext.Sanitize of the whole text
// because, on valid UTF-8 without escape sequences or C1 controls,
// it maps each character on its own; once a line breaks that rule,
// the text is sanitized whole on every update.
type streamText struct {
	raw   string          // the raw text last seen
	rawN  int             // raw[:rawN] (whole lines) is sanitized into lines
	lines strings.Builder // sanitized whole lines
	whole bool            // sanitize all of it, every time
}

// update takes the raw text, which usually extends the last, and returns
// it sanitized: done (whole lines, or everything when sanitized whole) and
// the line still being written.
func (t *streamText) update(raw string) (done, partial string) {
	if len(raw) < t.rawN || raw[:t.rawN] != t.raw[:t.rawN] {
		t.rawN = 0
		t.lines.Reset()
	}
	t.raw = raw
	if t.whole {
		return termtext.Sanitize(raw), ""
	}
	nl := strings.LastIndexByte(raw, '\n') + 1
	if nl > t.rawN {
		piece := raw[t.rawN:nl]
		if !charLocal(piece) {
			t.whole = true
			return termtext.Sanitize(raw), ""
		}
		t.lines.WriteString(termtext.Sanitize(piece))
		t.rawN = nl
	}
	partial = raw[nl:]
	if !charLocal(partial) {
		// one line like that is sanitized whole until it is complete
		return termtext.Sanitize(raw), ""
	}
	return t.lines.String(), termtext.Sanitize(partial)
}

// charLocal reports whether termtext.Sanitize maps each character of s on its own:
// valid UTF-8 with no escape character and no C1 control.
func charLocal(s string) bool {
	if strings.IndexByte(s, 0x1b) >= 0 || !utf8.ValidString(s) {
		return false
	}
	for i := strings.IndexByte(s, 0xc2); i >= 0; {
		if i+1 < len(s) && s[i+1] >= 0x80 && s[i+1] <= 0x9f {
			return false
		}
		j := strings.IndexByte(s[i+1:], 0xc2)
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return true
}
