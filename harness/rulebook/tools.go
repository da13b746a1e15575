// Rules R5 (every loaded skill's tools are offered, not only the active
// skill's), R14 (a skill's tools join from the next call; the agent's own
// reference wins; a pin wins over latest; two different pins of one tool
// cannot be loaded together) and R15's policies: the tools of a request,
// resolved from the state and the world's definitions.

package rulebook

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"skillet/harness/agenttools"
	"skillet/harness/chat"
	"skillet/harness/event"
	"skillet/harness/profile"
	"skillet/skills"
)

// Names of the built-in tools besides load_skill, and the approval
// policies of R15.
const (
	ToolReadResource = "read_skill_resource"
	ApproveNever     = "never"
	ApproveAsk       = "ask"
	ApproveDeny      = "always-deny"
)

// LoadSkillSchema and ReadResourceSchema are the built-in tools'
// parameters.
var (
	LoadSkillSchema    = json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","description":"The skill's name, as listed in <available_skills>."}},"required":["name"],"additionalProperties":false}`)
	ReadResourceSchema = json.RawMessage(`{"type":"object","properties":{"skill":{"type":"string","description":"A loaded skill's name."},"path":{"type":"string","description":"A file path inside the skill's folder, such as references/guide.md; empty lists the skill's files."}},"required":["skill"],"additionalProperties":false}`)
)

// Binding is one tool of a request and what carries it out.
type Binding struct {
	Info  event.ToolInfo
	Def   *skills.ToolDef // nil for built-ins
	Owner *Loaded         // the skill whose reference won; nil otherwise
	Agent *AgentTool      // the agent's own reference, when it is one
	// ATool is the profile's own shell or file tool, run in the
	// session's workspace.
	ATool *agenttools.Def
	// Activation marks the profile's activation tool, which replaces
	// load_skill under a profile other than skillet.
	Activation bool
}

// Toolset is the tools of one request, in order, and by name.
type Toolset struct {
	List   []*Binding
	ByName map[string]*Binding
	// Dropped names tools of loaded skills left out, and why (R17).
	Dropped []string
}

func (ts *Toolset) add(b *Binding) {
	ts.List = append(ts.List, b)
	ts.ByName[b.Info.Name] = b
}

// ModelToolName is the name the model sees: an MCP reference SERVER/TOOL
// becomes SERVER__TOOL, since function names may not hold a slash.
func ModelToolName(ref string) string { return strings.ReplaceAll(ref, "/", "__") }

// policy returns the approval policy for a tool (R15): the agent's own
// reference, then the [approval] table, then the default by kind.
func (w *World) policy(name string, def *skills.ToolDef, agent *AgentTool) string {
	if agent != nil && agent.Approval != "" {
		return agent.Approval
	}
	if a, ok := w.Approval[name]; ok {
		return a
	}
	if def != nil && (def.Kind == skills.KindCommand || def.Kind == skills.KindMCP) {
		return ApproveAsk
	}
	return ApproveNever
}

// resolveRef finds the definition a skill's tool reference names. MCP
// references use what the shell asked of the server before the step.
func (w *World) resolveRef(owner *skills.Skill, ref skills.ToolRef) (*skills.ToolDef, error) {
	if _, _, isMCP := strings.Cut(ref.Name, "/"); !isMCP {
		return w.Catalog.Tool(owner, ref)
	}
	if d, ok := w.MCPDefs[ref.Name]; ok {
		return d, nil
	}
	if err, ok := w.MCPErrs[ref.Name]; ok {
		return nil, err
	}
	return nil, fmt.Errorf("tool %s: its MCP server has not been asked yet", ref.Name)
}

// MCPRefs lists the MCP references of the given skills whose definitions
// are not known yet: what the shell asks the servers before a step.
func MCPRefs(w *World, sks []*skills.Skill) []string {
	var out []string
	seen := map[string]bool{}
	for _, sk := range sks {
		for _, ref := range sk.Tools {
			if _, _, isMCP := strings.Cut(ref.Name, "/"); !isMCP || seen[ref.Name] {
				continue
			}
			seen[ref.Name] = true
			if _, ok := w.MCPDefs[ref.Name]; !ok {
				out = append(out, ref.Name)
			}
		}
	}
	return out
}

