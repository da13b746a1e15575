package why

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"skillet/harness/event"
)

// ErrEncoded says a journal stores content by reference (blob lines, list
// deltas), which only the engine's reader puts back together.
var ErrEncoded = errors.New("the journal stores content by reference")

// ReadJournal reads a session's journal as an explanation needs it: every
// event, but without the bodies of model requests and the raw replies,
// which make most of a long session's bytes and say nothing of a skill's
// fate that the other fields do not. A line that does not decode (torn by
// a crash, say) is skipped and named, "line N: why", in the second result.
// A journal that stores content by reference gives ErrEncoded: read it
// with harness.ReadJournal then.
func ReadJournal(path string) ([]event.Event, []string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("read journal: %w", err)
	}
	var events []event.Event
	var skipped []string
	for n := 1; len(data) > 0; n++ {
		b := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			b, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		b = bytes.TrimSpace(b)
		if len(b) == 0 {
			continue
		}
		if bytes.HasPrefix(b, blobPrefix) {
			return nil, nil, ErrEncoded
		}
		e, err := decode(b)
		if errors.Is(err, ErrEncoded) {
			return nil, nil, err
		}
		if err != nil {
			skipped = append(skipped, fmt.Sprintf("line %d: %v", n, err))
			continue
		}
		events = append(events, e)
	}
	return events, skipped, nil
}

var (
	typePrefix  = []byte(`{"type":"`)
	requestKey  = []byte(`"request":`)
	offeredKey  = []byte(`,"offered":`)
	rawKey      = []byte(`,"raw":"`)
	nullRequest = []byte(`"request":null`)
	blobPrefix  = []byte(`{"type":"blob"`)
	deltaKey    = []byte(`"left_off_delta":`)
	refKey      = []byte(`"request_ref":`)
)

// decode decodes one line, cutting out a model call's request and an
// assistant message's raw reply first. Marshal writes an event's fields in
// their order, "type" first: the request comes just before "offered", and
// "raw" is the assistant's last field. JSON strings escape their quotes, so
// neither key can be matched inside a value. Should a cut line not decode,
// the whole line is tried.
func decode(b []byte) (event.Event, error) {
	var cut []byte
	var e event.Event
	typ := ""
	if bytes.HasPrefix(b, typePrefix) {
		rest := b[len(typePrefix):]
		if k := bytes.IndexByte(rest, '"'); k > 0 {
			typ = string(rest[:k])
			e = fresh(typ)
		}
		switch {
		case bytes.HasPrefix(rest, []byte(event.TypeModelCall+`"`)):
			i, j := bytes.Index(b, requestKey), bytes.LastIndex(b, offeredKey)
			if j > 0 && bytes.Contains(b[j:], deltaKey) || i < 0 && bytes.Contains(b, refKey) {
				return nil, ErrEncoded
			}
			if i > 0 && j > i {
				cut = append(append(append(make([]byte, 0, i+len(nullRequest)+len(b)-j), b[:i]...), nullRequest...), b[j:]...)
			}
		case bytes.HasPrefix(rest, []byte(event.TypeAssistant+`"`)):
			if j := bytes.LastIndex(b, rawKey); j > 0 && bytes.HasSuffix(b, []byte(`"}`)) {
				cut = append(append(make([]byte, 0, j+1), b[:j]...), '}')
			}
		}
	}
	if e == nil {
		return event.Unmarshal(b)
	}
	if cut != nil {
		if json.Unmarshal(cut, e) == nil {
			return e, nil
		}
		e = fresh(typ) // a half-decoded event is not reused
	}
	if err := json.Unmarshal(b, e); err != nil {
		return nil, fmt.Errorf("decode %s event: %w", e.EventType(), err)
	}
	return e, nil
}

// fresh returns an empty event of the types a long session has many of,
// so that a line is decoded once rather than twice (event.Unmarshal reads
// the type first); nil for the others.
func fresh(typ string) event.Event {
	switch typ {
	case event.TypeModelCall:
		return &event.ModelCall{}
	case event.TypeTurnEnd:
		return &event.TurnEnd{}
	case event.TypeWarning:
		return &event.Warning{}
	case event.TypeContextChanged:
		return &event.ContextChanged{}
	case event.TypeToolResult:
		return &event.ToolResult{}
	case event.TypeSkillLoaded:
		return &event.SkillLoaded{}
	case event.TypeAssistant:
		return &event.Assistant{}
	case event.TypeSkillUnloaded:
		return &event.SkillUnloaded{}
	case event.TypeTurnStart:
		return &event.TurnStart{}
	case event.TypeWindowTrimmed:
		return &event.WindowTrimmed{}
	}
	return nil
}
