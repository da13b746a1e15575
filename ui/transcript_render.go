package ui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"skillet/harness/event"
	"skillet/harness/rulebook"
	"skillet/harness/termtext"
)

const (
	// foldLines is how many lines of a long tool result or argument show
	// while folded.
	foldLines = 6
	// openLines caps an unfolded item in the transcript; the viewer (v)
	// shows all of it.
	openLines = 400
)

// render draws one item (not the streaming one) at width w.
func (t *transcriptPane) render(it item, w int, open bool) []string {
	th := t.th
	switch it.kind {
	case itemMark:
		m := t.marks[it.idx]
		icon, st := m.kind.look(th)
		return indentStyled(st, icon+" ", termtext.Sanitize(m.shown(th)), w)
	case itemDivider:
		n := t.messagesBefore(t.firstInWindow)
		return []string{
			"",
			th.warn.Render(centerRule(" the model's window starts here ", w)),
			th.warn.Render(termtext.Clip(th.clean(fmt.Sprintf("  %d earlier message(s) above are out of it (R9)", n)), w)),
		}
	case itemPending:
		out := []string{"", th.user.Render(iconUser+" You") + th.faint.Render(" · sending…")}
		return append(out, indent(termtext.Wrap(termtext.Sanitize(t.pending), max(1, w-2)), "  ")...)
	case itemEntry:
		e := t.entries.At(it.idx)
		return t.renderEntry(&e, w, open)
	}
	return nil
}

func (t *transcriptPane) renderEntry(e *rulebook.Entry, w int, open bool) []string {
	th := t.th
	switch e.Kind {
	case rulebook.EntryUser:
		out := []string{"", th.user.Render(iconUser+" You") + th.faint.Render(fmt.Sprintf(" · turn %d", e.Turn))}
		return append(out, userLines(th, e.Text, w, open)...)
	case rulebook.EntryAssistant:
		return t.renderAssistant(e, w, open)
	case rulebook.EntryTool:
		return t.renderTool(e, w, open)
	default:
		return t.renderNote(e, w)
	}
}

func (t *transcriptPane) renderAssistant(e *rulebook.Entry, w int, open bool) []string {
	th := t.th
	head := th.assistant.Render(iconAssistant+" Assistant") + th.faint.Render(fmt.Sprintf(" · turn %d", e.Turn))
	if e.Manual {
		head += th.faint.Render(" · manual call")
	}
	if e.Interrupted {
		head += th.warn.Render(" · interrupted")
	}
	out := []string{"", head}
	out = append(out, reasoningLines(th, e.Reasoning, w, open, false)...)
	out = append(out, t.md.Render(e.Text, w)...)
	for _, c := range e.ToolCalls {
		out = append(out, toolCallLines(th, c.Name, c.Arguments, w, open)...)
	}
	return out
}

// reasoningLines folds reasoning to one line; open, it shows in full.
func reasoningLines(th *theme, r string, w int, open, streaming bool) []string {
	if strings.TrimSpace(r) == "" {
		return nil
	}
	words := len(strings.Fields(r))
	label := "reasoning"
	if streaming {
		label = "thinking"
	}
	if !open {
		return []string{th.reasoning.Render(termtext.Clip(fmt.Sprintf("  %s %s %s · %d words · enter unfolds", iconFolded, iconReasoning, label, words), w))}
	}
	out := []string{th.reasoning.Render(termtext.Clip(fmt.Sprintf("  %s %s %s · %d words", iconUnfolded, iconReasoning, label, words), w))}
	for _, l := range termtext.Wrap(termtext.Sanitize(r), max(1, w-4)) {
		out = append(out, th.reasoning.Render("    "+l))
	}
	return out
}

// toolCallLines shows a call with its arguments: on the call's line when
// they fit, else indented JSON, folded when long.
func toolCallLines(th *theme, name, args string, w int, open bool) []string {
	head := "  " + iconToolCall + " " + termtext.Sanitize(name)
	compact := termtext.Sanitize(compactJSON(args))
	if compact == "" || compact == "{}" {
		return []string{th.toolCall.Render(termtext.Clip(head+"()", w))}
	}
	if termtext.Width(head)+1+termtext.Width(compact) <= w {
		return []string{th.toolCall.Render(head) + " " + th.faint.Render(compact)}
	}
	body := strings.Split(termtext.Sanitize(prettyJSON(args)), "\n")
	out := []string{th.toolCall.Render(termtext.Clip(head, w))}
	return append(out, foldBlock(th, body, w, 4, open, th.faint)...)
}

