package harness

import (
	"context"
	"errors"
	"strings"

	"skillet/harness/chat"
	"skillet/harness/event"
	"skillet/harness/rulebook"
)

// ErrTurnRunning is returned when a turn or command is asked for while a
// turn runs.
var ErrTurnRunning = errors.New("a turn or command is running; wait for it or cancel it (Esc)")

// cancelledResult is the result of a tool call that never ran because the
// user cancelled (R25).
const cancelledResult = rulebook.CancelledResult

// Turn runs one turn: it records the user's message, re-reads skills from
// disk (R17), preloads (R16) or pastes (R22), then calls the model and runs
// tools until the model answers without tool calls, a limit is hit (R12,
// R24) or ctx is cancelled (R25). The turn is recorded whatever happens; a
// model error is also returned.
func (s *Session) Turn(ctx context.Context, text string) (*event.TurnEnd, error) {
	if strings.TrimSpace(text) == "" {
		return nil, errors.New("turn: the message is empty")
	}
	if err := s.acquire(); err != nil {
		return nil, err
	}
	defer s.release()
	// the session is ours: the turn number holds until the start is
	// recorded, and the mentioned skills' files are read outside the lock
	m := read(s, func(f *frame) rulebook.Mentioned { return rulebook.Mentions(f.st, f.w.World, text) })
	start := &event.TurnStart{Header: event.Header{Turn: m.Turn}, Text: text}
	start.Mentions, start.Messages = activateMentioned(m)
	s.emit(start)
	s.syncSkills()
	s.preloadSkills()
	if !s.settingsNow().LoadSkillTool {
		s.pasteSkills(text)
	}
	stop, err := s.loop(ctx)
	end := s.finishTurn(stop)
	if jerr := s.syncJournal(); jerr != nil {
		s.emit(&event.Error{Message: "journal: " + jerr.Error()})
	}
	return end, err
}

// acquire marks the session busy for a turn or a command that changes it;
// only one runs at a time, so none sees another's half-done changes.
func (s *Session) acquire() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.busy {
		return ErrTurnRunning
	}
	s.busy = true
	return nil
}

func (s *Session) release() {
	s.mu.Lock()
	s.busy = false
	s.mu.Unlock()
}

func (s *Session) settingsNow() event.Settings {
	return read(s, func(f *frame) event.Settings { return f.st.Settings })
}

// loop makes model calls until the turn ends.
func (s *Session) loop(ctx context.Context) (event.StopReason, error) {
	for call := 1; ; call++ {
		if ctx.Err() != nil {
			return event.StopCancelled, nil
		}
		c := s.composeCall(ctx, call)
		body, err := c.Request.Body()
		if err != nil {
			s.emit(&event.Error{Message: err.Error()})
			return event.StopError, err
		}
		s.emit(&event.ModelCall{Call: call, Request: body, Offered: nonNil(c.Offered), LeftOff: c.LeftOff, Scores: c.Scores, Delivered: nonNilUses(c.DeliveredUses), Reused: c.ReusedUses, Listing: c.Listing})
		reply, partial, err := s.complete(ctx, call, c.Request, body)
		if err != nil {
			if ctx.Err() != nil {
				s.emit(&event.Assistant{Call: call, Text: partial.text.String(), Reasoning: partial.reasoning.String(), Interrupted: true, FinishReason: "cancelled", ToolCalls: []event.ToolCallRecord{}})
				return event.StopCancelled, nil
			}
			s.emit(&event.Error{Message: err.Error()})
			if partial.text.Len() > 0 || partial.reasoning.Len() > 0 {
				s.emit(&event.Assistant{Call: call, Text: partial.text.String(), Reasoning: partial.reasoning.String(), Interrupted: true, ToolCalls: []event.ToolCallRecord{}})
			}
			return event.StopError, err
		}
		calls := reply.Message.ToolCalls
		if reply.Interrupted {
			calls = nil // no half-built call may run
		}
		a := s.assistantEvent(call, reply, calls)
		s.emit(a)
		calls = rulebook.CallsOf(a)
		if reply.Interrupted {
			s.warn("the model's reply ended without a finish reason: it is recorded as interrupted and no tool call ran")
			return event.StopInterrupted, nil
		}
		if len(calls) == 0 {
			if reply.FinishReason == "length" {
				s.warn("the model stopped at its output limit (finish_reason length)")
				return event.StopLength, nil
			}
			return event.StopDone, nil
		}
		if stop := s.runCalls(ctx, calls, c.Live); stop != "" {
			return stop, nil
		}
	}
}

