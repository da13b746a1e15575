package uitest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"skillet/harness"
	"skillet/skills"
)

func problem(msg string) skills.Problem {
	field, text, ok := strings.Cut(msg, ": ")
	if !ok {
		return skills.Problem{Field: "file", Message: msg}
	}
	return skills.Problem{Field: field, Message: text}
}

// Emit stamps and sends one event.
func (e *Engine) Emit(ev harness.Event) {
	e.mu.Lock()
	ev.Head().Entry = len(e.entries)
	if harness.IsMark(ev) {
		e.marks = append(e.marks, ev)
	}
	e.mu.Unlock()
	if e.OnEvent != nil {
		e.OnEvent(ev)
	}
}

// Marks returns the mark events emitted so far, as the harness does.
func (e *Engine) Marks() []harness.Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]harness.Event(nil), e.marks...)
}

func (e *Engine) record(en harness.Entry) harness.Entry {
	e.mu.Lock()
	en.Index = len(e.entries)
	en.Message = -1
	if en.Kind != harness.EntryNote {
		n := 0
		for _, x := range e.entries {
			if x.Message >= 0 {
				n++
			}
		}
		en.Message = n
	}
	en.Turn = e.snap.Turn
	e.entries = append(e.entries, en)
	e.recompose()
	e.mu.Unlock()
	return en
}

// Note records a note entry.
func (e *Engine) Note(kind, text string) {
	e.record(harness.Entry{Kind: harness.EntryNote, NoteKind: kind, Text: text})
}

// Update changes the snapshot under the lock.
func (e *Engine) Update(f func(s *harness.Snapshot)) {
	e.mu.Lock()
	f(&e.snap)
	e.mu.Unlock()
}

// StartTurn records the user's message and opens a turn.
func (e *Engine) StartTurn(text string) int {
	e.mu.Lock()
	e.snap.Turn++
	e.snap.Running = true
	e.snap.Usage = harness.TurnUsage{}
	e.modelCall = 0
	turn := e.snap.Turn
	e.mu.Unlock()
	e.record(harness.Entry{Kind: harness.EntryUser, Text: text})
	e.Emit(&harness.TurnStart{Header: harness.Header{Turn: turn}, Text: text})
	return turn
}

// ModelCall records a model call with a request body built from the
// current window.
func (e *Engine) ModelCall() int {
	e.mu.Lock()
	e.modelCall++
	e.snap.Usage.ModelCalls++
	call, turn := e.modelCall, e.snap.Turn
	msgs := []map[string]any{{"role": "system", "content": e.snap.Instructions}}
	for _, en := range e.entries[e.snap.Window.FirstEntry:] {
		if en.Message < 0 {
			continue
		}
		m := map[string]any{"role": string(en.Kind), "content": en.Text}
		if en.ToolCallID != "" {
			m["tool_call_id"] = en.ToolCallID
		}
		msgs = append(msgs, m)
	}
	var tools []map[string]any
	for _, t := range e.snap.Tools {
		tools = append(tools, map[string]any{"type": "function", "function": map[string]any{"name": t.Name, "description": t.Description, "parameters": t.Parameters}})
	}
	req, _ := json.Marshal(map[string]any{"model": e.snap.Model, "messages": msgs, "tools": tools, "stream": true})
	e.calls = append(e.calls, harness.CallRecord{Turn: turn, Call: call, Request: req})
	e.mu.Unlock()
	e.Emit(&harness.ModelCall{Header: harness.Header{Turn: turn}, Call: call, Request: req})
	return call
}

// Stream sends text as deltas, chunk by chunk, honouring ctx.
func (e *Engine) Stream(ctx context.Context, call int, text string, reasoning bool) error {
	turn := e.turn()
	for _, chunk := range chunks(text, 12) {
		if err := ctx.Err(); err != nil {
			return err
		}
		if reasoning {
			e.Emit(&harness.ReasoningDelta{Header: harness.Header{Turn: turn}, Call: call, Text: chunk})
		} else {
			e.Emit(&harness.TextDelta{Header: harness.Header{Turn: turn}, Call: call, Text: chunk})
		}
		if e.Delay > 0 {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(e.Delay):
			}
		}
	}
	return nil
}

