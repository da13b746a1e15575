package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"skillet/harness/rulebook"
	"slices"

	"skillet/harness/chat"
	"skillet/harness/profile"
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
	win          rulebook.Window
	// offered names the skills on the list the model sees; leftOff the
	// enabled ones it leaves out (R10).
	offered []string
	leftOff []string
	// scores are the rank scores of the first len(scores) offered skills,
	// nil when every enabled skill fit and none was ranked.
	scores []float64
	// delivered are the skills whose full text this request carries.
	delivered []*rulebook.Loaded
	// outOfWindow are tool-result loads whose result left the window (R11).
	outOfWindow []*rulebook.Loaded
	infos       []ToolInfo
	// msgs are the window's messages as the request carries them.
	msgs []chat.Message
	// catalogue is the profile's, nil under skillet; warnings are its
	// warnings, given once a turn.
	catalogue *profile.Catalogue
	warnings  []string
}

// compose builds the next request from the session's state (R8–R11, R14,
// R16, R22, R23): the shell gathers the preloads, the ranked list and the
// tools, and rulebook.Compose puts the request together. It contacts
// nothing and changes nothing.
func (f *frame) compose() *composition {
	if p := f.agentProfile(); p != nil {
		return f.composeProfile(p)
	}
	set := f.st.Settings
	w := rulebook.Given{Prompt: f.opts.Config.Agent.Prompt, Preloads: f.st.Preloads, Listing: set.LoadSkillTool}
	if w.Preloads == nil {
		w.Preloads = f.pendingPreloads()
	}
	var scores []float64
	if set.LoadSkillTool {
		var list []*skills.Skill
		list, w.LeftOff, scores = f.list(set.ListSize)
		w.List = make([]rulebook.Listed, len(list))
		for i, sk := range list {
			w.List[i] = rulebook.Listed{Name: sk.Name, Description: sk.Description}
		}
	}
	live := rulebook.BuildTools(f.st, f.w.World)
	w.Tools, w.Infos = live.ChatTools(), live.Infos()
	rc := rulebook.Compose(f.st, w)
	if rc.Frozen {
		scores = nil
	}
	return &composition{req: rc.Request, live: live, parts: rc.Parts, instructions: rc.Instructions, context: rc.Context, win: rc.Win,
		offered: rc.Offered, leftOff: rc.LeftOff, scores: scores, delivered: rc.Delivered, outOfWindow: rc.OutOfWindow, infos: rc.Infos, msgs: rc.Msgs}
}

// list returns the skills on the list, the names left off (R10) and the
// listed skills' rank scores: every enabled skill that is not preloaded,
// ranked against the latest user message when there are more than fit.
func (f *frame) list(size int) ([]*skills.Skill, []string, []float64) {
	pool := f.w.Sel.Enabled
	if len(pool) <= size {
		return pool, nil, nil
	}
	return f.w.Rank.Top(pool, f.latestUserText(), size)
}

func (f *frame) latestUserText() string {
	if n := len(f.st.UserMsgs); n > 0 {
		return f.st.Entries.At(f.st.MsgEntry[f.st.UserMsgs[n-1]]).Text
	}
	return ""
}

// pendingPreloads renders the preloads the next turn will make, for a
// snapshot taken before any turn.
func (f *frame) pendingPreloads() []*rulebook.Loaded {
	out := make([]*rulebook.Loaded, 0, len(f.w.Sel.Preload))
	for _, sk := range f.w.Sel.Preload {
		ls := &rulebook.Loaded{Name: sk.Name, By: ByPreload, ResultMsg: -1}
		f.render(ls, sk, false)
		out = append(out, ls)
	}
	return out
}

// freeze keeps the first request's instructions and declares every tool
// any enabled skill could bring (R23).
func (f *frame) freeze(c *composition) *PromptFrozen {
	all := rulebook.FrozenTools(f.w.World, c.live)
	tools, _ := json.Marshal(all.ChatTools())
	fz := &PromptFrozen{Instructions: c.instructions, Tools: tools, Infos: all.Infos(),
		Offered: nonNil(c.offered), LeftOff: c.leftOff, Context: map[string]string{}}
	for _, ls := range f.st.Loaded {
		if ls.Delivery != DeliveryToolResult {
			fz.Context[ls.Name] = ls.ExecID
		}
	}
	return fz
}

// callPlan is what composeCall hands the turn loop: the request and what
// the model_call event records of it.
type callPlan struct {
	*composition
	deliveredUses []Use
	reusedUses    []Use
	// events come before the model_call: trims and warnings.
	events []Event
}

