// Rules R9 (the window, and its trims), R10 (the list, ranked against the
// latest user message when more skills are enabled than fit, and the
// skills left off named), R11 (text out of window), R16 (preloads in the
// instructions), R21 (reused tool results) and R23 (the frozen prompt's
// tools): the next request of a session, under Skillet's rule book or
// another agent's profile, composed from the state and the world. Nothing
// here changes the state; the events a composition brings (trims,
// warnings) are returned.

package rulebook

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"skillet/harness/chat"
	"skillet/harness/event"
	"skillet/harness/profile"
	"skillet/skills"
)

// Next is the next request as composed, with what the rule book tracks
// about it: Live is the tools that may run (in a frozen prompt, R23, the
// request declares more, and a call of one whose skill is not loaded is
// refused); Scores the rank scores of the first len(Scores) offered
// skills, nil when every enabled skill fit; under a profile, Catalogue is
// its catalogue and Warnings its warnings, given once a turn.
type Next struct {
	Composition
	Live      *Toolset
	Scores    []float64
	Catalogue *profile.Catalogue
	Warnings  []string
	// Listing is the skill listing this request attaches to the turn's
	// user message for the first time (Claude Code), nil for none.
	Listing *event.Listing
}

// next is a composition's view of the state and the world.
type next struct {
	st *State
	w  *World
}

// ComposeNext composes the next request (R8–R11, R14, R16, R22, R23).
func ComposeNext(st *State, w *World) *Next { return (&next{st, w}).compose() }

// PlanCall composes the next request of the running turn, as its call
// number call, and gathers what its model_call event records of it.
func PlanCall(st *State, w *World, call int) *CallPlan { return (&next{st, w}).plan(call) }

// Freeze is the frozen prompt of the first request (R23).
func Freeze(st *State, w *World, c *Next) *event.PromptFrozen { return (&next{st, w}).freeze(c) }

// Mentions finds the skills a user message names as $name, for the turn
// after this one, under a profile that injects the skills named (Codex).
func Mentions(st *State, w *World, text string) Mentioned { return (&next{st, w}).mentioned(text) }

// Unwarned returns the messages not given yet this turn, once each.
func Unwarned(t *TurnState, msgs []string) []string { return unwarned(t, msgs) }

func joinNames(names []string) string { return strings.Join(names, ", ") }

// compose builds the next request from the session's state (R8–R11, R14,
// R16, R22, R23): the shell gathers the preloads, the ranked list and the
// tools, and Compose puts the request together. It contacts
// nothing and changes nothing.
func (f *next) compose() *Next {
	if p := ProfileOf(f.st); !profile.HarnessOf(p).RuleBook {
		return f.composeProfile(p)
	}
	set := f.st.Settings
	w := Given{Prompt: f.w.Prompt, Preloads: f.st.Preloads, Listing: set.LoadSkillTool}
	if w.Preloads == nil {
		w.Preloads = f.pendingPreloads()
	}
	var scores []float64
	if set.LoadSkillTool {
		var list []*skills.Skill
		list, w.LeftOff, scores = f.list(set.ListSize)
		w.List = make([]Listed, len(list))
		for i, sk := range list {
			w.List[i] = Listed{Name: sk.Name, Description: sk.Description}
		}
	}
	live := BuildTools(f.st, f.w)
	w.Tools, w.Infos = live.ChatTools(), live.Infos()
	rc := Compose(f.st, w)
	if rc.Frozen {
		scores = nil
	}
	return &Next{Composition: *rc, Live: live, Scores: scores}
}

// list returns the skills on the list, the names left off (R10) and the
// listed skills' rank scores: every enabled skill that is not preloaded,
// ranked against the latest user message when there are more than fit.
func (f *next) list(size int) ([]*skills.Skill, []string, []float64) {
	pool := f.w.Sel.Enabled
	if len(pool) <= size {
		return pool, nil, nil
	}
	return f.w.Rank.Top(pool, f.latestUserText(), size)
}

func (f *next) latestUserText() string {
	if n := len(f.st.UserMsgs); n > 0 {
		return f.st.Entries.At(f.st.MsgEntry[f.st.UserMsgs[n-1]]).Text
	}
	return ""
}

// pendingPreloads renders the preloads the next turn will make, for a
// snapshot taken before any turn.
func (f *next) pendingPreloads() []*Loaded {
	out := make([]*Loaded, 0, len(f.w.Sel.Preload))
	for _, sk := range f.w.Sel.Preload {
		ls := &Loaded{Name: sk.Name, By: event.ByPreload, ResultMsg: -1}
		Render(f.w, ls, sk, false)
		out = append(out, ls)
	}
	return out
}

