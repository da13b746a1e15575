// Rules R1 (one transcript), R2–R4 (the loaded set: touched, unloaded),
// R7 (contextChanged notes travel with the next user message), R13 (load
// identity), R15 (approvals), R16 (preloads), R20–R21 (what each turn
// offered, delivered, loaded and used), R23 (the frozen prompt) and R26
// (per-load state and store): the fold. Apply is the state's only writer.

package rulebook

import (
	"encoding/gob"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"skillet/harness/chat"
	"skillet/harness/event"
)

// ToolLoadSkill is the built-in tool the model loads skills with (R11).
const ToolLoadSkill = "load_skill"

// KeepCallBodies is how many of the latest model calls keep their request
// and raw reply in the state; older ones are read from the journal when
// asked for, so memory stays flat as a session grows.
const KeepCallBodies = 16

// Apply changes the state for one event. It is the only writer of State and
// reads nothing but the event and the state — no catalog, no files, no
// clock — so the same events give the same state, live or from a journal.
func (st *State) Apply(e event.Event) {
	e.Head().Entry = st.Entries.Len()
	if IsMark(e) {
		st.Marks.Append(e)
	}
	switch e := e.(type) {
	case *event.SessionStart:
		st.ID = e.SessionID
		st.Model = e.Model
		st.Demo = e.Demo
		st.Settings = e.Limits
		st.Profile = e.Profile
		st.ProfileAgent = e.ProfileAgent
		st.ContextWindow = e.ContextWindow
		st.Workspace = e.Workspace
	case *event.TurnStart:
		st.Turn = e.Turn
		st.Running = true
		st.Cur = NewTurnState()
		st.Preloads = nil // last turn's preloads end with it
		st.addMessage(Entry{Kind: EntryUser, Turn: e.Turn, Text: e.Text, Messages: e.Messages, Mentions: e.Mentions}, chat.Message{Role: chat.RoleUser, Content: e.Text})
		st.Cur.UserText = e.Text
		st.Cur.UserMsg = st.Msgs.Len() - 1
	case *event.SkillPreload:
		st.bumpExec(e.ExecutionID)
		ls := &Loaded{Name: e.Skill, Version: e.Version, ExecID: e.ExecutionID, LoadExec: e.ExecutionID, ExecTurn: e.Turn, LoadedTurn: e.Turn, By: event.ByPreload,
			Body: e.Body, Tokens: e.Tokens, Delivery: event.DeliveryContext, ResultMsg: -1}
		st.Preloads = append(st.Preloads, ls)
		st.addNote(NoteSkillPreload, fmt.Sprintf("skill.preload: %s version %s (execution %s)", e.Skill, orNone(e.Version), e.ExecutionID), e.Turn)
	case *event.PromptFrozen:
		var tools []chat.Tool
		_ = json.Unmarshal(e.Tools, &tools)
		st.Frozen = &Frozen{Instructions: e.Instructions, Tools: tools, Infos: e.Infos, Offered: e.Offered, LeftOff: e.LeftOff, Context: map[string]string{}}
		for k, v := range e.Context {
			st.Frozen.Context[k] = v
		}
	case *event.ModelCall:
		st.Calls = append(st.Calls, CallRecord{Turn: e.Turn, Call: e.Call, Request: e.Request})
		if n := len(st.Calls) - KeepCallBodies - 1; n >= 0 {
			// memory holds the recent calls' bodies; the journal has all
			st.Calls[n].Request, st.Calls[n].Reply = nil, ""
		}
		if st.Settings.FreezePrompt && st.Frozen == nil {
			// journals from before prompt_frozen: the first request is the
			// frozen one
			st.Frozen = thawFrozen(e.Request)
		}
		if e.Listing != nil && st.Cur != nil {
			st.Listings = append(st.Listings, ListingAt{Msg: st.Cur.UserMsg, Listing: *e.Listing})
		}
		if cur := st.Cur; cur != nil {
			cur.Usage.ModelCalls = e.Call
			for _, name := range e.Offered {
				cur.Offered.Add(name)
			}
			cur.LeftOff = e.LeftOff
			for _, u := range e.Delivered {
				cur.Delivered.Add(u.Name)
				if _, ok := cur.SkillUses[u.Name]; !ok {
					cur.SkillUses[u.Name] = u
				}
			}
			for _, u := range e.Reused {
				if !cur.Reused[u.ExecutionID] {
					cur.Reused[u.ExecutionID] = true
					cur.ToolUses = append(cur.ToolUses, u)
				}
			}
		}
	case *event.Assistant:
		if n := len(st.Calls); n > 0 && !e.Manual {
			st.Calls[n-1].Reply = e.Raw
			st.Calls[n-1].Usage = e.Usage
		}
		for _, tc := range e.ToolCalls {
			st.CallIDs[tc.ID] = true
		}
		msg := chat.Message{Role: chat.RoleAssistant, Content: e.Text}
		for _, tc := range e.ToolCalls {
			msg.ToolCalls = append(msg.ToolCalls, chat.ToolCall{ID: tc.ID, Type: "function", Function: chat.FunctionCall{Name: tc.Name, Arguments: tc.Arguments}, Extra: tc.Extra})
		}
		st.addMessage(Entry{Kind: EntryAssistant, Turn: e.Turn, Text: e.Text, Reasoning: e.Reasoning, ToolCalls: e.ToolCalls, Manual: e.Manual, Interrupted: e.Interrupted}, msg)
	case *event.ToolResult:
		if cur := st.Cur; cur != nil && !e.Manual {
			if !e.OverLimit {
				cur.Usage.ToolCalls++
			}
			if !e.IsError && !e.Refused && e.Name != ToolLoadSkill && e.Activated == "" {
				v := ""
				if e.Version > 0 {
					v = strconv.Itoa(e.Version)
				}
				cur.ToolUses = append(cur.ToolUses, event.Use{Role: "TOOL", Name: e.Name, Version: v, ExecutionID: e.ToolCallID})
			}
		}
		st.addMessage(Entry{Kind: EntryTool, Turn: e.Turn, Text: e.Content, ToolCallID: e.ToolCallID, ToolName: e.Name, ToolVersion: e.Version, IsError: e.IsError, Stderr: e.Stderr, Refused: e.Refused,
			Activated: e.Activated, Messages: e.Messages, Delivers: e.Delivers, Shell: e.Shell, Diff: e.Diff, ApprovedBy: e.ApprovedBy, WouldApprove: e.WouldApprove},
			chat.Message{Role: chat.RoleTool, Content: e.Content, ToolCallID: e.ToolCallID})
	case *event.SkillLoaded:
		st.bumpExec(e.ExecutionID)
		ls := &Loaded{Name: e.Skill, Version: e.Version, ExecID: e.ExecutionID, LoadExec: e.ExecutionID, ExecTurn: e.Turn, LoadedTurn: e.Turn, By: e.By,
			Body: e.Body, Tokens: e.Tokens, Tools: e.Tools, Delivery: e.Delivery, ResultMsg: -1, JoinedMsg: st.Msgs.Len()}
		if e.By == event.ByModel {
			// the load's result is the next message recorded
			ls.ResultMsg = st.Msgs.Len()
		}
		st.touch(ls)
		if st.Cur != nil && (e.By == event.ByModel || e.By == event.ByPaste) && !e.Repeat {
			st.Cur.Usage.Loads++
			st.Cur.Usage.LoadTokens += e.Tokens
		}
		if st.Cur != nil && e.By == event.ByModel {
			st.Cur.noteLoaded(ls)
		}
	case *event.SkillActivated:
		st.bumpExec(e.ExecutionID)
		if ls := st.FindLoaded(e.Skill); ls != nil {
			if e.ExecutionID != ls.ExecID {
				ls.ExecID, ls.ExecTurn = e.ExecutionID, e.Turn
				if st.Cur != nil && (e.By == event.ByModel || e.By == event.ByPaste) {
					st.Cur.Usage.Loads++
					st.Cur.Usage.LoadTokens += ls.Tokens
				}
			}
			if e.By == event.ByModel {
				ls.ResultMsg = st.Msgs.Len()
				if st.Cur != nil {
					st.Cur.noteLoaded(ls)
				}
			}
			st.touch(ls)
		}
	case *event.SkillUnloaded:
		st.removeLoaded(e.Skill)
	case *event.SkillChanged:
		if ls := st.FindLoaded(e.Skill); ls != nil {
			ls.Version, ls.Body, ls.Tokens, ls.Changed = e.Version, e.Body, e.Tokens, true
			if e.Tools != nil {
				ls.Tools = e.Tools
			}
			st.rememberGone(ls.Name, e.Removed)
		}
	case *event.ContextChanged:
		if e.ToolCallID == "" {
			st.addNote(NoteContextChanged, e.Line, e.Turn)
		}
	case *event.Warning:
		if st.Cur != nil {
			st.Cur.Warned[e.Message] = true
		}
		if e.OutOfWindow != "" {
			st.OutOfWindow[e.OutOfWindow] = true
		}
		if e.Log {
			st.addNote(NoteHarnessLog, "harness.log: "+e.Message, e.Turn)
		}
	case *event.StateChanged:
		if e.Store != nil {
			st.Stores[e.Skill] = e.Store
		}
		if e.State != nil {
			// a preload is a load: its tools have a state too (R26)
			if ls := st.FindLoaded(e.Skill); ls != nil {
				ls.State = e.State
			} else if ls := st.FindPreload(e.Skill); ls != nil {
				ls.State = e.State
			}
		}
	case *event.Approval:
		if e.Decision == event.DecisionAll {
			st.Approved[e.Name] = true
		}
		st.Approvals[e.ToolCallID] = e.Decision
	case *event.SettingChanged:
		switch e.Key {
		case "model":
			st.Model = e.Value
		case "freeze_prompt", "list_size":
			st.Frozen = nil // freeze again from the next request
			_ = st.Settings.Set(e.Key, e.Value)
		default:
			_ = st.Settings.Set(e.Key, e.Value)
		}
	case *event.WorkspaceChanged:
		if st.Files == nil {
			st.Files = map[string]event.FileChange{}
		}
		for _, c := range e.Changes {
			c.Content, c.TextRef = "", ""
			st.Files[c.Path] = c
		}
	case *event.WindowTrimmed:
		st.LastDropped = e.Dropped
	case *event.TurnEnd:
		st.Running = false
		st.Last = e
		st.Ends.Append(e)
		st.sealOld()
		if st.Cur != nil {
			st.Cur.Ended = true
		}
	}
}

