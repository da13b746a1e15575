package ui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// keyMap is every key the program answers: dispatch matches against it
// and the help view (? and /help) and the hint line are drawn from it, so
// what the help says is what the keys do.
//
// Printable keys are text: whatever pane has the focus they go to the
// input. A pane's own actions therefore take keys that cannot be typed
// text — arrows, enter, and alt with a letter.
type keyMap struct {
	Send, Newline, Complete, History key.Binding
	FocusNext, FocusPrev             key.Binding
	Cancel, Quit, Inspector, Help    key.Binding
	Zoom, Search, PrevTurn, NextTurn key.Binding
	Present, Suggest, Unqueue        key.Binding
	HistoryBack, HistoryOn           key.Binding
	PaneMode, Command                key.Binding
	// Files lists the workspace files the agent tools changed.
	Files key.Binding
	// ScrollUp and ScrollDown page the transcript from the input.
	ScrollUp, ScrollDown key.Binding

	Up, Down, PageUp, PageDown key.Binding
	Top, Bottom, Fold          key.Binding

	FoldAll, View, Copy, Inspect key.Binding
	Unload, Call, JumpContext    key.Binding
	Why                          key.Binding

	MenuUp, MenuDown, SearchOlder, SearchNewer key.Binding
}

func newKeyMap() keyMap {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return keyMap{
		Send:      b("enter", "send (queued while a turn runs)", "enter"),
		Newline:   b("shift/alt+enter", "new line", "shift+enter", "alt+enter", "ctrl+j"),
		Complete:  b("tab", "complete /command", "tab"),
		History:   b("↑/↓", "previous messages (input)", "up", "down"),
		FocusNext: b("tab", "next pane", "tab"),
		FocusPrev: b("shift+tab", "previous pane", "shift+tab"),
		Cancel:    b("esc", "cancel the turn (R25) · back to the input", "esc"),
		Quit:      b("ctrl+c ×2", "quit", "ctrl+c"),
		Inspector: b("ctrl+o", "inspector: model requests", "ctrl+o"),
		Files:     b("alt+f", "changed workspace files and their diffs (/files)", "alt+f"),
		Help:      b("?/f1", "keys (? on an empty input)", "f1"),
		Zoom:      b("ctrl+z", "zoom the pane to full size", "ctrl+z"),
		Search:    b("ctrl+f", "find in the transcript", "ctrl+f"),
		PrevTurn:  b("ctrl+↑", "previous turn", "ctrl+up", "alt+up"),
		NextTurn:  b("ctrl+↓", "next turn", "ctrl+down", "alt+down"),
		Present:   b("f2", "presenter mode", "f2"),
		// time travel: the side panes as each model call went out
		HistoryBack: b("alt+[", "side panes one model call back (esc: live)", "alt+["),
		HistoryOn:   b("alt+]", "side panes one model call on", "alt+]"),
		Suggest:     b("alt+1…3", "take a suggested prompt", "alt+1", "alt+2", "alt+3"),
		Unqueue:     b("ctrl+x", "drop the last queued message", "ctrl+x"),
		ScrollUp:    b("pgup", "transcript page up (input)", "pgup"),
		ScrollDown:  b("pgdn", "transcript page down (input)", "pgdown"),
		Command:     b("/", "command menu: ↑/↓ choose, tab completes, enter runs", "/"),
		PaneMode:    b("ctrl+p", "pane keys: plain letters act on the pane until esc", "ctrl+p"),

		Up:       b("↑", "previous item / scroll", "up"),
		Down:     b("↓", "next item / scroll", "down"),
		PageUp:   b("pgup", "page up", "pgup", "ctrl+u"),
		PageDown: b("pgdn", "page down", "pgdown", "ctrl+d"),
		Top:      b("home", "top", "home"),
		Bottom:   b("end", "bottom", "end"),
		Fold:     b("enter", "fold / unfold · details", "enter"),

		FoldAll:     b("alt+e", "unfold all (transcript)", "alt+e"),
		View:        b("alt+v", "view in full", "alt+v"),
		Copy:        b("alt+y", "copy (OSC 52)", "alt+y"),
		Inspect:     b("alt+i", "inspect this turn's calls (transcript)", "alt+i"),
		Unload:      b("alt+u", "unload skill (LRU)", "alt+u"),
		Why:         b("alt+w", "the skill's card: why it loaded or not (LRU)", "alt+w"),
		Call:        b("alt+c", "call tool by hand (tools)", "alt+c"),
		JumpContext: b("alt+c", "jump to <current_context> (context)", "alt+c"),

		MenuUp:      b("↑", "previous suggestion", "up"),
		MenuDown:    b("↓", "next suggestion", "down"),
		SearchOlder: b("enter/↑", "older match", "enter", "up"),
		SearchNewer: b("↓", "newer match", "down"),
	}
}

// printable reports whether a key press is text: it has a character and
// no modifier but shift. Such keys always go to the input.
func printable(msg tea.KeyPressMsg) bool {
	return msg.Text != "" && msg.Mod&^(tea.ModShift|tea.ModCapsLock|tea.ModNumLock) == 0
}

// ShortHelp is the hint line under the input.
func (k keyMap) ShortHelp() []key.Binding {
	return []key.Binding{hint(k.Send, "send"), k.Newline, hint(k.FocusNext, "panes"), hint(k.Cancel, "cancel"),
		hint(k.Zoom, "zoom"), hint(k.Search, "find"), hint(k.Inspector, "inspector"), hint(k.Help, "keys"), k.Quit}
}

// hint rewords a binding for the hint line of one pane.
func hint(b key.Binding, desc string) key.Binding {
	return key.NewBinding(key.WithKeys(b.Keys()...), key.WithHelp(b.Help().Key, desc))
}

// paneHelp is the hint line: the focused pane's own keys, or the input's.
// In pane mode the pane's alt keys are plain letters.
func (k keyMap) paneHelp(b []key.Binding, narrow, paneMode bool) []key.Binding {
	if b != nil {
		if paneMode {
			for i, kb := range b {
				h := kb.Help()
				b[i] = key.NewBinding(key.WithKeys(kb.Keys()...), key.WithHelp(strings.TrimPrefix(h.Key, "alt+"), h.Desc))
			}
			return append(b, hint(k.Cancel, "typing again"), hint(k.Zoom, "zoom"))
		}
		typing := key.NewBinding(key.WithKeys("a"), key.WithHelp("typing", "goes to the input"))
		return append(b, typing, hint(k.PaneMode, "pane keys"), hint(k.Zoom, "zoom"), hint(k.FocusNext, "next pane"))
	}
	if narrow {
		return []key.Binding{hint(k.Send, "send"), hint(k.FocusNext, "panes"), hint(k.Cancel, "cancel"), hint(k.Zoom, "zoom"), hint(k.Help, "keys")}
	}
	return k.ShortHelp()
}

// FullHelp groups every key by where it works.
func (k keyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Send, k.Newline, k.Command, k.Complete, k.History, k.ScrollUp, k.ScrollDown, k.Unqueue, k.Suggest},
		{k.Inspector, k.Files, k.FocusNext, k.FocusPrev, k.PaneMode, k.Cancel, k.Zoom, k.Search, k.PrevTurn, k.NextTurn, k.HistoryBack, k.HistoryOn, k.Present, k.Help, k.Quit},
		{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom},
		{k.Fold, k.FoldAll, k.View, k.Copy, k.Inspect, k.Unload, k.Why, k.Call, k.JumpContext},
	}
}
