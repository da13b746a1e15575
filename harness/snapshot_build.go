package harness

import (
	"encoding/json"
	"skillet/harness/rulebook"
	"slices"
	"sort"
	"strings"
	"time"

	"skillet/harness/tokens"
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
// What the state holds is copied under the lock; tokens are counted, the
// catalog's skills described and tool servers asked after releasing it.
func (s *Session) snapshot(exact bool) *Snapshot {
	locked := read(s, (*frame).snapLocked)
	c, sc, snap := locked.c, locked.sc, locked.snap
	var estimated bool
	count := func(text string) int {
		if exact {
			return s.tok.Count(text)
		}
		return s.tok.CountNow(text, &estimated)
	}
	for _, p := range c.Parts {
		if p.Text == "" {
			continue
		}
		if p.Tokens == 0 {
			p.Tokens = count(p.Text)
		}
		snap.Parts = append(snap.Parts, p)
	}
	snap.InstructionTokens = count(c.Instructions)
	snap.Ledger = ledger(c, count, s.opts.Tokenizer.Name(), sc.unsent, sc.reported)
	snap.RequestTokens = snap.Ledger.Total
	snap.Skills = skillStatuses(&s.opts, sc, s.tok)
	snap.MCP = mcpInfo(&s.opts)
	snap.Estimated = estimated
	return snap
}

// snapLocked is the part of a snapshot taken under the lock: the
// composition, the state's copy, and the fields that need no counting.
type snapLocked struct {
	c    *composition
	sc   snapCopy
	snap *Snapshot
}

func (f *frame) snapLocked() snapLocked {
	c := rulebook.ComposeNext(f.st, f.w.World)
	return snapLocked{c: c, sc: f.snapCopy(), snap: f.snapState(c)}
}

// snapCopy is what a snapshot needs of the state besides the composition,
// copied under the lock for the work done after it.
type snapCopy struct {
	sel    *rulebook.Selection
	loaded map[string]bool
	// set are the limits a skill that can never load is judged by (R12).
	set    Settings
	unsent string
	// reported is the last call whose usage the endpoint reported.
	reported *rulebook.CallRecord
}

func (f *frame) snapCopy() snapCopy {
	sc := snapCopy{sel: f.w.Sel, loaded: map[string]bool{}, set: f.st.Settings, unsent: strings.Join(f.st.Unsent, "\n")}
	for _, ls := range f.st.Loaded {
		sc.loaded[ls.Name] = true
	}
	for i := len(f.st.Calls) - 1; i >= 0; i-- {
		if cr := f.st.Calls[i]; cr.Usage != nil {
			sc.reported = &cr
			break
		}
	}
	return sc
}

// snapState is the part of a snapshot that needs no counting.
func (f *frame) snapState(c *composition) *Snapshot {
	snap := &Snapshot{
		SessionID: f.st.ID, Model: f.st.Model, BaseURL: f.opts.BaseURL, Demo: f.opts.Demo,
		Turn: f.st.Turn, Running: f.st.Running, Limits: f.st.Settings,
		Instructions: c.Instructions, Context: c.Context, LeftOff: c.LeftOff, LastTurn: f.st.Last,
		Notices:   append([]string(nil), f.w.notices...),
		Workspace: f.st.Workspace,
		Profile:   f.profileName(), ContextWindow: f.st.ContextWindow, Lifecycle: f.lifecycle(), ProfileAgent: f.st.ProfileAgent, Catalogue: c.Catalogue,
	}
	for i, ls := range f.st.Loaded {
		snap.Loaded = append(snap.Loaded, f.loadedInfo(ls, i == 0, c.Win))
	}
	preloads := f.st.Preloads
	if preloads == nil {
		preloads = rulebook.PendingPreloads(f.w.World)
	}
	for _, ls := range preloads {
		snap.Preloaded = append(snap.Preloaded, f.loadedInfo(ls, false, c.Win))
	}
	snap.Tools = append(slices.Clone(c.Infos), f.goneTools(c.Infos)...)
	for i := range snap.Tools {
		// shown until the session ends (R15)
		snap.Tools[i].SessionApproved = f.st.Approved[snap.Tools[i].Name]
	}
	snap.Window = WindowInfo{Messages: f.st.Msgs.Len(), InWindow: c.Win.Kept(), Cap: f.st.Settings.MaxTranscriptMessages, FirstEntry: f.firstEntry(c.Win), CapExceeded: c.Win.CapExceeded}
	if f.st.Cur != nil {
		snap.Usage = f.st.Cur.Usage
	}
	return snap
}

func mcpInfo(o *Options) []MCPServerInfo {
	var out []MCPServerInfo
	for _, st := range o.Runner.MCPStatuses() {
		info := MCPServerInfo{Name: st.Name, Target: st.Target, Log: st.Log, State: string(st.State), Why: st.Why, Tools: st.Tools, Launches: st.Launches}
		if !st.NextTry.IsZero() {
			info.NextTry = st.NextTry.UTC().Format(time.RFC3339)
		}
		out = append(out, info)
	}
	return out
}

func (f *frame) loadedInfo(ls *rulebook.Loaded, active bool, w rulebook.Window) LoadedSkill {
	info := LoadedSkill{
		Name: ls.Name, Version: ls.Version, ExecutionID: ls.ExecID, Active: active, Tokens: ls.Tokens,
		Changed: ls.Changed, By: ls.By, LoadedTurn: ls.LoadedTurn, Tools: append([]string{}, ls.Tools...),
		OutOfWindow: ls.Delivery == DeliveryToolResult && ls.ResultMsg < w.Start,
	}
	info.State = ls.State
	if info.State == nil {
		info.State = json.RawMessage("{}") // each load starts from an empty state (R26)
	}
	info.Store = f.st.Stores[ls.Name]
	return info
}

// firstEntry is the first transcript entry the window carries, counting
// the notes that travel inside its first user message.
func (f *frame) firstEntry(w rulebook.Window) int {
	if w.Start >= f.st.Msgs.Len() {
		return f.st.Entries.Len()
	}
	i := f.st.MsgEntry[w.Start]
	for i > 0 {
		if en := f.st.Entries.At(i - 1); en.Kind != EntryNote || en.NoteKind == NoteSkillPreload {
			break
		}
		i--
	}
	return i
}

// goneTools are tools of skills that unloaded during the last turn (or the
// running one) and are not offered any more: shown struck through.
func (f *frame) goneTools(live []ToolInfo) []ToolInfo {
	have := map[string]bool{}
	for _, t := range live {
		have[t.Name] = true
	}
	var out []ToolInfo
	for _, g := range f.st.Gone {
		if have[g.Name] || g.LeftTurn < f.st.Turn-1 || (g.LeftTurn == f.st.Turn-1 && !f.st.Running) {
			continue
		}
		have[g.Name] = true
		out = append(out, g.ToolInfo)
	}
	return out
}

func skillStatuses(o *Options, sc snapCopy, tok *tokens.Counter) []SkillStatus {
	all, shadowed := o.Catalog.All(), o.Catalog.Shadowed()
	out := make([]SkillStatus, 0, len(all)+len(shadowed))
	add := func(sk *skills.Skill, shadowed bool) {
		st := SkillStatus{Name: sk.Name, Description: sk.Description, Version: sk.Version, Dir: sk.Dir, Root: sk.Root,
			Shadowed: shadowed, Problems: sk.Problems, Warnings: sk.Warnings, Tools: sk.Tools}
		if !shadowed {
			_, st.Enabled = sc.sel.ByName[sk.Name]
			for _, p := range sc.sel.Preload {
				if p.Name == sk.Name {
					st.Preload = true
				}
			}
			st.Loaded = sc.loaded[sk.Name]
			if extra := sc.sel.Problems[sk.Name]; len(extra) > 0 {
				st.Problems = append(append([]skills.Problem{}, st.Problems...), extra...)
			}
			if rs := rulebook.LoadLimits(sc.set, rulebook.Usage{}, rulebook.PathUser, sk.Name, tok.SkillChars(sk), 0); len(st.Problems) == 0 && len(rs) > 0 {
				st.CannotLoad = rs[0].Why
			}
		}
		out = append(out, st)
	}
	for _, sk := range all {
		add(sk, false)
	}
	for _, sk := range shadowed {
		add(sk, true)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
