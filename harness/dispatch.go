package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"skillet/harness/event"
	"skillet/harness/rulebook"
	"strings"
	"time"

	"skillet/harness/chat"
	"skillet/harness/tools"
	"skillet/harness/view"
)

// MaxToolResult is the size past which a tool result is cut, with a note.
const MaxToolResult = 64 << 10

// maxResourceBytes caps what read_skill_resource returns.
const maxResourceBytes = 32 << 10

// dispatch carries out one tool call and records its result. manual marks a
// call the user made by hand. It returns the result event.
func (s *Session) dispatch(ctx context.Context, tc chat.ToolCall, live *toolset, manual bool) *event.ToolResult {
	name := tc.Function.Name
	b := live.ByName[name]
	if res := rulebook.UnknownTool(live, name); res != nil {
		res.ToolCallID = tc.ID
		s.emit(res)
		return res
	}
	start := time.Now()
	var res *event.ToolResult
	switch {
	case b.Activation:
		if manual {
			res = &event.ToolResult{Content: name + " is the model's; use /load NAME", IsError: true, Refused: true}
			break
		}
		res = s.modelActivate(ctx, tc, b)
	case name == rulebook.ToolLoadSkill:
		if manual {
			res = &event.ToolResult{Content: "load_skill is the model's; use /load NAME", IsError: true, Refused: true}
			break
		}
		out := s.modelLoad(ctx, tc)
		res = &event.ToolResult{Content: out.Content, IsError: out.IsError, Refused: out.Refused}
	case name == rulebook.ToolReadResource:
		res = s.readResource(tc)
	case b.ATool != nil:
		res = s.runAgentTool(ctx, tc, b, manual)
	default:
		res = s.runTool(ctx, tc, b, manual)
	}
	res.ToolCallID, res.Name, res.Manual = tc.ID, name, manual
	res.DurationMS = time.Since(start).Milliseconds()
	if len(res.Content) > MaxToolResult {
		res.Content = tools.CutOutput(res.Content, MaxToolResult)
	}
	s.emit(res)
	return res
}

// readResource serves read_skill_resource for a loaded or preloaded skill.
func (s *Session) readResource(tc chat.ToolCall) *event.ToolResult {
	argsJSON, err := tools.ValidateArgs(rulebook.ReadResourceSchema, tc.Function.Arguments)
	if err != nil {
		return &event.ToolResult{Content: "read_skill_resource: " + err.Error(), IsError: true, Refused: true}
	}
	var args struct{ Skill, Path string }
	_ = json.Unmarshal(argsJSON, &args)
	ls := read(s, func(f *frame) *rulebook.Loaded {
		if ls := f.st.FindLoaded(args.Skill); ls != nil {
			return ls
		}
		return f.st.FindPreload(args.Skill)
	})
	if ls == nil {
		return &event.ToolResult{Content: fmt.Sprintf("read_skill_resource: skill %q is not loaded; load it first", args.Skill), IsError: true, Refused: true}
	}
	p := strings.TrimSpace(args.Path)
	if p == "" || p == "." || p == "/" {
		files, err := tools.ListResources(ls.Body.Dir)
		if err != nil {
			return &event.ToolResult{Content: "read_skill_resource: " + err.Error(), IsError: true}
		}
		return &event.ToolResult{Content: fmt.Sprintf("Files of skill %s:\n%s", ls.Name, strings.Join(files, "\n"))}
	}
	text, err := tools.ReadResource(ls.Body.Dir, p, maxResourceBytes)
	if err != nil {
		return &event.ToolResult{Content: "read_skill_resource: " + err.Error(), IsError: true}
	}
	return &event.ToolResult{Content: text}
}

// runTool runs an agent or skill tool: arguments checked against its
// schema, the agent's policy asked (R15), then the runner.
func (s *Session) runTool(ctx context.Context, tc chat.ToolCall, b *binding, manual bool) *event.ToolResult {
	name := tc.Function.Name
	if b.Owner != nil && !s.stillLoaded(b.Owner) {
		// an earlier call of the same reply unloaded its skill (R4, R6)
		return &event.ToolResult{Content: "Unknown tool: " + name, IsError: true, Refused: true}
	}
	args, err := tools.ValidateArgs(b.Info.Parameters, tc.Function.Arguments)
	if err != nil {
		return &event.ToolResult{Content: fmt.Sprintf("%s: bad arguments: %v", name, err), IsError: true, Refused: true}
	}
	if b.Agent != nil && len(b.Agent.Input) > 0 {
		args = mergeInput(args, b.Agent.Input)
	}
	if denied := s.authorize(ctx, tc, b, manual); denied != "" {
		return &event.ToolResult{Content: denied, IsError: true, Refused: true, Cancelled: denied == cancelledResult}
	}
	call := tools.Call{ID: tc.ID, Def: b.Def, Args: args, Dir: filepath.Dir(b.Def.File)}
	skill := ""
	if b.Owner != nil {
		skill = b.Owner.Name
		call.Dir = b.Owner.Body.Dir
		dir := s.Dir()
		store, err := storeFile(dir, skill)
		if err == nil {
			call.StateFile, err = stateFile(dir, b.Owner.Name, b.Owner.LoadExec)
		}
		if err != nil {
			return &event.ToolResult{Content: fmt.Sprintf("%s: %v", name, err), IsError: true, Refused: true}
		}
		call.StoreFile = store
		ensureJSONFile(call.StoreFile)
		if call.StateFile != "" {
			ensureJSONFile(call.StateFile)
		}
	}
	s.emit(&event.ToolStarted{ToolCallID: tc.ID, Name: name, Arguments: string(args)})
	run := s.opts.Runner.Run
	if s.opts.RunTool != nil {
		run = s.opts.RunTool
	}
	out := run(ctx, call)
	res := &event.ToolResult{Content: out.Content, IsError: out.IsError, Stderr: out.Stderr, Version: b.Def.Version, Skill: skill, ExecutionID: tc.ID}
	if ctx.Err() != nil {
		res.Content, res.IsError, res.Cancelled = cancelledResult+" while "+name+" ran", true, true
	}
	if b.Owner != nil {
		s.noteState(b.Owner, call.StateFile, call.StoreFile)
	}
	return res
}