func (t *transcriptPane) renderTool(e *rulebook.Entry, w int, open bool) []string {
	th := t.th
	st, icon, what := th.result, iconResult, "result"
	switch {
	case e.Refused:
		st, icon, what = th.refused, iconRefused, "refused"
	case e.IsError:
		st, icon, what = th.bad, iconError, "error"
	}
	head := fmt.Sprintf("  %s %s · %s", icon, termtext.Sanitize(orDash(e.ToolName)), what)
	if e.Manual {
		head += " · manual call"
	}
	if sh := e.Shell; sh != nil {
		head += " · " + shellStatus(sh)
	}
	if e.ApprovedBy != "" {
		head += " · approved by " + termtext.Sanitize(e.ApprovedBy)
	}
	out := []string{st.Render(termtext.Clip(head, w))}
	if sh := e.Shell; sh != nil {
		out = append(out, th.toolCall.Render(termtext.Clip("    $ "+termtext.Sanitize(oneLine(sh.Command)), w)))
		out = append(out, th.faint.Render(termtext.Clip(fmt.Sprintf("    in %s · %s sandbox", sh.Dir, sh.Sandbox), w)))
	}
	if e.WouldApprove != "" {
		out = append(out, th.faint.Render(termtext.Clip("    Claude Code would have approved it by "+termtext.Sanitize(e.WouldApprove)+" (here skills grant nothing, R15)", w)))
	}
	body := t.prettyContent(e.Index)
	if e.Refused && len(body) <= 2 {
		for _, l := range body {
			out = append(out, indentStyled(th.refused, "    ", l, w)...)
		}
	} else {
		out = append(out, foldBlock(th, body, w, 4, open, lipgloss.NewStyle())...)
	}
	if e.Stderr != "" {
		out = append(out, th.warn.Render("    stderr:"))
		out = append(out, foldBlock(th, strings.Split(termtext.Sanitize(e.Stderr), "\n"), w, 6, open, th.warn)...)
	}
	if e.Diff != "" {
		out = append(out, th.faint.Render("    changed files:"))
		out = append(out, foldBlock(th, strings.Split(termtext.Sanitize(e.Diff), "\n"), w, 6, open, th.faint)...)
	}
	return out
}

// shellStatus is how a shell call ended, for its head line.
func shellStatus(sh *event.ShellRun) string {
	status := fmt.Sprintf("exit %d", sh.ExitCode)
	if sh.Signal != "" {
		status = "killed by " + sh.Signal
	}
	status += fmt.Sprintf(" · %s", (time.Duration(sh.DurationMS) * time.Millisecond).String())
	if sh.Limit != "" {
		status += " · stopped: " + sh.Limit
	}
	if sh.Truncated {
		status += fmt.Sprintf(" · output cut (%d bytes)", sh.OutputBytes)
	}
	return status
}

// oneLine joins a multi-line command for a head line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// prettyContent is a tool entry's content in lines, JSON indented, kept
// for reuse at every width.
func (t *transcriptPane) prettyContent(idx int) []string {
	if ls, ok := t.pretty[idx]; ok {
		return ls
	}
	if idx < 0 || idx >= t.entries.Len() {
		return nil
	}
	e := t.entries.At(idx)
	ls := strings.Split(termtext.Sanitize(prettyJSON(e.Text)), "\n")
	if len(t.pretty) >= maxPretty {
		// the drawn items are cached apart; these are only for drawing
		// again, and a long session's would otherwise all stay
		clear(t.pretty)
	}
	t.pretty[idx] = ls
	return ls
}

func (t *transcriptPane) renderNote(e *rulebook.Entry, w int) []string {
	th := t.th
	text := termtext.Sanitize(e.Text)
	switch e.NoteKind {
	case rulebook.NoteContextChanged:
		return indentStyled(th.context, iconContext+" ", text, w)
	case rulebook.NoteHarnessLog:
		// the engine's note carries the prefix the model reads; say it once
		return indentStyled(th.log, iconLog+" harness.log: ", strings.TrimPrefix(text, "harness.log: "), w)
	case rulebook.NoteSkillPreload:
		// the engine's words: presenter mode leaves out the execution id
		return indentStyled(th.preload, iconPreload+" ", th.clean(text), w)
	default:
		return indentStyled(th.faint, "• ", text, w)
	}
}

