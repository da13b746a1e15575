package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"skillet/harness/chat"
	"skillet/skills"
)

// Names of the built-in tools.
const (
	ToolLoadSkill    = "load_skill"
	ToolReadResource = "read_skill_resource"
)

var loadSkillSchema = json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","description":"The skill's name, as listed in <available_skills>."}},"required":["name"],"additionalProperties":false}`)

var readResourceSchema = json.RawMessage(`{"type":"object","properties":{"skill":{"type":"string","description":"A loaded skill's name."},"path":{"type":"string","description":"A file path inside the skill's folder, such as references/guide.md; empty lists the skill's files."}},"required":["skill"],"additionalProperties":false}`)

// binding is one tool of a request and how to carry it out.
type binding struct {
	info  ToolInfo
	def   *skills.ToolDef // nil for built-ins
	owner *loadedSkill    // the skill whose reference won; nil otherwise
	agent *AgentRef       // the agent's own reference, when it is one
}

// toolset is the tools of one request, in order, and by name.
type toolset struct {
	list   []*binding
	byName map[string]*binding
	// dropped names tools of loaded skills left out, and why (R17).
	dropped []string
}

func (ts *toolset) add(b *binding) {
	ts.list = append(ts.list, b)
	ts.byName[b.info.Name] = b
}

// modelToolName is the name the model sees: an MCP reference SERVER/TOOL
// becomes SERVER__TOOL, since function names may not hold a slash.
func modelToolName(ref string) string { return strings.ReplaceAll(ref, "/", "__") }

// policy returns the approval policy for a tool (R15): the agent's own
// reference, then the [approval] table, then the default by kind.
func (s *Session) policy(name string, def *skills.ToolDef, agent *AgentRef) string {
	if agent != nil && agent.Approval != "" {
		return agent.Approval
	}
	if a, ok := s.cfg.Approval[name]; ok {
		return a
	}
	if def != nil && (def.Kind == skills.KindCommand || def.Kind == skills.KindMCP) {
		return ApproveAsk
	}
	return ApproveNever
}

// resolveRef finds the definition a skill's tool reference names. MCP
// references ask the server, which starts it; with start false only a
// definition fetched before is used.
func (s *Session) resolveRef(ctx context.Context, owner *skills.Skill, ref skills.ToolRef, start bool) (*skills.ToolDef, error) {
	server, tool, isMCP := strings.Cut(ref.Name, "/")
	if !isMCP {
		return s.catalog.Tool(owner, ref)
	}
	if d, ok := s.mcpDefs[ref.Name]; ok {
		return d, nil
	}
	if !start || s.opts.Runner == nil {
		return nil, fmt.Errorf("tool %s: MCP server %q not started yet", ref.Name, server)
	}
	d, err := s.opts.Runner.MCPTool(ctx, server, tool)
	if err != nil {
		return nil, fmt.Errorf("tool %s: %w", ref.Name, err)
	}
	cp := *d
	cp.Name = modelToolName(ref.Name)
	s.mcpDefs[ref.Name] = &cp
	return &cp, nil
}

// buildTools resolves the tools of the next request (R5, R14): built-ins,
// the agent's own tools, then every preloaded and loaded skill's tools. A
// pinned version wins over latest; the agent's reference wins over both.
func (s *Session) buildTools(ctx context.Context, start bool) *toolset {
	return s.buildToolsWith(ctx, s.preloads, s.loaded, start)
}

// buildToolsWith resolves the tools for a given set of preloaded and loaded
// skills (loaded most recent first).
func (s *Session) buildToolsWith(ctx context.Context, preloads, loaded []*loadedSkill, start bool) *toolset {
	ts := &toolset{byName: map[string]*binding{}}
	if s.settings.LoadSkillTool {
		ts.add(&binding{info: ToolInfo{Name: ToolLoadSkill, Description: "Load a skill from <available_skills>: its instructions and tools join the conversation.", Parameters: loadSkillSchema, Source: "built-in", Approval: ApproveNever}})
	}
	if len(s.sel.byName) > 0 {
		ts.add(&binding{info: ToolInfo{Name: ToolReadResource, Description: "Read a file of a loaded skill's folder (references/, assets/, ...), or list its files.", Parameters: readResourceSchema, Source: "built-in", Approval: ApproveNever}})
	}
	for i := range s.cfg.Agent.Tools {
		ref := &s.cfg.Agent.Tools[i]
		def := s.agentDefs[ref.Name]
		if def == nil {
			continue
		}
		ts.add(&binding{def: def, agent: ref, info: ToolInfo{
			Name: ref.Name, Description: def.Description, Parameters: def.Parameters, Source: "agent",
			Version: def.Version, Pinned: ref.Version > 0, Approval: s.policy(ref.Name, def, ref), Kind: def.Kind,
		}})
	}
	// Preloads first, then loaded skills from the oldest: the first load
	// that made a tool available keeps it unless a later one pins it.
	owners := append([]*loadedSkill{}, preloads...)
	for i := len(loaded) - 1; i >= 0; i-- {
		owners = append(owners, loaded[i])
	}
	for _, ls := range owners {
		for _, ref := range ls.skill.Tools {
			s.bindSkillTool(ctx, ts, ls, ref, start)
		}
	}
	return ts
}

