package ui

import "charm.land/bubbles/v2/key"

// keyMap is every key the program answers, for the help view (? and
// /help) and the hint line.
type keyMap struct {
	Send, Newline, Complete       key.Binding
	FocusNext, FocusPrev          key.Binding
	Cancel, Quit, Inspector, Help key.Binding
	Up, Down, PageUp, PageDown    key.Binding
	Top, Bottom, Fold, FoldAll    key.Binding
	View, Copy, Inspect, Unload   key.Binding
	Call, Command, JumpContext    key.Binding
	History                       key.Binding
}

func newKeyMap() keyMap {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return keyMap{
		Send:        b("enter", "send", "enter"),
		Newline:     b("shift/alt+enter", "new line", "shift+enter", "alt+enter", "ctrl+j"),
		Complete:    b("tab", "complete /command", "tab"),
		History:     b("↑/↓", "previous messages (input)", "up", "down"),
		FocusNext:   b("tab", "next pane", "tab"),
		FocusPrev:   b("shift+tab", "previous pane", "shift+tab"),
		Cancel:      b("esc", "cancel the turn (R25)", "esc"),
		Quit:        b("ctrl+c ×2", "quit", "ctrl+c"),
		Inspector:   b("ctrl+o", "inspector: model requests", "ctrl+o"),
		Help:        b("?", "keys", "?", "f1"),
		Up:          b("↑/k", "previous item / scroll", "up", "k"),
		Down:        b("↓/j", "next item / scroll", "down", "j"),
		PageUp:      b("pgup", "page up", "pgup", "ctrl+u"),
		PageDown:    b("pgdn", "page down", "pgdown", "ctrl+d"),
		Top:         b("g/home", "top", "home", "g"),
		Bottom:      b("G/end", "bottom", "end", "G"),
		Fold:        b("enter/space", "fold / unfold", "enter", "space"),
		FoldAll:     b("e", "unfold all (transcript)", "e"),
		View:        b("v", "view in full", "v"),
		Copy:        b("y", "copy (OSC 52)", "y"),
		Inspect:     b("i", "inspect this turn's calls", "i"),
		Unload:      b("u", "unload skill (LRU)", "u"),
		Call:        b("c", "call tool by hand (tools)", "c"),
		JumpContext: b("c", "jump to <current_context> (context)", "c"),
		Command:     b("/", "type a command", "/"),
	}
}

// ShortHelp is the hint line under the input.
func (k keyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Send, k.Newline, k.FocusNext, k.Cancel, k.Inspector, k.Help, k.Quit}
}

// hint is a binding for the hint line alone, worded for one pane.
func hint(keys, desc string) key.Binding {
	return key.NewBinding(key.WithKeys(keys), key.WithHelp(keys, desc))
}

// paneHelp is the hint line while a pane has the focus: its own keys.
func (k keyMap) paneHelp(p pane, narrow bool) []key.Binding {
	var b []key.Binding
	switch p {
	case paneTranscript:
		b = []key.Binding{hint("↑/↓", "select"), hint("enter", "fold"), hint("e", "unfold all"), hint("v", "view"), hint("y", "copy"), hint("i", "inspect")}
	case paneLRU:
		b = []key.Binding{hint("↑/↓", "select"), hint("enter", "state & store"), hint("u", "unload"), hint("v", "view"), hint("y", "copy")}
	case paneContext:
		b = []key.Binding{hint("↑/↓", "scroll"), hint("c", "<current_context>"), hint("v", "view"), hint("y", "copy")}
	case paneTools:
		b = []key.Binding{hint("↑/↓", "select"), hint("enter", "details"), hint("c", "call by hand"), hint("v", "view")}
	default:
		if narrow {
			return []key.Binding{k.Send, k.FocusNext, k.Cancel, k.Help}
		}
		return k.ShortHelp()
	}
	return append(b, hint("tab", "next pane"), k.Help)
}

// FullHelp groups every key by where it works.
func (k keyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Send, k.Newline, k.Complete, k.History, k.Command},
		{k.FocusNext, k.FocusPrev, k.Cancel, k.Inspector, k.Help, k.Quit},
		{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom},
		{k.Fold, k.FoldAll, k.View, k.Copy, k.Inspect, k.Unload, k.Call, k.JumpContext},
	}
}
