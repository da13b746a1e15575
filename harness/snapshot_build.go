package harness

import (
	"encoding/json"
	"os"
	"sort"
	"strconv"
	"strings"

	"skillet/harness/chat"
	"skillet/skills"
)

// Snapshot returns what the UI shows: the loaded set, the exact
// instructions and tools of the next request, the window and this turn's
// use of each limit. It never starts a tool server.
func (s *Session) Snapshot() *Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.compose(false)
	snap := &Snapshot{
		SessionID: s.id, Model: s.modelName, BaseURL: s.opts.BaseURL, Demo: s.opts.Demo,
		Turn: s.turn, Running: s.running, Limits: s.settings,
		Instructions: c.instructions, Context: c.context, LeftOff: c.leftOff, LastTurn: s.last,
		Notices: append([]string(nil), s.notices...),
	}
	for i, ls := range s.loaded {
		snap.Loaded = append(snap.Loaded, s.loadedInfo(ls, i == 0, c.win))
	}
	preloads := s.preloads
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
			p.Tokens = s.count(p.Text)
		}
		snap.Parts = append(snap.Parts, p)
	}
	snap.InstructionTokens = s.count(c.instructions)
	snap.Tools = append(c.infos, s.goneTools(c.infos)...)
	snap.Window = WindowInfo{Messages: len(s.msgs), InWindow: c.win.kept(), Cap: s.settings.MaxTranscriptMessages, FirstEntry: s.firstEntry(c.win), CapExceeded: c.win.capExceeded}
	snap.RequestTokens = snap.InstructionTokens + s.windowTokens(c.win) + s.toolTokens(c.req)
	if s.cur != nil {
		snap.Usage = s.cur.usage
	}
	snap.Skills = s.skillStatuses()
	snap.MCP = s.mcpInfo()
	return snap
}

func (s *Session) mcpInfo() []MCPServerInfo {
	var out []MCPServerInfo
	for name, srv := range s.cfg.MCP.Servers {
		target := srv.URL
		if target == "" {
			target = strings.TrimSpace(srv.Command + " " + strings.Join(srv.Args, " "))
		}
		out = append(out, MCPServerInfo{Name: name, Target: target, Log: s.opts.Runner.MCPLogPath(name)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func (s *Session) loadedInfo(ls *loadedSkill, active bool, w window) LoadedSkill {
	info := LoadedSkill{
		Name: ls.name, Version: ls.version, ExecutionID: ls.execID, Active: active, Tokens: ls.tokens,
		Changed: ls.changed, By: ls.by, LoadedTurn: ls.loadedTurn, Tools: append([]string{}, ls.tools...),
		OutOfWindow: ls.delivery == DeliveryToolResult && ls.resultMsg < w.start,
	}
	info.State = readJSON(ls.stateFile)
	info.Store = readJSON(s.storeFile(ls.name))
	return info
}

// readJSON reads a small state or store file for display.
func readJSON(path string) json.RawMessage {
	if path == "" {
		return nil
	}
	b, err := os.ReadFile(path)
	if err != nil || !json.Valid(b) {
		return nil
	}
	return b
}

// firstEntry is the first transcript entry the window carries, counting
// the notes that travel inside its first user message.
func (s *Session) firstEntry(w window) int {
	if w.start >= len(s.msgs) {
		return len(s.entries)
	}
	i := s.msgEntry[w.start]
	for i > 0 && s.entries[i-1].Kind == EntryNote && s.entries[i-1].NoteKind != NoteSkillPreload {
		i--
	}
	return i
}

func (s *Session) windowTokens(w window) int {
	total := 0
	for k := w.start; k < w.n; k++ {
		if s.msgTok[k] < 0 {
			m := s.msgs[k]
			t := s.count(m.Content)
			for _, tc := range m.ToolCalls {
				t += s.count(tc.Function.Name) + s.count(tc.Function.Arguments)
			}
			s.msgTok[k] = t + 4 // role and separators
		}
		total += s.msgTok[k]
	}
	return total
}

func (s *Session) toolTokens(req *chat.Request) int {
	if len(req.Tools) == 0 {
		return 0
	}
	b, err := json.Marshal(req.Tools)
	if err != nil {
		return 0
	}
	return s.count(string(b))
}

// goneTools are tools of skills that unloaded during the last turn (or the
// running one) and are not offered any more: shown struck through.
func (s *Session) goneTools(live []ToolInfo) []ToolInfo {
	have := map[string]bool{}
	for _, t := range live {
		have[t.Name] = true
	}
	var out []ToolInfo
	for _, g := range s.gone {
		if have[g.Name] || g.leftTurn < s.turn-1 || (g.leftTurn == s.turn-1 && !s.running) {
			continue
		}
		have[g.Name] = true
		out = append(out, g.ToolInfo)
	}
	return out
}

// goneTool is a tool that left with its skill, and when.
type goneTool struct {
	ToolInfo
	leftTurn int
}

// rememberGone records the tools a skill takes with it when it unloads.
// Called with s.mu held.
func (s *Session) rememberGone(ls *loadedSkill) {
	for _, t := range ls.tools {
		name, v, _ := strings.Cut(t, "@")
		n, _ := strconv.Atoi(v)
		s.gone = append(s.gone, goneTool{ToolInfo: ToolInfo{Name: name, Version: n, Source: "skill", Skill: ls.name, Gone: true}, leftTurn: s.turn})
	}
	if len(s.gone) > 64 {
		s.gone = s.gone[len(s.gone)-64:]
	}
}

func (s *Session) skillStatuses() []SkillStatus {
	var out []SkillStatus
	add := func(sk *skills.Skill, shadowed bool) {
		st := SkillStatus{Name: sk.Name, Description: sk.Description, Version: sk.Version, Dir: sk.Dir, Root: sk.Root,
			Shadowed: shadowed, Problems: sk.Problems, Warnings: sk.Warnings, Tools: sk.Tools}
		if !shadowed {
			_, st.Enabled = s.sel.byName[sk.Name]
			for _, p := range s.sel.preload {
				if p.Name == sk.Name {
					st.Preload = true
				}
			}
			st.Loaded = s.findLoaded(sk.Name) != nil
			st.Problems = append(append([]skills.Problem{}, st.Problems...), s.sel.problems[sk.Name]...)
		}
		out = append(out, st)
	}
	for _, sk := range s.catalog.All() {
		add(sk, false)
	}
	for _, sk := range s.catalog.Shadowed() {
		add(sk, true)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// count counts tokens, remembering recent texts: skill texts and messages
// are counted again at every snapshot otherwise.
func (s *Session) count(text string) int {
	if len(text) < 64 {
		return s.tok.Count(text)
	}
	if n, ok := s.tokCache[text]; ok {
		return n
	}
	n := s.tok.Count(text)
	if s.tokCache == nil || len(s.tokCache) > 512 {
		s.tokCache = map[string]int{}
	}
	s.tokCache[text] = n
	return n
}
