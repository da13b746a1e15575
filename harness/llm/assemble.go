package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"skillet/harness/chat"
)

// assembler builds a Reply from the chunks of a stream (or from the one
// whole response of a non-streamed request), reporting pieces through on.
type assembler struct {
	on        func(chat.StreamEvent)
	whole     bool // a non-streamed reply: one message, not deltas
	newID     func() string
	text      strings.Builder
	reasoning strings.Builder
	calls     []*callBuilder
	byIndex   map[int]*callBuilder
	last      *callBuilder
	finish    string
	finished  bool
	usage     *chat.Usage
	// chunks is how many chunks add took in.
	chunks int
	// size is what the reply holds so far (text, reasoning, tool names,
	// arguments and extra keys), and max the most it may hold (0: no bound).
	size, max int
	// mergeWork is how many bytes merging extra keys has read so far.
	mergeWork int
	// hideText and hideReasoning keep the API key out of the pieces
	// reported through on, when a server echoes it.
	hideText, hideReasoning keyFilter
}

// callBuilder is a tool call being put together from fragments.
type callBuilder struct {
	id, name string
	args     strings.Builder
	extra    map[string]json.RawMessage
}

func (a *assembler) emit(ev chat.StreamEvent) {
	if a.on != nil {
		a.on(ev)
	}
}

// add takes in one chunk. An error the server put in it comes back as a
// *chat.APIError.
func (a *assembler) add(c *chunk) error {
	a.chunks++
	if c.Usage != nil {
		a.usage = c.Usage
	}
	for i := range c.Choices {
		ch := &c.Choices[i]
		if ch.Index != 0 { // only the first choice is used
			continue
		}
		// A stream's chunks carry deltas, a whole reply a message; a server
		// that sends both in one chunk says the same thing twice.
		d, m := ch.Delta, ch.Message
		if a.whole && m != nil || d == nil {
			d = nil
		} else {
			m = nil
		}
		if d != nil {
			if err := a.addDelta(d, false); err != nil {
				return err
			}
		}
		if m != nil {
			if err := a.addDelta(m, true); err != nil {
				return err
			}
		}
		if ch.FinishReason != nil && *ch.FinishReason != "" {
			a.finish = *ch.FinishReason
			a.finished = true
		}
	}
	if !isNull(c.Error) {
		return apiError(200, c.Error)
	}
	if a.finish == "error" {
		return &chat.APIError{Status: 200, Message: `the server ended the reply with finish_reason "error" and no message`}
	}
	return nil
}

// addDelta takes in a stream's delta, or a whole message, where each tool
// call is a call of its own. A reply that grows past a.max ends with an
// error; what arrived before the delta that passed it is kept.
func (a *assembler) addDelta(d *delta, whole bool) error {
	r, t := d.reasoning(), d.text()
	n := len(r) + len(t)
	for i := range d.ToolCalls {
		f := &d.ToolCalls[i].Function
		if f.Name != nil {
			n += len(*f.Name)
		}
		if f.Arguments != nil {
			n += len(*f.Arguments)
		}
		for _, v := range d.ToolCalls[i].Extra {
			n += len(v)
		}
	}
	if a.max > 0 && a.size+n > a.max {
		return fmt.Errorf("model reply: longer than the %d MiB a reply may hold (text, reasoning and tool-call arguments); the rest was not read", a.max>>20)
	}
	a.size += n
	if r != "" {
		a.reasoning.WriteString(r)
		if out := a.hideReasoning.feed(r); out != "" {
			a.emit(chat.StreamEvent{Kind: chat.EventReasoning, Text: out})
		}
	}
	if t != "" {
		a.text.WriteString(t)
		if out := a.hideText.feed(t); out != "" {
			a.emit(chat.StreamEvent{Kind: chat.EventText, Text: out})
		}
	}
	for i := range d.ToolCalls {
		// Without an index, the second call in one delta cannot be a
		// fragment of the first.
		p := &d.ToolCalls[i]
		a.addToolCall(p, whole || i > 0 && p.Index == nil)
	}
	return nil
}

// flush reports the pieces the key filters still hold: the reply is over.
func (a *assembler) flush() {
	if out := a.hideReasoning.flush(); out != "" {
		a.emit(chat.StreamEvent{Kind: chat.EventReasoning, Text: out})
	}
	if out := a.hideText.flush(); out != "" {
		a.emit(chat.StreamEvent{Kind: chat.EventText, Text: out})
	}
}

