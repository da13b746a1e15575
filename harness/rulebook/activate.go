// Activation under another agent's profile: a call of the profile's
// activation tool (or, under Codex and Crush, a read of a skill's
// SKILL.md) is the model's load, with the lifecycle rules' limits when
// they are on (R2, R12–R14) and R16's answer for a preloaded skill.

package rulebook

import (
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"skillet/harness/event"
	"skillet/harness/profile"
	"skillet/skills"
)

// ActivationArgs is what a call of a profile's activation tool asks for
// (see profile.ActivationArgs).
type ActivationArgs = profile.ActivationArgs

// Activation is what a call of the activation tool comes to: a final
// answer (Result), a file of a skill to read (Resource), a load to carry
// out (Plan), or the activation of a loaded skill under Exec.
type Activation struct {
	Result   *event.ToolResult
	Profile  profile.Profile
	Args     string
	Skill    *skills.Skill
	Resource string
	Plan     *Plan
	Exec     string
}

// DecideActivation decides a call of the profile's activation tool.
func DecideActivation(st *State, w *World, tool string, argsJSON []byte, callID string) Activation {
	p := ProfileOf(st)
	if profile.HarnessOf(p).RuleBook {
		return refuseActivation("Unknown tool: " + tool)
	}
	a, err := profile.HarnessOf(p).Args(argsJSON)
	if err != nil {
		return refuseActivation(tool + ": " + err.Error())
	}
	return DecideActivationFor(st, w, a, callID, tool)
}

func refuseActivation(msg string) Activation {
	return Activation{Result: &event.ToolResult{Content: msg, IsError: true, Refused: true}}
}

// DecideActivationFor decides the activation a call asks for: a skill by
// name, or the file of a skill's folder at a path.
func DecideActivationFor(st *State, w *World, a ActivationArgs, callID, tool string) Activation {
	p := ProfileOf(st)
	if profile.HarnessOf(p).RuleBook {
		return Activation{}
	}
	d := Activation{Profile: p, Args: a.Args}
	if a.Path != "" {
		var rel string
		d.Skill, rel = skillOfPath(w, a.Path)
		if d.Skill == nil {
			return refuseActivation(fmt.Sprintf("%s: %s is not inside a listed skill's folder; this harness reads only the skills' files", tool, a.Path))
		}
		if rel != "SKILL.md" {
			d.Resource = rel
			return d
		}
	} else {
		d.Skill = w.Sel.AgentSkill(a.Name)
	}
	sk := d.Skill
	if sk != nil && w.Sel.EnabledSkill(sk.Name) == nil && !w.Sel.IsLax(sk) {
		// listed like every skill, but Skillet preloads it (R16)
		text := fmt.Sprintf("%s is preloaded: its guidance is already in the instructions and its tools are offered.", sk.Name)
		if ls := st.FindPreload(sk.Name); ls != nil {
			text = fmt.Sprintf("%s is preloaded this turn (execution %s): its guidance is already in the instructions and its tools are offered.", sk.Name, ls.ExecID)
		}
		return Activation{Result: &event.ToolResult{Content: text}}
	}
	if sk == nil {
		return refuseActivation(tool + strings.TrimPrefix(UnknownSkill(w, a.Name), ToolLoadSkill))
	}
	resident := st.FindLoaded(sk.Name)
	exec, readThisTurn := ReadThisTurn(st, sk.Name, sk.Version)
	if !readThisTurn {
		if refusal := activationLimits(st, w, sk, resident); refusal != "" {
			return refuseActivation(refusal)
		}
		exec = w.NextExec(st)
	}
	d.Exec = exec
	if resident == nil {
		d.Plan = &Plan{Skill: sk, Exec: exec, By: event.ByModel, Delivery: event.DeliveryToolResult, ToolCallID: callID, Repeat: readThisTurn}
	}
	return d
}

// activationLimits applies the load limits (R12) and pins (R14) to an
// activation when the lifecycle rules are on; "" lets it through.
func activationLimits(st *State, w *World, sk *skills.Skill, resident *Loaded) string {
	if !Lifecycle(st) {
		// nothing unloads, so every loaded skill's pins stay
		if err := PinConflict(st, w, sk, map[string]bool{}); err != nil {
			return "activation refused: " + err.Error()
		}
		return ""
	}
	text := sk.LoadText()
	if why := OverLimit(st, sk.Name, utf8.RuneCountInString(text), w.Count.Count(text)); why != "" {
		return "activation refused: " + why
	}
	if err := PinConflict(st, w, sk, Victims(st, resident, true)); err != nil {
		return "activation refused: " + err.Error()
	}
	return ""
}

// listedSkills are the skills a profile lists: preloaded, enabled, lax.
func listedSkills(w *World) []*skills.Skill {
	return append(append(append([]*skills.Skill{}, w.Sel.Preload...), w.Sel.Enabled...), w.Sel.Lax...)
}

// skillOfPath finds the listed skill whose folder holds path, and the
// path relative to it with "/" separators.
func skillOfPath(w *World, path string) (*skills.Skill, string) {
	path = filepath.Clean(path)
	for _, sk := range listedSkills(w) {
		rel, err := filepath.Rel(sk.Dir, path)
		if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		return sk, filepath.ToSlash(rel)
	}
	return nil, ""
}

// SkillFileInCommand finds the SKILL.md of a listed skill a command
// names, as an absolute path; "" when it names none.
func SkillFileInCommand(w *World, cmd string) string {
	for _, sk := range listedSkills(w) {
		p := filepath.Join(sk.Dir, "SKILL.md")
		if strings.Contains(cmd, p) {
			return p
		}
	}
	return ""
}
