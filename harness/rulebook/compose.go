// Rules R8 (a loaded skill's text is in <current_context>, the active one
// marked), R9 (the request carries the window of the transcript), R10 (the
// list names the skills that fit), R11 (under tool-result delivery the
// text is in the load's result, delivered while that result is in the
// window), R16 (preloads are in the instructions, outside the loaded set),
// R22 (pasted skills are named, so offered) and R23 (a frozen prompt keeps
// the first request's instructions, list and tools): the next request,
// composed from the state and what the shell gives of the world.

package rulebook

import (
	"fmt"
	"strings"

	"skillet/harness/chat"
	"skillet/harness/event"
	"skillet/harness/profile"
)

// Part is one part of a request's instructions, or under a profile, of
// the messages around them.
type Part struct {
	// Kind is "prompt", "preload", "list", "skill", "paste" or, under a
	// profile, "activation" (an activated skill's text in the history).
	Kind string `json:"kind"`
	// Placement says where a profile's part reaches the model:
	// "system-prompt", "developer-message", "reminder-message",
	// "tool-description", "tool-result" or "user-message"; "" under
	// skillet, whose parts are all in the instructions.
	Placement string `json:"placement,omitempty"`
	// Skill names the skill of a preload, skill or paste part.
	Skill string `json:"skill,omitempty"`
	// Names are the skills a list part names, in its order, for a reader
	// that needs them apart from the text (skillet offered); the JSON
	// shows the text only.
	Names  []string `json:"-"`
	Text   string   `json:"text"`
	Tokens int      `json:"tokens"`
}

// Listed is a skill on the list (R10).
type Listed struct{ Name, Description string }

// Given is what Compose needs from outside the state: the agent's prompt,
// the preloads to render (the turn's, or before any turn the ones it will
// make), the tools of the request, and the presentation of the skills.
// Under the rule book that is the list when the load_skill tool is
// offered (Listing) with the enabled skills it leaves off; under another
// agent's profile, its catalogue and the listings the window's user
// messages carry.
type Given struct {
	Prompt   string
	Preloads []*Loaded
	Listing  bool
	List     []Listed
	LeftOff  []string
	Tools    []chat.Tool
	Infos    []event.ToolInfo
	// Catalogue is the profile's catalogue, nil under the rule book: its
	// blocks stand where the list would, each at its placement.
	Catalogue *profile.Catalogue
	// Listings are the skill listings before the window's user messages
	// (and after its end, before the next turn's), under a profile.
	Listings []ListingAt
}

// Composition is a request as composed, with what the rule book tracks
// about it.
type Composition struct {
	Request      *chat.Request
	Parts        []Part
	Instructions string
	Context      string
	Win          Window
	// Offered names the skills the model sees named (R10, R22); LeftOff
	// the enabled ones the list leaves out.
	Offered, LeftOff []string
	// Delivered are the loads whose text the request carries;
	// OutOfWindow the tool-result loads whose result left the window (R11).
	Delivered, OutOfWindow []*Loaded
	Infos                  []event.ToolInfo
	// Msgs are the window's messages.
	Msgs []chat.Message
	// Frozen marks a request that carries a frozen prompt (R23).
	Frozen bool
}

// HistoryWindow is the window of the transcript the next request carries
// (R9): the whole history when the lifecycle rules are off.
func HistoryWindow(st *State) Window {
	limit := st.Settings.MaxTranscriptMessages
	if !Lifecycle(st) {
		limit = 0
	}
	return ComputeWindow(st.Msgs.Len(), limit, st.UserMsgs)
}

