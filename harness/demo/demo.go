// Package demo is Skillet's offline demo model: a deterministic, rule-based
// stand-in for a language model, used when no API key or base URL is set. It
// reads the request the engine composes (the skill list, <current_context>,
// <preloaded_skills>, the tools and the transcript) and answers by fixed
// rules, so a short scripted chat shows every skill lifecycle rule without a
// network. It is served on loopback over the chat-completions HTTP protocol,
// so the real client talks to it exactly as it talks to a provider.
//
// Its rules, numbered as the tests name them (U is the latest user message
// without the engine's lines: contextChanged: and harness.log: notes and
// their "  | " continuation lines, so a hand-loaded skill's text is never
// read as the user's words; "this turn" is every message after it):
//
//  1. Commands, at the start of a line of U: "load NAME", "use NAME" and
//     "read skill NAME" call load_skill; "call TOOL {json}" calls TOOL, offered
//     or not; "read NAME/PATH" calls read_skill_resource. They run in order,
//     each once per turn; then the demo model answers (rule 4).
//  2. Once per turn, load the listed skill whose name and description share
//     the most words with U, unless it is loaded or preloaded already. The
//     words of a "not for X (that is Y)" clause count against the skill and
//     for Y; ties go to the skill whose description U matches best. A
//     loaded skill that is not active is read again (R3) only when U names it
//     or shares at least two words with it.
//  3. Call the offered tool whose name and description best match U, with
//     arguments from U first and from the schema's examples and enums
//     second, never from a skill's text; never an agent's own shell or file
//     tool (they run only when U asks with "call TOOL {json}"). Before rule 2, a tool
//     called earlier in the transcript that is no longer offered and that U
//     names is called again, as a model remembering it would (R6).
//  4. Answer in Markdown, starting "[demo model] ": this turn's tool results,
//     the active and preloaded skills, and, when nothing matched, help.
//  5. At most MaxTurnCalls tool calls per turn and one per message; never the
//     same call twice in a turn, except once more after a load when the
//     first attempt was refused as an unknown tool.
package demo

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"

	"skillet/harness/agenttools"
	"skillet/harness/chat"
)

// ModelName is the model name the demo model reports and answers to.
const ModelName = "skillet-demo"

// MaxTurnCalls is the most tool calls the demo model makes in one turn
// before it answers in text.
const MaxTurnCalls = 6

// Names of the engine's built-in tools.
const (
	toolLoadSkill    = "load_skill"
	toolReadResource = "read_skill_resource"
)

// unknownPrefix starts the engine's answer to a call of a tool that is not
// offered (R6).
const unknownPrefix = "Unknown tool:"

// offeredTool is one function tool of the request.
type offeredTool struct {
	Name        string
	Description string
	Params      any
}

// callRecord is one tool call found in the transcript, with its result.
type callRecord struct {
	Name     string
	Args     string // canonical form
	Result   string
	Answered bool
}

// view is everything a decision reads, gathered once per request.
type view struct {
	prompt  prompt
	user    string // U, without engine-prepended lines
	tools   []offeredTool
	offered map[string]bool
	past    []callRecord // calls before this turn's user message
	turn    []callRecord // calls of this turn, in order
	known   map[string]bool
	hash    string
}

// Respond is the demo model's decision for one request: the assistant
// message it sends back, a single tool call or a Markdown answer. It reads
// only the request, so the same request always gets the same message.
func Respond(req *chat.Request) chat.Message {
	if req == nil {
		req = &chat.Request{}
	}
	v := newView(req)
	if name, args, ok := v.decideCall(); ok {
		return chat.Message{
			Role: chat.RoleAssistant,
			ToolCalls: []chat.ToolCall{{
				ID:       "call_" + v.hash[:24],
				Type:     "function",
				Function: chat.FunctionCall{Name: name, Arguments: args},
			}},
		}
	}
	return chat.Message{Role: chat.RoleAssistant, Content: v.answer()}
}

// requestHash identifies a request by its messages and tools, so tool call
// ids differ between the requests of one chat and stay the same when a
// request is repeated.
func requestHash(req *chat.Request) string {
	h := sha256.New()
	b, _ := json.Marshal(req.Messages) // a failure hashes what was written, still deterministic
	h.Write(b)
	b, _ = json.Marshal(req.Tools)
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil))
}