// foldBlock shows body indented by ind; folded, only its first lines and a
// count of the rest; open, up to openLines. Lines starting with
// "contextChanged:" keep their own style wherever they are.
func foldBlock(th *theme, body []string, w, ind int, open bool, st lipgloss.Style) []string {
	limit := foldLines
	if open {
		limit = openLines
	}
	pad := strings.Repeat(" ", ind)
	out := make([]string, 0, min(len(body), limit)+1)
	shown := 0
	for _, l := range body {
		if shown >= limit {
			break
		}
		lst := st
		if strings.HasPrefix(l, "contextChanged:") {
			lst = th.context
		}
		for _, r := range termtext.Wrap(l, max(1, w-ind)) {
			out = append(out, pad+style(lst, r))
		}
		shown++
	}
	if rest := len(body) - shown; rest > 0 {
		hint := "enter unfolds"
		if open {
			hint = "v views all"
		}
		out = append(out, th.faint.Render(termtext.Clip(fmt.Sprintf("%s… %s more line(s) · %s", pad, thousands(rest), hint), w)))
	}
	return out
}

// userFold is how many lines of a user's message show folded.
const userFold = 24

// userLines is a user's message as typed or pasted: each of its lines kept
// (read as Markdown, a pasted text would reflow into one paragraph), a
// long one folded after userFold lines until enter unfolds it.
func userLines(th *theme, text string, w int, open bool) []string {
	lines := strings.Split(strings.TrimRight(termtext.Sanitize(text), "\n"), "\n")
	limit := len(lines)
	if !open && limit > userFold {
		limit = userFold
	}
	var out []string
	for _, l := range lines[:limit] {
		out = append(out, indent(termtext.Wrap(l, max(1, w-2)), "  ")...)
	}
	if rest := len(lines) - limit; rest > 0 {
		out = append(out, th.faint.Render(termtext.Clip(fmt.Sprintf("  … %s more line(s) · enter unfolds", thousands(rest)), w)))
	}
	return out
}

// indentStyled wraps text after a prefix, aligning continuation lines
// under the text.
func indentStyled(st lipgloss.Style, prefix, text string, w int) []string {
	pw := termtext.Width(prefix)
	lines := termtext.Wrap(text, max(1, w-pw))
	out := make([]string, len(lines))
	pad := strings.Repeat(" ", pw)
	for i, l := range lines {
		p := pad
		if i == 0 {
			p = prefix
		}
		out[i] = st.Render(p + l)
	}
	return out
}

func indent(lines []string, pad string) []string {
	for i, l := range lines {
		lines[i] = pad + l
	}
	return lines
}

// centerRule is label in the middle of a ─ rule w columns wide.
func centerRule(label string, w int) string {
	label = termtext.Clip(label, w)
	rest := w - termtext.Width(label)
	if rest <= 0 {
		return label
	}
	return strings.Repeat("─", rest/2) + label + strings.Repeat("─", rest-rest/2)
}

// dimLines redraws lines in the dim colour: what the model no longer sees.
func dimLines(th *theme, lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = style(th.dim, ansi.Strip(l))
	}
	return out
}

// liveLines draws the streaming message. The drawing is kept until what it
// is drawn from changes: the program draws the screen after every message,
// and most leave the streaming message as it was.
func (t *transcriptPane) liveLines(w int) []string {
	l := t.live
	k := liveKey{w: w, done: l.done, open: t.isOpen(item{itemLive, 0}), reasoning: l.reasoning.Len(), renders: l.renders}
	if l.linesW != w || l.lines == nil {
		k.text = l.text.Len() // the raw text shows until a render lands
	}
	if l.view != nil && l.viewKey == k {
		return l.view
	}
	th := t.th
	state := " · writing…"
	if l.done {
		state = ""
	}
	out := []string{"", th.assistant.Render(iconAssistant+" Assistant") + th.faint.Render(fmt.Sprintf(" · turn %d%s", l.turn, state))}
	out = append(out, reasoningLines(th, l.reasoning.String(), w, k.open, !l.done)...)
	if l.linesW == w && l.lines != nil {
		out = append(out, l.lines...)
	} else {
		if l.plainW != w || l.plainN != l.text.Len() {
			l.plain = indent(termtext.Wrap(termtext.Sanitize(l.text.String()), max(1, w-2)), "  ")
			l.plainW, l.plainN = w, l.text.Len()
		}
		out = append(out, l.plain...)
	}
	// full: a caller's append never writes into the kept drawing
	l.view, l.viewKey = out[:len(out):len(out)], k
	return l.view
}
