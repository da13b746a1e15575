package harness

import (
	"fmt"
	"skillet/harness/rulebook"
	"strings"

	"skillet/skills"
)

// xmlText escapes element text; the model reads it, so only what would
// break the markup is escaped (not apostrophes or quotes).
var xmlText = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// xmlAttr escapes an attribute value written in double quotes.
var xmlAttr = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")

// listHint follows the skill list so the model knows how to use it.
const listHint = "Call load_skill with a skill's name to read it before you follow it."

// skillText is what a load delivers of a skill: its instructions, then its
// examples (R8, R18).
func skillText(s *skills.Skill) string { return s.LoadText() }

// skillElement wraps a skill's text in a <skill> element with its identity.
func skillElement(name, version, execution string, active bool, extra, text string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<skill name="%s" version="%s"`, xmlAttr.Replace(name), xmlAttr.Replace(version))
	if execution != "" {
		fmt.Fprintf(&b, ` execution="%s"`, xmlAttr.Replace(execution))
	}
	if active {
		b.WriteString(` active="true"`)
	}
	b.WriteString(extra)
	b.WriteString(">\n")
	b.WriteString(text)
	b.WriteString("\n</skill>")
	return b.String()
}

// listBlock renders the <available_skills> list (R10).
func listBlock(list []*skills.Skill) string {
	if len(list) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("<available_skills>\n")
	for _, s := range list {
		b.WriteString("<skill>\n<name>")
		b.WriteString(xmlText.Replace(s.Name))
		b.WriteString("</name>\n<description>")
		b.WriteString(xmlText.Replace(s.Description))
		b.WriteString("</description>\n</skill>\n")
	}
	b.WriteString("</available_skills>\n")
	b.WriteString(listHint)
	return b.String()
}

// wrapBlock puts elements inside one tag, or returns "" when there are none.
func wrapBlock(tag string, elems []string) string {
	if len(elems) == 0 {
		return ""
	}
	return "<" + tag + ">\n" + strings.Join(elems, "\n") + "\n</" + tag + ">"
}

// joinParts joins the non-empty parts of the instructions.
func joinParts(parts []ContextPart) string {
	texts := make([]string, 0, len(parts))
	for _, p := range parts {
		if p.Text != "" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n\n")
}

// bodyOf is what a load of a skill keeps of it (see SkillBody).
func bodyOf(sk *skills.Skill) SkillBody {
	return SkillBody{Text: skillText(sk), Dir: sk.Dir, Tools: sk.Tools}
}

// render sets a new load's text from a parsed skill, on a load not yet in
// the state. Only loads that count against the turn's
// token budget (R12) need an exact count; the others take the estimate
// while the tokenizer's tables load.
func (f *frame) render(ls *rulebook.Loaded, sk *skills.Skill, exact bool) {
	ls.Version = sk.Version
	ls.Body = bodyOf(sk)
	if exact {
		ls.Tokens = f.count(ls.Body.Text)
	} else {
		ls.Tokens = f.countNow(ls.Body.Text, nil)
	}
}
