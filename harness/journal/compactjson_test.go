package journal

import (
	"bytes"
	"encoding/json"
	"skillet/harness/event"
	"testing"

	"skillet/harness/chat"
)

// compactValid is what compactEnd must accept: JSON that encoding/json
// finds valid and compacts to itself.
func compactValid(b []byte) bool {
	if !json.Valid(b) {
		return false
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return false
	}
	return bytes.Equal(buf.Bytes(), b)
}

func acceptsWhole(b []byte) bool {
	end, ok := compactEnd(b, 0)
	return ok && end == len(b)
}

var jsonSeeds = []string{
	`{}`, `[]`, `""`, `0`, `-0`, `1.5e+3`, `-12.0E-7`, `true`, `false`, `null`,
	`{"a":[1,2,{"b":"c\"d\\e\/f\b\f\n\r\t\u00e9"}],"x":null}`,
	`{"role":"tool","content":"<x> & \u2028 é \xff"}`,
	`{ "a":1}`, `[1 ,2]`, `01`, `1.`, `.5`, `1e`, `-`, `"\x01"`, `"\q"`, `"\u12g4"`, `tru`, `nulll`,
	`{"a"}`, `{"a":}`, `[1,]`, `{,}`, `"open`, `[[[[`, "{\"a\":1}\n", ` 1`, `1 `, `{"a":1,}`, `[1]]`,
}

func TestCompactEndAcceptsWhatEncodingJSONKeepsAsIs(t *testing.T) {
	for _, s := range jsonSeeds {
		if got, want := acceptsWhole([]byte(s)), compactValid([]byte(s)); got != want {
			t.Errorf("%q: accepted %v, encoding/json %v", s, got, want)
		}
	}
	deep := bytes.Repeat([]byte("["), maxDepth+1)
	if acceptsWhole(append(deep, bytes.Repeat([]byte("]"), maxDepth+1)...)) {
		t.Error("nesting deeper than encoding/json allows was accepted")
	}
}

func FuzzCompactEnd(f *testing.F) {
	for _, s := range jsonSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := acceptsWhole(b), compactValid(b); got != want {
			t.Fatalf("%q: accepted %v, encoding/json %v", b, got, want)
		}
	})
}

// decoderSplit is splitRequest as encoding/json's decoder cut bodies, the
// reference the scanner must agree with on every body it splits. The
// scanner may leave whole what the decoder split (a body with spaces, an
// escaped key, a key twice): such a body is stored as it is.
func decoderSplit(body []byte) (SplitBody, bool) {
	var sp SplitBody
	dec := json.NewDecoder(bytes.NewReader(body))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return sp, false
	}
	msgEnd, toolsStart, toolsEnd := -1, -1, -1
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return sp, false
		}
		switch key {
		case "messages":
			if t, err := dec.Token(); err != nil || t != json.Delim('[') || toolsStart >= 0 {
				return sp, false
			}
			sp.Head = string(body[:dec.InputOffset()])
			prev := int(dec.InputOffset())
			for dec.More() {
				var raw json.RawMessage
				if err := dec.Decode(&raw); err != nil {
					return sp, false
				}
				end := int(dec.InputOffset())
				start := end - len(raw)
				if between := string(body[prev:start]); (len(sp.Msgs) == 0 && between != "") || (len(sp.Msgs) > 0 && between != ",") {
					return sp, false
				}
				sp.Msgs = append(sp.Msgs, body[start:end])
				prev = end
			}
			msgEnd = prev
			if _, err := dec.Token(); err != nil {
				return sp, false
			}
		case "tools":
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil || msgEnd < 0 {
				return sp, false
			}
			toolsEnd = int(dec.InputOffset())
			toolsStart = toolsEnd - len(raw)
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return sp, false
			}
		}
	}
	if msgEnd < 0 {
		return sp, false
	}
	if toolsStart < 0 {
		sp.Mid = string(body[msgEnd:])
		return sp, true
	}
	sp.Mid, sp.Tools, sp.Tail = string(body[msgEnd:toolsStart]), body[toolsStart:toolsEnd], string(body[toolsEnd:])
	return sp, true
}

func sameSplit(t *testing.T, body []byte) {
	t.Helper()
	got, ok := SplitRequest(body)
	want, wantOK := decoderSplit(body)
	if ok && !wantOK {
		t.Fatalf("%q: split where the decoder does not", body)
	}
	if !ok {
		if wantOK && compactValid(body) && !bytes.Contains(body, []byte(`\`)) && bytes.Count(body, []byte(`"messages"`)) <= 1 && bytes.Count(body, []byte(`"tools"`)) <= 1 {
			t.Fatalf("%q: not split, the decoder splits it", body)
		}
		return
	}
	if got.Head != want.Head || got.Mid != want.Mid || got.Tail != want.Tail || !bytes.Equal(got.Tools, want.Tools) || len(got.Msgs) != len(want.Msgs) {
		t.Fatalf("%q:\n got %+v\nwant %+v", body, got, want)
	}
	for i := range got.Msgs {
		if !bytes.Equal(got.Msgs[i], want.Msgs[i]) {
			t.Fatalf("%q: message %d is %q, want %q", body, i, got.Msgs[i], want.Msgs[i])
		}
	}
}

var bodySeeds = []string{
	`{"model":"m","messages":[{"role":"system","content":"a <b> \"c\""},{"role":"user","content":"x"}],"tools":[{"type":"function","function":{"name":"f"}}],"stream":true}`,
	`{"model":"m","messages":[]}`,
	`{"model":"m","messages":[],"tools":[]}`,
	`{"messages":[{"a":1}],"model":"m","tools":[1],"stream_options":{"include_usage":true}}`,
	`{"tools":[1],"messages":[{"a":1}]}`,
	`{"model":"m"}`,
	`{"model":"m","messages":[{"a":1}, {"b":2}]}`,
	`{"model":"m","messages":[{"a":1}]} `,
	`{"model":"m","messages":{"a":1}}`,
	`{}`,
	`[]`,
}

func TestSplitRequestCutsAsTheDecoderDid(t *testing.T) {
	for _, s := range bodySeeds {
		sameSplit(t, []byte(s))
	}
}

func FuzzSplitRequest(f *testing.F) {
	for _, s := range bodySeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) { sameSplit(t, body) })
}

// TestBlobLinesAreWhatEncodingJSONWrites: the writer builds JSON blob
// lines by hand; each must be the line encoding/json writes for it, and
// read back to the bytes of the request.
func TestBlobLinesAreWhatEncodingJSONWrites(t *testing.T) {
	for i, s := range bodySeeds {
		if !json.Valid([]byte(s)) {
			continue
		}
		c := NewCodec()
		lines, err := c.Encode(&event.ModelCall{Call: i + 1, Request: []byte(s)})
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range lines[:len(lines)-1] {
			var bl blobLine
			if err := json.Unmarshal(line, &bl); err != nil {
				t.Fatalf("%q: %v", line, err)
			}
			want, err := chat.MarshalPlain(bl)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(line, want) {
				t.Fatalf("blob line\n got %s\nwant %s", line, want)
			}
		}
		r := NewCodec()
		for _, line := range lines {
			e, err := r.Decode(line)
			if err != nil {
				t.Fatalf("%q: %v", line, err)
			}
			// a body stored whole is compacted as any JSON field is
			var want bytes.Buffer
			_ = json.Compact(&want, []byte(s))
			if mc, ok := e.(*event.ModelCall); ok && string(mc.Request) != want.String() {
				t.Fatalf("read back %q, wrote %q", mc.Request, s)
			}
		}
	}
}
