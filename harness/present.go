package harness

import (
	"fmt"

	"skillet/harness/event"
	"skillet/harness/profile"
	"skillet/harness/rulebook"
	"skillet/harness/tools"
	"skillet/skills"
)

// DefaultProfile is the profile of a session that names none: Skillet's
// own rule book, composed by compose.
const DefaultProfile = rulebook.DefaultProfile

func (f *frame) profileName() string { return rulebook.ProfileName(f.st) }

func (f *frame) lifecycle() bool { return rulebook.Lifecycle(f.st) }

// CheckProfileSettings refuses settings that mean nothing under a profile
// (see rulebook.CheckProfileSettings).
func CheckProfileSettings(prof string, set event.Settings) error {
	return rulebook.CheckProfileSettings(prof, set)
}

func profileSkill(sk *skills.Skill) profile.Skill { return rulebook.ProfileSkill(sk) }

// ProfileSkill is a parsed skill as a profile sees it (see
// rulebook.ProfileSkill).
func ProfileSkill(sk *skills.Skill) profile.Skill { return rulebook.ProfileSkill(sk) }

// withFiles adds what an activation shows: the SKILL.md file as a file
// read returns it and the folder's files, both read inside the skill's
// folder as read_skill_resource reads.
func withFiles(ps profile.Skill) profile.Skill {
	if src, err := tools.ReadResource(ps.Dir, "SKILL.md", maxResourceBytes); err == nil {
		ps.Source = src
	}
	if files, err := tools.ListResources(ps.Dir); err == nil {
		ps.Files = files
	}
	return ps
}

// activate reads the mentioned skills' files and returns their uses and
// the messages the profile adds for them.
func activateMentioned(m rulebook.Mentioned) ([]event.Use, []string) {
	var uses []event.Use
	var msgs []string
	for _, sk := range m.Skills {
		act := m.Profile.Activate(withFiles(profileSkill(sk)), profile.Request{Mention: true})
		for _, msg := range act.Messages {
			msgs = append(msgs, msg.Text)
		}
		uses = append(uses, event.Use{Role: "SKILL", Name: sk.Name, Version: sk.Version, ExecutionID: fmt.Sprintf("mention-%d", m.Turn)})
	}
	return uses, msgs
}