func newView(req *chat.Request) *view {
	v := &view{
		prompt:  parsePrompt(req.Messages),
		offered: map[string]bool{},
		known:   map[string]bool{},
		hash:    requestHash(req),
	}
	for _, t := range req.Tools {
		if t.Function == nil || t.Function.Name == "" {
			continue
		}
		v.tools = append(v.tools, offeredTool{Name: t.Function.Name, Description: t.Function.Description, Params: t.Function.Parameters})
		v.offered[t.Function.Name] = true
		v.known[strings.ToLower(t.Function.Name)] = true
	}
	for _, s := range v.prompt.listed {
		v.known[strings.ToLower(s.Name)] = true
	}
	for _, s := range append(append([]contextSkill{}, v.prompt.loaded...), v.prompt.preloaded...) {
		v.known[strings.ToLower(s.Name)] = true
	}

	// U is the last user message with text of its own; a user message that
	// holds only engine lines (contextChanged:, harness.log:) is not one.
	at := -1
	for i := len(req.Messages) - 1; i >= 0; i-- {
		m := req.Messages[i]
		if m.Role != chat.RoleUser || profileMessage(m.Content) {
			continue
		}
		if at < 0 {
			at = i
		}
		if stripEngineLines(m.Content) != "" {
			at = i
			break
		}
	}
	if at >= 0 {
		v.user = stripEngineLines(req.Messages[at].Content)
	}

	results := map[string]int{} // tool_call_id → index in the record list
	var all []callRecord
	for i, m := range req.Messages {
		switch m.Role {
		case chat.RoleAssistant:
			for _, tc := range m.ToolCalls {
				v.known[strings.ToLower(tc.Function.Name)] = true
				results[tc.ID] = len(all)
				all = append(all, callRecord{Name: tc.Function.Name, Args: canonical(tc.Function.Arguments)})
			}
		case chat.RoleTool:
			if j, ok := results[m.ToolCallID]; ok && !all[j].Answered {
				all[j].Result, all[j].Answered = m.Content, true
			}
		}
		if i == at {
			v.past = append([]callRecord{}, all...)
		}
	}
	v.turn = all[len(v.past):]
	return v
}

// stripEngineLines drops the lines the engine writes into a user message:
// contextChanged: and harness.log: notes and their "  | " continuation
// lines (a hand-loaded skill's text), wherever they stand, and trims what
// is left. The demo model never reads a skill's text as the user's words.
func stripEngineLines(s string) string {
	lines := strings.Split(s, "\n")
	var kept []string
	inNote := false
	for _, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "contextChanged:") || strings.HasPrefix(t, "harness.log:"):
			inNote = true
			continue
		case inNote && (strings.HasPrefix(l, "  |") || strings.HasPrefix(t, "| ") || t == "|"):
			continue
		case inNote && t == "":
			continue
		}
		inNote = false
		kept = append(kept, l)
	}
	return strings.TrimSpace(strings.Join(kept, "\n"))
}

// calledThisTurn reports whether this turn already has a call of name with
// these (canonical) arguments.
func (v *view) calledThisTurn(name, args string) bool {
	for _, c := range v.turn {
		if c.Name == name && c.Args == args {
			return true
		}
	}
	return false
}

// retryable reports whether an offered tool may be called with these
// arguments: never called this turn, or every earlier attempt was refused as
// unknown and a load_skill call came after the last one (the load may have
// brought the tool back). A second refusal with no load between stops it, so
// the demo model never loops.
func (v *view) retryable(name, args string) bool {
	last := -1
	for i, c := range v.turn {
		if c.Name == name && c.Args == args {
			if c.Answered && !strings.HasPrefix(c.Result, unknownPrefix) {
				return false
			}
			last = i
		}
	}
	if last < 0 {
		return true
	}
	for _, c := range v.turn[last+1:] {
		if c.Name == toolLoadSkill {
			return true
		}
	}
	return false
}

// decideCall applies the rules in the order 5 (the cap), 1, 3 (a
// remembered tool), 2, 3 (an offered tool) and returns the one tool call to
// make, if any.
func (v *view) decideCall() (name, args string, ok bool) {
	if len(v.turn) >= MaxTurnCalls {
		return "", "", false
	}
	if cmds := v.commands(); len(cmds) > 0 {
		for _, c := range cmds {
			if !v.calledThisTurn(c.name, canonical(c.args)) {
				return c.name, c.args, true
			}
		}
		return "", "", false
	}
	if name, args, ok := v.rememberedTool(); ok {
		return name, args, true
	}
	if name, ok := v.skillToLoad(); ok {
		tool, key := v.activationTool()
		return tool, encode(map[string]string{key: name}), true
	}
	return v.matchingTool()
}