// composeCall prepares one model call of the running turn. MCP servers the
// loaded skills need are asked first, without the lock; tools left out are
// recorded before composing, so the request carries their harness.log
// lines; then the request is composed and what the rule book tracks about
// it is gathered for the model_call event: Offered and Delivered (R20),
// skill and reused tool uses (R21). Window trims (R9), text out of window
// (R11) and skills left off the list (R10) are emitted as they happen.
func (s *Session) composeCall(ctx context.Context, call int) *callPlan {
	refs := read(s, func(f *frame) []string {
		need := rulebook.LoadedSkills(f.st)
		if f.st.Settings.FreezePrompt && f.st.Frozen == nil {
			need = append(need, f.w.Sel.Enabled...)
		}
		return rulebook.MCPRefs(f.w.World, need)
	})
	logs := s.prefetchMCP(ctx, refs)
	s.step(func(f *frame) []Event {
		var out []Event
		for _, l := range unwarned(f.st.Cur, append(logs, rulebook.BuildTools(f.st, f.w.World).Dropped...)) {
			out = append(out, &Warning{Message: l, Log: true})
		}
		return out
	})
	s.step(func(f *frame) []Event {
		if f.st.Settings.FreezePrompt && f.st.Frozen == nil {
			return []Event{f.freeze(f.compose())}
		}
		return nil
	})
	var p *callPlan
	s.step(func(f *frame) []Event {
		p = f.plan(call)
		return p.events
	})
	return p
}

// plan composes the next request of the running turn and gathers what the
// model_call event records of it, with the events that come before it:
// window trims (R9), skills left off the list (R10), text out of window
// (R11).
func (f *frame) plan(call int) *callPlan {
	c := f.compose()
	cur := f.st.Cur
	p := &callPlan{composition: c}
	for _, ls := range c.delivered {
		p.deliveredUses = append(p.deliveredUses, Use{Role: "SKILL", Name: ls.Name, Version: ls.Version, ExecutionID: ls.ExecID, Reused: ls.ExecTurn < f.st.Turn})
	}
	p.reusedUses = f.reusedTools(c.win)
	if c.win.Dropped() > f.st.LastDropped || c.win.CapExceeded {
		p.events = append(p.events, &WindowTrimmed{Call: call, Dropped: c.win.Dropped(), Kept: c.win.Kept(), CapExceeded: c.win.CapExceeded})
		if c.win.CapExceeded {
			p.events = append(p.events, &Warning{Message: fmt.Sprintf("this turn alone is longer than max_transcript_messages (%d): the window starts at its user message and carries %d messages", f.st.Settings.MaxTranscriptMessages, c.win.Kept())})
		}
	}
	var warns []string
	if w := f.leftOffWarning(c.leftOff); w != "" && c.catalogue == nil {
		warns = append(warns, w)
	}
	for _, w := range unwarned(cur, append(warns, c.warnings...)) {
		p.events = append(p.events, &Warning{Message: w})
	}
	for _, ls := range c.outOfWindow {
		if !f.st.OutOfWindow[ls.Name] {
			p.events = append(p.events, &Warning{OutOfWindow: ls.Name, Message: fmt.Sprintf("%s is still loaded (its tools stay) but the load_skill result that delivered its text has left the window: the model no longer sees its text", ls.Name)})
		}
	}
	return p
}

// unwarned returns the messages not given yet this turn, once each; the
// Warning events that give them mark them given.
func unwarned(t *rulebook.TurnState, msgs []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range msgs {
		if !t.Warned[m] && !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
	}
	return out
}

// reusedTools lists, as reused uses, tool results of earlier turns that a
// request carries and this turn has not counted yet (R21).
func (f *frame) reusedTools(w rulebook.Window) []Use {
	var out []Use
	for k := w.Start; k < w.N; k++ {
		en := f.st.Entries.At(f.st.MsgEntry[k])
		if en.Kind != EntryTool || en.Turn >= f.st.Turn || en.IsError || en.Refused || en.ToolName == ToolLoadSkill || en.Activated != "" || f.st.Cur.Reused[en.ToolCallID] {
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

// leftOffWarning names the skills the list leaves off (R10): all of them
// the first time, then only what changed since the last request.
func (f *frame) leftOffWarning(left []string) string {
	var prev []string
	if n := len(f.st.Calls); n > 0 {
		if cur := f.st.Cur; cur != nil && cur.Usage.ModelCalls > 0 {
			prev = cur.LeftOff
		} else if f.st.Last != nil {
			prev = f.st.Last.LeftOff
		}
	}
	if len(left) == 0 || slices.Equal(prev, left) {
		return ""
	}
	size := f.st.Settings.ListSize
	if len(prev) == 0 {
		return fmt.Sprintf("the list holds %d skills: left off %s", size, joinNames(left))
	}
	was := map[string]bool{}
	for _, n := range prev {
		was[n] = true
	}
	now := map[string]bool{}
	var added, back []string
	for _, n := range left {
		now[n] = true
		if !was[n] {
			added = append(added, n)
		}
	}
	for _, n := range prev {
		if !now[n] {
			back = append(back, n)
		}
	}
	msg := fmt.Sprintf("the list holds %d skills; %d left off", size, len(left))
	if len(added) > 0 {
		msg += "; now left off: " + joinNames(added)
	}
	if len(back) > 0 {
		msg += "; back on the list: " + joinNames(back)
	}
	return msg
}