// markTypes are the kinds of event that stand between transcript entries
// (a warning only when it is not a log line). They are registered with
// gob, so that sealed pages of marks can say which kind each one is.
var markTypes = []event.Event{&event.SkillLoaded{}, &event.SkillActivated{}, &event.SkillUnloaded{}, &event.SkillChanged{},
	&event.WindowTrimmed{}, &event.Error{}, &event.Retry{}, &event.Approval{}, &event.SettingChanged{}, &event.TurnEnd{}, &event.Warning{}}

var isMarkType = map[reflect.Type]bool{}

func init() {
	for _, e := range markTypes {
		gob.Register(e)
		isMarkType[reflect.TypeOf(e)] = true
	}
}

// IsMark reports whether an event stands between transcript entries rather
// than being one.
func IsMark(e event.Event) bool {
	if w, ok := e.(*event.Warning); ok {
		return !w.Log
	}
	return isMarkType[reflect.TypeOf(e)]
}

func (st *State) bumpExec(id string) {
	if n, err := strconv.Atoi(strings.TrimPrefix(id, "x-")); err == nil && n > st.ExecSeq {
		st.ExecSeq = n
	}
}

// noteLoaded records that the model itself read a skill this turn (R13,
// R20).
func (t *TurnState) noteLoaded(ls *Loaded) {
	t.Execs[ls.Name] = ls.ExecID
	t.ExecVersion[ls.Name] = ls.Version
	t.LoadedNames.Add(ls.Name)
}

