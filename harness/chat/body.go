package chat

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// A request body is encoded by hand around the message texts: encoding
// the Request by reflection encodes each message twice (its MarshalJSON,
// then the outer encoder checking and copying what that returned), which
// for a body holding a long skill text costs more than the rest of a model
// call. The bytes are those encoding/json would write: every string goes
// through its encoder, and the small nested values (tool calls, tools,
// stream options) are encoded by it whole.

// bodyWriter appends JSON to one buffer, strings through one encoder.
type bodyWriter struct {
	buf bytes.Buffer
	enc *json.Encoder
	err error
}

func newBodyWriter(size int) *bodyWriter {
	w := &bodyWriter{}
	w.buf.Grow(size)
	w.enc = json.NewEncoder(&w.buf)
	w.enc.SetEscapeHTML(false)
	return w
}

func (w *bodyWriter) raw(s string) { w.buf.WriteString(s) }

// value appends v as MarshalPlain encodes it.
func (w *bodyWriter) value(v any) {
	if w.err != nil {
		return
	}
	if w.err = w.enc.Encode(v); w.err == nil {
		w.buf.Truncate(w.buf.Len() - 1) // Encode's newline
	}
}

func (w *bodyWriter) message(m *Message) {
	w.raw(`{"role":`)
	w.value(m.Role)
	w.raw(`,"content":`)
	if m.Role == RoleAssistant && m.Content == "" && len(m.ToolCalls) > 0 {
		w.raw("null")
	} else {
		w.value(m.Content)
	}
	if len(m.ToolCalls) > 0 {
		w.raw(`,"tool_calls":`)
		w.value(m.ToolCalls)
	}
	if m.ToolCallID != "" {
		w.raw(`,"tool_call_id":`)
		w.value(m.ToolCallID)
	}
	w.raw("}")
}

// encodeBody writes r as MarshalPlain(r) would.
func encodeBody(r *Request) ([]byte, error) {
	size := 256
	for i := range r.Messages {
		size += len(r.Messages[i].Content) + 64
	}
	w := newBodyWriter(size)
	w.raw(`{"model":`)
	w.value(r.Model)
	w.raw(`,"messages":`)
	if r.Messages == nil {
		w.raw("null")
	} else {
		w.raw("[")
		for i := range r.Messages {
			if i > 0 {
				w.raw(",")
			}
			w.message(&r.Messages[i])
		}
		w.raw("]")
	}
	if len(r.Tools) > 0 {
		w.raw(`,"tools":`)
		w.value(r.Tools)
	}
	if r.Stream {
		w.raw(`,"stream":true`)
	}
	if r.StreamOptions != nil {
		w.raw(`,"stream_options":`)
		w.value(r.StreamOptions)
	}
	w.raw("}")
	if w.err != nil {
		return nil, fmt.Errorf("encode chat request: %w", w.err)
	}
	return w.buf.Bytes(), nil
}
