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
	Skill  string `json:"skill,omitempty"`
	Text   string `json:"text"`
	Tokens int    `json:"tokens"`
}

// Listed is a skill on the list (R10).
type Listed struct{ Name, Description string }

// Given is what Compose needs from outside the state: the agent's prompt,
// the preloads to render (the turn's, or before any turn the ones it will
// make), the list when the load_skill tool is offered (Listing) with the
// enabled skills it leaves off, and the tools of the request.
type Given struct {
	Prompt   string
	Preloads []*Loaded
	Listing  bool
	List     []Listed
	LeftOff  []string
	Tools    []chat.Tool
	Infos    []event.ToolInfo
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

// Compose composes the next request. It changes nothing.
func Compose(st *State, w Given) *Composition {
	c := &Composition{Infos: w.Infos}
	set := st.Settings
	c.Parts = append(c.Parts, Part{Kind: "prompt", Text: w.Prompt})
	pre, parts := Preloaded(w.Preloads)
	c.Parts = append(c.Parts, parts...)
	c.Delivered = append(c.Delivered, w.Preloads...)
	list := ""
	if w.Listing {
		list = ListBlock(w.List)
		c.Parts = append(c.Parts, Part{Kind: "list", Text: list})
		for _, sk := range w.List {
			c.Offered = append(c.Offered, sk.Name)
		}
		c.LeftOff = w.LeftOff
	}
	c.Win = ComputeWindow(st.Msgs.Len(), set.MaxTranscriptMessages, st.UserMsgs)
	var elems []string
	for i, ls := range st.Loaded {
		if ls.Delivery == event.DeliveryToolResult {
			if ls.ResultMsg >= c.Win.Start {
				c.Delivered = append(c.Delivered, ls)
			} else {
				c.OutOfWindow = append(c.OutOfWindow, ls)
			}
			continue
		}
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
	c.Instructions = JoinBlocks(w.Prompt, WrapBlock("preloaded_skills", pre), list, c.Context)
	tools := w.Tools
	if set.FreezePrompt && st.Frozen != nil {
		tools = st.Frozen.Tools
		c.frozen(st.Frozen)
	}
	msgs := make([]chat.Message, 0, c.Win.Kept()+1)
	if c.Instructions != "" {
		msgs = append(msgs, chat.Message{Role: chat.RoleSystem, Content: c.Instructions})
	}
	c.Msgs = st.Msgs.Slice(c.Win.Start, c.Win.N)
	msgs = append(msgs, c.Msgs...)
	c.Request = &chat.Request{Model: st.Model, Messages: msgs, Tools: tools, Stream: true, StreamOptions: &chat.StreamOptions{IncludeUsage: true}}
	return c
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
