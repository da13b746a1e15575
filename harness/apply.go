package harness

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"skillet/harness/chat"
	"skillet/skills"
)

// Events that change the session carry what the live code computed, so
// applying them does not compute it twice; a replayed event recomputes it.
type prepared struct {
	ls *loadedSkill
}

// apply changes the session's state for one event. It is the only place
// state changes, so replaying a journal through it reopens a session.
// Called with s.mu held.
func (s *Session) apply(e Event, replay bool) {
	switch e := e.(type) {
	case *SessionStart:
		s.id = e.SessionID
		s.modelName = e.Model
		s.settings = e.Limits
	case *TurnStart:
		s.turn = e.Turn
		s.running = !replay
		s.cur = newTurnState()
		for _, ls := range s.preloads {
			_ = os.Remove(ls.stateFile) // last turn's preloads end with it
		}
		s.preloads = nil
		s.addMessage(Entry{Kind: EntryUser, Turn: e.Turn, Text: e.Text}, chat.Message{Role: chat.RoleUser, Content: e.Text})
		s.cur.userText = e.Text
		s.cur.userMsg = len(s.msgs) - 1
	case *SkillPreload:
		s.bumpExec(e.ExecutionID)
		if ls := s.preparedOr(e, func() *loadedSkill { return s.rebuildLoaded(e.Skill, e.ExecutionID, e.Turn, "preload") }); ls != nil {
			s.preloads = append(s.preloads, ls)
			// a preload is a load: its tools get a fresh state (R26)
			_ = os.WriteFile(ls.stateFile, []byte("{}"), 0o600)
		}
		s.addNote(NoteSkillPreload, fmt.Sprintf("skill.preload: %s version %s (execution %s)", e.Skill, orNone(e.Version), e.ExecutionID), e.Turn)
	case *ModelCall:
		s.calls = append(s.calls, CallRecord{Turn: e.Turn, Call: e.Call, Request: e.Request})
		if replay && s.settings.FreezePrompt && s.frozen == nil {
			s.frozen = thawFrozen(e.Request)
		}
		if cur := s.cur; cur != nil {
			cur.usage.ModelCalls = e.Call
			for _, name := range e.Offered {
				cur.offered.add(name)
			}
			cur.leftOff = e.LeftOff
			for _, u := range e.Delivered {
				cur.delivered.add(u.Name)
				if _, ok := cur.skillUses[u.Name]; !ok {
					cur.skillUses[u.Name] = u
				}
			}
			for _, u := range e.Reused {
				if !cur.reused[u.ExecutionID] {
					cur.reused[u.ExecutionID] = true
					cur.toolUses = append(cur.toolUses, u)
				}
			}
		}
	case *Assistant:
		if n := len(s.calls); n > 0 && !e.Manual {
			s.calls[n-1].Reply = e.Raw
		}
		for _, tc := range e.ToolCalls {
			s.callIDs[tc.ID] = true
		}
		msg := chat.Message{Role: chat.RoleAssistant, Content: e.Text}
		for _, tc := range e.ToolCalls {
			msg.ToolCalls = append(msg.ToolCalls, chat.ToolCall{ID: tc.ID, Type: "function", Function: chat.FunctionCall{Name: tc.Name, Arguments: tc.Arguments}, Extra: tc.Extra})
		}
		s.addMessage(Entry{Kind: EntryAssistant, Turn: e.Turn, Text: e.Text, Reasoning: e.Reasoning, ToolCalls: e.ToolCalls, Manual: e.Manual, Interrupted: e.Interrupted}, msg)
	case *ToolResult:
		if cur := s.cur; cur != nil && !e.Manual {
			if !e.OverLimit {
				cur.usage.ToolCalls++
			}
			if !e.IsError && !e.Refused && e.Name != ToolLoadSkill {
				v := ""
				if e.Version > 0 {
					v = strconv.Itoa(e.Version)
				}
				cur.toolUses = append(cur.toolUses, Use{Role: "TOOL", Name: e.Name, Version: v, ExecutionID: e.ToolCallID})
			}
		}
		s.addMessage(Entry{Kind: EntryTool, Turn: e.Turn, Text: e.Content, ToolCallID: e.ToolCallID, ToolName: e.Name, ToolVersion: e.Version, IsError: e.IsError, Stderr: e.Stderr, Refused: e.Refused},
			chat.Message{Role: chat.RoleTool, Content: e.Content, ToolCallID: e.ToolCallID})
	case *SkillLoaded:
		s.bumpExec(e.ExecutionID)
		ls := s.preparedOr(e, func() *loadedSkill {
			ls := s.rebuildLoaded(e.Skill, e.ExecutionID, e.Turn, e.By)
			if ls != nil {
				ls.tools = e.Tools
			}
			return ls
		})
		if ls == nil {
			return
		}
		ls.delivery = e.Delivery
		if ls.stateFile != "" {
			// each load starts from a fresh, empty state (R26)
			_ = os.WriteFile(ls.stateFile, []byte("{}"), 0o600)
			ls.lastState = nil
		}
		if e.By == "model" {
			// the load's result is the next message recorded
			ls.resultMsg = len(s.msgs)
		}
		s.touch(ls)
		if s.cur != nil && (e.By == "model" || e.By == "paste") && !e.Repeat {
			s.cur.usage.Loads++
			s.cur.usage.LoadTokens += ls.tokens
		}
		if s.cur != nil && e.By == "model" {
			s.cur.noteLoaded(ls)
		}
	case *SkillActivated:
		s.bumpExec(e.ExecutionID)
		if ls := s.findLoaded(e.Skill); ls != nil {
			if e.ExecutionID != ls.execID {
				ls.execID, ls.execTurn = e.ExecutionID, e.Turn
				if s.cur != nil && (e.By == "model" || e.By == "paste") {
					s.cur.usage.Loads++
					s.cur.usage.LoadTokens += ls.tokens
				}
			}
			if e.By == "model" {
				ls.resultMsg = len(s.msgs)
				if s.cur != nil {
					s.cur.noteLoaded(ls)
				}
			}
			s.touch(ls)
		}
	case *SkillUnloaded:
		s.removeLoaded(e.Skill)
	case *SkillChanged:
		if ls := s.findLoaded(e.Skill); ls != nil {
			if sk := s.catalog.Get(e.Skill); sk != nil {
				s.render(ls, sk)
			}
			ls.changed = true
		}
	case *ContextChanged:
		if e.ToolCallID == "" {
			s.addNote(NoteContextChanged, e.Line, e.Turn)
		}
	case *Warning:
		if e.Log {
			s.addNote(NoteHarnessLog, "harness.log: "+e.Message, e.Turn)
		}
	case *StateChanged:
		if e.Store != nil {
			s.stores[e.Skill] = e.Store
			if replay {
				_ = os.WriteFile(s.storeFile(e.Skill), e.Store, 0o600)
			}
		}
		if ls := s.findLoaded(e.Skill); ls != nil && e.State != nil {
			ls.lastState = e.State
			if replay && ls.stateFile != "" {
				_ = os.WriteFile(ls.stateFile, e.State, 0o600)
			}
		}
	case *Approval:
		if e.Decision == DecisionAll {
			s.approved[e.Name] = true
		}
		s.approvals[e.ToolCallID] = e.Decision
	case *SettingChanged:
		switch e.Key {
		case "model":
			s.modelName = e.Value
		case "freeze_prompt", "list_size":
			s.frozen = nil // freeze again from the next request
			_ = s.settings.Set(e.Key, e.Value)
		default:
			_ = s.settings.Set(e.Key, e.Value)
		}
	case *WindowTrimmed:
		s.lastDropped = e.Dropped
	case *TurnEnd:
		s.running = false
		s.last = e
		s.ends = append(s.ends, e)
		s.endAt[e.Turn] = len(s.entries)
		if s.cur != nil {
			s.cur.ended = true
		}
	}
}

