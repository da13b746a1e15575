// Rules R1 (the transcript is one valid conversation) and R25 (every tool
// call gets exactly one result), for a journal whose lines were lost.

package rulebook

import (
	"fmt"

	"skillet/harness/event"
)

// Repair makes a journal's events fold into a transcript a strict
// chat-completions API accepts, whatever lines were lost: every tool call
// is answered right after its assistant message, and no result stands
// without its call. A result whose call was on a lost line is dropped; a
// call whose result was lost, or whose tool was running when the session
// ended, gets a result saying so where it belongs. It returns the events
// to fold and one note per repair, and the results the calls still open at
// the end need (the session ended with them in flight), for the caller to
// record. A journal that lost nothing comes back as it was, with no notes.
func Repair(events []event.Event) (fold []event.Event, notes []string, tail []*event.ToolResult) {
	var r Repairer
	for _, e := range events {
		fold = r.Add(fold, e)
	}
	notes, tail = r.End()
	return fold, notes, tail
}

// Repairer is Repair one event at a time, for a reader that folds a
// journal as it streams rather than holding all of its events.
type Repairer struct {
	// open are the calls of the last assistant message, in order; owed
	// counts the results still owed per call id. A result answers only a
	// call of the message just before it, so a server that gives calls of
	// different messages (or of one message) the same id still gets a
	// result for each. started are the ids whose tool began to run.
	open    []event.ToolCallRecord
	owed    map[string]int
	started map[string]bool
	turn    int
	notes   []string
}

func (r *Repairer) close(out []event.Event, why string) []event.Event {
	for _, tc := range r.open {
		if r.owed[tc.ID] == 0 {
			continue
		}
		r.owed[tc.ID]--
		out = append(out, UnansweredResult(tc, r.started[tc.ID], r.turn, why))
		if why != "" {
			r.notes = append(r.notes, fmt.Sprintf("tool call %s (%s) had no result in the journal: %s", tc.ID, tc.Name, why))
		}
	}
	r.open = nil
	clear(r.owed)
	clear(r.started)
	return out
}

// Add appends to out the events to fold for e, the next event of the
// journal: e itself, unless it is a result without its call, after any
// results the calls before it lack.
func (r *Repairer) Add(out []event.Event, e event.Event) []event.Event {
	if r.owed == nil {
		r.owed, r.started = map[string]int{}, map[string]bool{}
	}
	switch e := e.(type) {
	case *event.TurnStart:
		out = r.close(out, "its result was on a damaged or missing line")
		r.turn = e.Turn
	case *event.Assistant:
		out = r.close(out, "its result was on a damaged or missing line")
		r.open = append([]event.ToolCallRecord(nil), e.ToolCalls...)
		for _, tc := range r.open {
			r.owed[tc.ID]++
		}
	case *event.ToolStarted:
		r.started[e.ToolCallID] = true
	case *event.ToolResult:
		if r.owed[e.ToolCallID] == 0 {
			r.notes = append(r.notes, fmt.Sprintf("the result of tool call %s (%s) was dropped: its call was on a damaged or missing line", e.ToolCallID, e.Name))
			return out
		}
		r.owed[e.ToolCallID]--
	}
	return append(out, e)
}

// End returns, once the last event is added, one note per repair and the
// results the calls still open need (see Repair).
func (r *Repairer) End() (notes []string, tail []*event.ToolResult) {
	for _, tc := range r.open {
		if r.owed[tc.ID] > 0 {
			r.owed[tc.ID]--
			tail = append(tail, UnansweredResult(tc, r.started[tc.ID], r.turn, ""))
		}
	}
	return r.notes, tail
}

// UnansweredResult is the result of a call the journal holds no result
// for. A tool that had started may have run — the model must not take it
// for one that never did — while one that had not started did not run.
func UnansweredResult(tc event.ToolCallRecord, started bool, turn int, why string) *event.ToolResult {
	content := "not run: the session ended before this call ran"
	if started {
		content = "interrupted: the session ended while this tool was running; it may have run, and its effects may have happened — check before calling it again"
	}
	if why != "" && !started {
		content = "no result recorded: " + why + "; the call may or may not have run"
	}
	return &event.ToolResult{Header: event.Header{Turn: turn}, ToolCallID: tc.ID, Name: tc.Name, Content: content, IsError: true, Refused: !started && why == ""}
}
