package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"skillet/harness/chat"
)

func TestJSONReplies(t *testing.T) {
	cases := []struct {
		name    string
		stream  bool // the request asked for a stream; the server sent JSON anyway
		body    string
		want    chat.Reply
		wantErr *chat.APIError
	}{
		{
			name: "text, reasoning_content, tool call with extra_content, usage",
			body: `{"id":"r1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"Checking.","reasoning_content":"Need weather.","tool_calls":[{"id":"c9","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"},"extra_content":{"google":{"thought_signature":"c2ln"}}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":30,"completion_tokens":9,"total_tokens":39}}`,
			want: chat.Reply{
				Message: assistant("Checking.", withExtra(call("c9", "get_weather", `{"city":"Paris"}`),
					"extra_content", `{"google":{"thought_signature":"c2ln"}}`)),
				Reasoning: "Need weather.", FinishReason: "tool_calls", Usage: usage(30, 9),
			},
		},
		{
			name: "reasoning field, null content, object arguments, no id",
			body: `{"choices":[{"index":0,"message":{"role":"assistant","content":null,"reasoning":"Look it up.","tool_calls":[{"type":"function","function":{"name":"get_weather","arguments":{"city":"Oslo"}}},{"type":"function","function":{"name":"now","arguments":""}}]},"finish_reason":"tool_calls"}]}`,
			want: chat.Reply{
				Message:   assistant("", call("call_1", "get_weather", `{"city":"Oslo"}`), call("call_2", "now", `{}`)),
				Reasoning: "Look it up.", FinishReason: "tool_calls",
			},
		},
		{
			name: "content as a list of parts",
			body: `{"choices":[{"index":0,"message":{"role":"assistant","content":[{"type":"text","text":"Two "},{"type":"image_url","image_url":{}},{"type":"text","text":"parts."}]},"finish_reason":"stop"}]}`,
			want: chat.Reply{Message: assistant("Two parts."), FinishReason: "stop"},
		},
		{
			name:   "a stream request answered with one JSON body",
			stream: true,
			body:   `{"choices":[{"index":0,"message":{"role":"assistant","content":"Not streamed."},"finish_reason":"stop"}]}`,
			want:   chat.Reply{Message: assistant("Not streamed."), FinishReason: "stop"},
		},
		{
			name:    "an error in a 200 body",
			body:    `{"error":{"message":"Quota exceeded for this project.","type":"insufficient_quota","code":"insufficient_quota"}}`,
			want:    chat.Reply{Message: assistant(""), Interrupted: true},
			wantErr: &chat.APIError{Status: 200, Message: "Quota exceeded for this project.", Type: "insufficient_quota", Code: "insufficient_quota"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			api := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, n int) {
				writeJSON(w, 200, tc.body)
			})
			c := api.client(t, testKey)
			req := testRequest(tc.stream)
			var rec recorder
			reply, err := c.Complete(context.Background(), req, rec.on)
			noKey(t, err)
			checkSent(t, api, req, testKey)
			wantAccept := "application/json"
			if tc.stream {
				wantAccept = "text/event-stream"
			}
			if got := api.requests()[0].accept; got != wantAccept {
				t.Errorf("Accept = %q, want %q", got, wantAccept)
			}
			if tc.wantErr != nil {
				var ae *chat.APIError
				if !errors.As(err, &ae) || *ae != *tc.wantErr {
					t.Fatalf("err = %#v, want %+v", err, *tc.wantErr)
				}
			} else if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			if reply.Raw != tc.body {
				t.Errorf("Raw = %q, want the body", reply.Raw)
			}
			got := *reply
			got.Raw = ""
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("reply:\n got %s\nwant %s", dump(got), dump(tc.want))
			}
			if tc.wantErr == nil {
				checkEvents(t, &rec, tc.want, nil)
			}
		})
	}
}

