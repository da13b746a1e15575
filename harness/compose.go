package harness

import (
	"context"
	"fmt"

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
	offered      []*skills.Skill
	leftOff      []string
	// delivered are the skills whose full text this request carries.
	delivered []*loadedSkill
	// outOfWindow are tool-result loads whose result left the window (R11).
	outOfWindow []*loadedSkill
	infos       []ToolInfo
}

// compose builds the next request from the session's state (R8–R11, R14,
// R16, R22, R23). start allows starting MCP servers to learn their tools.
// Called with s.mu held.
func (s *Session) compose(ctx context.Context, start bool) *composition {
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

	if set.LoadSkillTool {
		c.offered, c.leftOff = s.list(set.ListSize)
		c.parts = append(c.parts, ContextPart{Kind: "list", Text: listBlock(c.offered)})
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
		}
		el := skillElement(ls.name, ls.version, ls.execID, i == 0, "", ls.text)
		ctxElems = append(ctxElems, el)
		c.parts = append(c.parts, ContextPart{Kind: kind, Skill: ls.name, Text: el, Tokens: ls.tokens})
		c.delivered = append(c.delivered, ls)
	}
	c.context = wrapBlock("current_context", ctxElems)
	c.instructions = joinBlocks(s.cfg.Agent.Prompt, wrapBlock("preloaded_skills", pre), listBlock(c.offered), c.context)

	c.live = s.buildTools(ctx, start)
	tools := chatTools(c.live)
	c.infos = c.live.infos()
	if set.FreezePrompt {
		if s.frozen == nil && start {
			s.frozen = s.freeze(ctx, c)
		}
		if s.frozen != nil {
			c.instructions, tools, c.infos = s.frozen.instructions, s.frozen.tools, s.frozen.infos
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
func (s *Session) freeze(ctx context.Context, c *composition) *frozenPrompt {
	all := &toolset{byName: map[string]*binding{}}
	for _, b := range c.live.list {
		if b.info.Source != "skill" {
			all.add(b)
		}
	}
	owners := make([]*loadedSkill, 0, len(s.sel.byName))
	for _, sk := range append(append([]*skills.Skill{}, s.sel.preload...), s.sel.enabled...) {
		owners = append(owners, &loadedSkill{skill: sk, name: sk.Name, resultMsg: -1})
	}
	for _, ls := range owners {
		for _, ref := range ls.skill.Tools {
			s.bindSkillTool(ctx, all, ls, ref, true)
		}
	}
	return &frozenPrompt{instructions: c.instructions, tools: chatTools(all), infos: all.infos()}
}

// composeCall composes the request of one model call of the running turn
// and records what the rule book tracks: Offered and Delivered (R20), skill
// uses (R21), trims of the window (R9), text out of window (R11), the
// skills the list left off (R10) and tools left out (R17).
func (s *Session) composeCall(ctx context.Context, call int) *composition {
	s.mu.Lock()
	c := s.compose(ctx, true)
	cur := s.cur
	var warns, logs []string
	for _, sk := range c.offered {
		cur.offered.add(sk.Name)
	}
	for _, ls := range c.delivered {
		if ls.by == "paste" {
			cur.offered.add(ls.name) // its name is in the prompt (R20)
		}
		cur.delivered.add(ls.name)
		if _, ok := cur.skillUses[ls.name]; !ok {
			cur.skillUses[ls.name] = Use{Role: "SKILL", Name: ls.name, Version: ls.version, ExecutionID: ls.execID, Reused: ls.execTurn < s.turn}
		}
	}
	if s.settings.FreezePrompt && s.frozen != nil {
		// a frozen prompt carries the list of the first request
		cur.offered = orderedSet{}
		for _, name := range frozenList(s) {
			cur.offered.add(name)
		}
	}
	s.collectReusedTools(c.win)
	if len(c.leftOff) > 0 {
		cur.leftOff = c.leftOff
		key := "leftoff:" + fmt.Sprint(c.leftOff)
		if !cur.warned[key] {
			cur.warned[key] = true
			warns = append(warns, fmt.Sprintf("the list holds %d skills: left off %s", s.settings.ListSize, joinNames(c.leftOff)))
		}
	}
	for _, ls := range c.outOfWindow {
		if !s.outOfWindow[ls.name] {
			s.outOfWindow[ls.name] = true
			warns = append(warns, fmt.Sprintf("%s is still loaded (its tools stay) but the load_skill result that delivered its text has left the window: the model no longer sees its text", ls.name))
		}
	}
	for _, msg := range c.live.dropped {
		if !cur.warned[msg] {
			cur.warned[msg] = true
			logs = append(logs, msg)
		}
	}
	dropped, prev := c.win.dropped(), s.lastDropped
	s.lastDropped = dropped
	s.mu.Unlock()

	if dropped > prev || c.win.capExceeded {
		s.emit(&WindowTrimmed{Call: call, Dropped: dropped, Kept: c.win.kept(), CapExceeded: c.win.capExceeded})
		if c.win.capExceeded {
			s.warn(fmt.Sprintf("this turn alone is longer than max_transcript_messages (%d): the window starts at its user message and carries %d messages", s.settingsNow().MaxTranscriptMessages, c.win.kept()))
		}
	}
	for _, w := range warns {
		s.warn(w)
	}
	for _, l := range logs {
		s.logWarn(l)
	}
	return c
}

// frozenList recovers the names on a frozen prompt's list.
func frozenList(s *Session) []string {
	var names []string
	for _, sk := range s.sel.enabled {
		if containsElement(s.frozen.instructions, "<name>"+sk.Name+"</name>") {
			names = append(names, sk.Name)
		}
	}
	return names
}

// collectReusedTools records, as reused uses, tool results of earlier turns
// that this request carries (R21). Called with s.mu held.
func (s *Session) collectReusedTools(w window) {
	for k := w.start; k < w.n; k++ {
		en := &s.entries[s.msgEntry[k]]
		if en.Kind != EntryTool || en.Turn >= s.turn || en.IsError || en.Refused || en.ToolName == ToolLoadSkill || s.cur.reused[en.ToolCallID] {
			continue
		}
		s.cur.reused[en.ToolCallID] = true
		v := ""
		if en.ToolVersion > 0 {
			v = fmt.Sprint(en.ToolVersion)
		}
		s.cur.toolUses = append(s.cur.toolUses, Use{Role: "TOOL", Name: en.ToolName, Version: v, ExecutionID: en.ToolCallID, Reused: true})
	}
}