// partialReply is what a reply streamed before it was cut short. The
// builders grow in place: a long reply streamed in many chunks is not
// copied again at each one.
type partialReply struct{ text, reasoning strings.Builder }

// complete calls the model with req, whose encoding is body, turning its
// stream into delta events.
func (s *Session) complete(ctx context.Context, call int, req *chat.Request, body []byte) (*chat.Reply, *partialReply, error) {
	p := &partialReply{}
	m := read(s, func(*frame) chat.Model { return s.model })
	send := m.Complete
	if bm, ok := m.(chat.BodyModel); ok {
		send = func(ctx context.Context, req *chat.Request, on func(chat.StreamEvent)) (*chat.Reply, error) {
			return bm.CompleteBody(ctx, req, body, on)
		}
	}
	reply, err := send(ctx, req, func(ev chat.StreamEvent) {
		switch ev.Kind {
		case chat.EventText:
			p.text.WriteString(ev.Text)
			s.emit(&event.TextDelta{Call: call, Text: ev.Text})
		case chat.EventReasoning:
			p.reasoning.WriteString(ev.Text)
			s.emit(&event.ReasoningDelta{Call: call, Text: ev.Text})
		case chat.EventRetry:
			msg := ""
			if ev.Err != nil {
				msg = ev.Err.Error()
			}
			s.emit(&event.Retry{Call: call, Attempt: ev.Attempt, WaitMS: ev.Wait.Milliseconds(), Message: msg})
		}
	})
	if err == nil && reply == nil {
		err = errors.New("model returned no reply")
	}
	return reply, p, err
}

// assistantEvent records a reply. Every tool call gets an id no other call
// of the session has: results are matched to calls by id, and some servers
// send none or restart their numbering.
func (s *Session) assistantEvent(call int, r *chat.Reply, calls []chat.ToolCall) *event.Assistant {
	a := &event.Assistant{Call: call, Text: r.Message.Content, Reasoning: r.Reasoning, FinishReason: r.FinishReason, Usage: r.Usage, Interrupted: r.Interrupted, Raw: r.Raw, ToolCalls: []event.ToolCallRecord{}}
	a.ToolCalls = read(s, func(f *frame) []event.ToolCallRecord { return rulebook.CallIDs(f.st, call, calls) })
	return a
}

func nonNilUses(u []event.Use) []event.Use {
	if u == nil {
		return []event.Use{}
	}
	return u
}

// runCalls answers every tool call of one assistant message, in order. Each
// call gets exactly one result, whatever happens (R24, R25).
func (s *Session) runCalls(ctx context.Context, calls []chat.ToolCall, live *toolset) event.StopReason {
	var stop event.StopReason
	for _, tc := range calls {
		var refusal *event.ToolResult
		s.step(func(st *rulebook.State, w *rulebook.World) []event.Event {
			refusal, stop = rulebook.GateCall(st, tc, ctx.Err() != nil, stop)
			if refusal == nil {
				return nil
			}
			return []event.Event{refusal}
		})
		if refusal == nil {
			s.dispatch(ctx, tc, live, false)
		}
	}
	s.step(func(st *rulebook.State, w *rulebook.World) []event.Event { return rulebook.CallsEnded(st, stop) })
	return stop
}

// finishTurn records the turn's end with Offered / Delivered / Loaded (R20)
// and uses (R21).
func (s *Session) finishTurn(stop event.StopReason) *event.TurnEnd {
	var end *event.TurnEnd
	s.step(func(st *rulebook.State, w *rulebook.World) []event.Event {
		end = rulebook.TurnEnd(st, stop)
		return []event.Event{end}
	})
	return end
}