// Compose composes the next request, under the rule book or a profile:
// the instructions are the prompt, the preloads, the skills'
// presentation and <current_context>, then the profile's developer
// messages and the window's history. It changes nothing.
func Compose(st *State, w Given) *Composition {
	c := &Composition{Infos: w.Infos}
	c.Parts = append(c.Parts, Part{Kind: "prompt", Text: w.Prompt})
	pre, parts := Preloaded(w.Preloads)
	c.Parts = append(c.Parts, parts...)
	c.Delivered = append(c.Delivered, w.Preloads...)
	system, developer := c.present(w)
	c.Win = HistoryWindow(st)
	var elems []string
	for i, ls := range st.Loaded {
		if ls.Delivery == event.DeliveryToolResult {
			// its text is in the history: under a profile the
			// activation's result, which history counts
			if w.Catalogue == nil {
				if ls.ResultMsg >= c.Win.Start {
					c.Delivered = append(c.Delivered, ls)
				} else {
					c.OutOfWindow = append(c.OutOfWindow, ls)
				}
			}
			continue
		}
		// a /load by the user under a profile has no place of the
		// profile's, so it goes where Skillet puts it
		kind := "skill"
		if ls.By == event.ByPaste {
			kind = "paste"
			c.Offered = append(c.Offered, ls.Name) // its name is in the prompt (R20)
		}
		el := SkillElement(ls.Name, ls.Version, ls.ExecID, i == 0, "", ls.Body.Text)
		elems = append(elems, el)
		c.Parts = append(c.Parts, Part{Kind: kind, Skill: ls.Name, Text: el, Tokens: ls.Tokens})
		c.Delivered = append(c.Delivered, ls)
	}
	c.Context = WrapBlock("current_context", elems)
	c.Instructions = JoinBlocks(append(append([]string{w.Prompt, WrapBlock("preloaded_skills", pre)}, system...), c.Context)...)
	tools := w.Tools
	if st.Settings.FreezePrompt && st.Frozen != nil {
		tools = st.Frozen.Tools
		c.frozen(st.Frozen)
	}
	msgs := make([]chat.Message, 0, c.Win.Kept()+len(developer)+1)
	if c.Instructions != "" {
		msgs = append(msgs, chat.Message{Role: chat.RoleSystem, Content: c.Instructions})
	}
	for _, d := range developer {
		msgs = append(msgs, chat.Message{Role: chat.RoleSystem, Content: d})
	}
	if w.Catalogue == nil {
		// the rule book's history is its messages as they are: no
		// activation or listing stands among them
		c.Msgs = st.Msgs.Slice(c.Win.Start, c.Win.N)
	} else {
		c.Msgs = c.history(st, w.Listings)
	}
	msgs = append(msgs, c.Msgs...)
	c.Request = &chat.Request{Model: st.Model, Messages: msgs, Tools: tools, Stream: true, StreamOptions: &chat.StreamOptions{IncludeUsage: true}}
	return c
}

// present adds the skills' presentation to the parts: the list (R10)
// under the rule book, the profile's catalogue blocks and listings under
// a profile. It returns the texts that join the system prompt and the
// developer messages.
func (c *Composition) present(w Given) (system, developer []string) {
	cat := w.Catalogue
	if cat == nil {
		if w.Listing {
			list := ListBlock(w.List)
			var names []string
			for _, sk := range w.List {
				names = append(names, sk.Name)
			}
			c.Parts = append(c.Parts, Part{Kind: "list", Names: names, Text: list})
			c.Offered = append(c.Offered, names...)
			c.LeftOff = w.LeftOff
			system = append(system, list)
		}
		return system, nil
	}
	for _, e := range cat.Entries {
		switch e.State {
		case profile.Full, profile.Truncated:
			c.Offered = append(c.Offered, e.Name)
		case profile.Omitted:
			c.LeftOff = append(c.LeftOff, e.Name)
		}
	}
	for _, b := range cat.Blocks {
		if b.Placement == profile.ReminderMessage {
			continue // a listing, placed with its user message
		}
		c.Parts = append(c.Parts, Part{Kind: "list", Placement: string(b.Placement), Text: b.Text})
		switch b.Placement {
		case profile.SystemPrompt:
			system = append(system, b.Text)
		case profile.DeveloperMessage:
			developer = append(developer, b.Text)
		}
		// a ToolDescription block is the activation tool's description,
		// which the tools declare
	}
	for _, l := range w.Listings {
		c.Parts = append(c.Parts, Part{Kind: "list", Placement: string(profile.ReminderMessage), Text: l.Text})
	}
	return system, developer
}

