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
	s.mu.Lock()
	p := s.agentProfile()
	if p == nil {
		s.mu.Unlock()
		return &ToolResult{Content: "Unknown tool: " + tool, IsError: true, Refused: true}
	}
	a, err := parseActivation(p.Name(), argsJSON)
	if err != nil {
		s.mu.Unlock()
		return &ToolResult{Content: tool + ": " + err.Error(), IsError: true, Refused: true}
	}
	var sk *skills.Skill
	if a.path != "" {
		var rel string
		sk, rel = s.skillOfPath(a.path)
		if sk == nil {
			s.mu.Unlock()
			return &ToolResult{Content: fmt.Sprintf("%s: %s is not inside a listed skill's folder; this harness reads only the skills' files", tool, a.path), IsError: true, Refused: true}
		}
		if rel != "SKILL.md" {
			s.mu.Unlock()
			text, err := tools.ReadResource(sk.Dir, rel, maxResourceBytes)
			if err != nil {
				return &ToolResult{Content: tool + ": " + err.Error(), IsError: true}
			}
			return &ToolResult{Content: text}
		}
	} else {
		sk = s.w.sel.byName[a.name]
	}
	if sk != nil && s.w.sel.enabledSkill(sk.Name) == nil {
		// listed like every skill, but Skillet preloads it (R16)
		text := fmt.Sprintf("%s is preloaded: its guidance is already in the instructions and its tools are offered.", sk.Name)
		if ls := s.st.FindPreload(sk.Name); ls != nil {
			text = fmt.Sprintf("%s is preloaded this turn (execution %s): its guidance is already in the instructions and its tools are offered.", sk.Name, ls.ExecID)
		}
		s.mu.Unlock()
		return &ToolResult{Content: text}
	}
	if sk == nil {
		msg := s.unknownSkill(a.name)
		s.mu.Unlock()
		return &ToolResult{Content: tool + strings.TrimPrefix(msg, "load_skill"), IsError: true, Refused: true}
	}
	name := sk.Name
	resident := s.st.FindLoaded(name)
	exec, readThisTurn := s.st.Cur.Execs[name]
	readThisTurn = readThisTurn && s.st.Cur.ExecVersion[name] == sk.Version
	if !readThisTurn {
		if refusal := s.activationLimits(sk, resident); refusal != "" {
			s.mu.Unlock()
			return &ToolResult{Content: refusal, IsError: true, Refused: true}
		}
		exec = s.nextExecID()
	}
	s.mu.Unlock()

	if resident == nil {
		s.insert(ctx, sk, exec, ByModel, DeliveryToolResult, tc.ID, readThisTurn)
	} else {
		s.emit(&SkillActivated{Skill: name, ExecutionID: exec, By: ByModel})
	}
	act := p.Activate(withFiles(profileSkill(sk)), profile.Request{Args: a.args, Repeat: resident != nil})
	res := &ToolResult{Content: act.ToolResult, Activated: name, Delivers: !(resident != nil && p.Name() == "claude-code")}
	if res.Content == "" {
		res.Content = "activated " + name
	}
	for _, m := range act.Messages {
		res.Messages = append(res.Messages, m.Text)
	}
	return res
}

// activationLimits applies the load limits (R12) and pins (R14) to an
// activation when the lifecycle rules are on; "" lets it through. Called
// with s.mu held.
func (s *Session) activationLimits(sk *skills.Skill, resident *rulebook.Loaded) string {
	if !s.lifecycle() {
		// nothing unloads, so every loaded skill's pins stay
		if err := s.pinConflict(sk, map[string]bool{}); err != nil {
			return "activation refused: " + err.Error()
		}
		return ""
	}
	set := s.st.Settings
	text := skillText(sk)
	if n := utf8.RuneCountInString(text); n > set.MaxSkillChars {
		return fmt.Sprintf("activation refused: %s is %d characters, over max_skill_chars (%d); a skill arrives whole or not at all", sk.Name, n, set.MaxSkillChars)
	}
	if s.st.Cur.Usage.Loads >= set.MaxLoadsPerTurn {
		return fmt.Sprintf("activation refused: this turn already made %d loads, the max_loads_per_turn limit", set.MaxLoadsPerTurn)
	}
	if tokens, used := s.count(text), s.st.Cur.Usage.LoadTokens; used+tokens > set.LoadTokenBudget {
		return fmt.Sprintf("activation refused: %s is %d tokens and this turn has delivered %d of its load_token_budget of %d", sk.Name, tokens, used, set.LoadTokenBudget)
	}
	if err := s.pinConflict(sk, s.victims(resident)); err != nil {
		return "activation refused: " + err.Error()
	}
	return ""
}

// skillOfPath finds the enabled or preloaded skill whose folder holds
// path, and the path relative to it with "/" separators. Called with s.mu
// held.
func (s *Session) skillOfPath(path string) (*skills.Skill, string) {
	path = filepath.Clean(path)
	for _, sk := range append(append([]*skills.Skill{}, s.w.sel.preload...), s.w.sel.enabled...) {
		rel, err := filepath.Rel(sk.Dir, path)
		if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		return sk, filepath.ToSlash(rel)
	}
	return nil, ""
}
