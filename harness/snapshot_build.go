package harness

import (
	"strings"
	"time"

	"skillet/harness/rulebook"
	"skillet/harness/view"
)

// Snapshot returns what the UI shows: the loaded set, the exact
// instructions and tools of the next request, the window and this turn's
// use of each limit. It never starts a tool server.
//
// While the tokenizer's tables load, token counts are estimates and
// Snapshot.Estimated says so; a later snapshot has the exact ones.
func (s *Session) Snapshot() *view.Snapshot { return s.snapshot(false) }

// snapshot takes a snapshot; exact waits for the tokenizer's tables.
// What the state holds is copied under the lock; tokens are counted, the
// catalog's skills described and tool servers asked after releasing it.
func (s *Session) snapshot(exact bool) *view.Snapshot {
	locked := read(s, (*frame).snapLocked)
	var estimated bool
	count := func(text string) int {
		if exact {
			return s.tok.Count(text)
		}
		return s.tok.CountNow(text, &estimated)
	}
	snap := locked.snap
	view.Counted(snap, locked.c, count, s.opts.Tokenizer.Name(), locked.unsent, locked.reported)
	locked.cat.Chars = s.tok.SkillChars
	snap.Skills = view.SkillStatuses(locked.cat)
	snap.MCP = mcpInfo(&s.opts)
	snap.Estimated = estimated
	return snap
}

// snapLocked is the part of a snapshot taken under the lock: the
// composition, the fields that need no counting, and what the counting
// and the skills' statuses need of the state, copied.
type snapLocked struct {
	c    *rulebook.Next
	snap *view.Snapshot
	cat  view.SkillSet
	// unsent are the notes waiting for the next user message; reported
	// the last call whose usage the endpoint reported.
	unsent   string
	reported *rulebook.CallRecord
}

func (f *frame) snapLocked() snapLocked {
	c := rulebook.ComposeNext(f.st, f.w.World)
	l := snapLocked{c: c, unsent: strings.Join(f.st.Unsent, "\n"),
		cat:  view.SkillSet{Catalog: f.opts.Catalog, Sel: f.w.Sel, Loaded: map[string]bool{}, Limits: f.st.Settings},
		snap: view.Live(f.st, f.w.World, c, view.Origin{BaseURL: f.opts.BaseURL, Demo: f.opts.Demo, Notices: f.w.notices})}
	for _, ls := range f.st.Loaded {
		l.cat.Loaded[ls.Name] = true
	}
	for i := len(f.st.Calls) - 1; i >= 0; i-- {
		if cr := f.st.Calls[i]; cr.Usage != nil {
			l.reported = &cr
			break
		}
	}
	return l
}

func mcpInfo(o *Options) []view.MCPServerInfo {
	var out []view.MCPServerInfo
	for _, st := range o.Runner.MCPStatuses() {
		info := view.MCPServerInfo{Name: st.Name, Target: st.Target, Log: st.Log, State: string(st.State), Why: st.Why, Tools: st.Tools, Launches: st.Launches}
		if !st.NextTry.IsZero() {
			info.NextTry = st.NextTry.UTC().Format(time.RFC3339)
		}
		out = append(out, info)
	}
	return out
}