// history is the window's messages as a profile sends them: after
// each run of tool results, the user messages its activations add; each
// skill listing before the user message it is attached to (one at the
// window's end stands before the next turn's). With the lifecycle rules
// on, the text of an activation whose skill has since unloaded is
// replaced by a line saying so. The skills whose text the history
// carries are Delivered.
func (c *Composition) history(st *State, listings []ListingAt) []chat.Message {
	lifecycle := Lifecycle(st)
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
		m := st.Msgs.At(k)
		en := st.Entries.At(st.MsgEntry[k])
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
			ls := st.FindLoaded(en.Activated)
			if lifecycle && (ls == nil || k < ls.JoinedMsg) {
				m.Content = fmt.Sprintf("[skill %s is no longer loaded (max_loaded_skills is %d, least recently used first): the text this call returned has left the conversation]", en.Activated, st.Settings.MaxLoadedSkills)
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

// Preloaded renders preloads as the <skill> elements of the instructions
// and their parts (R16).
func Preloaded(preloads []*Loaded) ([]string, []Part) {
	elems := make([]string, 0, len(preloads))
	parts := make([]Part, 0, len(preloads))
	for _, ls := range preloads {
		el := SkillElement(ls.Name, ls.Version, ls.ExecID, false, "", ls.Body.Text)
		elems = append(elems, el)
		parts = append(parts, Part{Kind: "preload", Skill: ls.Name, Text: el, Tokens: ls.Tokens})
	}
	return elems, parts
}

// frozen puts the frozen instructions and tools in a composition (R23):
// its list is the first request's, and only what those instructions
// carried, a preload, or a load result in the window counts as delivered.
func (c *Composition) frozen(f *Frozen) {
	c.Frozen = true
	c.Instructions, c.Infos = f.Instructions, f.Infos
	c.Offered, c.LeftOff = f.Offered, f.LeftOff
	var delivered []*Loaded
	for _, ls := range c.Delivered {
		if ls.By == event.ByPreload || ls.Delivery == event.DeliveryToolResult || f.Context[ls.Name] == ls.ExecID {
			delivered = append(delivered, ls)
		}
	}
	c.Delivered = delivered
}

// xmlText escapes element text; the model reads it, so only what would
// break the markup is escaped (not apostrophes or quotes).
var xmlText = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// xmlAttr escapes an attribute value written in double quotes.
var xmlAttr = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")

// ListHint follows the skill list so the model knows how to use it.
const ListHint = "Call load_skill with a skill's name to read it before you follow it."

// SkillElement wraps a skill's text in a <skill> element with its
// identity; extra is more attributes, written as they are.
func SkillElement(name, version, execution string, active bool, extra, text string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<skill name="%s" version="%s"`, xmlAttr.Replace(name), xmlAttr.Replace(version))
	if execution != "" {
		fmt.Fprintf(&b, ` execution="%s"`, xmlAttr.Replace(execution))
	}
	if active {
		b.WriteString(` active="true"`)
	}
	b.WriteString(extra)
	b.WriteString(">\n")
	b.WriteString(text)
	b.WriteString("\n</skill>")
	return b.String()
}

// ListBlock renders the <available_skills> list (R10); "" when empty.
func ListBlock(list []Listed) string {
	if len(list) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("<available_skills>\n")
	for _, s := range list {
		b.WriteString(ListEntry(s.Name, s.Description))
	}
	b.WriteString("</available_skills>\n")
	b.WriteString(ListHint)
	return b.String()
}

// ListEntry is one skill's entry in <available_skills>.
func ListEntry(name, description string) string {
	return "<skill>\n<name>" + xmlText.Replace(name) + "</name>\n<description>" + xmlText.Replace(description) + "</description>\n</skill>\n"
}

// WrapBlock puts elements inside one tag, or returns "" when there are
// none.
func WrapBlock(tag string, elems []string) string {
	if len(elems) == 0 {
		return ""
	}
	return "<" + tag + ">\n" + strings.Join(elems, "\n") + "\n</" + tag + ">"
}

// JoinBlocks joins the non-empty blocks of the instructions.
func JoinBlocks(blocks ...string) string {
	texts := make([]string, 0, len(blocks))
	for _, b := range blocks {
		if b != "" {
			texts = append(texts, b)
		}
	}
	return strings.Join(texts, "\n\n")
}