func (s *Session) preparedOr(e Event, rebuild func() *loadedSkill) *loadedSkill {
	var p *prepared
	switch e := e.(type) {
	case *SkillLoaded:
		p = &e.prep
	case *SkillPreload:
		p = &e.prep
	}
	if p != nil && p.ls != nil {
		return p.ls
	}
	return rebuild()
}

// rebuildLoaded renders a loaded skill from the catalog when replaying.
func (s *Session) rebuildLoaded(name, execID string, turn int, by string) *loadedSkill {
	sk := s.catalog.Get(name)
	if sk == nil || !sk.Valid() {
		s.replayMissing = append(s.replayMissing, name)
		return nil
	}
	ls := &loadedSkill{name: name, execID: execID, execTurn: turn, loadedTurn: turn, by: by, resultMsg: -1}
	s.render(ls, sk)
	ls.stateFile = s.stateFile(name, execID)
	return ls
}

// render sets a loaded skill's text from a parsed skill.
func (s *Session) render(ls *loadedSkill, sk *skills.Skill) {
	ls.skill = sk
	ls.version = sk.Version
	ls.text = skillText(sk)
	ls.tokens = s.count(ls.text)
}

func (s *Session) stateFile(skill, execID string) string {
	return filepath.Join(s.dir, "state", skill+"."+execID+".json")
}

