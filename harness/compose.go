package harness

import (
	"context"
	"skillet/harness/event"
	"skillet/harness/rulebook"
)

// composition is one request as composed; callPlan one model call's (see
// rulebook.Next and rulebook.CallPlan).
type (
	composition = rulebook.Next
	callPlan    = rulebook.CallPlan
)

// composeCall prepares one model call of the running turn. MCP servers the
// loaded skills need are asked first, without the lock; tools left out are
// recorded before composing, so the request carries their harness.log
// lines; then the request is composed and what the rule book tracks about
// it is gathered for the model_call event: Offered and Delivered (R20),
// skill and reused tool uses (R21). Window trims (R9), text out of window
// (R11) and skills left off the list (R10) are emitted as they happen.
func (s *Session) composeCall(ctx context.Context, call int) *callPlan {
	refs := read(s, func(f *frame) []string {
		need := rulebook.LoadedSkills(f.st)
		if f.st.Settings.FreezePrompt && f.st.Frozen == nil {
			need = append(need, f.w.Sel.Enabled...)
		}
		return rulebook.MCPRefs(f.w.World, need)
	})
	logs := s.prefetchMCP(ctx, refs)
	s.step(func(st *rulebook.State, w *rulebook.World) []event.Event {
		var out []event.Event
		for _, l := range rulebook.Unwarned(st.Cur, append(logs, rulebook.BuildTools(st, w).Dropped...)) {
			out = append(out, &event.Warning{Message: l, Log: true})
		}
		return out
	})
	s.step(func(st *rulebook.State, w *rulebook.World) []event.Event {
		if st.Settings.FreezePrompt && st.Frozen == nil {
			return []event.Event{rulebook.Freeze(st, w, rulebook.ComposeNext(st, w))}
		}
		return nil
	})
	var p *callPlan
	s.step(func(st *rulebook.State, w *rulebook.World) []event.Event {
		p = rulebook.PlanCall(st, w, call)
		return p.Events
	})
	return p
}
