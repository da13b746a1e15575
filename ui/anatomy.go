package ui

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"skillet/harness"
)

// The inspector's default view takes a request apart: the instructions
// as the parts the rule book composed them from, the messages by role,
// unescaped and folded, the tools, and what changed since the call
// before; a reply is shown assembled from its stream. The raw JSON is one
// key away.

type anatomyMsg struct {
	Role       string `json:"role"`
	Content    string `json:"content"`
	ToolCallID string `json:"tool_call_id"`
	ToolCalls  []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

type anatomyReq struct {
	Model    string       `json:"model"`
	Messages []anatomyMsg `json:"messages"`
	Tools    []struct {
		Function struct {
			Name        string `json:"name"`
			Description string `json:"description"`
		} `json:"function"`
	} `json:"tools"`
}

// anatomyFold is how many lines of a message the anatomy shows.
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
// for the first call).
func requestAnatomy(body, prev json.RawMessage) string {
	var req anatomyReq
	if err := json.Unmarshal(body, &req); err != nil {
		return "(the request does not decode: " + err.Error() + "; press a for the raw JSON)"
	}
	var b strings.Builder
	tok := func(s string) string { return fmt.Sprintf("~%s tok", thousands(harness.CountEstimate(s))) }
	fmt.Fprintf(&b, "model %s · %d messages · %d tools · %s in all (estimate)\n", req.Model, len(req.Messages), len(req.Tools), tok(string(body)))
	if prev != nil {
		if d := requestDiff(prev, req); d != "" {
			b.WriteString("\nSince the call before\n" + d)
		}
	}
	msgs := req.Messages
	if len(msgs) > 0 && msgs[0].Role == "system" {
		b.WriteString("\nInstructions\n")
		for _, p := range instructionParts(msgs[0].Content) {
			fmt.Fprintf(&b, "  ▸ %s · %s\n", p[0], tok(p[1]))
			b.WriteString(prefixLines(fold(p[1], anatomyFold), "      "))
		}
		msgs = msgs[1:]
	}
	b.WriteString("\nMessages\n")
	for i, m := range msgs {
		head := m.Role
		if m.ToolCallID != "" {
			head += " → " + m.ToolCallID
		}
		fmt.Fprintf(&b, "  %d. %s · %s\n", i+1, head, tok(m.Content))
		if m.Content != "" {
			b.WriteString(prefixLines(fold(m.Content, anatomyFold), "      "))
		}
		for _, tc := range m.ToolCalls {
			fmt.Fprintf(&b, "      ⚙ %s %s\n", tc.Function.Name, clip(tc.Function.Arguments, 200))
		}
	}
	b.WriteString("\nTools\n")
	for _, t := range req.Tools {
		fmt.Fprintf(&b, "  %s — %s\n", t.Function.Name, clip(t.Function.Description, 100))
	}
	return b.String()
}

// requestDiff says what changed from prev to req: skills in and out of
// <current_context>, tools, list entries, messages trimmed and new.
func requestDiff(prevBody json.RawMessage, req anatomyReq) string {
	var prev anatomyReq
	if json.Unmarshal(prevBody, &prev) != nil {
		return ""
	}
	sysOf := func(r anatomyReq) string {
		if len(r.Messages) > 0 && r.Messages[0].Role == "system" {
			return r.Messages[0].Content
		}
		return ""
	}
	names := func(re *regexp.Regexp, s string) []string {
		var out []string
		for _, m := range re.FindAllStringSubmatch(s, -1) {
			out = append(out, m[1])
		}
		return out
	}
	ctxOf := func(s string) string {
		if i := strings.Index(s, "<current_context>"); i >= 0 {
			return s[i:]
		}
		return ""
	}
	var b strings.Builder
	change := func(what string, before, after []string) {
		in, out := setDiff(after, before), setDiff(before, after)
		if len(in) > 0 {
			fmt.Fprintf(&b, "  + %s: %s\n", what, strings.Join(in, ", "))
		}
		if len(out) > 0 {
			fmt.Fprintf(&b, "  − %s: %s\n", what, strings.Join(out, ", "))
		}
	}
	ps, cs := sysOf(prev), sysOf(req)
	change("<current_context>", names(skillElemRE, ctxOf(ps)), names(skillElemRE, ctxOf(cs)))
	change("list", names(listNameRE, ps), names(listNameRE, cs))
	var pt, ct []string
	for _, t := range prev.Tools {
		pt = append(pt, t.Function.Name)
	}
	for _, t := range req.Tools {
		ct = append(ct, t.Function.Name)
	}
	change("tools", pt, ct)
	key := func(m anatomyMsg) string { return m.Role + "\x00" + m.ToolCallID + "\x00" + m.Content }
	seen := map[string]bool{}
	for _, m := range req.Messages {
		seen[key(m)] = true
	}
	trimmed, had := 0, map[string]bool{}
	for _, m := range prev.Messages {
		had[key(m)] = true
		if m.Role != "system" && !seen[key(m)] {
			trimmed++
		}
	}
	added := 0
	for _, m := range req.Messages {
		if m.Role != "system" && !had[key(m)] {
			added++
		}
	}
	if trimmed > 0 {
		fmt.Fprintf(&b, "  − %d message(s) left the window (or changed)\n", trimmed)
	}
	if added > 0 {
		fmt.Fprintf(&b, "  + %d new message(s)\n", added)
	}
	return b.String()
}

func setDiff(a, b []string) []string {
	in := map[string]bool{}
	for _, x := range b {
		in[x] = true
	}
	var out []string
	for _, x := range a {
		if !in[x] {
			out = append(out, x)
		}
	}
	return out
}

// replyAnatomy assembles a raw chat-completions stream (or a JSON reply)
// into its text, reasoning, tool calls, finish reason and usage.
func replyAnatomy(raw string) string {
	if strings.TrimSpace(raw) == "" {
		return ""
	}
	type delta struct {
		Content   string `json:"content"`
		Reasoning string `json:"reasoning"`
		RC        string `json:"reasoning_content"`
		ToolCalls []struct {
			Index    int    `json:"index"`
			ID       string `json:"id"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	}
	type chunk struct {
		Choices []struct {
			Delta        delta   `json:"delta"`
			Message      delta   `json:"message"`
			FinishReason *string `json:"finish_reason"`
		} `json:"choices"`
		Usage *struct {
			Prompt     int `json:"prompt_tokens"`
			Completion int `json:"completion_tokens"`
		} `json:"usage"`
	}
	var text, reasoning strings.Builder
	type call struct{ id, name, args string }
	calls := map[int]*call{}
	var order []int
	finish, usage := "", ""
	chunks := 0
	apply := func(c chunk) {
		chunks++
		for _, ch := range c.Choices {
			for _, d := range []delta{ch.Delta, ch.Message} {
				text.WriteString(d.Content)
				reasoning.WriteString(d.Reasoning + d.RC)
				for _, tc := range d.ToolCalls {
					cl := calls[tc.Index]
					if cl == nil {
						cl = &call{}
						calls[tc.Index] = cl
						order = append(order, tc.Index)
					}
					if tc.ID != "" {
						cl.id = tc.ID
					}
					cl.name += tc.Function.Name
					cl.args += tc.Function.Arguments
				}
			}
			if ch.FinishReason != nil && *ch.FinishReason != "" {
				finish = *ch.FinishReason
			}
		}
		if c.Usage != nil {
			usage = fmt.Sprintf("%d prompt + %d completion tokens (reported)", c.Usage.Prompt, c.Usage.Completion)
		}
	}
	if t := strings.TrimSpace(raw); strings.HasPrefix(t, "{") {
		var c chunk
		if json.Unmarshal([]byte(t), &c) == nil {
			apply(c)
		}
	} else {
		for _, line := range strings.Split(raw, "\n") {
			data, ok := strings.CutPrefix(strings.TrimSpace(line), "data:")
			if !ok || strings.TrimSpace(data) == "[DONE]" {
				continue
			}
			var c chunk
			if json.Unmarshal([]byte(strings.TrimSpace(data)), &c) == nil {
				apply(c)
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Reply assembled from %d chunk(s) · finish reason %s\n", chunks, orDash(finish))
	if usage != "" {
		b.WriteString("Usage: " + usage + "\n")
	}
	if reasoning.Len() > 0 {
		b.WriteString("\nReasoning\n" + prefixLines(reasoning.String(), "  "))
	}
	if text.Len() > 0 {
		b.WriteString("\nText\n" + prefixLines(text.String(), "  "))
	}
	if len(order) > 0 {
		b.WriteString("\nTool calls\n")
		for _, i := range order {
			c := calls[i]
			fmt.Fprintf(&b, "  ⚙ %s (%s) %s\n", c.name, orDash(c.id), c.args)
		}
	}
	return b.String()
}

// fold keeps the first n lines of s and says how many it left.
func fold(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) <= n {
		return strings.Join(lines, "\n") + "\n"
	}
	return strings.Join(lines[:n], "\n") + fmt.Sprintf("\n… %d more line(s) (a: raw JSON)\n", len(lines)-n)
}

// prefixLines puts pre in front of every line of s.
func prefixLines(s, pre string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(indent(lines, pre), "\n") + "\n"
}