// authorize applies the agent's policy to a call (R15, decided by
// rulebook.Authorize), asking the user when the policy says to. It returns
// "" when the call may run, else the refusal.
func (s *Session) authorize(ctx context.Context, tc chat.ToolCall, b *binding, manual bool) string {
	var auth rulebook.Authorization
	s.step(func(st *rulebook.State, w *rulebook.World) []event.Event {
		auth = rulebook.Authorize(st, b, tc, manual, s.opts.Approver != nil, s.opts.ApproveAll || containsString(s.opts.Approve, tc.Function.Name))
		return auth.Events
	})
	if !auth.Ask {
		return auth.Refusal
	}
	req := view.ApprovalRequest{ToolCallID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments, Kind: string(b.Info.Kind)}
	if b.Owner != nil {
		req.Skill = b.Owner.Name
	}
	d, err := s.opts.Approver(ctx, req)
	refusal, events := rulebook.Answered(tc, d, err != nil || ctx.Err() != nil)
	s.emit(events...)
	return refusal
}

// stillLoaded reports whether a skill's load is still in the loaded set or
// among the preloads.
func (s *Session) stillLoaded(ls *rulebook.Loaded) bool {
	return read(s, func(f *frame) bool {
		for _, x := range append(append([]*rulebook.Loaded{}, f.st.Loaded...), f.st.Preloads...) {
			if x == ls {
				return true
			}
		}
		return false
	})
}

func containsString(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// mergeInput lays the agent's fixed input over the model's arguments (R14).
func mergeInput(args json.RawMessage, input map[string]any) json.RawMessage {
	var m map[string]any
	if err := json.Unmarshal(args, &m); err != nil || m == nil {
		m = map[string]any{}
	}
	for k, v := range input {
		m[k] = v
	}
	out, err := json.Marshal(m)
	if err != nil {
		return args
	}
	return out
}

func ensureJSONFile(path string) {
	if _, err := os.Stat(path); err == nil {
		return
	}
	_ = os.WriteFile(path, []byte("{}"), 0o600)
}

// noteState records a skill's state and store after a tool ran, when they
// changed (R26), so the UI and a reopened session see them.
func (s *Session) noteState(ls *rulebook.Loaded, stateFile, storeFile string) {
	store, _ := os.ReadFile(storeFile)
	var state []byte
	if stateFile != "" {
		state, _ = os.ReadFile(stateFile)
	}
	prev := read(s, func(f *frame) [2]json.RawMessage { return [2]json.RawMessage{f.st.Stores[ls.Name], ls.State} })
	ev := &event.StateChanged{Skill: ls.Name}
	if len(store) > 0 && !bytes.Equal(store, prev[0]) && json.Valid(store) {
		ev.Store = json.RawMessage(store)
	}
	if len(state) > 0 && !bytes.Equal(state, prev[1]) && json.Valid(state) {
		ev.State = json.RawMessage(state)
	}
	if ev.Store != nil || ev.State != nil {
		s.emit(ev)
	}
}

// CallTool runs a tool of the next request by hand (/call), between turns.
// The call and its result are recorded like the model's own.
func (s *Session) CallTool(ctx context.Context, name, args string) (*event.ToolResult, error) {
	if err := s.acquire(); err != nil {
		return nil, err
	}
	defer s.release()
	s.prefetchMCP(ctx, read(s, func(f *frame) []string { return rulebook.MCPRefs(f.w.World, rulebook.LoadedSkills(f.st)) }))
	var live *toolset
	id := read(s, func(f *frame) string {
		live = rulebook.BuildTools(f.st, f.w.World)
		// the first id no call of the session has, as every /call takes the next
		n := 1
		for f.st.CallIDs[fmt.Sprintf("manual_%d", n)] {
			n++
		}
		return fmt.Sprintf("manual_%d", n)
	})
	if live.ByName[name] == nil {
		return nil, fmt.Errorf("call %s: not a tool of the next request (tools: %s)", name, strings.Join(toolNames(live), ", "))
	}
	if name == rulebook.ToolLoadSkill || live.ByName[name].Activation {
		return nil, fmt.Errorf("call %s: use /load NAME to load a skill by hand", name)
	}
	if strings.TrimSpace(args) == "" {
		args = "{}"
	}
	s.emit(&event.Assistant{Manual: true, FinishReason: "tool_calls", ToolCalls: []event.ToolCallRecord{{ID: id, Name: name, Arguments: args}}})
	res := s.dispatch(ctx, chat.ToolCall{ID: id, Type: "function", Function: chat.FunctionCall{Name: name, Arguments: args}}, live, true)
	return res, s.syncJournal()
}

func toolNames(ts *toolset) []string {
	out := make([]string, 0, len(ts.List))
	for _, b := range ts.List {
		out = append(out, b.Info.Name)
	}
	return out
}