func chunks(s string, n int) []string {
	var out []string
	r := []rune(s)
	for len(r) > 0 {
		k := min(n, len(r))
		out = append(out, string(r[:k]))
		r = r[k:]
	}
	return out
}

func (e *Engine) turn() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.snap.Turn
}

// Assistant records a whole assistant message and its raw reply.
func (e *Engine) Assistant(call int, text, reasoning string, calls ...harness.ToolCallRecord) {
	e.mu.Lock()
	raw, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": text}}}})
	for i := range e.calls {
		if e.calls[i].Turn == e.snap.Turn && e.calls[i].Call == call {
			e.calls[i].Reply = string(raw)
		}
	}
	turn := e.snap.Turn
	e.mu.Unlock()
	e.record(harness.Entry{Kind: harness.EntryAssistant, Text: text, Reasoning: reasoning, ToolCalls: calls})
	finish := "stop"
	if len(calls) > 0 {
		finish = "tool_calls"
	}
	e.Emit(&harness.Assistant{Header: harness.Header{Turn: turn}, Call: call, Text: text, Reasoning: reasoning, ToolCalls: calls, FinishReason: finish, Raw: string(raw)})
}

// NewCall makes a tool call record with a fresh id.
func (e *Engine) NewCall(name string, args any) harness.ToolCallRecord {
	e.mu.Lock()
	e.callID++
	id := fmt.Sprintf("call_%d", e.callID)
	e.mu.Unlock()
	b, _ := json.Marshal(args)
	return harness.ToolCallRecord{ID: id, Name: name, Arguments: string(b)}
}

// RunTool answers a tool call: load_skill loads, an unknown tool is
// refused (R6), an `ask` tool asks the approver (R15), other tools answer
// with result.
func (e *Engine) RunTool(ctx context.Context, c harness.ToolCallRecord, result string) harness.Entry {
	turn := e.turn()
	var tool *harness.ToolInfo
	snap := e.Snapshot()
	for i := range snap.Tools {
		if snap.Tools[i].Name == c.Name {
			tool = &snap.Tools[i]
		}
	}
	res := harness.Entry{Kind: harness.EntryTool, ToolCallID: c.ID, ToolName: c.Name}
	switch {
	case tool == nil:
		res.Text, res.Refused, res.IsError = "Unknown tool: "+c.Name, true, true
	case c.Name == "load_skill":
		var a struct{ Name string }
		_ = json.Unmarshal([]byte(c.Arguments), &a)
		line, err := e.load(a.Name, "model", c.ID)
		if err != nil {
			res.Text, res.IsError = err.Error(), true
		} else {
			res.Text = line
		}
	case tool.Approval == harness.ApproveAsk && !e.isApproved(c.Name):
		dec := harness.DecisionDeny
		if e.Approver != nil {
			d, err := e.Approver(ctx, harness.ApprovalRequest{ToolCallID: c.ID, Name: c.Name, Arguments: c.Arguments, Skill: tool.Skill, Kind: string(tool.Kind)})
			if err == nil {
				dec = d
			}
		}
		e.Emit(&harness.Approval{Header: harness.Header{Turn: turn}, ToolCallID: c.ID, Name: c.Name, Decision: dec})
		if dec == harness.DecisionAll {
			e.mu.Lock()
			e.approved[c.Name] = true
			e.mu.Unlock()
		}
		if dec == harness.DecisionDeny {
			res.Text, res.Refused, res.IsError = "denied by the user", true, true
			break
		}
		res.Text = result
	default:
		res.Text = result
	}
	if ctx.Err() != nil && res.Text == result {
		res.Text, res.Refused = "cancelled by user", true
	}
	if !res.Refused {
		e.Emit(&harness.ToolStarted{Header: harness.Header{Turn: turn}, ToolCallID: c.ID, Name: c.Name, Arguments: c.Arguments})
	}
	e.mu.Lock()
	e.snap.Usage.ToolCalls++
	e.mu.Unlock()
	rec := e.record(res)
	e.Emit(&harness.ToolResult{Header: harness.Header{Turn: turn}, ToolCallID: c.ID, Name: c.Name, Content: res.Text, IsError: res.IsError})
	return rec
}