func (s *Session) storeFile(skill string) string {
	return filepath.Join(s.dir, "store", skill+".json")
}

func (s *Session) bumpExec(id string) {
	if n, err := strconv.Atoi(strings.TrimPrefix(id, "x-")); err == nil && n > s.execSeq {
		s.execSeq = n
	}
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
func (s *Session) addMessage(en Entry, msg chat.Message) {
	en.Index = len(s.entries)
	en.Message = len(s.msgs)
	if msg.Role == chat.RoleUser {
		notes := s.unsent
		s.unsent = nil
		if s.cur != nil {
			s.cur.userNotes = notes
		}
		msg.Content = withNotes(notes, msg.Content)
		s.userMsgs = append(s.userMsgs, len(s.msgs))
	}
	s.entries = append(s.entries, en)
	s.msgs = append(s.msgs, msg)
	s.msgEntry = append(s.msgEntry, en.Index)
	s.msgTok = append(s.msgTok, -1)
}

func withNotes(notes []string, text string) string {
	if len(notes) == 0 {
		return text
	}
	return strings.Join(notes, "\n") + "\n\n" + text
}

// addNote records a note. A note recorded after this turn's user message,
// before the first model call, joins that message on the wire; any other
// goes in front of the next user message. Preload records are not sent.
func (s *Session) addNote(kind, text string, turn int) {
	s.entries = append(s.entries, Entry{Index: len(s.entries), Message: -1, Kind: EntryNote, Turn: turn, Text: text, NoteKind: kind})
	if kind == NoteSkillPreload {
		return
	}
	if s.cur == nil || s.cur.ended || s.cur.usage.ModelCalls > 0 || s.cur.userMsg != len(s.msgs)-1 {
		s.unsent = append(s.unsent, text)
		return
	}
	if containsString(s.cur.userNotes, text) {
		return // already on the wire with this message
	}
	s.cur.userNotes = append(s.cur.userNotes, text)
	s.msgs[s.cur.userMsg].Content = withNotes(s.cur.userNotes, s.cur.userText)
	s.msgTok[s.cur.userMsg] = -1
}

func (s *Session) findLoaded(name string) *loadedSkill {
	for _, ls := range s.loaded {
		if ls.name == name {
			return ls
		}
	}
	return nil
}

// touch makes ls the most recent (active) loaded skill (R3).
func (s *Session) touch(ls *loadedSkill) {
	for i, x := range s.loaded {
		if x.name == ls.name {
			s.loaded = append(s.loaded[:i], s.loaded[i+1:]...)
			break
		}
	}
	s.loaded = append([]*loadedSkill{ls}, s.loaded...)
}

// removeLoaded unloads a skill: its per-load state is discarded (R26); its
// store stays.
func (s *Session) removeLoaded(name string) {
	for i, ls := range s.loaded {
		if ls.name == name {
			s.rememberGone(ls)
			s.loaded = append(s.loaded[:i], s.loaded[i+1:]...)
			if ls.stateFile != "" {
				_ = os.Remove(ls.stateFile)
			}
			delete(s.outOfWindow, name)
			return
		}
	}
}
