package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"skillet/harness/chat"
	"skillet/harness/profile"
	"skillet/harness/rulebook"
	"skillet/harness/tools"
	"skillet/skills"
)

// activationArgs is what a call of a profile's activation tool asks for:
// a skill by name (Skill, skill, activate_skill) or a file by path (Crush's
// view, Codex's shell).
type activationArgs struct {
	name, args, path string
}

// parseActivation reads a call's arguments by the profile's tool.
func parseActivation(prof string, raw json.RawMessage) (activationArgs, error) {
	var a activationArgs
	switch prof {
	case "claude-code":
		var v struct{ Skill, Args string }
		_ = json.Unmarshal(raw, &v)
		a.name, a.args = strings.TrimPrefix(strings.TrimSpace(v.Skill), "/"), v.Args
	case "crush":
		var v struct {
			FilePath string `json:"file_path"`
		}
		_ = json.Unmarshal(raw, &v)
		a.path = strings.TrimSpace(v.FilePath)
	case "codex":
		var v struct {
			Command []string `json:"command"`
			Workdir string   `json:"workdir"`
		}
		_ = json.Unmarshal(raw, &v)
		a.path = pathInCommand(v.Command, v.Workdir)
		if a.path == "" {
			return a, fmt.Errorf("this harness runs no commands: its shell only reads a listed skill's files, as in [\"cat\", \"/path/to/skill/SKILL.md\"]")
		}
	default:
		var v struct{ Name string }
		_ = json.Unmarshal(raw, &v)
		a.name = strings.TrimSpace(v.Name)
	}
	return a, nil
}

// pathInCommand finds the file a read command names: the last word that
// looks like a path (cat, sed -n, head and the like put it last).
func pathInCommand(cmd []string, workdir string) string {
	var words []string
	for _, c := range cmd {
		words = append(words, strings.Fields(c)...)
	}
	for i := len(words) - 1; i >= 0; i-- {
		w := strings.Trim(words[i], `'"`)
		if !strings.Contains(w, "/") && !strings.HasSuffix(w, ".md") {
			continue
		}
		if !filepath.IsAbs(w) && workdir != "" {
			w = filepath.Join(workdir, w)
		}
		return w
	}
	return ""
}

// modelActivate answers a call of the profile's activation tool: it finds
// the skill, applies the lifecycle rules when they are on (R2, R12–R14),
// records the activation as the model's load (SkillLoaded, or
// SkillActivated when the skill is already loaded) and returns what the
// profile renders, with the user messages it adds.
func (s *Session) modelActivate(ctx context.Context, tc chat.ToolCall, b *binding) *ToolResult {
	tool := tc.Function.Name
	argsJSON, err := tools.ValidateArgs(b.info.Parameters, tc.Function.Arguments)
	if err != nil {
		return &ToolResult{Content: tool + ": " + err.Error(), IsError: true, Refused: true}
	}
	d := read(s, func(f *frame) activation { return f.activation(tool, argsJSON, tc.ID) })
	switch {
	case d.res != nil:
		return d.res
	case d.resource != "":
		text, err := tools.ReadResource(d.sk.Dir, d.resource, maxResourceBytes)
		if err != nil {
			return &ToolResult{Content: tool + ": " + err.Error(), IsError: true}
		}
		return &ToolResult{Content: text}
	case d.plan != nil:
		s.insert(ctx, *d.plan)
	default:
		s.emit(&SkillActivated{Skill: d.sk.Name, ExecutionID: d.exec, By: ByModel})
	}
	resident := d.plan == nil
	act := d.p.Activate(withFiles(profileSkill(d.sk)), profile.Request{Args: d.args, Repeat: resident})
	res := &ToolResult{Content: act.ToolResult, Activated: d.sk.Name, Delivers: !(resident && d.p.Name() == "claude-code")}
	if res.Content == "" {
		res.Content = "activated " + d.sk.Name
	}
	for _, m := range act.Messages {
		res.Messages = append(res.Messages, m.Text)
	}
	return res
}

// activation is what a call of the activation tool comes to: a final
// answer (res), a file of a skill to read (resource), a load to carry out
// (plan), or the activation of a loaded skill under exec.
type activation struct {
	res      *ToolResult
	p        profile.Profile
	args     string
	sk       *skills.Skill
	resource string
	plan     *insertPlan
	exec     string
}