func (e *Engine) isApproved(name string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.approved[name]
}

// EndTurn closes the turn with its Offered / Delivered / Loaded record.
func (e *Engine) EndTurn(stop harness.StopReason) *harness.TurnEnd {
	e.mu.Lock()
	e.snap.Running = false
	turn := e.snap.Turn
	var offered, delivered, loaded []string
	for _, s := range e.snap.Skills {
		if s.Enabled && !s.Preload && !s.Shadowed {
			offered = append(offered, s.Name)
		}
	}
	for _, p := range e.snap.Preloaded {
		delivered = append(delivered, p.Name)
	}
	var uses []harness.Use
	for _, l := range e.snap.Loaded {
		if l.LoadedTurn == turn {
			delivered = append(delivered, l.Name)
			if l.By == "model" {
				loaded = append(loaded, l.Name)
			}
			uses = append(uses, harness.Use{Role: "SKILL", Name: l.Name, Version: l.Version, ExecutionID: l.ExecutionID})
		}
	}
	end := &harness.TurnEnd{Header: harness.Header{Turn: turn}, Offered: offered, Delivered: delivered, Loaded: loaded,
		Uses: uses, StopReason: stop, LeftOff: e.snap.LeftOff}
	e.snap.LastTurn = end
	e.mu.Unlock()
	e.Emit(end)
	return end
}

// Turn plays Script (or Demo) for the user's text.
func (e *Engine) Turn(ctx context.Context, text string) (*harness.TurnEnd, error) {
	script := e.Script
	if script == nil {
		script = Demo
	}
	end, err := script(ctx, e, text)
	if err != nil && ctx.Err() != nil {
		e.mu.Lock()
		e.snap.Running = false
		e.mu.Unlock()
		e.record(harness.Entry{Kind: harness.EntryAssistant, Text: "", Interrupted: true})
		return e.EndTurn("cancelled"), fmt.Errorf("turn: %w", ctx.Err())
	}
	return end, err
}

// CallTool runs a tool by hand, as /call does.
func (e *Engine) CallTool(ctx context.Context, name, args string) (*harness.ToolResult, error) {
	if err := e.takeFailure(); err != nil {
		return nil, err
	}
	if !json.Valid([]byte(args)) {
		return nil, fmt.Errorf("call %s: arguments are not JSON: %s", name, args)
	}
	c := e.NewCall(name, json.RawMessage(args))
	e.record(harness.Entry{Kind: harness.EntryAssistant, ToolCalls: []harness.ToolCallRecord{c}, Manual: true})
	en := e.RunTool(ctx, c, fmt.Sprintf(`{"tool":%q,"echo":%s}`, name, args))
	return &harness.ToolResult{Header: harness.Header{Type: harness.TypeToolResult, Turn: en.Turn}, ToolCallID: c.ID, Name: name,
		Content: en.Text, IsError: en.IsError, DurationMS: 3}, nil
}

// ExportMarkdown writes the transcript as Markdown.
func (e *Engine) ExportMarkdown(w io.Writer) error {
	for _, en := range e.Transcript() {
		if _, err := fmt.Fprintf(w, "## %s (turn %d)\n\n%s\n\n", en.Kind, en.Turn, en.Text); err != nil {
			return fmt.Errorf("export: %w", err)
		}
	}
	return nil
}
