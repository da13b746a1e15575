package llm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"skillet/harness/chat"
)

// benchTranscript is a realistic streamed reply: 50 chunks shaped like
// OpenAI's (a role chunk, 30 text chunks, a tool call in 17 fragments, the
// finish chunk and a usage chunk), then [DONE].
var benchTranscript = func() string {
	head := `{"id":"chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT","object":"chat.completion.chunk","created":1741569952,"model":"gpt-4o-mini-2024-07-18","system_fingerprint":"fp_06737a9306",`
	var b strings.Builder
	b.WriteString(data(head + `"choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}]}`))
	words := strings.Fields("I will look up the current weather in Paris for you and then summarise what it means for your afternoon walk along the river, including wind and rain chances too.")
	for i := range 30 {
		b.WriteString(data(head + fmt.Sprintf(`"choices":[{"index":0,"delta":{"content":%q},"logprobs":null,"finish_reason":null}]}`, words[i%len(words)]+" ")))
	}
	b.WriteString(data(head + `"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_DdmO9pD3xa9XTPNJ32zg2hcA","type":"function","function":{"name":"get_weather","arguments":""}}]},"logprobs":null,"finish_reason":null}]}`))
	args := `{"city":"Paris","country":"FR","units":"metric","hours":6,"detail":"full"}`
	for i := range 16 {
		lo, hi := i*len(args)/16, (i+1)*len(args)/16
		frag, _ := json.Marshal(args[lo:hi])
		b.WriteString(data(head + `"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":` + string(frag) + `}}]},"logprobs":null,"finish_reason":null}]}`))
	}
	b.WriteString(data(head + `"choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"tool_calls"}],"usage":null}`))
	b.WriteString(data(head + `"choices":[],"usage":{"prompt_tokens":412,"completion_tokens":58,"total_tokens":470,"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}}}`))
	b.WriteString(done)
	return b.String()
}()

func benchServer(b *testing.B) *fakeAPI {
	api := newFakeAPI(b, func(w http.ResponseWriter, r *http.Request, n int) {
		w.Header().Set("Content-Type", "text/event-stream")
		fl := w.(http.Flusher)
		for _, part := range strings.SplitAfter(benchTranscript, "\n\n") {
			w.Write([]byte(part))
			fl.Flush()
		}
	})
	return api
}

// BenchmarkStreamReply is Complete over loopback for benchTranscript.
func BenchmarkStreamReply(b *testing.B) {
	api := benchServer(b)
	c := api.client(b, testKey)
	req := testRequest(true)
	ctx := context.Background()
	var text int
	on := func(ev chat.StreamEvent) { text += len(ev.Text) }
	b.ReportAllocs()
	for b.Loop() {
		reply, err := c.Complete(ctx, req, on)
		if err != nil {
			b.Fatal(err)
		}
		if len(reply.Message.ToolCalls) != 1 || reply.Interrupted {
			b.Fatalf("bad reply: %+v", reply)
		}
		api.mu.Lock()
		api.seen = api.seen[:0]
		api.mu.Unlock()
	}
}

// BenchmarkRawStreamRead is the floor: a plain net/http POST reading the
// same stream line by line and decoding each chunk's JSON into a map.
func BenchmarkRawStreamRead(b *testing.B) {
	api := benchServer(b)
	hc := &http.Client{Transport: &http.Transport{}}
	body, err := testRequest(true).Body()
	if err != nil {
		b.Fatal(err)
	}
	url := api.URL + "/v1/chat/completions"
	b.ReportAllocs()
	for b.Loop() {
		req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+testKey)
		resp, err := hc.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		sc := bufio.NewScanner(resp.Body)
		chunks := 0
		for sc.Scan() {
			line := sc.Bytes()
			if !bytes.HasPrefix(line, []byte("data: ")) || bytes.Equal(line, []byte("data: [DONE]")) {
				continue
			}
			var m map[string]any
			if err := json.Unmarshal(line[6:], &m); err != nil {
				b.Fatal(err)
			}
			chunks++
		}
		resp.Body.Close()
		if chunks != 50 {
			b.Fatalf("%d chunks, want 50", chunks)
		}
		api.mu.Lock()
		api.seen = api.seen[:0]
		api.mu.Unlock()
	}
}

// BenchmarkScrubLongStream scrubs a long reply's 20,000 events for a key
// that none of them holds: the reading pass over every event is what a
// long reply pays when it ends.
func BenchmarkScrubLongStream(b *testing.B) {
	var sb strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&sb, "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"word%d \"}}]}\n\n", i)
	}
	sb.WriteString("data: [DONE]\n\n")
	raw := sb.String()
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		ScrubStream(raw, []string{"sk-test-0123456789abcdef"})
	}
}
