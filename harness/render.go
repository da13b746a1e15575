package harness

import (
	"skillet/harness/rulebook"

	"skillet/skills"
)

// skillText is what a load delivers of a skill: its instructions, then its
// examples (R8, R18).
func skillText(s *skills.Skill) string { return s.LoadText() }

// bodyOf is what a load of a skill keeps of it (see SkillBody).
func bodyOf(sk *skills.Skill) SkillBody {
	return SkillBody{Text: skillText(sk), Dir: sk.Dir, Tools: sk.Tools, AllowedTools: sk.AllowedTools}
}

// render sets a new load's text from a parsed skill, on a load not yet in
// the state. Only loads that count against the turn's token budget (R12)
// need an exact count; the others take the estimate while the tokenizer's
// tables load.
func (f *frame) render(ls *rulebook.Loaded, sk *skills.Skill, exact bool) {
	ls.Version = sk.Version
	ls.Body = bodyOf(sk)
	if exact {
		ls.Tokens = f.count(ls.Body.Text)
	} else {
		ls.Tokens = f.countNow(ls.Body.Text, nil)
	}
}
