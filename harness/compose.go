package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"skillet/harness/chat"
	"skillet/skills"
)

// composition is one request as composed, with what the rule book tracks
// about it.
type composition struct {
	req *chat.Request
	// live is the tools that may run: in a frozen prompt (R23) the request
	// declares more, and a call of one whose skill is not loaded is refused.
	live         *toolset
	parts        []ContextPart
	instructions string
	context      string
	win          window
	// offered names the skills on the list the model sees; leftOff the
	// enabled ones it leaves out (R10).
	offered []string
	leftOff []string
	// delivered are the skills whose full text this request carries.
	delivered []*loadedSkill
	// outOfWindow are tool-result loads whose result left the window (R11).
	outOfWindow []*loadedSkill
	infos       []ToolInfo
}

// frozenPrompt is the first request's instructions and tools (R23), with
// what its instructions carry.
type frozenPrompt struct {
	instructions string
	tools        []chat.Tool
	infos        []ToolInfo
	offered      []string
	leftOff      []string
	// context maps each skill rendered in the frozen <current_context> to
	// its execution then.
	context map[string]string
}

// compose builds the next request from the session's state (R8–R11, R14,
// R16, R22, R23). freeze lets a model call freeze the prompt; snapshots
// only look. Called with s.mu held; it contacts nothing.
func (s *Session) compose(freeze bool) *composition {
	c := &composition{}
	set := s.settings
	c.parts = append(c.parts, ContextPart{Kind: "prompt", Text: s.cfg.Agent.Prompt})

	preloads := s.preloads
	if preloads == nil {
		preloads = s.pendingPreloads()
	}
	var pre []string
	for _, ls := range preloads {
		el := skillElement(ls.name, ls.version, ls.execID, false, "", ls.text)
		pre = append(pre, el)
		c.parts = append(c.parts, ContextPart{Kind: "preload", Skill: ls.name, Text: el, Tokens: ls.tokens})
		c.delivered = append(c.delivered, ls)
	}

	var list []*skills.Skill
	if set.LoadSkillTool {
		list, c.leftOff = s.list(set.ListSize)
		c.parts = append(c.parts, ContextPart{Kind: "list", Text: listBlock(list)})
		for _, sk := range list {
			c.offered = append(c.offered, sk.Name)
		}
	}

	c.win = computeWindow(len(s.msgs), set.MaxTranscriptMessages, s.userMsgs)
	var ctxElems []string
	for i, ls := range s.loaded {
		if ls.delivery == DeliveryToolResult {
			if ls.resultMsg >= c.win.start {
				c.delivered = append(c.delivered, ls)
			} else {
				c.outOfWindow = append(c.outOfWindow, ls)
			}
			continue
		}
		kind := "skill"
		if ls.by == "paste" {
			kind = "paste"
			c.offered = append(c.offered, ls.name) // its name is in the prompt (R20)
		}
		el := skillElement(ls.name, ls.version, ls.execID, i == 0, "", ls.text)
		ctxElems = append(ctxElems, el)
		c.parts = append(c.parts, ContextPart{Kind: kind, Skill: ls.name, Text: el, Tokens: ls.tokens})
		c.delivered = append(c.delivered, ls)
	}
	c.context = wrapBlock("current_context", ctxElems)
	c.instructions = joinBlocks(s.cfg.Agent.Prompt, wrapBlock("preloaded_skills", pre), listBlock(list), c.context)

	c.live = s.buildTools()
	tools := chatTools(c.live)
	c.infos = c.live.infos()
	if set.FreezePrompt {
		if s.frozen == nil && freeze {
			s.frozen = s.freeze(c)
		}
		if s.frozen != nil {
			s.applyFrozen(c)
			tools = s.frozen.tools
		}
	}

	msgs := make([]chat.Message, 0, c.win.kept()+1)
	if c.instructions != "" {
		msgs = append(msgs, chat.Message{Role: chat.RoleSystem, Content: c.instructions})
	}
	msgs = append(msgs, s.msgs[c.win.start:c.win.n]...)
	c.req = &chat.Request{Model: s.modelName, Messages: msgs, Tools: tools, Stream: true, StreamOptions: &chat.StreamOptions{IncludeUsage: true}}
	return c
}

