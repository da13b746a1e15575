package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"skillet/harness/termtext"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// overlay is a dialog drawn over the panes that takes the keys while open.
type overlay interface {
	// key handles a key press; done closes the overlay.
	key(msg tea.KeyPressMsg) (cmd tea.Cmd, done bool)
	// wheel scrolls by n rows (n < 0: up).
	wheel(n int)
	// view draws the overlay for a w×h screen: its lines and where its
	// top-left corner goes.
	view(w, h int) (lines []string, x, y int)
}

// asyncOverlay is an overlay that waits for a command's result.
type asyncOverlay interface {
	overlay
	handle(msg tea.Msg) tea.Cmd
}

// closer is an overlay that must release something when closed.
type closer interface{ close() }

// bigRect is the area of a large overlay: the screen less a margin.
func bigRect(w, h int) (x, y, bw, bh int) {
	mx, my := 2, 1
	if w < 60 {
		mx = 0
	}
	if h < 20 {
		my = 0
	}
	return mx, my, max(0, w-2*mx), max(0, h-2*my)
}

// textOverlay shows a long text in a pager: the viewer (v), /skills,
// /help, /set. y copies the text, w writes it to a file.
type textOverlay struct {
	th    *theme
	title string
	p     *pager
	raw   string
	hint  string
	file  string
	dir   string
	h     int
	// enter, when set, is what enter does (the Skills view picks a
	// skill for its card).
	enter func() tea.Cmd
}

// newTextOverlay shows raw, or the styled lines when given; y and w then
// copy and write the styled lines' text without colour. An empty file
// name is made from the title.
func newTextOverlay(th *theme, title, raw string, styled []string, file, dir string) *textOverlay {
	p := newPager(raw)
	if styled != nil {
		p = &pager{lines: styled, rows: map[int][]string{}}
		if raw == "" {
			raw = plainText(styled)
		}
	}
	if file == "" {
		file = fileName("skillet", title) + ".txt"
	}
	return &textOverlay{th: th, title: title, p: p, raw: raw, file: file, dir: dir,
		hint: "↑/↓ pgup/pgdn scroll · y copy · w write to file · esc close"}
}

func (o *textOverlay) key(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	if cmd, done, ok := pagerKeys(o.p, msg, o.h); ok {
		return cmd, done
	}
	switch msg.String() {
	case "enter":
		if o.enter != nil {
			return o.enter(), false
		}
	case "y":
		return copyText(o.raw, o.title), false
	case "w":
		return writeFile(o.dir, o.file, o.raw), false
	}
	return nil, false
}

// pagerKeys are the keys every pager overlay shares; ok says the key was
// one of them.
func pagerKeys(p *pager, msg tea.KeyPressMsg, h int) (cmd tea.Cmd, done, ok bool) {
	switch msg.String() {
	case "esc", "q":
		return nil, true, true
	case "up", "k":
		p.down(-1, h)
	case "down", "j":
		p.down(1, h)
	case "pgdown", "space", "ctrl+d":
		p.down(max(1, h-2), h)
	case "pgup", "ctrl+u", "b":
		p.down(-max(1, h-2), h)
	case "home", "g":
		p.home()
	case "end", "G":
		p.end(h)
	default:
		return nil, false, false
	}
	return nil, false, true
}

func (o *textOverlay) wheel(n int) { o.p.down(n, o.h) }

func (o *textOverlay) view(w, h int) ([]string, int, int) {
	x, y, bw, bh := bigRect(w, h)
	o.h = max(1, bh-3)
	body := pad(o.p.view(max(1, bw-4), o.h))
	lines := make([]string, o.h, o.h+1)
	copy(lines, body)
	lines = append(lines, o.th.faint.Render(termtext.Clip(" "+o.hint, bw-2)))
	return box(o.th, o.title, lines, bw, bh, true, o.p.footer()), x, y
}

// plainText is styled lines as text: no escape codes, no trailing blanks.
func plainText(lines []string) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(strings.TrimRight(ansi.Strip(l), " "))
		b.WriteByte('\n')
	}
	return b.String()
}

// copyMsg asks the program to put text on the clipboard.
type copyMsg struct{ text, what string }

func copyText(text, what string) tea.Cmd {
	return func() tea.Msg { return copyMsg{text: text, what: what} }
}

// openViewerMsg asks the program to show a text in full.
type openViewerMsg struct{ title, text string }

func openViewer(title, text string) tea.Cmd {
	return func() tea.Msg { return openViewerMsg{title: title, text: text} }
}

// runCommandMsg runs a slash command as if typed.
type runCommandMsg struct{ line string }

func runCommand(line string) tea.Cmd {
	return func() tea.Msg { return runCommandMsg{line: line} }
}

// flashMsg shows a line in the message line.
type flashMsg struct {
	text string
	err  bool
}

// writeFile writes text to dir/name in a command and reports where.
func writeFile(dir, name, text string) tea.Cmd {
	return func() tea.Msg {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			return flashMsg{text: fmt.Sprintf("write %s: %v", path, err), err: true}
		}
		abs, err := filepath.Abs(path)
		if err != nil {
			abs = path
		}
		return flashMsg{text: fmt.Sprintf("wrote %s (%s bytes)", abs, thousands(len(text)))}
	}
}

// fileName makes a safe file name from parts.
func fileName(parts ...string) string {
	s := strings.Join(parts, "-")
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '_'
	}, s)
}
