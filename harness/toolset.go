package harness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"skillet/harness/rulebook"
	"skillet/harness/tools"
	"sort"
	"strconv"
	"strings"

	"skillet/harness/agenttools"
	"skillet/harness/chat"
	"skillet/skills"
)

// Names of the built-in tools.
const (
	ToolLoadSkill    = rulebook.ToolLoadSkill
	ToolReadResource = "read_skill_resource"
)

var loadSkillSchema = json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","description":"The skill's name, as listed in <available_skills>."}},"required":["name"],"additionalProperties":false}`)

var readResourceSchema = json.RawMessage(`{"type":"object","properties":{"skill":{"type":"string","description":"A loaded skill's name."},"path":{"type":"string","description":"A file path inside the skill's folder, such as references/guide.md; empty lists the skill's files."}},"required":["skill"],"additionalProperties":false}`)

// binding is one tool of a request and how to carry it out.
type binding struct {
	info  ToolInfo
	def   *skills.ToolDef  // nil for built-ins
	owner *rulebook.Loaded // the skill whose reference won; nil otherwise
	agent *AgentRef        // the agent's own reference, when it is one
	// atool is the profile's own shell or file tool, run in the
	// session's workspace.
	atool *agenttools.Def
	// activation marks the profile's activation tool, which replaces
	// load_skill under a profile other than skillet.
	activation bool
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
func (f *frame) policy(name string, def *skills.ToolDef, agent *AgentRef) string {
	if agent != nil && agent.Approval != "" {
		return agent.Approval
	}
	if a, ok := f.opts.Config.Approval[name]; ok {
		return a
	}
	if def != nil && (def.Kind == skills.KindCommand || def.Kind == skills.KindMCP) {
		return ApproveAsk
	}
	return ApproveNever
}

// resolveRef finds the definition a skill's tool reference names. MCP
// references use what prefetchMCP learned from the server; the lock is
// held here, so no server is ever contacted.
func (f *frame) resolveRef(owner *skills.Skill, ref skills.ToolRef) (*skills.ToolDef, error) {
	if _, _, isMCP := strings.Cut(ref.Name, "/"); !isMCP {
		return f.opts.Catalog.Tool(owner, ref)
	}
	if d, ok := f.w.MCPDefs[ref.Name]; ok {
		return d, nil
	}
	if err, ok := f.w.MCPErrs[ref.Name]; ok {
		return nil, err
	}
	return nil, fmt.Errorf("tool %s: its MCP server has not been asked yet", ref.Name)
}

// mcpRefs lists the MCP references of the given skills whose definitions
// are not known yet.
func (f *frame) mcpRefs(sks []*skills.Skill) []string {
	var out []string
	seen := map[string]bool{}
	for _, sk := range sks {
		for _, ref := range sk.Tools {
			if _, _, isMCP := strings.Cut(ref.Name, "/"); !isMCP || seen[ref.Name] {
				continue
			}
			seen[ref.Name] = true
			if _, ok := f.w.MCPDefs[ref.Name]; !ok {
				out = append(out, ref.Name)
			}
		}
	}
	return out
}

// prefetchMCP asks MCP servers for the definitions of refs, starting them
// as needed, without the session's lock: a slow server must not stall
// snapshots or cancellation. It returns one message per failure, for the
// harness log.
func (s *Session) prefetchMCP(ctx context.Context, refs []string) []string {
	var failures []string
	for _, name := range refs {
		server, tool, _ := strings.Cut(name, "/")
		d, err := s.opts.Runner.MCPTool(ctx, server, tool)
		st, _ := s.opts.Runner.MCPStatus(server)
		s.with(func(f *frame) {
			if err != nil {
				f.w.MCPErrs[name] = fmt.Errorf("tool %s: %w", name, err)
				// said once per change of the server's state, not at every
				// call while it backs off
				if key := name + "@" + strconv.FormatUint(st.Change, 10); !f.w.mcpSaid[key] {
					f.w.mcpSaid[key] = true
					failures = append(failures, f.w.MCPErrs[name].Error()+" (a call of it will try the server again)")
				}
			} else {
				cp := *d
				cp.Name = modelToolName(name)
				f.w.MCPDefs[name] = &cp
				delete(f.w.MCPErrs, name)
			}
		})
	}
	return failures
}

// loadedSkills returns the parsed skills of the preloads and loaded set.
func (f *frame) loadedSkills() []*skills.Skill {
	var out []*skills.Skill
	for _, ls := range append(append([]*rulebook.Loaded{}, f.st.Preloads...), f.st.Loaded...) {
		out = append(out, lightSkill(ls))
	}
	return out
}

// buildTools resolves the tools of the next request (R5, R14): built-ins,
// the agent's own tools, then every preloaded and loaded skill's tools. A
// pinned version wins over latest; the agent's reference wins over both.
func (f *frame) buildTools() *toolset {
	return f.buildToolsWith(f.st.Preloads, f.st.Loaded)
}

// buildToolsWith resolves the tools for a given set of preloaded and loaded
// skills (loaded most recent first).
func (f *frame) buildToolsWith(preloads, loaded []*rulebook.Loaded) *toolset {
	ts := &toolset{byName: map[string]*binding{}}
	agent := f.agentBindings()
	if p := f.agentProfile(); p != nil {
		if b := f.activationTool(p); b != nil && !(len(agent) > 0 && pathActivation(p.Name())) {
			ts.add(b)
		}
	} else if f.st.Settings.LoadSkillTool {
		ts.add(&binding{info: ToolInfo{Name: ToolLoadSkill, Description: "Load a skill from <available_skills>: its instructions and tools join the conversation.", Parameters: loadSkillSchema, Source: "built-in", Approval: ApproveNever}})
	}
	if f.opts.RoutingOnly {
		return ts // the skill's routing alone: no other tool to reach for
	}
	for _, b := range agent {
		if ts.byName[b.info.Name] == nil {
			ts.add(b)
		}
	}
	if len(f.w.Sel.ByName) > 0 {
		ts.add(&binding{info: ToolInfo{Name: ToolReadResource, Description: "Read a file of a loaded skill's folder (references/, assets/, ...), or list its files.", Parameters: readResourceSchema, Source: "built-in", Approval: ApproveNever}})
	}
	for i := range f.opts.Config.Agent.Tools {
		ref := &f.opts.Config.Agent.Tools[i]
		def := f.w.AgentDefs[ref.Name]
		if def == nil {
			continue
		}
		ts.add(&binding{def: def, agent: ref, info: ToolInfo{
			Name: ref.Name, Description: def.Description, Parameters: def.Parameters, Source: "agent",
			Version: def.Version, Pinned: ref.Version > 0, Approval: f.policy(ref.Name, def, ref), Kind: def.Kind,
		}})
	}
	// Preloads first, then loaded skills from the oldest: the first load
	// that made a tool available keeps it unless a later one pins it.
	owners := append([]*rulebook.Loaded{}, preloads...)
	for i := len(loaded) - 1; i >= 0; i-- {
		owners = append(owners, loaded[i])
	}
	for _, ls := range owners {
		for _, ref := range ls.Body.Tools {
			f.bindSkillTool(ts, ls, ref)
		}
	}
	return ts
}

func (f *frame) bindSkillTool(ts *toolset, ls *rulebook.Loaded, ref skills.ToolRef) {
	name := modelToolName(ref.Name)
	prev := ts.byName[name]
	switch {
	case prev != nil && prev.info.Source != "skill":
		return // the agent's own reference (or a built-in) wins
	case f.w.Sel.ByName[name] != nil:
		ts.dropped = append(ts.dropped, fmt.Sprintf("tool %s of skill %s is left out: its name is now the name of a skill", name, ls.Name))
		return
	case prev != nil && (prev.info.Pinned || !ref.Pinned()):
		return // first come keeps it; a pin is only displaced by nothing
	}
	def, err := f.resolveRef(f.ownerOf(ls), ref)
	if err != nil {
		server, tool, isMCP := strings.Cut(ref.Name, "/")
		if !isMCP || errors.Is(err, tools.ErrNoMCPTool) {
			// the server answered and does not have it: offer what it lists
			ts.dropped = append(ts.dropped, fmt.Sprintf("tool %s of skill %s is left out: %v", name, ls.Name, err))
			return
		}
		// The server could not say what its tool takes (prefetchMCP
		// reported why). The tool stays offered, so a call reaches the
		// runner, which tries the server again and answers with a clear
		// error if it still fails.
		def = &skills.ToolDef{Name: name, Kind: skills.KindMCP, Server: server, RemoteTool: tool,
			Description: fmt.Sprintf("Tool %s of MCP server %s (not reachable yet).", tool, server),
			Parameters:  json.RawMessage(`{"type":"object"}`)}
	}
	b := &binding{def: def, owner: ls, info: ToolInfo{
		Name: name, Description: def.Description, Parameters: def.Parameters, Source: "skill", Skill: ls.Name,
		Version: def.Version, Pinned: ref.Pinned(), Approval: f.policy(name, def, nil), Kind: def.Kind,
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
	return chat.Tool{Type: chat.ToolTypeFunction, Function: &chat.FunctionDefinition{Name: info.Name, Description: info.Description, Parameters: params}}
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
// pinned versions of one tool meet (R14), against the preloads and the
// loaded skills other than those in except (the ones the load evicts).
func (f *frame) pinConflict(sk *skills.Skill, except map[string]bool) error {
	var others []*skills.Skill
	for _, ls := range append(append([]*rulebook.Loaded{}, f.st.Preloads...), f.st.Loaded...) {
		if ls.Name != sk.Name && !except[ls.Name] {
			others = append(others, lightSkill(ls))
		}
	}
	return f.pinConflictWith(sk, others)
}

// pinConflictWith checks a skill's pins against other skills' pins; the
// agent's own reference to a tool makes the skills' pins moot.
func (f *frame) pinConflictWith(sk *skills.Skill, others []*skills.Skill) error {
	for _, ref := range sk.Tools {
		if !ref.Pinned() || f.agentHas(modelToolName(ref.Name)) {
			continue
		}
		for _, o := range others {
			for _, r := range o.Tools {
				if r.Name == ref.Name && r.Pinned() && r.Version != ref.Version {
					return fmt.Errorf("%s pins %s@%d but the loaded skill %s pins %s@%d; two pinned versions of one tool cannot be loaded together",
						sk.Name, ref.Name, ref.Version, o.Name, r.Name, r.Version)
				}
			}
		}
	}
	return nil
}

func (f *frame) agentHas(name string) bool {
	for _, t := range f.opts.Config.Agent.Tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

// madeAvailable lists, as name@version, the tools a load of ls adds: not
// those the agent lists itself, nor those an earlier load made available at
// a pinned version (R14).
func madeAvailable(before, after *toolset, ls *rulebook.Loaded) []string {
	var out []string
	for _, ref := range ls.Body.Tools {
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

// lightSkill is what a load kept of a skill, as a skill: its name, folder
// and tool references.
func lightSkill(ls *rulebook.Loaded) *skills.Skill {
	return &skills.Skill{Name: ls.Name, Dir: ls.Body.Dir, Tools: ls.Body.Tools}
}

// ownerOf returns the catalog's skill for a load, which knows its own
// tools/ folder; the load's light copy when the catalog no longer has it.
func (f *frame) ownerOf(ls *rulebook.Loaded) *skills.Skill {
	if sk := f.opts.Catalog.Get(ls.Name); sk != nil && sk.Dir == ls.Body.Dir {
		return sk
	}
	return lightSkill(ls)
}
