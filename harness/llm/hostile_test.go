package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"skillet/harness/chat"
)

// floodServer streams the chunk piece makes, one after another, until the
// client hangs up or limit bytes are sent; sent counts the bytes written.
func floodServer(t *testing.T, limit int64, piece func(i int) string) (*fakeAPI, *atomic.Int64) {
	var sent atomic.Int64
	api := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, n int) {
		w.Header().Set("Content-Type", "text/event-stream")
		fl := w.(http.Flusher)
		for i := 0; sent.Load() < limit; i++ {
			k, err := w.Write([]byte(piece(i)))
			sent.Add(int64(k))
			if err != nil {
				return
			}
			fl.Flush()
		}
	})
	return api, &sent
}

func TestStreamedReplyIsCappedLikeAWholeOne(t *testing.T) {
	mib := strings.Repeat("a", 1<<20)
	jsonString := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	for _, tc := range []struct {
		name  string
		piece func(i int) string
	}{
		{"text", func(int) string {
			return data(`{"choices":[{"index":0,"delta":{"content":` + jsonString(mib) + `}}]}`)
		}},
		{"reasoning", func(int) string {
			return data(`{"choices":[{"index":0,"delta":{"reasoning_content":` + jsonString(mib) + `}}]}`)
		}},
		{"tool-call arguments", func(i int) string {
			if i == 0 {
				return data(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"get_weather","arguments":""}}]}}]}`)
			}
			return data(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":` + jsonString(mib) + `}}]}}]}`)
		}},
		{"many small calls", func(i int) string {
			return data(fmt.Sprintf(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":%d,"id":"c%d","type":"function","function":{"name":"get_weather","arguments":%s}}]}}]}`, i, i, jsonString(mib[:64<<10])))
		}},
		{"one endless line", func(i int) string {
			if i == 0 {
				return "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\""
			}
			return mib
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const limit = 3 * maxBody
			api, sent := floodServer(t, limit, tc.piece)
			reply, err := api.client(t, testKey).Complete(context.Background(), testRequest(true), nil)
			if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%d MiB", maxBody>>20)) {
				t.Fatalf("err = %v, want one naming the %d MiB cap", err, maxBody>>20)
			}
			if reply == nil || !reply.Interrupted || len(reply.Message.ToolCalls) != 0 {
				t.Fatalf("want the reply so far, interrupted, without calls: %+v", reply)
			}
			if n := len(reply.Message.Content) + len(reply.Reasoning); n > maxBody {
				t.Errorf("the reply holds %d bytes, over the cap", n)
			}
			// the client hung up instead of reading on
			if s := sent.Load(); s >= limit {
				t.Errorf("the server sent all %d bytes: the client read past the cap", s)
			}
		})
	}
}