// freeze keeps the first request's instructions and declares every tool
// any enabled skill could bring (R23).
func (f *next) freeze(c *Next) *event.PromptFrozen {
	all := FrozenTools(f.w, c.Live)
	tools, _ := json.Marshal(all.ChatTools())
	fz := &event.PromptFrozen{Instructions: c.Instructions, Tools: tools, Infos: all.Infos(),
		Offered: nonNil(c.Offered), LeftOff: c.LeftOff, Context: map[string]string{}}
	for _, ls := range f.st.Loaded {
		if ls.Delivery != event.DeliveryToolResult {
			fz.Context[ls.Name] = ls.ExecID
		}
	}
	return fz
}

// CallPlan is a model call's request and what its model_call event
// records of it: the skills it delivers and the tool results of earlier
// turns it carries (R20, R21), and the events that come before it (trims
// and warnings).
type CallPlan struct {
	*Next
	DeliveredUses []event.Use
	ReusedUses    []event.Use
	Events        []event.Event
}

// plan composes the next request of the running turn and gathers what the
// model_call event records of it, with the events that come before it:
// window trims (R9), skills left off the list (R10), text out of window
// (R11).
func (f *next) plan(call int) *CallPlan {
	c := f.compose()
	cur := f.st.Cur
	p := &CallPlan{Next: c}
	for _, ls := range c.Delivered {
		p.DeliveredUses = append(p.DeliveredUses, event.Use{Role: "SKILL", Name: ls.Name, Version: ls.Version, ExecutionID: ls.ExecID, Reused: ls.ExecTurn < f.st.Turn})
	}
	p.ReusedUses = f.reusedTools(c.Win)
	if c.Win.Dropped() > f.st.LastDropped || c.Win.CapExceeded {
		p.Events = append(p.Events, &event.WindowTrimmed{Call: call, Dropped: c.Win.Dropped(), Kept: c.Win.Kept(), CapExceeded: c.Win.CapExceeded})
		if c.Win.CapExceeded {
			p.Events = append(p.Events, &event.Warning{Message: fmt.Sprintf("this turn alone is longer than max_transcript_messages (%d): the window starts at its user message and carries %d messages", f.st.Settings.MaxTranscriptMessages, c.Win.Kept())})
		}
	}
	var warns []string
	if w := f.leftOffWarning(c.LeftOff); w != "" && c.Catalogue == nil {
		warns = append(warns, w)
	}
	for _, w := range unwarned(cur, append(warns, c.Warnings...)) {
		p.Events = append(p.Events, &event.Warning{Message: w})
	}
	for _, ls := range c.OutOfWindow {
		if !f.st.OutOfWindow[ls.Name] {
			p.Events = append(p.Events, &event.Warning{OutOfWindow: ls.Name, Message: fmt.Sprintf("%s is still loaded (its tools stay) but the load_skill result that delivered its text has left the window: the model no longer sees its text", ls.Name)})
		}
	}
	return p
}

