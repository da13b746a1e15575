package harness

import (
	"skillet/harness/rulebook"

	"skillet/skills"
)

// skillText is what a load delivers of a skill: its instructions, then its
// examples (R8, R18).
func skillText(s *skills.Skill) string { return s.LoadText() }

// bodyOf is what a load of a skill keeps of it (see SkillBody).
func bodyOf(sk *skills.Skill) SkillBody { return rulebook.BodyOf(sk) }

func (f *frame) render(ls *rulebook.Loaded, sk *skills.Skill, exact bool) {
	rulebook.Render(f.w.World, ls, sk, exact)
}