// LoadedSkills returns the parsed skills of the preloads and loaded set.
func LoadedSkills(st *State) []*skills.Skill {
	var out []*skills.Skill
	for _, ls := range append(append([]*Loaded{}, st.Preloads...), st.Loaded...) {
		out = append(out, LightSkill(ls))
	}
	return out
}

// BuildTools resolves the tools of the next request (R5, R14): built-ins,
// the agent's own tools, then every preloaded and loaded skill's tools. A
// pinned version wins over latest; the agent's reference wins over both.
func BuildTools(st *State, w *World) *Toolset {
	return BuildToolsWith(st, w, st.Preloads, st.Loaded)
}

// BuildToolsWith resolves the tools for a given set of preloaded and loaded
// skills (loaded most recent first).
func BuildToolsWith(st *State, w *World, preloads, loaded []*Loaded) *Toolset {
	ts := &Toolset{ByName: map[string]*Binding{}}
	agent := profileTools(st, w)
	if p := ProfileOf(st); !profile.HarnessOf(p).RuleBook {
		if b := ActivationTool(st, w, p); b != nil && !(len(agent) > 0 && profile.HarnessOf(p).ByPath) {
			ts.add(b)
		}
	} else if st.Settings.LoadSkillTool {
		ts.add(&Binding{Info: event.ToolInfo{Name: ToolLoadSkill, Description: "Load a skill from <available_skills>: its instructions and tools join the conversation.", Parameters: LoadSkillSchema, Source: "built-in", Approval: ApproveNever}})
	}
	if w.RoutingOnly {
		return ts // the skill's routing alone: no other tool to reach for
	}
	for _, b := range agent {
		if ts.ByName[b.Info.Name] == nil {
			ts.add(b)
		}
	}
	if len(w.Sel.ByName) > 0 {
		ts.add(&Binding{Info: event.ToolInfo{Name: ToolReadResource, Description: "Read a file of a loaded skill's folder (references/, assets/, ...), or list its files.", Parameters: ReadResourceSchema, Source: "built-in", Approval: ApproveNever}})
	}
	for i := range w.AgentTools {
		ref := &w.AgentTools[i]
		def := w.AgentDefs[ref.Name]
		if def == nil {
			continue
		}
		ts.add(&Binding{Def: def, Agent: ref, Info: event.ToolInfo{
			Name: ref.Name, Description: def.Description, Parameters: def.Parameters, Source: "agent",
			Version: def.Version, Pinned: ref.Version > 0, Approval: w.policy(ref.Name, def, ref), Kind: def.Kind,
		}})
	}
	// Preloads first, then loaded skills from the oldest: the first load
	// that made a tool available keeps it unless a later one pins it.
	owners := append([]*Loaded{}, preloads...)
	for i := len(loaded) - 1; i >= 0; i-- {
		owners = append(owners, loaded[i])
	}
	for _, ls := range owners {
		for _, ref := range ls.Body.Tools {
			w.bindSkillTool(ts, ls, ref)
		}
	}
	return ts
}

// profileTools are the profile's own tools for the next request, when
// the session has agent tools (R5).
func profileTools(st *State, w *World) []*Binding {
	// a session folded to be looked at lists them as it offered them,
	// without a workspace to run them in
	if !st.Settings.AgentTools || st.Workspace == nil || w.RoutingOnly {
		return nil
	}
	defs, err := agenttools.For(ProfileName(st))
	if err != nil {
		return nil
	}
	out := make([]*Binding, 0, len(defs))
	for i := range defs {
		d := &defs[i]
		approval := ApproveAsk
		if d.ReadOnly {
			approval = ApproveNever
		}
		if a, ok := w.Approval[d.Name]; ok {
			approval = a
		}
		out = append(out, &Binding{ATool: d, Info: event.ToolInfo{Name: d.Name, Description: d.Description, Parameters: d.Parameters,
			Source: event.SourceProfile, Approval: approval, Kind: skills.ToolKind(d.Kind)}})
	}
	return out
}

