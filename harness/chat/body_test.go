package chat

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// reflected is the body as encoding/json writes the Request by reflection:
// what Body wrote before it was written by hand.
func reflected(t testing.TB, r *Request) []byte {
	t.Helper()
	b, err := MarshalPlain(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func sameBody(t testing.TB, r *Request) {
	t.Helper()
	got, err := r.Body()
	if err != nil {
		t.Fatal(err)
	}
	if want := reflected(t, r); !bytes.Equal(got, want) {
		t.Fatalf("body differs from encoding/json's\n got %q\nwant %q", got, want)
	}
}

// texts holds what a string encoder treats specially: quotes, escapes,
// control characters, HTML characters, U+2028/9, invalid UTF-8.
var texts = []string{"", "plain", "\"quoted\" \\ back", "tab\tnew\nline\r\x00\x01\x1f\b\f", "<tag> & amp", "line\u2028para\u2029", "bad \xff\xfe utf8 \xc3", "é ü 日本 🎉", "\x7f del"}

func randomText(r *rand.Rand) string {
	var b []byte
	for range r.IntN(6) {
		b = append(b, texts[r.IntN(len(texts))]...)
		if r.IntN(4) == 0 {
			b = append(b, byte(r.IntN(256)))
		}
	}
	return string(b)
}

func randomRequest(r *rand.Rand) *Request {
	req := &Request{Model: randomText(r), Stream: r.IntN(2) == 0}
	if r.IntN(3) == 0 {
		req.StreamOptions = &StreamOptions{IncludeUsage: r.IntN(2) == 0}
	}
	if r.IntN(5) > 0 {
		req.Messages = []Message{}
	}
	roles := []string{RoleSystem, RoleUser, RoleAssistant, RoleTool, randomText(r)}
	for range r.IntN(6) {
		m := Message{Role: roles[r.IntN(len(roles))], ToolCallID: randomText(r)}
		if r.IntN(3) > 0 {
			m.Content = randomText(r)
		}
		for range r.IntN(3) {
			tc := ToolCall{ID: randomText(r), Type: []string{"", "function"}[r.IntN(2)], Function: FunctionCall{Name: randomText(r), Arguments: []string{"", `{"a":1}`, `{"s":"<x>"}`}[r.IntN(3)]}}
			if r.IntN(3) == 0 {
				tc.Extra = map[string]json.RawMessage{"extra_content": json.RawMessage(`{"google":{"thought_signature":"a<b"}}`)}
			}
			m.ToolCalls = append(m.ToolCalls, tc)
		}
		req.Messages = append(req.Messages, m)
	}
	for range r.IntN(3) {
		req.Tools = append(req.Tools, Tool{Type: ToolTypeFunction, Function: &FunctionDefinition{Name: randomText(r), Description: randomText(r), Parameters: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string","description":"a <b> & c"}}}`)}})
	}
	return req
}

func TestBodyIsWhatEncodingJSONWrites(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		sameBody(t, randomRequest(rng))
	}
	sameBody(t, &Request{})
}

func FuzzBody(f *testing.F) {
	for _, s := range texts {
		f.Add(s, s, true)
	}
	f.Fuzz(func(t *testing.T, content, id string, stream bool) {
		sameBody(t, &Request{Model: id, Stream: stream, Messages: []Message{
			{Role: RoleSystem, Content: content},
			{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: id, Function: FunctionCall{Name: content, Arguments: content}}}},
			{Role: RoleTool, ToolCallID: id, Content: content},
		}})
	})
}

// benchRequest is a request of a loaded 20 KB skill, as the body
// benchmarks write it.
func benchRequest() *Request {
	long := string(bytes.Repeat([]byte("A line of a skill's text, with `code` and <tags> & \"quotes\".\n"), 330))
	return &Request{Model: "m", Stream: true, StreamOptions: &StreamOptions{IncludeUsage: true}, Messages: []Message{
		{Role: RoleSystem, Content: long[:4000]},
		{Role: RoleUser, Content: "parse these SMILES"},
		{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c1", Function: FunctionCall{Name: "load_skill", Arguments: `{"name":"rdkit"}`}}}},
		{Role: RoleTool, ToolCallID: "c1", Content: long},
	}}
}

func BenchmarkBody(b *testing.B) {
	r := benchRequest()
	b.SetBytes(int64(len(reflected(b, r))))
	for b.Loop() {
		if _, err := r.Body(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBodyReflected(b *testing.B) {
	r := benchRequest()
	for b.Loop() {
		reflected(b, r)
	}
}
