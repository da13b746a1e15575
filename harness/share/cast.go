package share

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode"

	"skillet/harness/event"
	"skillet/harness/termtext"
)

// CastWidth and CastHeight are the terminal size an asciicast declares;
// lines longer than CastWidth are wrapped at words.
const (
	CastWidth  = 100
	CastHeight = 32
)

// MaxGap is the longest pause a recording keeps: a session's idle minutes
// play as MaxGap.
const MaxGap = 2 * time.Second

// turnPause is the least pause before a user message, so a session that
// went faster than anyone reads (the demo model answers at once) still
// plays turn by turn.
const turnPause = time.Second

// toolLines is how many lines of a tool result the recording shows.
const toolLines = 8

// castHeader is the first line of an asciicast v2 file.
type castHeader struct {
	Version   int               `json:"version"`
	Width     int               `json:"width"`
	Height    int               `json:"height"`
	Timestamp int64             `json:"timestamp,omitempty"`
	Title     string            `json:"title,omitempty"`
	Env       map[string]string `json:"env,omitempty"`
}

// WriteCast writes the session as an asciicast v2 recording: the
// transcript as terminal text, each event at its time in the journal with
// pauses over MaxGap cut to MaxGap (and at least turnPause before each user
// message).
func WriteCast(w io.Writer, s *Session) error {
	bw := bufio.NewWriter(w)
	h := castHeader{Version: 2, Width: CastWidth, Height: CastHeight, Title: "Skillet session " + oneLine(s.ID, 80),
		Env: map[string]string{"TERM": "xterm-256color", "SHELL": "/bin/sh"}}
	if !s.Start.IsZero() {
		h.Timestamp = s.Start.Unix()
	}
	if err := writeJSONLine(bw, h); err != nil {
		return err
	}
	var at float64 // seconds into the recording
	var last time.Time
	emit := func(t time.Time, text string, floor time.Duration) error {
		if text == "" {
			return nil
		}
		var d time.Duration
		if !last.IsZero() && !t.IsZero() {
			d = min(max(t.Sub(last), 0), MaxGap)
		}
		at += max(d, floor).Seconds()
		if !t.IsZero() {
			last = t
		}
		return writeJSONLine(bw, []any{roundMS(at), "o", text})
	}
	label := s.Model
	if s.Demo {
		label += " (offline demo model)"
	}
	if err := emit(s.Start, style(dim, "Skillet session "+oneLine(s.ID, 80)+" · "+oneLine(label, 120))+"\r\n", 0); err != nil {
		return err
	}
	for _, e := range s.Events {
		var floor time.Duration
		if _, ok := e.(*event.TurnStart); ok {
			floor = turnPause
		}
		if err := emit(e.Head().Time, castText(e), floor); err != nil {
			return err
		}
	}
	return bw.Flush()
}

func roundMS(s float64) float64 { return float64(int64(s*1000+0.5)) / 1000 }

func writeJSONLine(w *bufio.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("write asciicast: %w", err)
	}
	w.Write(b)
	return w.WriteByte('\n')
}

// SGR styles of the recording.
const (
	bold   = "1"
	dim    = "2"
	user   = "1;36"
	answer = "1;32"
	tool   = "33"
	load   = "1;35"
	bad    = "1;31"
)

func style(sgr, text string) string { return "\x1b[" + sgr + "m" + text + "\x1b[0m" }

// castText is what an event shows in the recording, "" for events that
// show nothing there.
func castText(e event.Event) string {
	var b strings.Builder
	line := func(sgr, text string) {
		for _, l := range wrap(clean(text), CastWidth) {
			if sgr != "" {
				l = style(sgr, l)
			}
			b.WriteString(l + "\r\n")
		}
	}
	switch e := e.(type) {
	case *event.TurnStart:
		b.WriteString("\r\n")
		line(user, "› you")
		line("", e.Text)
	case *event.Assistant:
		if e.Text != "" {
			b.WriteString("\r\n")
			line(answer, "● assistant")
			line("", e.Text)
		}
		for _, tc := range e.ToolCalls {
			line(tool, "  → "+tc.Name+" "+oneLine(tc.Arguments, CastWidth-6-len(tc.Name)))
		}
		if e.Interrupted {
			line(dim, "  (interrupted)")
		}
	case *event.ToolResult:
		head := "  ← " + e.Name
		if e.IsError {
			head += " (error)"
		}
		line(tool, head)
		lines := strings.Split(strings.TrimRight(clean(e.Content), "\n"), "\n")
		for i, l := range lines {
			if i == toolLines {
				line(dim, fmt.Sprintf("    … %d more lines", len(lines)-toolLines))
				break
			}
			line(dim, "    "+l)
		}
	case *event.SkillLoaded:
		if e.Repeat {
			return ""
		}
		line(load, "  ▲ loaded "+e.Skill+versionText(e.Version)+" · "+string(e.By))
	case *event.SkillPreload:
		line(load, "  ▲ preloaded "+e.Skill+versionText(e.Version))
	case *event.SkillUnloaded:
		line(load, "  ▼ unloaded "+e.Skill+" · "+string(e.Reason))
	case *event.Warning:
		if e.Log {
			return ""
		}
		line(tool, "  ⚠ "+e.Message)
	case *event.Error:
		line(bad, "  ✗ "+e.Message)
	case *event.TurnEnd:
		line(dim, fmt.Sprintf("  turn %d · %s · loaded %s", e.Turn, e.StopReason, orNone(e.Loaded)))
	}
	return b.String()
}

func versionText(v string) string {
	if v == "" {
		return ""
	}
	return " v" + v
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// clean leaves out escape sequences and control characters other than
// newlines and tabs (tabs become spaces), so a reply cannot drive the
// player's terminal.
func clean(s string) string {
	// termtext.Plain first, so a sequence goes whole, not just its ESC
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n':
			return r
		case r == '\t':
			return ' '
		case unicode.IsControl(r), r == '\u2028', r == '\u2029':
			return -1
		}
		return r
	}, termtext.Plain(strings.ReplaceAll(s, "\r\n", "\n")))
}

// oneLine is s on one line, cut to n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(clean(s)), " ")
	if r := []rune(s); n > 1 && len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// wrap breaks text into lines of at most width runes, at spaces where it
// can. It walks each paragraph once, so a paragraph of megabytes costs
// about its length.
func wrap(text string, width int) []string {
	var out []string
	for _, para := range strings.Split(text, "\n") {
		r := []rune(para)
		// continuation lines keep the paragraph's indent
		indent := string(para[:len(para)-len(strings.TrimLeft(para, " "))])
		if len(indent) > width/2 {
			indent = ""
		}
		lead := ""    // the indent of a continuation line
		room := width // runes of r the line can take after lead
		for len(r) > room {
			cut := room
			for i := room; i > room-width/2 && i > 0; i-- {
				if r[i] == ' ' {
					cut = i
					break
				}
			}
			out = append(out, lead+string(r[:cut]))
			r = r[cut:]
			if len(r) > 0 && r[0] == ' ' {
				r = r[1:]
			}
			lead, room = indent, width-len(indent)
		}
		out = append(out, lead+string(r))
	}
	return out
}
