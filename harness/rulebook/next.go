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
// R16, R22, R23), under the rule book or another agent's profile: the
// preloads, the skills' presentation (the ranked list, or the profile's
// catalogue and listings) and the tools are gathered here, and Compose
// puts the request together. It contacts nothing and changes nothing.
func (f *next) compose() *Next {
	p := ProfileOf(f.st)
	set := f.st.Settings
	w := Given{Prompt: f.w.Prompt, Preloads: f.st.Preloads}
	if w.Preloads == nil {
		w.Preloads = f.pendingPreloads()
	}
	n := &Next{}
	if profile.HarnessOf(p).RuleBook {
		w.Listing = set.LoadSkillTool
		if w.Listing {
			var list []*skills.Skill
			list, w.LeftOff, n.Scores = f.list(set.ListSize)
			w.List = make([]Listed, len(list))
			for i, sk := range list {
				w.List[i] = Listed{Name: sk.Name, Description: sk.Description}
			}
		}
	} else {
		cat := p.Catalogue(ProfileInput(f.st, f.w))
		w.Catalogue, n.Catalogue, n.Warnings = &cat, &cat, cat.Warnings
		w.Listings, n.Listing = f.listings(p, &cat, HistoryWindow(f.st))
	}
	n.Live = BuildTools(f.st, f.w)
	w.Tools, w.Infos = n.Live.ChatTools(), n.Live.Infos()
	n.Composition = *Compose(f.st, w)
	if n.Frozen {
		n.Scores = nil
	}
	return n
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

// listings are the skill listings a request carries under a profile
// that lists each skill once (Claude Code 2.1.332), each with the user
// message it is attached to: the recorded ones the window keeps and, when
// the running turn's user message has none, the one it gets now, of the
// skills none of the others named (nil when there are none; the whole
// catalogue when the window keeps no listing, as after Claude Code's
// compaction). Before a turn, the next one's listing stands after the
// last message, unrecorded.
func (f *next) listings(p profile.Profile, cat *profile.Catalogue, win Window) ([]ListingAt, *event.Listing) {
	if cat.Listed == nil {
		// a profile that lists every skill every time: its reminder
		// blocks stand before the window's first user message
		var reminder []string
		for _, b := range cat.Blocks {
			if b.Placement == profile.ReminderMessage {
				reminder = append(reminder, b.Text)
			}
		}
		if len(reminder) == 0 {
			return nil, nil
		}
		return []ListingAt{{Msg: f.firstUserMsg(win), Listing: event.Listing{Text: strings.Join(reminder, "\n\n")}}}, nil
	}
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
	now := p.Catalogue(in)
	if len(now.Blocks) == 0 {
		return out, nil
	}
	l := &event.Listing{Text: now.Blocks[0].Text, Skills: now.Listed}
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