// applyFrozen puts the frozen instructions and tools in a composition: its
// list is the first request's, and only what those instructions carried, or
// a load result in the window, counts as delivered.
func (s *Session) applyFrozen(c *composition) {
	f := s.frozen
	c.instructions, c.infos = f.instructions, f.infos
	c.offered, c.leftOff = f.offered, f.leftOff
	var delivered []*loadedSkill
	for _, ls := range c.delivered {
		switch {
		case ls.by == "preload", ls.delivery == DeliveryToolResult:
			delivered = append(delivered, ls)
		case f.context[ls.name] == ls.execID:
			delivered = append(delivered, ls)
		}
	}
	c.delivered = delivered
}

func joinBlocks(blocks ...string) string {
	parts := make([]ContextPart, len(blocks))
	for i, b := range blocks {
		parts[i].Text = b
	}
	return joinParts(parts)
}

// list returns the skills on the list and the names left off (R10): every
// enabled skill that is not preloaded, ranked against the latest user
// message when there are more than fit.
func (s *Session) list(size int) ([]*skills.Skill, []string) {
	pool := s.sel.enabled
	if len(pool) <= size {
		return pool, nil
	}
	ranked, _ := s.ranker.rank(pool, s.latestUserText())
	left := make([]string, 0, len(ranked)-size)
	for _, sk := range ranked[size:] {
		left = append(left, sk.Name)
	}
	return ranked[:size], left
}

func (s *Session) latestUserText() string {
	if n := len(s.userMsgs); n > 0 {
		return s.entries[s.msgEntry[s.userMsgs[n-1]]].Text
	}
	return ""
}

// pendingPreloads renders the preloads the next turn will make, for a
// snapshot taken before any turn.
func (s *Session) pendingPreloads() []*loadedSkill {
	out := make([]*loadedSkill, 0, len(s.sel.preload))
	for _, sk := range s.sel.preload {
		ls := &loadedSkill{name: sk.Name, by: "preload", resultMsg: -1}
		s.render(ls, sk)
		out = append(out, ls)
	}
	return out
}

// freeze keeps the first request's instructions and declares every tool
// any enabled skill could bring (R23).
func (s *Session) freeze(c *composition) *frozenPrompt {
	all := &toolset{byName: map[string]*binding{}}
	for _, b := range c.live.list {
		if b.info.Source != "skill" {
			all.add(b)
		}
	}
	for _, sk := range append(append([]*skills.Skill{}, s.sel.preload...), s.sel.enabled...) {
		ls := &loadedSkill{skill: sk, name: sk.Name, resultMsg: -1}
		for _, ref := range sk.Tools {
			s.bindSkillTool(all, ls, ref)
		}
	}
	f := &frozenPrompt{instructions: c.instructions, tools: chatTools(all), infos: all.infos(),
		offered: c.offered, leftOff: c.leftOff, context: map[string]string{}}
	for _, ls := range s.loaded {
		if ls.delivery != DeliveryToolResult {
			f.context[ls.name] = ls.execID
		}
	}
	return f
}

var (
	listNameRE     = regexp.MustCompile(`<name>([^<]*)</name>`)
	contextSkillRE = regexp.MustCompile(`<skill name="([^"]*)" version="[^"]*" execution="([^"]*)"`)
)

// thawFrozen rebuilds a frozen prompt from the first request it froze,
// when a journal is replayed.
func thawFrozen(body json.RawMessage) *frozenPrompt {
	var req chat.Request
	if json.Unmarshal(body, &req) != nil {
		return nil
	}
	f := &frozenPrompt{tools: req.Tools, context: map[string]string{}}
	if len(req.Messages) > 0 && req.Messages[0].Role == chat.RoleSystem {
		f.instructions = req.Messages[0].Content
	}
	if list, _, ok := strings.Cut(f.instructions, "</available_skills>"); ok {
		for _, m := range listNameRE.FindAllStringSubmatch(list, -1) {
			f.offered = append(f.offered, m[1])
		}
	}
	if _, ctx, ok := strings.Cut(f.instructions, "<current_context>"); ok {
		for _, m := range contextSkillRE.FindAllStringSubmatch(ctx, -1) {
			f.context[m[1]] = m[2]
		}
	}
	for _, t := range req.Tools {
		if t.Function == nil {
			continue
		}
		params, _ := json.Marshal(t.Function.Parameters)
		f.infos = append(f.infos, ToolInfo{Name: t.Function.Name, Description: t.Function.Description, Parameters: params, Source: "frozen"})
	}
	return f
}