func TestHTTPErrorsCarryTheServersMessage(t *testing.T) {
	long := strings.Repeat("x", 700)
	cases := []struct {
		status int
		body   string
		want   chat.APIError
	}{
		{400, `{"error":{"message":"Invalid 'messages[1].content'.","type":"invalid_request_error","param":"messages","code":null}}`,
			chat.APIError{Status: 400, Message: "Invalid 'messages[1].content'.", Type: "invalid_request_error"}},
		{404, `{"message":"model 'nope' not found"}`, chat.APIError{Status: 404, Message: "model 'nope' not found"}},
		{400, `[{"error":{"code":400,"message":"API key not valid.","status":"INVALID_ARGUMENT"}}]`,
			chat.APIError{Status: 400, Message: "API key not valid.", Code: "400"}},
		{500, `{"error":"backend exploded"}`, chat.APIError{Status: 500, Message: "backend exploded"}},
		{422, `{"detail":"messages must not be empty"}`, chat.APIError{Status: 422, Message: "messages must not be empty"}},
		{502, "<html><body>Bad gateway</body></html>", chat.APIError{Status: 502, Message: "Bad gateway"}},
		{500, long, chat.APIError{Status: 500, Message: long[:500] + "…"}},
		{504, "", chat.APIError{Status: 504, Message: "Gateway Timeout"}},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprint(tc.status, " ", firstText([]byte(tc.body), 30)), func(t *testing.T) {
			api := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, n int) {
				writeJSON(w, tc.status, tc.body)
			})
			reply, err := api.client(t, testKey).Complete(context.Background(), testRequest(true), nil)
			var ae *chat.APIError
			if !errors.As(err, &ae) {
				t.Fatalf("err = %v (%T), want *chat.APIError", err, err)
			}
			if *ae != tc.want {
				t.Errorf("APIError = %+v, want %+v", *ae, tc.want)
			}
			if reply != nil {
				t.Errorf("reply = %+v, want nil for an HTTP error", reply)
			}
			if n := len(api.requests()); n != 1 {
				t.Errorf("%d requests, want 1 (status %d is not retried)", n, tc.status)
			}
		})
	}
}

func TestUnauthorizedSaysToCheckTheKeyAndNeverShowsIt(t *testing.T) {
	// This server echoes the whole key back, as a careless proxy might.
	api := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, n int) {
		writeJSON(w, 401, `{"error":{"message":"Incorrect API key provided: `+strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")+`.","type":"invalid_request_error","code":"invalid_api_key"}}`)
	})
	_, err := api.client(t, testKey).Complete(context.Background(), testRequest(true), nil)
	var ae *chat.APIError
	if !errors.As(err, &ae) || ae.Status != 401 || ae.Code != "invalid_api_key" {
		t.Fatalf("err = %#v, want a 401 APIError", err)
	}
	if !strings.Contains(err.Error(), "check the API key") || !strings.Contains(err.Error(), "Incorrect API key provided") {
		t.Errorf("error text %q should tell to check the key and quote the server", err)
	}
	noKey(t, err)
	if _, err := api.client(t, testKey).Models(context.Background()); err == nil {
		t.Error("Models: want an error")
	} else {
		noKey(t, err)
	}
}

func TestNoKeyNoAuthorizationHeader(t *testing.T) {
	api := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, n int) {
		writeSSE(w, stream(data(`{"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"stop"}]}`)), 0)
	})
	req := testRequest(true)
	reply, err := api.client(t, "").Complete(context.Background(), req, nil)
	if err != nil || reply.Message.Content != "hi" {
		t.Fatalf("Complete = %+v, %v", reply, err)
	}
	checkSent(t, api, req, "")
}

func TestCompleteDoesNotChangeTheRequest(t *testing.T) {
	api := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, n int) {
		writeSSE(w, streamCases[1].transcript, 0)
	})
	req := testRequest(true)
	before, _ := req.Body()
	if _, err := api.client(t, testKey).Complete(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	after, _ := req.Body()
	if string(before) != string(after) {
		t.Errorf("request changed:\n%s\n%s", before, after)
	}
}

