package demo

import (
	"html"
	"regexp"
	"strings"

	"skillet/harness/chat"
)

// listedSkill is one entry of <available_skills>.
type listedSkill struct {
	Name        string
	Description string
}

// contextSkill is one <skill> element of <current_context> or
// <preloaded_skills>.
type contextSkill struct {
	Name         string
	Active       bool
	Instructions string
}

// prompt is what the demo model reads from the system message.
type prompt struct {
	listed    []listedSkill
	loaded    []contextSkill // <current_context>, most recent first
	preloaded []contextSkill
}

// attrRE reads the attributes of a <skill ...> line.
var attrRE = regexp.MustCompile(`([A-Za-z_:][-A-Za-z0-9_:.]*)="([^"]*)"`)

// tagRE reads a one-line <name>…</name> or <description>…</description>.
var tagRE = regexp.MustCompile(`^<(name|description)>(.*?)(</(?:name|description)>)?$`)

// parsePrompt reads the blocks the engine composes into the system
// messages. It scans line by line so each block is found wherever it sits,
// and a skill's own text cannot open another block.
func parsePrompt(msgs []chat.Message) prompt {
	var sys []string
	var p prompt
	for _, m := range msgs {
		if m.Role == chat.RoleSystem {
			sys = append(sys, m.Content)
		}
		if m.Role == chat.RoleUser && strings.HasPrefix(m.Content, claudeListing) {
			p.listed = append(p.listed, reminderList(m.Content)...)
		}
	}
	const (
		top = iota
		inPreloaded
		inContext
		inList
	)
	mode := top
	var cur *contextSkill  // the <skill> element being read, if any
	var body []string      // its lines
	var entry *listedSkill // the list entry being read, if any
	var desc *strings.Builder
	endSkill := func() {
		cur.Instructions = strings.Join(body, "\n")
		if mode == inPreloaded {
			p.preloaded = append(p.preloaded, *cur)
		} else {
			p.loaded = append(p.loaded, *cur)
		}
		cur, body = nil, nil
	}
	for _, line := range strings.Split(strings.Join(sys, "\n"), "\n") {
		t := strings.TrimSpace(line)
		if cur != nil {
			if t == "</skill>" {
				endSkill()
				continue
			}
			body = append(body, strings.TrimRight(line, "\r"))
			continue
		}
		switch mode {
		case top:
			switch t {
			case "<preloaded_skills>":
				mode = inPreloaded
			case "<current_context>":
				mode = inContext
			case "<available_skills>":
				mode = inList
			}
		case inPreloaded, inContext:
			switch {
			case t == "</preloaded_skills>" || t == "</current_context>":
				mode = top
			case strings.HasPrefix(t, "<skill ") && strings.HasSuffix(t, ">"):
				cur = &contextSkill{}
				for _, a := range attrRE.FindAllStringSubmatch(t, -1) {
					switch a[1] {
					case "name":
						cur.Name = html.UnescapeString(a[2])
					case "active":
						cur.Active = a[2] == "true"
					}
				}
			}
		case inList:
			if desc != nil {
				before, _, closed := strings.Cut(line, "</description>")
				desc.WriteString("\n" + before)
				if closed {
					entry.Description = html.UnescapeString(desc.String())
					desc = nil
				}
				continue
			}
			switch {
			case t == "</available_skills>":
				mode = top
			case t == "<skill>":
				p.listed = append(p.listed, listedSkill{})
				entry = &p.listed[len(p.listed)-1]
			case entry != nil && tagRE.MatchString(t):
				m := tagRE.FindStringSubmatch(t)
				val := html.UnescapeString(m[2])
				if m[1] == "name" {
					entry.Name = val
				} else if m[3] == "" {
					desc = &strings.Builder{}
					desc.WriteString(m[2])
				} else {
					entry.Description = val
				}
			case t == "</skill>":
				entry = nil
			}
		}
	}
	if cur != nil { // a skill cut off before its end tag still counts
		endSkill()
	}
	// Drop list entries that never got a name: they cannot be loaded.
	named := p.listed[:0]
	for _, s := range p.listed {
		if s.Name != "" {
			named = append(named, s)
		}
	}
	p.listed = named
	return p
}

// inContext reports whether a skill is loaded or preloaded.
func (p *prompt) inContext(name string) (loaded *contextSkill, preloaded bool) {
	for i := range p.loaded {
		if p.loaded[i].Name == name {
			return &p.loaded[i], false
		}
	}
	for _, s := range p.preloaded {
		if s.Name == name {
			return nil, true
		}
	}
	return nil, false
}

// active returns the skill marked active in <current_context>, if any.
func (p *prompt) active() *contextSkill {
	for i := range p.loaded {
		if p.loaded[i].Active {
			return &p.loaded[i]
		}
	}
	return nil
}

// firstInstruction is what the demo model quotes of a skill: its first
// paragraph of prose (hard-wrapped lines joined), skipping headings, rules
// and fences; the first heading's text when there is no prose.
func firstInstruction(text string) string {
	heading := ""
	var para []string
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		block := t == "" || t == "---" || t == "<examples>" || strings.HasPrefix(t, "```") || strings.HasPrefix(t, "#")
		if len(para) > 0 {
			if block || listItem(t) {
				break
			}
			para = append(para, t)
			continue
		}
		switch {
		case t == "<examples>":
			return heading
		case strings.HasPrefix(t, "#"):
			if heading == "" {
				heading = strings.TrimSpace(strings.TrimLeft(t, "#"))
			}
		case !block:
			para = append(para, t)
		}
	}
	if len(para) == 0 {
		return heading
	}
	return strings.Join(para, " ")
}

// listItem reports whether a line starts a Markdown list item.
func listItem(t string) bool {
	if strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* ") || strings.HasPrefix(t, "+ ") {
		return true
	}
	digits := len(t) - len(strings.TrimLeft(t, "0123456789"))
	return digits > 0 && (strings.HasPrefix(t[digits:], ". ") || strings.HasPrefix(t[digits:], ") "))
}

// firstSentence keeps s up to the end of its first sentence, or at most n
// characters.
func firstSentence(s string, n int) string {
	r := []rune(s)
	for i := 0; i < len(r)-1 && i < n; i++ {
		if (r[i] == '.' || r[i] == '!' || r[i] == '?') && r[i+1] == ' ' && i >= 20 {
			return string(r[:i+1])
		}
	}
	return clip(s, n)
}

// claudeListing opens Claude Code's skill listing, a user message of
// "- name: description" lines (the claude-code profile).
const claudeListing = "<system-reminder>\nThe following skills are available for use with the Skill tool:"

// reminderList reads the entries of Claude Code's listing.
func reminderList(text string) []listedSkill {
	var out []listedSkill
	for _, line := range strings.Split(text, "\n") {
		if item, ok := strings.CutPrefix(line, "- "); ok {
			name, desc, _ := strings.Cut(item, ": ")
			out = append(out, listedSkill{Name: name, Description: desc})
		}
	}
	return out
}

// profileMessage reports whether a user message is one a profile adds
// (Claude Code's listing or an activated skill's body, Codex's mentioned
// skill), not the user's.
func profileMessage(text string) bool {
	return strings.HasPrefix(text, "<system-reminder>") || strings.HasPrefix(text, "Base directory for this skill: ") || strings.HasPrefix(text, "<skill>\n<name>")
}