// rememberedTool finds a tool called earlier that is not offered now and
// that U names by words: at least two of its name's words, or its only one.
// Ties go to the most recent call.
func (v *view) rememberedTool() (name, args string, ok bool) {
	u := wordSet(v.user)
	all := append(append([]callRecord{}, v.past...), v.turn...)
	best, bestScore := -1, 0
	for i := len(all) - 1; i >= 0; i-- {
		c := all[i]
		if c.Name == toolLoadSkill || c.Name == toolReadResource || v.offered[c.Name] {
			continue
		}
		nw := wordSet(c.Name)
		need := min(2, len(nw))
		score := overlap(u, nw)
		if need == 0 || score < need || score <= bestScore {
			continue
		}
		best, bestScore = i, score
	}
	if best < 0 {
		return "", "", false
	}
	c := all[best]
	args = buildArgs(rememberSchema(c.Args), v.user, v.known)
	if v.calledThisTurn(c.Name, args) {
		return "", "", false
	}
	return c.Name, args, true
}

// skillToLoad picks the listed skill that best matches U (bestListed),
// once per turn.
func (v *view) skillToLoad() (string, bool) {
	tool, _ := v.activationTool()
	if !v.offered[tool] {
		return "", false
	}
	for _, c := range v.turn {
		if c.Name == tool {
			return "", false
		}
	}
	best, bestScore := v.bestListed()
	if best < 0 {
		return "", false
	}
	s := v.prompt.listed[best]
	loaded, preloaded := v.prompt.inContext(s.Name)
	switch {
	case preloaded:
		return "", false
	case loaded == nil:
		return s.Name, true
	case !loaded.Active && (bestScore >= 2 || mentions(v.user, s.Name)):
		return s.Name, true // read again to make it active (R3)
	}
	return "", false
}

// activationTool is the tool that loads a skill by name, and its
// argument: load_skill, or the activation tool of an agent's profile
// (Claude Code's Skill, Gemini CLI's activate_skill, opencode's skill).
func (v *view) activationTool() (name, key string) {
	switch {
	case v.offered["Skill"] && !v.offered[toolLoadSkill]:
		return "Skill", "skill"
	case v.offered["activate_skill"] && !v.offered[toolLoadSkill]:
		return "activate_skill", "name"
	case v.offered["skill"] && !v.offered[toolLoadSkill]:
		return "skill", "name"
	}
	return toolLoadSkill, "name"
}

// agentToolNames are the names of every profile's own shell and file
// tools, which the demo model calls only when told to.
var agentToolNames = func() map[string]bool {
	out := map[string]bool{}
	for _, p := range agenttools.Profiles {
		defs, _ := agenttools.For(p)
		for _, d := range defs {
			out[d.Name] = true
		}
	}
	return out
}()

// matchingTool picks the offered tool (other than the built-ins) whose name
// words and description best match U, ties to the earlier one, and calls it
// unless this turn already did with the same arguments.
func (v *view) matchingTool() (name, args string, ok bool) {
	u := wordSet(v.user)
	best, bestScore := -1, 0
	for i, t := range v.tools {
		if t.Name == toolLoadSkill || t.Name == toolReadResource || agentToolNames[t.Name] {
			continue
		}
		if score := toolScore(u, t); score > bestScore {
			best, bestScore = i, score
		}
	}
	if best < 0 {
		return "", "", false
	}
	t := v.tools[best]
	args = buildArgs(parseSchema(t.Params), v.user, v.known)
	if !v.retryable(t.Name, args) {
		return "", "", false
	}
	return t.Name, args, true
}

// toolScore is how well a tool matches the message: each word of its name
// the message uses counts two, each other word of its description one, so
// "list the action items" picks list_action_items over save_action_item
// when both descriptions mention action items.
func toolScore(u map[string]bool, t offeredTool) int {
	name := wordSet(t.Name)
	score := 2 * overlap(u, name)
	for w := range wordSet(t.Description) {
		if u[w] && !name[w] {
			score++
		}
	}
	return score
}