func (w *World) bindSkillTool(ts *Toolset, ls *Loaded, ref skills.ToolRef) {
	name := ModelToolName(ref.Name)
	prev := ts.ByName[name]
	switch {
	case prev != nil && prev.Info.Source != "skill":
		return // the agent's own reference (or a built-in) wins
	case w.Sel.ByName[name] != nil:
		ts.Dropped = append(ts.Dropped, fmt.Sprintf("tool %s of skill %s is left out: its name is now the name of a skill", name, ls.Name))
		return
	case prev != nil && (prev.Info.Pinned || !ref.Pinned()):
		return // first come keeps it; a pin is only displaced by nothing
	}
	def, err := w.resolveRef(w.ownerOf(ls), ref)
	if err != nil {
		server, tool, isMCP := strings.Cut(ref.Name, "/")
		if !isMCP || errors.Is(err, skills.ErrNoMCPTool) {
			// the server answered and does not have it: offer what it lists
			ts.Dropped = append(ts.Dropped, fmt.Sprintf("tool %s of skill %s is left out: %v", name, ls.Name, err))
			return
		}
		// The server could not say what its tool takes (the shell
		// reported why). The tool stays offered, so a call reaches the
		// runner, which tries the server again and answers with a clear
		// error if it still fails.
		def = &skills.ToolDef{Name: name, Kind: skills.KindMCP, Server: server, RemoteTool: tool,
			Description: fmt.Sprintf("Tool %s of MCP server %s (not reachable yet).", tool, server),
			Parameters:  json.RawMessage(`{"type":"object"}`)}
	}
	b := &Binding{Def: def, Owner: ls, Info: event.ToolInfo{
		Name: name, Description: def.Description, Parameters: def.Parameters, Source: "skill", Skill: ls.Name,
		Version: def.Version, Pinned: ref.Pinned(), Approval: w.policy(name, def, nil), Kind: def.Kind,
	}}
	if prev != nil {
		for i, x := range ts.List {
			if x == prev {
				ts.List[i] = b
			}
		}
		ts.ByName[name] = b
		return
	}
	ts.add(b)
}

// ChatTools converts a toolset for the request body.
func (ts *Toolset) ChatTools() []chat.Tool {
	out := make([]chat.Tool, 0, len(ts.List))
	for _, b := range ts.List {
		out = append(out, ChatTool(b.Info))
	}
	return out
}

