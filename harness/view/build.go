package view

import (
	"encoding/json"
	"slices"
	"sort"

	"skillet/harness/event"
	"skillet/harness/rulebook"
	"skillet/skills"
)

// Origin is what a live snapshot shows of the session that the state does
// not hold: the endpoint, whether it is the demo model, and the notices
// the shell gathered.
type Origin struct {
	BaseURL string
	Demo    bool
	Notices []string
}

// Live is the part of a live snapshot that needs no counting: the state as
// the next request c (composed from st and w) will find it. It reads st
// and w, so the caller holds whatever guards them; the snapshot shares
// nothing with them that they change later.
func Live(st *rulebook.State, w *rulebook.World, c *rulebook.Next, o Origin) *Snapshot {
	snap := &Snapshot{
		SessionID: st.ID, Model: st.Model, BaseURL: o.BaseURL, Demo: o.Demo,
		Turn: st.Turn, Running: st.Running, Limits: st.Settings,
		Instructions: c.Instructions, Context: c.Context, LeftOff: c.LeftOff, LastTurn: st.Last,
		Notices:   append([]string(nil), o.Notices...),
		Workspace: st.Workspace,
		Profile:   rulebook.ProfileName(st), ContextWindow: st.ContextWindow, Lifecycle: rulebook.Lifecycle(st), ProfileAgent: st.ProfileAgent, Catalogue: c.Catalogue,
	}
	for i, ls := range st.Loaded {
		snap.Loaded = append(snap.Loaded, loadedInfo(st, ls, i == 0, c.Win))
	}
	preloads := st.Preloads
	if preloads == nil {
		preloads = rulebook.PendingPreloads(w)
	}
	for _, ls := range preloads {
		snap.Preloaded = append(snap.Preloaded, loadedInfo(st, ls, false, c.Win))
	}
	snap.Tools = append(slices.Clone(c.Infos), goneTools(st, c.Infos)...)
	for i := range snap.Tools {
		// shown until the session ends (R15)
		snap.Tools[i].SessionApproved = st.Approved[snap.Tools[i].Name]
	}
	snap.Window = WindowInfo{Messages: st.Msgs.Len(), InWindow: c.Win.Kept(), Cap: st.Settings.MaxTranscriptMessages, FirstEntry: firstEntry(st, c.Win), CapExceeded: c.Win.CapExceeded}
	if st.Cur != nil {
		snap.Usage = st.Cur.Usage
	}
	return snap
}

// Counted fills in what a snapshot counts of the next request c: its
// parts, instructions and ledger (see NewLedger), with count.
func Counted(snap *Snapshot, c *rulebook.Next, count func(string) int, tokenizer, unsent string, reported *rulebook.CallRecord) {
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
	snap.Ledger = NewLedger(c, count, tokenizer, unsent, reported)
	snap.RequestTokens = snap.Ledger.Total
}

func loadedInfo(st *rulebook.State, ls *rulebook.Loaded, active bool, w rulebook.Window) LoadedSkill {
	info := LoadedSkill{
		Name: ls.Name, Version: ls.Version, ExecutionID: ls.ExecID, Active: active, Tokens: ls.Tokens,
		Changed: ls.Changed, By: ls.By, LoadedTurn: ls.LoadedTurn, Tools: append([]string{}, ls.Tools...),
		OutOfWindow: ls.Delivery == event.DeliveryToolResult && ls.ResultMsg < w.Start,
	}
	info.State = ls.State
	if info.State == nil {
		info.State = json.RawMessage("{}") // each load starts from an empty state (R26)
	}
	info.Store = st.Stores[ls.Name]
	return info
}

// firstEntry is the first transcript entry the window carries, counting
// the notes that travel inside its first user message.
func firstEntry(st *rulebook.State, w rulebook.Window) int {
	if w.Start >= st.Msgs.Len() {
		return st.Entries.Len()
	}
	i := st.MsgEntry[w.Start]
	for i > 0 {
		if en := st.Entries.At(i - 1); en.Kind != rulebook.EntryNote || en.NoteKind == rulebook.NoteSkillPreload {
			break
		}
		i--
	}
	return i
}

// goneTools are tools of skills that unloaded during the last turn (or the
// running one) and are not offered any more: shown struck through.
func goneTools(st *rulebook.State, live []event.ToolInfo) []event.ToolInfo {
	have := map[string]bool{}
	for _, t := range live {
		have[t.Name] = true
	}
	var out []event.ToolInfo
	for _, g := range st.Gone {
		if have[g.Name] || g.LeftTurn < st.Turn-1 || (g.LeftTurn == st.Turn-1 && !st.Running) {
			continue
		}
		have[g.Name] = true
		out = append(out, g.ToolInfo)
	}
	return out
}

// SkillSet is what the skills' statuses are built from, copied from the
// session so they are built without its lock: the selection, the names
// of the loaded skills and the limits a skill that can never load is
// judged by (R12).
type SkillSet struct {
	Catalog *skills.Catalog
	Sel     *rulebook.Selection
	Loaded  map[string]bool
	Limits  event.Settings
	// Chars is the size of a skill's rendered text.
	Chars func(*skills.Skill) int
}

// SkillStatuses lists every discovered skill, shadowed ones too, by name.
func SkillStatuses(cat SkillSet) []SkillStatus {
	all, shadowed := cat.Catalog.All(), cat.Catalog.Shadowed()
	out := make([]SkillStatus, 0, len(all)+len(shadowed))
	add := func(sk *skills.Skill, shadowed bool) {
		st := SkillStatus{Name: sk.Name, Description: sk.Description, Version: sk.Version, Dir: sk.Dir, Root: sk.Root,
			Shadowed: shadowed, Problems: sk.Problems, Warnings: sk.Warnings, Tools: sk.Tools}
		if !shadowed {
			_, st.Enabled = cat.Sel.ByName[sk.Name]
			for _, p := range cat.Sel.Preload {
				if p.Name == sk.Name {
					st.Preload = true
				}
			}
			st.Loaded = cat.Loaded[sk.Name]
			if extra := cat.Sel.Problems[sk.Name]; len(extra) > 0 {
				st.Problems = append(append([]skills.Problem{}, st.Problems...), extra...)
			}
			if rs := rulebook.LoadLimits(cat.Limits, rulebook.Usage{}, rulebook.PathUser, sk.Name, cat.Chars(sk), 0); len(st.Problems) == 0 && len(rs) > 0 {
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