func orNone(v string) string {
	if v == "" {
		return "(none)"
	}
	return v
}

// addMessage records a chat message. Notes not yet sent go in front of a
// user message on the wire, so the model reads what changed before the
// message that follows it.
func (st *State) addMessage(en Entry, msg chat.Message) {
	en.Index = st.Entries.Len()
	en.Message = st.Msgs.Len()
	if msg.Role == chat.RoleUser {
		notes := st.Unsent
		st.Unsent = nil
		if st.Cur != nil {
			st.Cur.UserNotes = notes
		}
		msg.Content = WithNotes(notes, msg.Content)
		st.UserMsgs = append(st.UserMsgs, st.Msgs.Len())
	}
	st.Entries.Append(en)
	st.Msgs.Append(msg)
	st.MsgEntry = append(st.MsgEntry, en.Index)
}

// sealOld seals the messages the last request left out of its window, the
// entries before them, and all but the latest turn records and marks (see
// package paged): they are read again only when someone looks back. It
// runs at a turn's end, so a replayed journal seals where the live session
// did; where it seals never changes what the state holds.
func (st *State) sealOld() {
	st.Ends.Seal(st.Ends.Len())
	st.Marks.Seal(st.Marks.Len())
	start := min(st.LastDropped, st.Msgs.Len())
	st.Msgs.Seal(start)
	if start < len(st.MsgEntry) {
		st.Entries.Seal(st.MsgEntry[start])
	}
}