func (s *Session) bindSkillTool(ctx context.Context, ts *toolset, ls *loadedSkill, ref skills.ToolRef, start bool) {
	name := modelToolName(ref.Name)
	prev := ts.byName[name]
	switch {
	case prev != nil && prev.info.Source != "skill":
		return // the agent's own reference (or a built-in) wins
	case s.sel.byName[name] != nil:
		ts.dropped = append(ts.dropped, fmt.Sprintf("tool %s of skill %s is left out: its name is now the name of a skill", name, ls.name))
		return
	case prev != nil && (prev.info.Pinned || !ref.Pinned()):
		return // first come keeps it; a pin is only displaced by nothing
	}
	def, err := s.resolveRef(ctx, ls.skill, ref, start)
	if err != nil {
		server, tool, isMCP := strings.Cut(ref.Name, "/")
		if !isMCP {
			ts.dropped = append(ts.dropped, fmt.Sprintf("tool %s of skill %s is left out: %v", name, ls.name, err))
			return
		}
		// The server could not say what its tool takes. The tool stays
		// offered, so a call reaches the runner, which tries the server
		// again and answers with a clear error if it still fails.
		if start {
			ts.dropped = append(ts.dropped, fmt.Sprintf("tool %s of skill %s: %v", name, ls.name, err))
		}
		def = &skills.ToolDef{Name: name, Kind: skills.KindMCP, Server: server, RemoteTool: tool,
			Description: fmt.Sprintf("Tool %s of MCP server %s (not reachable yet).", tool, server),
			Parameters:  json.RawMessage(`{"type":"object"}`)}
	}
	b := &binding{def: def, owner: ls, info: ToolInfo{
		Name: name, Description: def.Description, Parameters: def.Parameters, Source: "skill", Skill: ls.name,
		Version: def.Version, Pinned: ref.Pinned(), Approval: s.policy(name, def, nil), Kind: def.Kind,
	}}
	if prev != nil {
		for i, x := range ts.list {
			if x == prev {
				ts.list[i] = b
			}
		}
		ts.byName[name] = b
		return
	}
	ts.add(b)
}

// chatTools converts a toolset for the request body.
func chatTools(ts *toolset) []chat.Tool {
	out := make([]chat.Tool, 0, len(ts.list))
	for _, b := range ts.list {
		out = append(out, chatTool(b.info))
	}
	return out
}

func chatTool(info ToolInfo) chat.Tool {
	params := info.Parameters
	if len(params) == 0 {
		params = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return chat.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{Name: info.Name, Description: info.Description, Parameters: params}}
}

// infos lists a toolset for the snapshot.
func (ts *toolset) infos() []ToolInfo {
	out := make([]ToolInfo, 0, len(ts.list))
	for _, b := range ts.list {
		out = append(out, b.info)
	}
	return out
}

// pinConflict returns an error when loading sk would make two different
// pinned versions of one tool meet (R14).
func (s *Session) pinConflict(sk *skills.Skill) error {
	for _, ref := range sk.Tools {
		if !ref.Pinned() || s.agentHas(modelToolName(ref.Name)) {
			continue
		}
		for _, ls := range append(append([]*loadedSkill{}, s.preloads...), s.loaded...) {
			if ls.name == sk.Name {
				continue
			}
			for _, other := range ls.skill.Tools {
				if other.Name == ref.Name && other.Pinned() && other.Version != ref.Version {
					return fmt.Errorf("%s pins %s@%d but the loaded skill %s pins %s@%d; two pinned versions of one tool cannot be loaded together",
						sk.Name, ref.Name, ref.Version, ls.name, other.Name, other.Version)
				}
			}
		}
	}
	return nil
}

func (s *Session) agentHas(name string) bool {
	for _, t := range s.cfg.Agent.Tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

// madeAvailable lists, as name@version, the tools a load of ls adds: not
// those the agent lists itself, nor those an earlier load made available at
// a pinned version (R14).
func madeAvailable(before, after *toolset, ls *loadedSkill) []string {
	var out []string
	for _, ref := range ls.skill.Tools {
		name := modelToolName(ref.Name)
		b := after.byName[name]
		if b == nil || b.info.Source != "skill" {
			continue
		}
		if prev := before.byName[name]; prev != nil && prev.info.Pinned && prev.owner != ls {
			continue
		}
		out = append(out, toolLabel(name, b.info.Version))
	}
	sort.Strings(out)
	return out
}

// toolLabel is name@version, or the name alone for tools without versions
// (MCP tools).
func toolLabel(name string, version int) string {
	if version <= 0 {
		return name
	}
	return fmt.Sprintf("%s@%d", name, version)
}