// ChatTool is one tool as the request body carries it.
func ChatTool(info event.ToolInfo) chat.Tool {
	params := info.Parameters
	if len(params) == 0 {
		params = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return chat.Tool{Type: chat.ToolTypeFunction, Function: &chat.FunctionDefinition{Name: info.Name, Description: info.Description, Parameters: params}}
}

// Infos lists a toolset for the snapshot.
func (ts *Toolset) Infos() []event.ToolInfo {
	out := make([]event.ToolInfo, 0, len(ts.List))
	for _, b := range ts.List {
		out = append(out, b.Info)
	}
	return out
}

// Names lists the toolset's tool names, in order.
func (ts *Toolset) Names() []string {
	out := make([]string, 0, len(ts.List))
	for _, b := range ts.List {
		out = append(out, b.Info.Name)
	}
	return out
}

// PinConflict returns an error when loading sk would make two different
// pinned versions of one tool meet (R14), against the preloads and the
// loaded skills other than those in except (the ones the load evicts).
func PinConflict(st *State, w *World, sk *skills.Skill, except map[string]bool) error {
	var others []*skills.Skill
	for _, ls := range append(append([]*Loaded{}, st.Preloads...), st.Loaded...) {
		if ls.Name != sk.Name && !except[ls.Name] {
			others = append(others, LightSkill(ls))
		}
	}
	return PinConflictWith(w, sk, others)
}

// PinConflictWith checks a skill's pins against other skills' pins; the
// agent's own reference to a tool makes the skills' pins moot.
func PinConflictWith(w *World, sk *skills.Skill, others []*skills.Skill) error {
	for _, ref := range sk.Tools {
		if !ref.Pinned() || w.HasAgentTool(ModelToolName(ref.Name)) {
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

// MadeAvailable lists, as name@version, the tools a load of ls adds: not
// those the agent lists itself, nor those an earlier load made available at
// a pinned version (R14).
func MadeAvailable(before, after *Toolset, ls *Loaded) []string {
	var out []string
	for _, ref := range ls.Body.Tools {
		name := ModelToolName(ref.Name)
		b := after.ByName[name]
		if b == nil || b.Info.Source != "skill" {
			continue
		}
		if prev := before.ByName[name]; prev != nil && prev.Info.Pinned && prev.Owner != ls {
			continue
		}
		out = append(out, ToolLabel(name, b.Info.Version))
	}
	sort.Strings(out)
	return out
}

// ToolLabel is name@version, or the name alone for tools without versions
// (MCP tools).
func ToolLabel(name string, version int) string {
	if version <= 0 {
		return name
	}
	return fmt.Sprintf("%s@%d", name, version)
}

// LightSkill is what a load kept of a skill, as a skill: its name, folder
// and tool references.
func LightSkill(ls *Loaded) *skills.Skill {
	return &skills.Skill{Name: ls.Name, Dir: ls.Body.Dir, Tools: ls.Body.Tools}
}

// ownerOf returns the catalog's skill for a load, which knows its own
// tools/ folder; the load's light copy when the catalog no longer has it.
func (w *World) ownerOf(ls *Loaded) *skills.Skill {
	if sk := w.Catalog.Get(ls.Name); sk != nil && sk.Dir == ls.Body.Dir {
		return sk
	}
	return LightSkill(ls)
}

// ToolsAfterEdit works out the tools a loaded skill makes available once
// its edited body is rendered (R14, R17): all of them as name@version, and
// those the edit removed and added.
func ToolsAfterEdit(st *State, w *World, ls *Loaded, body event.SkillBody) (tools, removed, added []string) {
	edited := *ls
	edited.Body = body
	loaded := make([]*Loaded, len(st.Loaded))
	for i, x := range st.Loaded {
		loaded[i] = x
		if x == ls {
			loaded[i] = &edited
		}
	}
	after := BuildToolsWith(st, w, st.Preloads, loaded)
	tools = []string{}
	have := map[string]bool{}
	for _, ref := range body.Tools {
		name := ModelToolName(ref.Name)
		if b := after.ByName[name]; b != nil && b.Owner == &edited {
			tools = append(tools, ToolLabel(name, b.Info.Version))
			have[name] = true
		}
	}
	sort.Strings(tools)
	had := map[string]bool{}
	for _, t := range ls.Tools {
		name, _, _ := strings.Cut(t, "@")
		had[name] = true
		if !have[name] {
			removed = append(removed, t)
		}
	}
	for _, t := range tools {
		if name, _, _ := strings.Cut(t, "@"); !had[name] {
			added = append(added, t)
		}
	}
	return tools, removed, added
}

// FrozenTools are the tools a frozen prompt declares from the start
// (R23): the request's own besides the skills', and every tool any
// enabled skill could bring.
func FrozenTools(w *World, live *Toolset) *Toolset {
	all := &Toolset{ByName: map[string]*Binding{}}
	for _, b := range live.List {
		if b.Info.Source != event.SourceSkill {
			all.add(b)
		}
	}
	for _, sk := range append(append([]*skills.Skill{}, w.Sel.Preload...), w.Sel.Enabled...) {
		ls := &Loaded{Name: sk.Name, Body: BodyOf(sk), ResultMsg: -1}
		for _, ref := range sk.Tools {
			w.bindSkillTool(all, ls, ref)
		}
	}
	return all
}

// BodyOf is what a load of sk keeps of it: its text (instructions, then
// examples, R8, R18), folder and tool references.
func BodyOf(sk *skills.Skill) event.SkillBody {
	return event.SkillBody{Text: sk.LoadText(), Dir: sk.Dir, Tools: sk.Tools, AllowedTools: sk.AllowedTools}
}
