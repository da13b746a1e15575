package ui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
)

// inputBox is the message editor: a multi-line text area where Enter sends
// and Shift+Enter or Alt+Enter breaks the line, with a history of what was
// sent.
type inputBox struct {
	ta      textarea.Model
	history []string
	// hist is the history position while browsing; len(history) is the
	// text being written, kept in draft.
	hist  int
	draft string
	// shown is the text area as last drawn; stale once anything that
	// changes it ran (every change goes through a method below).
	shown string
	cur   *tea.Cursor // the cursor as last placed, with shown
	stale bool
}

func newInputBox(th *theme) *inputBox {
	ta := textarea.New()
	ta.ShowLineNumbers = false
	ta.Prompt = " "
	ta.Placeholder = "Message the model · / for commands · ? for keys"
	ta.CharLimit = 0
	ta.MaxContentHeight = 100000 // never refuse input; MaxHeight only bounds what shows
	ta.DynamicHeight = true
	ta.MinHeight = 1
	ta.MaxHeight = 6
	ta.SetVirtualCursor(false)
	ta.KeyMap.InsertNewline = key.NewBinding(key.WithKeys("shift+enter", "alt+enter", "ctrl+j"))
	st := textarea.DefaultStyles(th.dark)
	st.Cursor.Blink = false
	st.Focused.CursorLine = st.Focused.Text
	ta.SetStyles(st)
	ta.Focus()
	return &inputBox{ta: ta, stale: true}
}

func (in *inputBox) setTheme(th *theme) {
	in.stale = true
	st := textarea.DefaultStyles(th.dark)
	st.Cursor.Blink = false
	st.Focused.CursorLine = st.Focused.Text
	in.ta.SetStyles(st)
}

// setSize fits the text area in a box of inner width w; the tallest it may
// grow depends on the screen.
func (in *inputBox) setSize(w, screenH int) {
	in.stale = true
	switch {
	case screenH < 20:
		in.ta.MinHeight, in.ta.MaxHeight = 1, 2
	case screenH < 36:
		in.ta.MinHeight, in.ta.MaxHeight = 1, 4
	default:
		in.ta.MinHeight, in.ta.MaxHeight = 2, 8
	}
	in.ta.SetWidth(max(1, w)) // also fits the height to the text
}

func (in *inputBox) height() int { return in.ta.Height() }

func (in *inputBox) value() string { return in.ta.Value() }

func (in *inputBox) set(s string) {
	in.stale = true
	in.ta.SetValue(s)
	in.ta.MoveToEnd()
}

// take empties the box and records the text in the history.
func (in *inputBox) take() string {
	in.stale = true
	v := in.ta.Value()
	if t := strings.TrimSpace(v); t != "" && (len(in.history) == 0 || in.history[len(in.history)-1] != v) {
		in.history = append(in.history, v)
	}
	in.hist, in.draft = len(in.history), ""
	in.ta.Reset()
	return v
}

// browse steps through the history with ↑/↓ while the cursor is on the
// first or last line; it reports whether it used the key.
func (in *inputBox) browse(up bool) bool {
	in.stale = true
	if len(in.history) == 0 {
		return false
	}
	if in.hist > len(in.history) || in.hist < 0 {
		in.hist = len(in.history)
	}
	if up {
		if in.ta.Line() > 0 || in.hist == 0 {
			return false
		}
		if in.hist == len(in.history) {
			in.draft = in.ta.Value()
		}
		in.hist--
		in.set(in.history[in.hist])
		return true
	}
	if in.ta.Line() < in.ta.LineCount()-1 || in.hist >= len(in.history) {
		return false
	}
	in.hist++
	if in.hist == len(in.history) {
		in.set(in.draft)
	} else {
		in.set(in.history[in.hist])
	}
	return true
}

func (in *inputBox) update(msg tea.Msg) tea.Cmd {
	in.stale = true
	var cmd tea.Cmd
	in.ta, cmd = in.ta.Update(msg)
	return cmd
}

func (in *inputBox) view() string {
	if in.stale {
		in.shown, in.cur, in.stale = in.ta.View(), in.ta.Cursor(), false
	}
	return in.shown
}

// cursor is the terminal cursor inside the text area, nil when blurred; a
// copy, for the caller to move. Placing it wraps the text again, so it is
// kept with the drawing.
func (in *inputBox) cursor() *tea.Cursor {
	in.view()
	if in.cur == nil {
		return nil
	}
	c := *in.cur
	return &c
}

func (in *inputBox) focus() tea.Cmd { in.stale = true; return in.ta.Focus() }
func (in *inputBox) blur()          { in.stale = true; in.ta.Blur() }

// insertRune types r at the cursor.
func (in *inputBox) insertRune(r rune) { in.stale = true; in.ta.InsertRune(r) }
