package harness

import (
	"encoding/json"
	"fmt"
	"skillet/harness/rulebook"
	"sort"
	"time"
	"unicode/utf8"

	"skillet/skills"
)

// Snapshot returns what the UI shows: the loaded set, the exact
// instructions and tools of the next request, the window and this turn's
// use of each limit. It never starts a tool server.
//
// While the tokenizer's tables load, token counts are estimates and
// Snapshot.Estimated says so; a later snapshot has the exact ones.
func (s *Session) Snapshot() *Snapshot { return s.snapshot(false) }

// snapshot takes a snapshot; exact waits for the tokenizer's tables.
func (s *Session) snapshot(exact bool) *Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	var estimated bool
	count := func(text string) int {
		if exact {
			return s.count(text)
		}
		return s.countNow(text, &estimated)
	}
	c := s.compose()
	snap := &Snapshot{
		SessionID: s.st.ID, Model: s.st.Model, BaseURL: s.opts.BaseURL, Demo: s.opts.Demo,
		Turn: s.st.Turn, Running: s.st.Running, Limits: s.st.Settings,
		Instructions: c.instructions, Context: c.context, LeftOff: c.leftOff, LastTurn: s.st.Last,
		Notices: append([]string(nil), s.w.notices...),
		Profile: s.profileName(), ContextWindow: s.st.ContextWindow, Lifecycle: s.lifecycle(), Catalogue: c.catalogue,
	}
	for i, ls := range s.st.Loaded {
		snap.Loaded = append(snap.Loaded, s.loadedInfo(ls, i == 0, c.win))
	}
	preloads := s.st.Preloads
	if preloads == nil {
		preloads = s.pendingPreloads()
	}
	for _, ls := range preloads {
		snap.Preloaded = append(snap.Preloaded, s.loadedInfo(ls, false, c.win))
	}
	for _, p := range c.parts {
		if p.Text == "" {
			continue
		}
		if p.Tokens == 0 {
			p.Tokens = count(p.Text)
		}
		snap.Parts = append(snap.Parts, p)
	}
	snap.InstructionTokens = count(c.instructions)
	snap.Tools = append(c.infos, s.goneTools(c.infos)...)
	snap.Window = WindowInfo{Messages: len(s.st.Msgs), InWindow: c.win.Kept(), Cap: s.st.Settings.MaxTranscriptMessages, FirstEntry: s.firstEntry(c.win), CapExceeded: c.win.CapExceeded}
	snap.Ledger = s.ledger(c, count)
	snap.RequestTokens = snap.Ledger.Total
	if s.st.Cur != nil {
		snap.Usage = s.st.Cur.Usage
	}
	snap.Skills = s.skillStatuses()
	snap.MCP = s.mcpInfo()
	snap.Estimated = estimated
	return snap
}

func (s *Session) mcpInfo() []MCPServerInfo {
	var out []MCPServerInfo
	for _, st := range s.opts.Runner.MCPStatuses() {
		info := MCPServerInfo{Name: st.Name, Target: st.Target, Log: st.Log, State: string(st.State), Why: st.Why, Tools: st.Tools, Launches: st.Launches}
		if !st.NextTry.IsZero() {
			info.NextTry = st.NextTry.UTC().Format(time.RFC3339)
		}
		out = append(out, info)
	}
	return out
}

func (s *Session) loadedInfo(ls *rulebook.Loaded, active bool, w rulebook.Window) LoadedSkill {
	info := LoadedSkill{
		Name: ls.Name, Version: ls.Version, ExecutionID: ls.ExecID, Active: active, Tokens: ls.Tokens,
		Changed: ls.Changed, By: ls.By, LoadedTurn: ls.LoadedTurn, Tools: append([]string{}, ls.Tools...),
		OutOfWindow: ls.Delivery == DeliveryToolResult && ls.ResultMsg < w.Start,
	}
	info.State = ls.State
	if info.State == nil {
		info.State = json.RawMessage("{}") // each load starts from an empty state (R26)
	}
	info.Store = s.st.Stores[ls.Name]
	return info
}

// firstEntry is the first transcript entry the window carries, counting
// the notes that travel inside its first user message.
func (s *Session) firstEntry(w rulebook.Window) int {
	if w.Start >= len(s.st.Msgs) {
		return len(s.st.Entries)
	}
	i := s.st.MsgEntry[w.Start]
	for i > 0 && s.st.Entries[i-1].Kind == EntryNote && s.st.Entries[i-1].NoteKind != NoteSkillPreload {
		i--
	}
	return i
}

// goneTools are tools of skills that unloaded during the last turn (or the
// running one) and are not offered any more: shown struck through.
func (s *Session) goneTools(live []ToolInfo) []ToolInfo {
	have := map[string]bool{}
	for _, t := range live {
		have[t.Name] = true
	}
	var out []ToolInfo
	for _, g := range s.st.Gone {
		if have[g.Name] || g.LeftTurn < s.st.Turn-1 || (g.LeftTurn == s.st.Turn-1 && !s.st.Running) {
			continue
		}
		have[g.Name] = true
		out = append(out, g.ToolInfo)
	}
	return out
}

func (s *Session) skillStatuses() []SkillStatus {
	var out []SkillStatus
	add := func(sk *skills.Skill, shadowed bool) {
		st := SkillStatus{Name: sk.Name, Description: sk.Description, Version: sk.Version, Dir: sk.Dir, Root: sk.Root,
			Shadowed: shadowed, Problems: sk.Problems, Warnings: sk.Warnings, Tools: sk.Tools}
		if !shadowed {
			_, st.Enabled = s.w.sel.byName[sk.Name]
			for _, p := range s.w.sel.preload {
				if p.Name == sk.Name {
					st.Preload = true
				}
			}
			st.Loaded = s.st.FindLoaded(sk.Name) != nil
			st.Problems = append(append([]skills.Problem{}, st.Problems...), s.w.sel.problems[sk.Name]...)
			if n := utf8.RuneCountInString(skillText(sk)); len(st.Problems) == 0 && n > s.st.Settings.MaxSkillChars {
				st.CannotLoad = fmt.Sprintf("%d characters, over max_skill_chars (%d)", n, s.st.Settings.MaxSkillChars)
			}
		}
		out = append(out, st)
	}
	for _, sk := range s.opts.Catalog.All() {
		add(sk, false)
	}
	for _, sk := range s.opts.Catalog.Shadowed() {
		add(sk, true)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// countNow counts tokens without waiting for the tokenizer's tables: an
// estimate until they are ready (and *estimated is set, when given).
func (s *Session) countNow(text string, estimated *bool) int {
	if s.opts.Tokenizer.Ready() {
		return s.count(text)
	}
	if n, ok := s.w.tokCache[text]; ok {
		return n
	}
	if estimated != nil {
		*estimated = true
	}
	return CountEstimate(text)
}

// count counts tokens, remembering recent texts: skill texts and messages
// are counted again at every snapshot otherwise.
func (s *Session) count(text string) int {
	if len(text) < 64 {
		return s.opts.Tokenizer.Count(text)
	}
	if n, ok := s.w.tokCache[text]; ok {
		return n
	}
	n := s.opts.Tokenizer.Count(text)
	if s.w.tokCache == nil || len(s.w.tokCache) > 512 {
		s.w.tokCache = map[string]int{}
	}
	s.w.tokCache[text] = n
	return n
}