// echoKey is a reply that repeats the key in the text (split between two
// chunks), the reasoning and a tool call's arguments.
func echoKey(key string) string {
	half := len(key) / 2
	piece := func(field, s string) string {
		b, _ := json.Marshal(s)
		return data(`{"choices":[{"index":0,"delta":{"` + field + `":` + string(b) + `}}]}`)
	}
	args, _ := json.Marshal(`{"city":"` + key + `"}`)
	return stream(
		piece("reasoning_content", "they sent "+key+"."),
		piece("content", "Your key is "+key[:half]),
		piece("content", key[half:]+" and again "+key[:3]),
		piece("content", key[3:]),
		piece("content", " — and sk-test is not it."),
		data(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"get_weather","arguments":`+string(args)+`}}]},"finish_reason":"tool_calls"}]}`),
		done)
}

func TestEchoedKeyIsTakenOutOfTheReply(t *testing.T) {
	api := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, n int) {
		writeSSE(w, echoKey(testKey), 7) // pieces arrive cut mid-line too
	})
	var rec recorder
	reply, err := api.client(t, testKey).Complete(context.Background(), testRequest(true), rec.on)
	if err != nil {
		t.Fatal(err)
	}
	if len(api.requests()) != 1 || !strings.Contains(api.requests()[0].auth, testKey) {
		t.Fatal("the server never got the key: the test could not catch a leak")
	}
	wantText := "Your key is [redacted API key] and again [redacted API key] — and sk-test is not it."
	if reply.Message.Content != wantText || reply.Reasoning != "they sent [redacted API key]." {
		t.Errorf("text %q\nreasoning %q", reply.Message.Content, reply.Reasoning)
	}
	if len(reply.Message.ToolCalls) != 1 || reply.Message.ToolCalls[0].Function.Arguments != `{"city":"[redacted API key]"}` {
		t.Errorf("tool calls %+v", reply.Message.ToolCalls)
	}
	if got := rec.joined(chat.EventText, ""); got != wantText {
		t.Errorf("streamed text %q, want %q", got, wantText)
	}
	if got := rec.joined(chat.EventReasoning, ""); got != reply.Reasoning {
		t.Errorf("streamed reasoning %q", got)
	}
	if strings.Contains(reply.Raw, testKey) || strings.Contains(dump(*reply), testKey) {
		t.Error("the key is still in the reply")
	}
}

func TestEchoedKeyIsTakenOutOfAWholeReply(t *testing.T) {
	api := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, n int) {
		msg, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": "you sent " + r.Header.Get("Authorization")}}}})
		writeJSON(w, 200, string(msg))
	})
	reply, err := api.client(t, testKey).Complete(context.Background(), testRequest(false), nil)
	if err != nil || reply.Message.Content != "you sent Bearer [redacted API key]" {
		t.Fatalf("reply %q, %v", reply.Message.Content, err)
	}
}

func TestPlaceholderKeyIsNotTakenOutOfText(t *testing.T) {
	api := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, n int) {
		writeSSE(w, stream(data(`{"choices":[{"index":0,"delta":{"content":"none of it"},"finish_reason":"stop"}]}`), done), 0)
	})
	reply, err := api.client(t, "none").Complete(context.Background(), testRequest(true), nil)
	if err != nil || reply.Message.Content != "none of it" {
		t.Fatalf("reply %q, %v", reply.Message.Content, err)
	}
}

func TestKeyFilterHoldsBackOnlyWhatCouldBeTheKey(t *testing.T) {
	f := newKeyFilter([]string{"sk-abcdefgh"})
	var out strings.Builder
	for _, p := range []string{"x s", "k-ab", "cdefghy sk", "-abz sk-a"} {
		got := f.feed(p)
		out.WriteString(got)
		if p == "x s" && got != "x " {
			t.Errorf("after %q: %q shown, want %q", p, got, "x ")
		}
	}
	out.WriteString(f.flush())
	if want := "x [redacted API key]y sk-abz sk-a"; out.String() != want {
		t.Fatalf("%q, want %q", out.String(), want)
	}
}

func TestEchoedURLPasswordIsTakenOutOfTheReply(t *testing.T) {
	const password = "s3cret-passw0rd"
	var auth string
	api := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, n int) {
		auth = r.Header.Get("Authorization")
		text, _ := json.Marshal("you sent " + auth + " with " + password)
		writeSSE(w, stream(data(`{"choices":[{"index":0,"delta":{"content":`+string(text)+`},"finish_reason":"stop"}]}`), done), 5)
	})
	c, err := New(Config{BaseURL: strings.Replace(api.URL, "http://", "http://skillet:"+password+"@", 1) + "/v1"})
	if err != nil {
		t.Fatal(err)
	}
	var rec recorder
	reply, err := c.Complete(context.Background(), testRequest(true), rec.on)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(auth, "Basic ") {
		t.Fatalf("the server got Authorization %q: the test could not catch a leak", auth)
	}
	want := "you sent Basic [redacted API key] with [redacted API key]"
	if reply.Message.Content != want || rec.joined(chat.EventText, "") != want {
		t.Fatalf("reply %q, streamed %q", reply.Message.Content, rec.joined(chat.EventText, ""))
	}
	if strings.Contains(reply.Raw, password) || strings.Contains(reply.Raw, strings.TrimPrefix(auth, "Basic ")) {
		t.Fatal("Raw holds the password")
	}
}

func TestManyDataLinesWithoutABlankLineAreReadInLinearTime(t *testing.T) {
	// 256 Ki lines of one event that stays the start of a JSON object:
	// checking the joined data as JSON at every line, as a forgiving reader
	// might, would scan hundreds of gigabytes.
	const lines = 256 << 10
	in := "data: {\n" + strings.Repeat("data: \"k\":1,\n", lines-1) + "\n"
	r := newSSEReader(strings.NewReader(in))
	ev, err := r.next()
	if err != nil || len(ev.data) != 1+7*(lines-1) {
		t.Fatalf("event of %d bytes, %v; want one event of every line", len(ev.data), err)
	}
}

func TestEndlessExtraFragmentsAreMergedInBoundedTime(t *testing.T) {
	// Each fragment adds a key to an extra object of the same call: merging
	// every one into all that came before would be quadratic.
	var b strings.Builder
	const fragments = 100_000
	for i := range fragments {
		fmt.Fprintf(&b, `data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"get_weather","arguments":""},"extra_content":{"k%d":1}}]}}]}`+"\n\n", i)
	}
	b.WriteString(data(`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`))
	asm := &assembler{max: maxBody, newID: func() string { return "call_1" }}
	if _, err := readStream(strings.NewReader(b.String()), asm, nil); err != nil {
		t.Fatal(err)
	}
	r := asm.reply(true)
	if len(r.Message.ToolCalls) != 1 || !strings.Contains(string(r.Message.ToolCalls[0].Extra["extra_content"]), fmt.Sprintf(`"k%d":1`, fragments-1)) {
		t.Fatalf("want one call keeping the last fragment's extra, got %+v", r.Message.ToolCalls)
	}
}
