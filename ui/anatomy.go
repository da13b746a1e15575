package ui

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"skillet/harness/chat"
	"skillet/harness/llm"
	"skillet/harness/reqdelta"
	"skillet/harness/termtext"
)

// The inspector's default view takes a request apart: the instructions
// as the parts the rule book composed them from, the messages by role,
// unescaped and folded, the tools, and what changed since the call
// before; a reply is shown assembled from its stream. The raw JSON is one
// key away.

// anatomyFold is how many lines of a part or message the anatomy shows
// folded; enter in the inspector unfolds them all.
const anatomyFold = 6

var (
	skillElemRE = regexp.MustCompile(`(?s)<skill name="([^"]*)"[^>]*>.*?</skill>`)
	listNameRE  = regexp.MustCompile(`<name>([^<]*)</name>`)
)

// instructionParts splits a system message into the parts of the rule
// book: the agent's prompt, each preload, the list, each skill in
// <current_context>.
func instructionParts(sys string) [][2]string {
	var parts [][2]string
	rest := sys
	cut := func(open, close string) (before, block string, ok bool) {
		i := strings.Index(rest, open)
		if i < 0 {
			return "", "", false
		}
		j := strings.Index(rest[i:], close)
		if j < 0 {
			return "", "", false
		}
		before, block = rest[:i], rest[i:i+j+len(close)]
		rest = rest[i+j+len(close):]
		return before, block, true
	}
	addText := func(label, text string) {
		if t := strings.TrimSpace(text); t != "" {
			parts = append(parts, [2]string{label, t})
		}
	}
	if before, block, ok := cut("<preloaded_skills>", "</preloaded_skills>"); ok {
		addText("prompt", before)
		for _, m := range skillElemRE.FindAllStringSubmatch(block, -1) {
			parts = append(parts, [2]string{"preload " + m[1], m[0]})
		}
	}
	if before, block, ok := cut("<available_skills>", "</available_skills>"); ok {
		addText("prompt", before)
		names := listNameRE.FindAllStringSubmatch(block, -1)
		parts = append(parts, [2]string{fmt.Sprintf("list (%d skills)", len(names)), block})
	}
	if before, block, ok := cut("<current_context>", "</current_context>"); ok {
		addText("prompt", before)
		for _, m := range skillElemRE.FindAllStringSubmatch(block, -1) {
			parts = append(parts, [2]string{"<current_context> " + m[1], m[0]})
		}
	}
	addText("rest", rest)
	return parts
}

// requestAnatomy describes a request, and how it differs from prev (nil
// for the first call), its parts' tokens estimated with estimate. Folded,
// each part and message shows its first lines; open, all of them.
func requestAnatomy(body, prev json.RawMessage, open bool, estimate func(string) int) string {
	var req chat.Request
	if err := json.Unmarshal(body, &req); err != nil {
		return "(the request does not decode: " + err.Error() + "; press a for the raw JSON)"
	}
	var b strings.Builder
	tok := func(s string) string { return fmt.Sprintf("~%s tok", thousands(estimate(s))) }
	fmt.Fprintf(&b, "model %s · %d messages · %d tools · %s in all (estimate)\n", req.Model, len(req.Messages), len(req.Tools), tok(string(body)))
	if prev != nil {
		if d := requestDiff(prev, body); d != "" {
			b.WriteString("\nSince the call before\n" + d)
		}
	}
	marker, lines := iconFolded, anatomyFold
	if open {
		marker, lines = iconUnfolded, -1
	}
	msgs := req.Messages
	if len(msgs) > 0 && msgs[0].Role == "system" {
		b.WriteString("\nInstructions\n")
		for _, p := range instructionParts(msgs[0].Content) {
			fmt.Fprintf(&b, "  %s %s · %s\n", marker, p[0], tok(p[1]))
			b.WriteString(prefixLines(fold(p[1], lines), "      "))
		}
		msgs = msgs[1:]
	}
	b.WriteString("\nMessages\n")
	for i, m := range msgs {
		head := m.Role
		if m.ToolCallID != "" {
			head += " → " + m.ToolCallID
		}
		// a message of tool calls alone is their names and arguments
		counted := m.Content
		for _, tc := range m.ToolCalls {
			counted += tc.Function.Name + tc.Function.Arguments
		}
		fmt.Fprintf(&b, "  %d. %s · %s\n", i+1, head, tok(counted))
		if m.Content != "" {
			b.WriteString(prefixLines(fold(m.Content, lines), "      "))
		}
		for _, tc := range m.ToolCalls {
			fmt.Fprintf(&b, "      ⚙ %s %s\n", tc.Function.Name, termtext.Clip(tc.Function.Arguments, 200))
		}
	}
	b.WriteString("\nTools\n")
	for _, t := range req.Tools {
		if t.Function != nil {
			fmt.Fprintf(&b, "  %s — %s\n", t.Function.Name, termtext.Clip(t.Function.Description, 100))
		}
	}
	return b.String()
}