// TestExtraContentGoesBackByteForByte sends a Gemini thought signature
// received on a tool call back in the next request's assistant message.
func TestExtraContentGoesBackByteForByte(t *testing.T) {
	const extra = `{"google":{"thought_signature":"CtYBAdHtim9+sig/A1b2=="}}`
	api := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 0 {
			writeSSE(w, stream(
				data(`{"choices":[{"delta":{"role":"assistant","tool_calls":[{"extra_content":`+extra+`,"function":{"arguments":"{\"city\":\"Paris\"}","name":"get_weather"},"id":"function-call-1","type":"function"}]},"finish_reason":"tool_calls","index":0}]}`),
				done), 0)
			return
		}
		writeSSE(w, stream(data(`{"choices":[{"index":0,"delta":{"content":"Sunny."},"finish_reason":"stop"}]}`)), 0)
	})
	c := api.client(t, testKey)
	req := testRequest(true)
	first, err := c.Complete(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Messages = append(req.Messages, first.Message,
		chat.Message{Role: chat.RoleTool, ToolCallID: first.Message.ToolCalls[0].ID, Content: `{"sky":"clear"}`})
	if _, err := c.Complete(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	sent := api.requests()[1].body
	var body struct {
		Messages []struct {
			ToolCalls []map[string]json.RawMessage `json:"tool_calls"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(sent, &body); err != nil {
		t.Fatal(err)
	}
	if len(body.Messages) != 4 || len(body.Messages[2].ToolCalls) != 1 {
		t.Fatalf("second request has no assistant tool call: %s", sent)
	}
	tc := body.Messages[2].ToolCalls[0]
	if got := string(tc["extra_content"]); got != extra {
		t.Errorf("extra_content sent back as %s, want %s", got, extra)
	}
	if got := string(tc["id"]); got != `"function-call-1"` {
		t.Errorf("id sent back as %s", got)
	}
}

func TestRawIsCutWithANote(t *testing.T) {
	piece := strings.Repeat("y", 1000)
	var frames []string
	for range 1500 {
		frames = append(frames, data(`{"choices":[{"index":0,"delta":{"content":"`+piece+`"}}]}`))
	}
	frames = append(frames, data(`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`))
	transcript := stream(frames...)
	api := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, n int) { writeSSE(w, transcript, 0) })
	reply, err := api.client(t, testKey).Complete(context.Background(), testRequest(true), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(reply.Message.Content) != 1500*1000 {
		t.Errorf("text is %d bytes, want all %d", len(reply.Message.Content), 1500*1000)
	}
	note := fmt.Sprintf("\n[raw reply cut at %d bytes; %d more bytes not kept]", maxRaw, len(transcript)-maxRaw)
	if !strings.HasPrefix(reply.Raw, transcript[:maxRaw]) || !strings.HasSuffix(reply.Raw, note) || len(reply.Raw) != maxRaw+len(note) {
		t.Errorf("Raw is %d bytes ending %q, want the first %d bytes and the note %q", len(reply.Raw), reply.Raw[max(0, len(reply.Raw)-80):], maxRaw, note)
	}
}

func TestCancelMidStream(t *testing.T) {
	api := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, n int) {
		writeSSE(w, data(`{"choices":[{"index":0,"delta":{"content":"First words"}}]}`), 0)
		blockUntilDone(r)
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	on := func(ev chat.StreamEvent) {
		if ev.Kind == chat.EventText {
			cancel()
		}
	}
	reply, err := api.client(t, testKey).Complete(ctx, testRequest(true), on)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if reply == nil || reply.Message.Content != "First words" || !reply.Interrupted {
		t.Errorf("reply = %+v, want the partial text, interrupted", reply)
	}
}

func TestNewRejectsABadBaseURL(t *testing.T) {
	for _, base := range []string{"api.openai.com/v1", "ftp://example.com", "http://", "http://exa mple.com"} {
		if _, err := New(Config{BaseURL: base}); err == nil || !strings.Contains(err.Error(), "model base URL") {
			t.Errorf("New(%q) = %v, want a base URL error", base, err)
		}
	}
	c, err := New(Config{})
	if err != nil || c.BaseURL() != DefaultBaseURL {
		t.Errorf("New(Config{}) = %v, %v; want the default base URL", c, err)
	}
}

func TestConfigFromEnvAndItsStringHidesTheKey(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", testKey)
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
	cfg := ConfigFromEnv()
	if cfg.APIKey != testKey || cfg.BaseURL != "http://127.0.0.1:1/v1" || cfg.MaxRetries != DefaultMaxRetries || cfg.IdleTimeout != DefaultIdleTimeout {
		t.Errorf("ConfigFromEnv = %v", cfg)
	}
	for _, s := range []string{fmt.Sprint(cfg), fmt.Sprintf("%+v", cfg), fmt.Sprintf("%#v", cfg), fmt.Sprintf("%v", &cfg)} {
		if strings.Contains(s, testKey) || !strings.Contains(s, "APIKey: set") {
			t.Errorf("printed Config %q shows the key or hides that it is set", s)
		}
	}
	t.Setenv("OPENAI_BASE_URL", "")
	if got := ConfigFromEnv().BaseURL; got != DefaultBaseURL {
		t.Errorf("BaseURL without OPENAI_BASE_URL = %q", got)
	}
}

func TestModels(t *testing.T) {
	api := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if r.Method != http.MethodGet || r.URL.Path != "/v1/models" {
			writeJSON(w, 404, `{"error":{"message":"no route"}}`)
			return
		}
		writeJSON(w, 200, `{"object":"list","data":[{"id":"gpt-4o-mini","object":"model","owned_by":"openai"},{"id":"gemini-2.5-flash","object":"model"},{"id":"gpt-4.1","object":"model"}]}`)
	})
	ids, err := api.client(t, testKey).Models(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"gemini-2.5-flash", "gpt-4.1", "gpt-4o-mini"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("Models = %q, want %q", ids, want)
	}
	if got := api.requests()[0].auth; got != "Bearer "+testKey {
		t.Errorf("Authorization = %q", got)
	}

	failing := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, n int) {
		writeJSON(w, 403, `{"error":{"message":"Project lacks access.","type":"permission_error"}}`)
	})
	_, err = failing.client(t, testKey).Models(context.Background())
	var ae *chat.APIError
	if !errors.As(err, &ae) || ae.Status != 403 || ae.Message != "Project lacks access." {
		t.Errorf("Models error = %#v, want a 403 APIError with the server's message", err)
	}
	text := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, n int) {
		writeJSON(w, 500, `upstream down`)
	})
	_, err = text.client(t, testKey).Models(context.Background())
	if !errors.As(err, &ae) || ae.Status != 500 || ae.Message != "upstream down" {
		t.Errorf("Models error = %#v, want a 500 APIError quoting the body", err)
	}
}

// hijackClose ends the request's connection without a byte of answer; with
// reset it sends a TCP reset rather than a clean close.
func hijackClose(t testing.TB, w http.ResponseWriter, reset bool) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err != nil {
		t.Error(err)
		return
	}
	if tc, ok := conn.(*net.TCPConn); ok && reset {
		tc.SetLinger(0)
	}
	conn.Close()
}

var okStream = stream(data(`{"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}`), done)

// sleeps records the client's retry waits instead of sleeping.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

// TestConnectionIsReusedAfterDone checks that a stream read up to
// "data: [DONE]" leaves its connection fit for the next request.
func TestConnectionIsReusedAfterDone(t *testing.T) {
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeSSE(w, streamCases[1].transcript, 0)
	}))
	srv.Config.ConnState = func(c net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	c, err := New(Config{BaseURL: srv.URL + "/v1"})
	if err != nil {
		t.Fatal(err)
	}
	for range 10 {
		if _, err := c.Complete(context.Background(), testRequest(true), nil); err != nil {
			t.Fatal(err)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("%d connections for 10 sequential requests, want 1", n)
	}
}

func TestAPageThatIsNotAStreamIsAnError(t *testing.T) {
	api := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, n int) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte("<html>\n<body>Please sign in to the hotel wifi.</body>\n</html>\n"))
	})
	reply, err := api.client(t, testKey).Complete(context.Background(), testRequest(true), nil)
	if err == nil || !strings.Contains(err.Error(), "not an event stream") || !strings.Contains(err.Error(), "hotel wifi") {
		t.Fatalf("err = %v, want one saying the answer is not an event stream and quoting it", err)
	}
	if reply == nil || !strings.Contains(reply.Raw, "hotel wifi") {
		t.Errorf("reply = %+v, want the page in Raw", reply)
	}
}

// TestCompleteBodySendsTheGivenBody: the engine encodes a request once,
// records it and hands the bytes to CompleteBody, which sends them as
// they are; the reply is Complete's.
func TestCompleteBodySendsTheGivenBody(t *testing.T) {
	api := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, n int) {
		writeSSE(w, streamCases[1].transcript, 0)
	})
	c := api.client(t, testKey)
	req := testRequest(true)
	body, err := req.Body()
	if err != nil {
		t.Fatal(err)
	}
	viaBody, err := c.CompleteBody(context.Background(), req, body, nil)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := c.Complete(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	sent := api.requests()
	if len(sent) != 2 || string(sent[0].body) != string(body) || string(sent[1].body) != string(body) {
		t.Fatalf("sent %d requests; want the recorded body twice:\n%s", len(sent), body)
	}
	if viaBody.Message.Content != plain.Message.Content || viaBody.FinishReason != plain.FinishReason {
		t.Fatalf("CompleteBody replied %+v, Complete %+v", viaBody, plain)
	}
	var _ chat.BodyModel = c
}
