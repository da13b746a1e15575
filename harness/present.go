package harness

import (
	"errors"
	"fmt"

	"skillet/harness/profile"
	"skillet/harness/rulebook"
	"skillet/harness/tools"
	"skillet/skills"
)

// DefaultProfile is the profile of a session that names none: Skillet's
// own rule book, composed by compose.
const DefaultProfile = rulebook.DefaultProfile

func isSkilletProfile(name string) bool { return rulebook.IsSkilletProfile(name) }

func (f *frame) profileName() string { return rulebook.ProfileName(f.st) }

func (f *frame) lifecycle() bool { return rulebook.Lifecycle(f.st) }

func lifecycleOf(prof string, set Settings) bool { return rulebook.LifecycleOf(prof, set) }

// CheckProfileSettings refuses settings that mean nothing under a profile:
// freeze_prompt and pasting are Skillet's composition, and the skillet
// profile is Skillet's lifecycle, so it cannot be switched off there.
func CheckProfileSettings(prof string, set Settings) error {
	if isSkilletProfile(prof) {
		if set.Lifecycle != nil && !*set.Lifecycle {
			return errors.New("lifecycle=false needs a profile other than skillet: the skillet profile is Skillet's own lifecycle")
		}
		return nil
	}
	if set.FreezePrompt {
		return fmt.Errorf("freeze_prompt applies to the skillet profile only, not %s", prof)
	}
	if !set.LoadSkillTool {
		return fmt.Errorf("load_skill_tool=false applies to the skillet profile only: %s activates skills with its own tool", prof)
	}
	return nil
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
func activateMentioned(m rulebook.Mentioned) ([]Use, []string) {
	var uses []Use
	var msgs []string
	for _, sk := range m.Skills {
		act := m.Profile.Activate(withFiles(profileSkill(sk)), profile.Request{Mention: true})
		for _, msg := range act.Messages {
			msgs = append(msgs, msg.Text)
		}
		uses = append(uses, Use{Role: "SKILL", Name: sk.Name, Version: sk.Version, ExecutionID: fmt.Sprintf("mention-%d", m.Turn)})
	}
	return uses, msgs
}