// WithNotes puts notes in front of a user message's text, as the wire
// carries them.
func WithNotes(notes []string, text string) string {
	if len(notes) == 0 {
		return text
	}
	return strings.Join(notes, "\n") + "\n\n" + text
}

// addNote records a note. A note recorded after this turn's user message,
// before the first model call, joins that message on the wire; any other
// goes in front of the next user message. Preload records are not sent.
func (st *State) addNote(kind, text string, turn int) {
	st.Entries.Append(Entry{Index: st.Entries.Len(), Message: -1, Kind: EntryNote, Turn: turn, Text: text, NoteKind: kind})
	if kind == NoteSkillPreload {
		return
	}
	cur := st.Cur
	if cur == nil || cur.Ended || cur.Usage.ModelCalls > 0 || cur.UserMsg != st.Msgs.Len()-1 {
		st.Unsent = append(st.Unsent, text)
		return
	}
	for _, n := range cur.UserNotes {
		if n == text {
			return // already on the wire with this message
		}
	}
	cur.UserNotes = append(cur.UserNotes, text)
	msg := st.Msgs.At(cur.UserMsg)
	msg.Content = WithNotes(cur.UserNotes, cur.UserText)
	st.Msgs.Set(cur.UserMsg, msg)
}

// touch makes ls the most recent (active) loaded skill (R3).
func (st *State) touch(ls *Loaded) {
	for i, x := range st.Loaded {
		if x.Name == ls.Name {
			st.Loaded = append(st.Loaded[:i:i], st.Loaded[i+1:]...)
			break
		}
	}
	st.Loaded = append([]*Loaded{ls}, st.Loaded...)
}

// removeLoaded unloads a skill: its per-load state is discarded (R26); its
// store stays; its tools are remembered as gone for a turn.
func (st *State) removeLoaded(name string) {
	for i, ls := range st.Loaded {
		if ls.Name != name {
			continue
		}
		st.rememberGone(ls.Name, ls.Tools)
		st.Loaded = append(st.Loaded[:i:i], st.Loaded[i+1:]...)
		delete(st.OutOfWindow, name)
		return
	}
}

// rememberGone keeps tools that left the request visible for a turn.
func (st *State) rememberGone(skill string, tools []string) {
	for _, t := range tools {
		tn, v, _ := strings.Cut(t, "@")
		n, _ := strconv.Atoi(v)
		st.Gone = append(st.Gone, GoneTool{ToolInfo: event.ToolInfo{Name: tn, Version: n, Source: event.SourceSkill, Skill: skill, Gone: true}, LeftTurn: st.Turn})
	}
	if len(st.Gone) > 64 {
		st.Gone = st.Gone[len(st.Gone)-64:]
	}
}

var (
	listNameRE     = regexp.MustCompile(`<name>([^<]*)</name>`)
	contextSkillRE = regexp.MustCompile(`<skill name="([^"]*)" version="[^"]*" execution="([^"]*)"`)
)

// thawFrozen rebuilds a frozen prompt from the first request it froze, for
// journals written before prompt_frozen events existed.
func thawFrozen(body json.RawMessage) *Frozen {
	req, ok := ParseRequest(body)
	if !ok {
		return nil
	}
	f := &Frozen{Tools: req.Tools, Instructions: req.Instructions, Context: map[string]string{}}
	if list, _, ok := strings.Cut(f.Instructions, "</available_skills>"); ok {
		for _, m := range listNameRE.FindAllStringSubmatch(list, -1) {
			f.Offered = append(f.Offered, m[1])
		}
	}
	if _, ctx, ok := strings.Cut(f.Instructions, "<current_context>"); ok {
		for _, m := range contextSkillRE.FindAllStringSubmatch(ctx, -1) {
			f.Context[m[1]] = m[2]
		}
	}
	for _, t := range req.Declared() {
		f.Infos = append(f.Infos, event.ToolInfo{Name: t.Name, Description: t.Description, Parameters: t.Parameters, Source: "frozen"})
	}
	return f
}