// callPlan is what composeCall hands the turn loop: the request and what
// the model_call event records of it.
type callPlan struct {
	*composition
	deliveredUses []Use
	reusedUses    []Use
}

// composeCall prepares one model call of the running turn. MCP servers the
// loaded skills need are asked first, without the lock; tools left out are
// recorded before composing, so the request carries their harness.log
// lines; then the request is composed and what the rule book tracks about
// it is gathered for the model_call event: Offered and Delivered (R20),
// skill and reused tool uses (R21). Window trims (R9), text out of window
// (R11) and skills left off the list (R10) are emitted as they happen.
func (s *Session) composeCall(ctx context.Context, call int) *callPlan {
	s.mu.Lock()
	need := s.loadedSkills()
	if s.settings.FreezePrompt && s.frozen == nil {
		need = append(need, s.sel.enabled...)
	}
	refs := s.mcpRefs(need)
	s.mu.Unlock()
	var logs []string
	for _, f := range s.prefetchMCP(ctx, refs) {
		logs = append(logs, f+" (a call of it will try the server again)")
	}
	s.mu.Lock()
	logs = append(logs, s.buildTools().dropped...)
	logs = s.cur.unwarned(logs)
	s.mu.Unlock()
	for _, l := range logs {
		s.logWarn(l)
	}

	s.mu.Lock()
	c := s.compose(true)
	cur := s.cur
	p := &callPlan{composition: c}
	for _, ls := range c.delivered {
		p.deliveredUses = append(p.deliveredUses, Use{Role: "SKILL", Name: ls.name, Version: ls.version, ExecutionID: ls.execID, Reused: ls.execTurn < s.turn})
	}
	p.reusedUses = s.reusedTools(c.win)
	var warns []string
	if len(c.leftOff) > 0 {
		warns = append(warns, cur.unwarned([]string{fmt.Sprintf("the list holds %d skills: left off %s", s.settings.ListSize, joinNames(c.leftOff))})...)
	}
	for _, ls := range c.outOfWindow {
		if !s.outOfWindow[ls.name] {
			s.outOfWindow[ls.name] = true
			warns = append(warns, fmt.Sprintf("%s is still loaded (its tools stay) but the load_skill result that delivered its text has left the window: the model no longer sees its text", ls.name))
		}
	}
	trimmed := c.win.dropped() > s.lastDropped || c.win.capExceeded
	s.mu.Unlock()

	if trimmed {
		s.emit(&WindowTrimmed{Call: call, Dropped: c.win.dropped(), Kept: c.win.kept(), CapExceeded: c.win.capExceeded})
		if c.win.capExceeded {
			s.warn(fmt.Sprintf("this turn alone is longer than max_transcript_messages (%d): the window starts at its user message and carries %d messages", s.settingsNow().MaxTranscriptMessages, c.win.kept()))
		}
	}
	for _, w := range warns {
		s.warn(w)
	}
	return p
}

// unwarned returns the messages not given yet this turn, and marks them.
func (t *turnState) unwarned(msgs []string) []string {
	var out []string
	for _, m := range msgs {
		if !t.warned[m] {
			t.warned[m] = true
			out = append(out, m)
		}
	}
	return out
}

// reusedTools lists, as reused uses, tool results of earlier turns that a
// request carries and this turn has not counted yet (R21). Called with s.mu
// held.
func (s *Session) reusedTools(w window) []Use {
	var out []Use
	for k := w.start; k < w.n; k++ {
		en := &s.entries[s.msgEntry[k]]
		if en.Kind != EntryTool || en.Turn >= s.turn || en.IsError || en.Refused || en.ToolName == ToolLoadSkill || s.cur.reused[en.ToolCallID] {
			continue
		}
		v := ""
		if en.ToolVersion > 0 {
			v = fmt.Sprint(en.ToolVersion)
		}
		out = append(out, Use{Role: "TOOL", Name: en.ToolName, Version: v, ExecutionID: en.ToolCallID, Reused: true})
	}
	return out
}