// unwarned returns the messages not given yet this turn, once each; the
// event.Warning events that give them mark them given.
func unwarned(t *TurnState, msgs []string) []string {
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
func (f *next) reusedTools(w Window) []event.Use {
	var out []event.Use
	for k := w.Start; k < w.N; k++ {
		en := f.st.Entries.At(f.st.MsgEntry[k])
		if en.Kind != EntryTool || en.Turn >= f.st.Turn || en.IsError || en.Refused || en.ToolName == ToolLoadSkill || en.Activated != "" || f.st.Cur.Reused[en.ToolCallID] {
			continue
		}
		v := ""
		if en.ToolVersion > 0 {
			v = fmt.Sprint(en.ToolVersion)
		}
		out = append(out, event.Use{Role: "TOOL", Name: en.ToolName, Version: v, ExecutionID: en.ToolCallID, Reused: true})
	}
	return out
}

// leftOffWarning names the skills the list leaves off (R10): all of them
// the first time, then only what changed since the last request.
func (f *next) leftOffWarning(left []string) string {
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

// composeProfile builds the next request under another agent's profile:
// the catalogue goes where the profile places it (system prompt, a second
// system message for Codex's developer message, Claude Code's reminder
// before the first user message, the activation tool's description), the
// activation tool replaces load_skill, and activated text stays in the
// history unless the lifecycle rules unloaded its skill. Like compose, it
// changes nothing.
func (f *next) composeProfile(p profile.Profile) *Next {
	c := &Next{}
	set := f.st.Settings
	c.Parts = append(c.Parts, Part{Kind: "prompt", Text: f.w.Prompt})
	pre := f.composePreloads(c)

	cat := p.Catalogue(ProfileInput(f.st, f.w))
	c.Catalogue = &cat
	for _, e := range cat.Entries {
		switch e.State {
		case profile.Full, profile.Truncated:
			c.Offered = append(c.Offered, e.Name)
		case profile.Omitted:
			c.LeftOff = append(c.LeftOff, e.Name)
		}
	}
	c.Warnings = cat.Warnings
	lifecycle := Lifecycle(f.st)
	limit := set.MaxTranscriptMessages
	if !lifecycle {
		limit = 0 // the whole history
	}
	c.Win = ComputeWindow(f.st.Msgs.Len(), limit, f.st.UserMsgs)

	var system, developer, reminder []string
	for _, b := range cat.Blocks {
		if b.Placement == profile.ReminderMessage && cat.Listed != nil {
			continue // the listings below, each with its user message
		}
		c.Parts = append(c.Parts, Part{Kind: "list", Placement: string(b.Placement), Text: b.Text})
		switch b.Placement {
		case profile.SystemPrompt:
			system = append(system, b.Text)
		case profile.DeveloperMessage:
			developer = append(developer, b.Text)
		case profile.ReminderMessage:
			reminder = append(reminder, b.Text)
		}
		// a ToolDescription block is the activation tool's description,
		// which buildTools declares
	}
	var listings []ListingAt
	if cat.Listed != nil {
		listings, c.Listing = f.listings(p, c.Win)
	} else if len(reminder) > 0 {
		listings = []ListingAt{{Msg: f.firstUserMsg(c.Win), Listing: event.Listing{Text: strings.Join(reminder, "\n\n")}}}
	}
	for _, l := range listings {
		c.Parts = append(c.Parts, Part{Kind: "list", Placement: string(profile.ReminderMessage), Text: l.Text})
	}
	var ctxElems []string
	for i, ls := range f.st.Loaded {
		if ls.Delivery == event.DeliveryToolResult {
			continue // its text is in the history
		}
		// a /load by the user: the profile has no place for it, so it
		// goes where Skillet puts it
		el := SkillElement(ls.Name, ls.Version, ls.ExecID, i == 0, "", ls.Body.Text)
		ctxElems = append(ctxElems, el)
		c.Parts = append(c.Parts, Part{Kind: "skill", Skill: ls.Name, Text: el, Tokens: ls.Tokens})
		c.Delivered = append(c.Delivered, ls)
	}
	c.Context = WrapBlock("current_context", ctxElems)
	c.Instructions = JoinBlocks(append(append([]string{f.w.Prompt, WrapBlock("preloaded_skills", pre)}, system...), c.Context)...)

	c.Live = BuildTools(f.st, f.w)
	c.Infos = c.Live.Infos()

	var msgs []chat.Message
	if c.Instructions != "" {
		msgs = append(msgs, chat.Message{Role: chat.RoleSystem, Content: c.Instructions})
	}
	for _, d := range developer {
		msgs = append(msgs, chat.Message{Role: chat.RoleSystem, Content: d})
	}
	c.Msgs = f.profileHistory(c, lifecycle, listings)
	msgs = append(msgs, c.Msgs...)
	c.Request = &chat.Request{Model: f.st.Model, Messages: msgs, Tools: c.Live.ChatTools(), Stream: true, StreamOptions: &chat.StreamOptions{IncludeUsage: true}}
	return c
}

// listings are the skill listings a request carries under a profile
// that lists each skill once (Claude Code 2.1.332), each with the user
// message it is attached to: the recorded ones the window keeps and, when
// the running turn's user message has none, the one it gets now, of the
// skills none of the others named (nil when there are none; the whole
// catalogue when the window keeps no listing, as after Claude Code's
// compaction). Before a turn, the next one's listing stands after the
// last message, unrecorded.
func (f *next) listings(p profile.Profile, win Window) ([]ListingAt, *event.Listing) {
	var out []ListingAt
	before := profile.Listed{}
	cur, has := win.N, false
	if f.st.Running && f.st.Cur != nil {
		cur = f.st.Cur.UserMsg
	}
	for _, l := range f.st.Listings {
		if l.Msg < win.Start {
			continue
		}
		out = append(out, l)
		for k, v := range l.Skills {
			before[k] = v
		}
		has = has || l.Msg == cur
	}
	if has || cur < win.Start {
		return out, nil
	}
	in := ProfileInput(f.st, f.w)
	in.Listed = before
	cat := p.Catalogue(in)
	if len(cat.Blocks) == 0 {
		return out, nil
	}
	l := &event.Listing{Text: cat.Blocks[0].Text, Skills: cat.Listed}
	out = append(out, ListingAt{Msg: cur, Listing: *l})
	if cur == win.N {
		return out, nil // before a turn: nothing is sent yet
	}
	return out, l
}

// firstUserMsg is the first user message the window keeps, or the
// window's end when it keeps none.
func (f *next) firstUserMsg(win Window) int {
	for _, k := range f.st.UserMsgs {
		if k >= win.Start {
			return k
		}
	}
	return win.N
}

// profileHistory is the window's messages as a profile sends them: after
// each run of tool results, the user messages its activations add; each
// skill listing before the user message it is attached to (one at the
// window's end stands before the next turn's). With the lifecycle rules
// on, the text of an activation whose skill has since unloaded is
// replaced by a line saying so. The skills whose text the history
// carries are Delivered.
func (f *next) profileHistory(c *Next, lifecycle bool, listings []ListingAt) []chat.Message {
	out := make([]chat.Message, 0, c.Win.Kept()+len(listings)+2)
	var follow []string
	flush := func() {
		for _, t := range follow {
			out = append(out, chat.Message{Role: chat.RoleUser, Content: t})
		}
		follow = nil
	}
	listed := func(k int) {
		for _, l := range listings {
			if l.Msg == k {
				out = append(out, chat.Message{Role: chat.RoleUser, Content: l.Text})
			}
		}
	}
	seen := map[string]bool{}
	for k := c.Win.Start; k < c.Win.N; k++ {
		m := f.st.Msgs.At(k)
		en := f.st.Entries.At(f.st.MsgEntry[k])
		if m.Role != chat.RoleTool {
			flush()
		}
		listed(k)
		if en.Kind == EntryUser && len(en.Mentions) > 0 {
			for _, u := range en.Mentions {
				c.Delivered = append(c.Delivered, &Loaded{Name: u.Name, Version: u.Version, ExecID: u.ExecutionID, ExecTurn: en.Turn})
			}
			c.Parts = append(c.Parts, Part{Kind: "activation", Skill: en.Mentions[0].Name, Placement: "user-message", Text: strings.Join(en.Messages, "\n\n")})
			follow = append(follow, en.Messages...)
		}
		if en.Kind == EntryTool && en.Activated != "" {
			ls := f.st.FindLoaded(en.Activated)
			if lifecycle && (ls == nil || k < ls.JoinedMsg) {
				m.Content = fmt.Sprintf("[skill %s is no longer loaded (max_loaded_skills is %d, least recently used first): the text this call returned has left the conversation]", en.Activated, f.st.Settings.MaxLoadedSkills)
				out = append(out, m)
				continue
			}
			if en.Delivers && ls != nil && !seen[ls.Name] {
				seen[ls.Name] = true
				c.Delivered = append(c.Delivered, ls)
			}
			if en.Delivers {
				place := "tool-result"
				text := en.Text
				if len(en.Messages) > 0 {
					place, text = "user-message", strings.Join(en.Messages, "\n\n")
				}
				c.Parts = append(c.Parts, Part{Kind: "activation", Skill: en.Activated, Placement: place, Text: text})
			}
			follow = append(follow, en.Messages...)
		}
		out = append(out, m)
	}
	flush()
	listed(c.Win.N)
	return out
}

// mentioned is what the next turn's user message names as $name under a
// profile that injects the skills named (Codex): each once, in the order
// named.
type Mentioned struct {
	Turn    int
	Profile profile.Profile
	Skills  []*skills.Skill
}

// mentioned finds the skills text names, for the turn after this one.
func (f *next) mentioned(text string) Mentioned {
	m := Mentioned{Turn: f.st.Turn + 1}
	p := ProfileOf(f.st)
	if profile.HarnessOf(p).Mention == nil {
		return m
	}
	m.Profile = p
	seen := map[string]bool{}
	for _, sub := range profile.HarnessOf(p).Mention.FindAllStringSubmatch(text, -1) {
		sk := f.w.Sel.AgentSkill(strings.TrimRight(sub[1], "."))
		if sk == nil || seen[sk.Name] {
			continue
		}
		seen[sk.Name] = true
		m.Skills = append(m.Skills, sk)
	}
	return m
}

// composePreloads renders this turn's preloads (R16) for a profile's
// instructions and counts them as delivered.
func (f *next) composePreloads(c *Next) []string {
	preloads := f.st.Preloads
	if preloads == nil {
		preloads = f.pendingPreloads()
	}
	pre, parts := Preloaded(preloads)
	c.Parts = append(c.Parts, parts...)
	c.Delivered = append(c.Delivered, preloads...)
	return pre
}