func toolNamesOf(r chat.Request) []string {
	var out []string
	for _, t := range r.Tools {
		if t.Function != nil {
			out = append(out, t.Function.Name)
		}
	}
	return out
}

// requestDiff says what changed from prev to this body, from the delta
// `skillet replay diff` reads too: skills in and out of <current_context>,
// list entries and their descriptions, tools, messages trimmed, edited
// and new.
func requestDiff(prevBody, body json.RawMessage) string {
	a, errA := reqdelta.Parse(prevBody)
	b, errB := reqdelta.Parse(body)
	if errA != nil || errB != nil {
		return ""
	}
	d := reqdelta.Between(a, b)
	var out strings.Builder
	change := func(what string, c reqdelta.Changes, changed string) {
		if len(c.Added) > 0 {
			fmt.Fprintf(&out, "  + %s: %s\n", what, strings.Join(c.Added, ", "))
		}
		if len(c.Removed) > 0 {
			fmt.Fprintf(&out, "  − %s: %s\n", what, strings.Join(c.Removed, ", "))
		}
		if len(c.Changed) > 0 {
			fmt.Fprintf(&out, "  ~ %s: %s %s\n", what, strings.Join(c.Changed, ", "), changed)
		}
	}
	if a.Model != b.Model {
		fmt.Fprintf(&out, "  ~ model: %s, was %s\n", b.Model, a.Model)
	}
	change("<current_context>", d.Context, "rendered anew")
	change("list", d.List, "<description> edited")
	change("tools", d.Tools, "description or parameters edited")
	if d.Reordered {
		out.WriteString("  ~ tools reordered\n")
	}
	if n := d.Count(reqdelta.Gone); n > 0 {
		fmt.Fprintf(&out, "  − %d message(s) left the window\n", n)
	}
	var edited []string
	for _, s := range d.Messages {
		switch {
		case s.Kind != reqdelta.Changed:
		case b.Messages[s.B].Role == "system":
			// the lines above tell what the instructions' change is made of
			if d.Context.Empty() && d.List.Empty() {
				out.WriteString("  ~ instructions edited\n")
			}
		default:
			n := s.B + 1 // numbered as the Messages below number them
			if b.Messages[0].Role == "system" {
				n--
			}
			edited = append(edited, fmt.Sprintf("%d (%s)", n, b.Messages[s.B].Role))
		}
	}
	if len(edited) > 0 {
		fmt.Fprintf(&out, "  ~ %d message(s) edited: %s\n", len(edited), strings.Join(edited, ", "))
	}
	if n := d.Count(reqdelta.New); n > 0 {
		fmt.Fprintf(&out, "  + %d new message(s)\n", n)
	}
	if len(d.Fields) > 0 {
		fmt.Fprintf(&out, "  ~ fields: %s\n", strings.Join(d.Fields, ", "))
	}
	return out.String()
}

// replyAnatomy assembles a raw chat-completions stream (or a JSON reply)
// into its text, reasoning, tool calls, finish reason and usage, as the
// client read it.
func replyAnatomy(raw string) string {
	if strings.TrimSpace(raw) == "" {
		return ""
	}
	r, chunks := llm.Assemble(raw)
	var b strings.Builder
	fmt.Fprintf(&b, "Reply assembled from %d chunk(s) · finish reason %s\n", chunks, orDash(r.FinishReason))
	if r.Interrupted {
		b.WriteString("Interrupted: the stream ended before a finish reason, so its tool calls were dropped\n")
	}
	if u := r.Usage; u != nil {
		fmt.Fprintf(&b, "Usage: %d prompt + %d completion tokens (reported)\n", u.PromptTokens, u.CompletionTokens)
	}
	if r.Reasoning != "" {
		b.WriteString("\nReasoning\n" + prefixLines(r.Reasoning, "  "))
	}
	if r.Message.Content != "" {
		b.WriteString("\nText\n" + prefixLines(r.Message.Content, "  "))
	}
	if len(r.Message.ToolCalls) > 0 {
		b.WriteString("\nTool calls\n")
		for _, c := range r.Message.ToolCalls {
			fmt.Fprintf(&b, "  ⚙ %s (%s) %s\n", c.Function.Name, orDash(c.ID), c.Function.Arguments)
		}
	}
	return b.String()
}

// fold keeps the first n lines of s (all when n < 0) and says how many it
// left.
func fold(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if n < 0 || len(lines) <= n {
		return strings.Join(lines, "\n") + "\n"
	}
	return strings.Join(lines[:n], "\n") + fmt.Sprintf("\n… %d more line(s) · enter unfolds\n", len(lines)-n)
}

// prefixLines puts pre in front of every line of s.
func prefixLines(s, pre string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(indent(lines, pre), "\n") + "\n"
}
