package ui

import (
	"image/color"

	"charm.land/lipgloss/v2"
)

// Icons mark each kind of transcript line; all are one column wide.
const (
	iconUser      = "❯"
	iconAssistant = "◆"
	iconReasoning = "∴"
	iconToolCall  = "⚙"
	iconResult    = "↳"
	iconError     = "✗"
	iconRefused   = "⊘"
	iconContext   = "⟳"
	iconLog       = "⚠"
	iconPreload   = "⇡"
	iconLoaded    = "▲"
	iconUnloaded  = "▼"
	iconActive    = "★"
	iconTrim      = "✂"
	iconApproved  = "✓"
	iconRetry     = "↻"
	iconSetting   = "≡"
	iconFolded    = "▸"
	iconUnfolded  = "▾"
	iconSelected  = "▌"
)

// theme holds every style the interface draws with, for a dark or a light
// terminal background.
type theme struct {
	dark bool
	// present is presenter mode: rule numbers, call ids and paths are
	// left out of what the panes say.
	present bool

	border, borderFocus   lipgloss.Style
	title, titleFocus     lipgloss.Style
	footer                lipgloss.Style
	dim, faint, bold      lipgloss.Style
	accent, good, warn    lipgloss.Style
	bad, info             lipgloss.Style
	user, assistant       lipgloss.Style
	reasoning, toolCall   lipgloss.Style
	result, refused       lipgloss.Style
	context, log, preload lipgloss.Style
	mark                  lipgloss.Style
	gone                  lipgloss.Style
	selected              lipgloss.Style
	status, statusDemo    lipgloss.Style
	key, tag, tagActive   lipgloss.Style
	xmlTag                lipgloss.Style
	dialog                lipgloss.Style
	button, buttonFocus   lipgloss.Style
}

func newTheme(dark bool) *theme {
	ld := lipgloss.LightDark(dark)
	c := func(light, darkc string) color.Color { return ld(lipgloss.Color(light), lipgloss.Color(darkc)) }
	fg := func(col color.Color) lipgloss.Style { return lipgloss.NewStyle().Foreground(col) }

	accent := c("#5A4FCF", "#9D8CFF")
	muted := c("#8A8A8A", "#6C6C6C")
	green := c("#2E7D32", "#7FD88F")
	yellow := c("#9A6700", "#E5C07B")
	red := c("#C62828", "#FF6B6B")
	cyan := c("#00838F", "#56C8D8")
	blue := c("#1565C0", "#6CB6FF")
	magenta := c("#8E24AA", "#D7A6FF")

	return &theme{
		dark:        dark,
		border:      fg(muted),
		borderFocus: fg(accent),
		title:       fg(muted).Bold(true),
		titleFocus:  fg(accent).Bold(true),
		footer:      fg(muted),
		dim:         fg(c("#A0A0A0", "#5F5F5F")),
		faint:       fg(muted),
		bold:        lipgloss.NewStyle().Bold(true),
		accent:      fg(accent),
		good:        fg(green),
		warn:        fg(yellow),
		bad:         fg(red),
		info:        fg(blue),
		user:        fg(blue).Bold(true),
		assistant:   fg(accent).Bold(true),
		reasoning:   fg(muted).Italic(true),
		toolCall:    fg(yellow),
		result:      fg(green),
		refused:     fg(red),
		context:     fg(cyan),
		log:         fg(yellow),
		preload:     fg(magenta),
		mark:        fg(magenta),
		gone:        fg(muted).Strikethrough(true),
		selected:    fg(accent).Bold(true),
		status:      lipgloss.NewStyle().Foreground(c("#303030", "#D0D0D0")),
		statusDemo:  fg(yellow).Bold(true),
		key:         fg(accent).Bold(true),
		tag:         fg(muted),
		tagActive:   fg(accent).Bold(true).Underline(true),
		xmlTag:      fg(cyan),
		dialog:      fg(accent),
		button:      fg(muted),
		buttonFocus: lipgloss.NewStyle().Reverse(true).Bold(true),
	}
}