// addToolCall merges one fragment into the call it belongs to. Servers key
// fragments by index (from 0 or from 1), or send no index at all, where a new
// id starts a new call and a fragment with neither continues the last one.
func (a *assembler) addToolCall(p *toolCallPiece, fresh bool) {
	b := a.callFor(p, fresh)
	if p.ID != "" {
		b.id = p.ID
	}
	if name := p.Function.Name; name != nil && *name != "" && *name != b.name {
		// A name repeated in full on every fragment is not appended again;
		// a name sent as "" later does not erase it.
		hadName := b.name != ""
		b.name += *name
		if !hadName {
			a.emit(chat.StreamEvent{Kind: chat.EventToolCall, Text: a.hideText.hide(b.name)})
		}
	}
	if args := p.Function.Arguments; args != nil && *args != "" {
		frag := string(*args)
		// Some servers repeat the whole arguments on the last fragment.
		if !(b.args.Len() == len(frag) && b.args.String() == frag && json.Valid([]byte(frag))) {
			b.args.WriteString(frag)
		}
	}
	for k, v := range p.Extra {
		if b.extra == nil {
			b.extra = map[string]json.RawMessage{}
		}
		// Merging re-reads what came before: past a budget, a server
		// sending endless fragments gets its last value kept instead.
		if old := b.extra[k]; old != nil && a.mergeWork < maxMergeWork {
			a.mergeWork += len(old) + len(v)
			b.extra[k] = mergeJSON(old, v)
		} else {
			b.extra[k] = v
		}
	}
}

func (a *assembler) callFor(p *toolCallPiece, fresh bool) *callBuilder {
	if fresh {
		a.last = a.newCall()
		return a.last
	}
	if p.Index != nil {
		b := a.byIndex[*p.Index]
		if b == nil || (p.ID != "" && b.id != "" && p.ID != b.id) {
			b = a.newCall()
			if a.byIndex == nil {
				a.byIndex = map[int]*callBuilder{}
			}
			a.byIndex[*p.Index] = b
		}
		a.last = b
		return b
	}
	if a.last == nil || (p.ID != "" && p.ID != a.last.id && (a.last.id != "" || a.last.name != "" && p.Function.Name != nil && *p.Function.Name != "")) {
		a.last = a.newCall()
	}
	return a.last
}

func (a *assembler) newCall() *callBuilder {
	b := &callBuilder{}
	a.calls = append(a.calls, b)
	return b
}

// reply is the Reply so far. A stream that ended without a finish reason is
// interrupted and keeps no tool call, since a half-built call must not run.
// Calls that never got a name cannot run either and are left out.
func (a *assembler) reply(stream bool) *chat.Reply {
	r := &chat.Reply{
		// exact copies: a builder's buffer is up to twice its text, and a
		// session keeps every reply for as long as it runs
		Message:      chat.Message{Role: chat.RoleAssistant, Content: strings.Clone(a.text.String())},
		Reasoning:    strings.Clone(a.reasoning.String()),
		FinishReason: a.finish,
		Usage:        a.usage,
		Interrupted:  stream && !a.finished,
	}
	if r.Interrupted {
		return r
	}
	for _, b := range a.calls {
		if b.name == "" {
			continue
		}
		tc := chat.ToolCall{ID: b.id, Type: "function", Function: chat.FunctionCall{Name: b.name, Arguments: strings.Clone(b.args.String())}, Extra: b.extra}
		if tc.ID == "" {
			tc.ID = a.newID()
		}
		if strings.TrimSpace(tc.Function.Arguments) == "" {
			tc.Function.Arguments = "{}"
		}
		r.Message.ToolCalls = append(r.Message.ToolCalls, tc)
	}
	return r
}

// maxMergeWork bounds the bytes merging a reply's extra keys may read; real
// servers send a few small fragments of them.
const maxMergeWork = 1 << 20

// mergeJSON merges a fragment's value for an extra key into what came
// before: objects merge key by key, anything else is replaced. A value
// repeated unchanged keeps its bytes, so it goes back exactly as it came.
func mergeJSON(old, next json.RawMessage) json.RawMessage {
	if old == nil || bytes.Equal(old, next) {
		return next
	}
	var o, n map[string]json.RawMessage
	if json.Unmarshal(old, &o) != nil || json.Unmarshal(next, &n) != nil || o == nil || n == nil {
		return next
	}
	for k, v := range n {
		o[k] = mergeJSON(o[k], v)
	}
	merged, err := json.Marshal(o)
	if err != nil {
		return next
	}
	return merged
}

// callID numbers calls that came without an id.
func callID(n int64) string { return "call_" + strconv.FormatInt(n, 10) }

// Assemble puts a recorded reply (Reply.Raw: an event stream, or one JSON
// body) together again the way the client did when it arrived, and says
// how many chunks it held, so what the inspector shows of a call is what
// the session read. A raw reply that breaks off reads as far as it goes.
func Assemble(raw string) (reply *chat.Reply, chunks int) {
	asm := &assembler{newID: func() string { return "" }, max: maxBody}
	stream := !strings.HasPrefix(strings.TrimSpace(raw), "{")
	if stream {
		_, _ = readStream(strings.NewReader(raw), asm, nil)
	} else {
		asm.whole = true
		_ = readWhole(strings.NewReader(raw), asm)
	}
	asm.flush()
	return asm.reply(stream), asm.chunks
}
