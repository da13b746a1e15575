// Which agent's rules compose the session (its profile), and whether
// Skillet's lifecycle rules (R2–R4, R9, R12) apply under it.

package rulebook

import (
	"errors"
	"fmt"
	"time"

	"skillet/harness/event"
	"skillet/harness/profile"
	"skillet/skills"
)

// DefaultProfile is the profile of a session that names none: Skillet's
// own rule book.
const DefaultProfile = "skillet"

// IsSkilletProfile reports whether name is Skillet's own profile.
func IsSkilletProfile(name string) bool { return name == "" || name == DefaultProfile }

// ProfileName is the session's profile.
func ProfileName(st *State) string {
	if IsSkilletProfile(st.Profile) {
		return DefaultProfile
	}
	return st.Profile
}

// ProfileOf is the session's profile, skillet's own when it names none. A
// journal naming a profile this build does not know is composed as skillet
// rather than not at all.
func ProfileOf(st *State) profile.Profile {
	p, err := profile.Get(ProfileName(st))
	if err != nil {
		p, _ = profile.Get(DefaultProfile)
	}
	return p
}

// harnessOf is the session's profile's harness.
func harnessOf(st *State) profile.Harness { return profile.HarnessOf(ProfileOf(st)) }

// Lifecycle reports whether Skillet's own lifecycle rules apply: LRU
// eviction (R2–R4), the per-turn load limits (R12) and the transcript
// window (R9). Always under skillet; under another profile as the
// lifecycle setting says, by default as the profile says (off).
func Lifecycle(st *State) bool { return LifecycleOf(ProfileName(st), st.Settings) }

// LifecycleOf is Lifecycle for a profile and settings.
func LifecycleOf(prof string, set event.Settings) bool {
	if IsSkilletProfile(prof) {
		return true
	}
	p, err := profile.Get(prof)
	if err == nil && profile.HarnessOf(p).RuleBook {
		return true
	}
	if set.Lifecycle != nil {
		return *set.Lifecycle
	}
	return err == nil && p.Persistence().Lifecycle
}

// PathActivation reports whether the session's profile activates a skill
// by reading its file (Crush's view, Codex's shell) rather than with a
// tool of its own: with the profile's own tools offered, those tools
// activate.
func PathActivation(st *State) bool { return harnessOf(st).ByPath }

// ProfileInput is what a profile composes from: every enabled skill,
// preloaded ones included (preloading is Skillet's; the agents list every
// skill), and the lax ones the spec refuses, in the catalog's order, as
// `skillet offered` gives them; the session's model and bundled_skills
// setting. Usage is left at zero, so Claude Code's least-used-first rule
// keeps that order.
func ProfileInput(st *State, w *World) profile.Input {
	in := profile.Input{ContextWindow: st.ContextWindow, Roots: w.Roots, Now: w.now(), Model: st.Model, NoBundled: !st.Settings.Bundled()}
	for _, sk := range w.Catalog.All() {
		if picked := w.Sel.ByName[sk.Name]; picked != nil {
			in.Skills = append(in.Skills, ProfileSkill(picked))
		} else if w.Sel.IsLax(sk) {
			// the spec refuses it, the agent may not: the profile decides
			in.Skills = append(in.Skills, ProfileSkill(sk))
		}
	}
	return in
}

// ProfileSkill is a parsed skill as a profile sees it: scope "repo", its
// folder, and the spec's rules it breaks that agents read past (an
// invalid but readable skill, see skills.Skill.Readable).
func ProfileSkill(sk *skills.Skill) profile.Skill {
	ps := profile.Skill{Name: sk.Name, Description: sk.Description, WhenToUse: sk.Extra["when_to_use"],
		DisableModelInvocation: sk.Extra["disable-model-invocation"] == "true",
		Dir:                    sk.Dir, Path: sk.Path, Root: sk.Root, Scope: "repo", Body: sk.Body, Folder: sk.Folder(), DescriptionAtEnd: sk.DescriptionAtEnd}
	for _, p := range sk.Problems {
		if p.Lax != "" {
			ps.Breaches = append(ps.Breaches, profile.Breach{Rule: string(p.Lax), Message: p.Field + ": " + p.Message})
		}
	}
	return ps
}

// ActivationTool is the profile's activation tool as a binding.
func ActivationTool(st *State, w *World, p profile.Profile) *Binding {
	t := p.Tool(ProfileInput(st, w))
	if t == nil {
		return nil
	}
	return &Binding{Activation: true, Info: event.ToolInfo{Name: t.Name, Description: t.Description, Parameters: t.Parameters, Source: "built-in", Approval: ApproveNever}}
}

func (w *World) now() time.Time {
	if w.Now == nil {
		return time.Time{}
	}
	return w.Now()
}

// CheckProfileSettings refuses settings that mean nothing under a profile:
// freeze_prompt and pasting are Skillet's composition, and the skillet
// profile is Skillet's lifecycle, so it cannot be switched off there.
func CheckProfileSettings(prof string, set event.Settings) error {
	if IsSkilletProfile(prof) {
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