// activation decides a call of the profile's activation tool.
func (f *frame) activation(tool string, argsJSON []byte, callID string) activation {
	refuse := func(msg string) activation {
		return activation{res: &ToolResult{Content: msg, IsError: true, Refused: true}}
	}
	p := f.agentProfile()
	if p == nil {
		return refuse("Unknown tool: " + tool)
	}
	a, err := parseActivation(p.Name(), argsJSON)
	if err != nil {
		return refuse(tool + ": " + err.Error())
	}
	return f.activationFor(a, callID, tool)
}

// activationFor decides the activation a call asks for: a skill by name,
// or the file of a skill's folder at a path.
func (f *frame) activationFor(a activationArgs, callID, tool string) activation {
	refuse := func(msg string) activation {
		return activation{res: &ToolResult{Content: msg, IsError: true, Refused: true}}
	}
	p := f.agentProfile()
	if p == nil {
		return activation{}
	}
	d := activation{p: p, args: a.args}
	if a.path != "" {
		var rel string
		d.sk, rel = f.skillOfPath(a.path)
		if d.sk == nil {
			return refuse(fmt.Sprintf("%s: %s is not inside a listed skill's folder; this harness reads only the skills' files", tool, a.path))
		}
		if rel != "SKILL.md" {
			d.resource = rel
			return d
		}
	} else {
		d.sk = f.w.Sel.AgentSkill(a.name)
	}
	sk := d.sk
	if sk != nil && f.w.Sel.EnabledSkill(sk.Name) == nil && !f.w.Sel.IsLax(sk) {
		// listed like every skill, but Skillet preloads it (R16)
		text := fmt.Sprintf("%s is preloaded: its guidance is already in the instructions and its tools are offered.", sk.Name)
		if ls := f.st.FindPreload(sk.Name); ls != nil {
			text = fmt.Sprintf("%s is preloaded this turn (execution %s): its guidance is already in the instructions and its tools are offered.", sk.Name, ls.ExecID)
		}
		return activation{res: &ToolResult{Content: text}}
	}
	if sk == nil {
		return refuse(tool + strings.TrimPrefix(f.unknownSkill(a.name), "load_skill"))
	}
	resident := f.st.FindLoaded(sk.Name)
	exec, readThisTurn := rulebook.ReadThisTurn(f.st, sk.Name, sk.Version)
	if !readThisTurn {
		if refusal := f.activationLimits(sk, resident); refusal != "" {
			return refuse(refusal)
		}
		exec = f.nextExecID()
	}
	d.exec = exec
	if resident == nil {
		d.plan = &insertPlan{sk: sk, exec: exec, by: ByModel, delivery: DeliveryToolResult, toolCallID: callID, repeat: readThisTurn}
	}
	return d
}

// activationLimits applies the load limits (R12) and pins (R14) to an
// activation when the lifecycle rules are on; "" lets it through.
func (f *frame) activationLimits(sk *skills.Skill, resident *rulebook.Loaded) string {
	if !f.lifecycle() {
		// nothing unloads, so every loaded skill's pins stay
		if err := f.pinConflict(sk, map[string]bool{}); err != nil {
			return "activation refused: " + err.Error()
		}
		return ""
	}
	text := skillText(sk)
	if why := rulebook.OverLimit(f.st, sk.Name, utf8.RuneCountInString(text), f.count(text)); why != "" {
		return "activation refused: " + why
	}
	if err := f.pinConflict(sk, f.victims(resident)); err != nil {
		return "activation refused: " + err.Error()
	}
	return ""
}

// skillOfPath finds the enabled or preloaded skill whose folder holds
// path, and the path relative to it with "/" separators.
func (f *frame) skillOfPath(path string) (*skills.Skill, string) {
	path = filepath.Clean(path)
	for _, sk := range append(append(append([]*skills.Skill{}, f.w.Sel.Preload...), f.w.Sel.Enabled...), f.w.Sel.Lax...) {
		rel, err := filepath.Rel(sk.Dir, path)
		if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		return sk, filepath.ToSlash(rel)
	}
	return nil, ""
}
