package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"skillet/harness/chat"
)

// data frames one SSE data event.
func data(s string) string { return "data: " + s + "\n\n" }

const done = "data: [DONE]\n\n"

// stream joins SSE frames into one transcript.
func stream(frames ...string) string { return strings.Join(frames, "") }

func usage(p, c int) *chat.Usage {
	return &chat.Usage{PromptTokens: p, CompletionTokens: c, TotalTokens: p + c}
}

func call(id, name, args string) chat.ToolCall {
	return chat.ToolCall{ID: id, Type: "function", Function: chat.FunctionCall{Name: name, Arguments: args}}
}

func assistant(text string, calls ...chat.ToolCall) chat.Message {
	return chat.Message{Role: chat.RoleAssistant, Content: text, ToolCalls: calls}
}

// streamCase is one transcript a real server could send, and the reply it
// must end in.
type streamCase struct {
	name       string
	transcript string
	chop       int // write the transcript a few bytes at a time
	want       chat.Reply
	wantErr    *chat.APIError
	toolEvents []string // EventToolCall names; nil means the names of want's calls
}

var keepAlives = strings.Repeat(": keep-alive\n\n", 300)

var streamCases = []streamCase{
	{
		name: "text with usage in a last chunk with empty choices",
		transcript: stream(
			data(`{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`),
			data(`{"id":"c1","choices":[{"index":0,"delta":{"content":"Hello"},"finish_reason":null}]}`),
			data(`{"id":"c1","choices":[{"index":0,"delta":{"content":", wörld."},"finish_reason":null}]}`),
			data(`{"id":"c1","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`),
			data(`{"id":"c1","choices":[],"usage":{"prompt_tokens":12,"completion_tokens":3,"total_tokens":15}}`),
			done),
		want: chat.Reply{Message: assistant("Hello, wörld."), FinishReason: "stop", Usage: usage(12, 3)},
	},
	{
		name: "two calls keyed by index, interleaved, split mid-token, usage on the finish chunk",
		transcript: stream(
			data(`{"choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"get_weather","arguments":""}}]},"finish_reason":null}]}`),
			data(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"ci"}}]},"finish_reason":null}]}`),
			data(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"get_time","arguments":"{\"tz\":"}}]},"finish_reason":null}]}`),
			data(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"ty\":\"Par"}}]},"finish_reason":null}]}`),
			data(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"\"CET\"}"}}]},"finish_reason":null}]}`),
			data(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"is\"}"}}]},"finish_reason":null}]}`),
			data(`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":40,"completion_tokens":20,"total_tokens":60}}`),
			done),
		want: chat.Reply{
			Message:      assistant("", call("call_a", "get_weather", `{"city":"Paris"}`), call("call_b", "get_time", `{"tz":"CET"}`)),
			FinishReason: "tool_calls", Usage: usage(40, 20),
		},
	},
	{
		name: "no index: a new id starts a call, fragments without one continue the last",
		transcript: stream(
			data(`{"choices":[{"delta":{"tool_calls":[{"id":"t1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":"}}]}}]}`),
			data(`{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"\"Oslo\"}"}}]}}]}`),
			data(`{"choices":[{"delta":{"tool_calls":[{"id":"t2","type":"function","function":{"name":"get_weather","arguments":"{\"city\""}}]}}]}`),
			data(`{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":":\"Rome\"}"}}]}}]}`),
			data(`{"choices":[{"delta":{},"finish_reason":"tool_calls"}]}`)),
		want: chat.Reply{
			Message:      assistant("", call("t1", "get_weather", `{"city":"Oslo"}`), call("t2", "get_weather", `{"city":"Rome"}`)),
			FinishReason: "tool_calls",
		},
	},
	{
		name: "index starting at 1",
		transcript: stream(
			data(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"x1","type":"function","function":{"name":"get_weather","arguments":""}}]}}]}`),
			data(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"{\"city\":\"Lima\"}"}}]}}]}`),
			data(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":2,"id":"x2","type":"function","function":{"name":"get_time","arguments":"{}"}}]}}]}`),
			data(`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`),
			done),
		want: chat.Reply{
			Message:      assistant("", call("x1", "get_weather", `{"city":"Lima"}`), call("x2", "get_time", `{}`)),
			FinishReason: "tool_calls",
		},
	},
	{
		name: "id, type and name repeated on every fragment, then name sent empty",
		transcript: stream(
			data(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"r1","type":"function","function":{"name":"get_weather","arguments":"{\"ci"}}]}}]}`),
			data(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"r1","type":"function","function":{"name":"get_weather","arguments":"ty\":"}}]}}]}`),
			data(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"r1","type":"function","function":{"name":"","arguments":"\"Kyiv\"}"}}]}}]}`),
			data(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"","type":"","function":{"name":null,"arguments":null}}]},"finish_reason":"tool_calls"}]}`),
			done),
		want: chat.Reply{Message: assistant("", call("r1", "get_weather", `{"city":"Kyiv"}`)), FinishReason: "tool_calls"},
	},
	{
		name: "all index 0, a new id starts the next call",
		transcript: stream(
			data(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"s1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Riga\"}"}}]}}]}`),
			data(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"s2","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Oulu\"}"}}]}}]}`),
			data(`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`)),
		want: chat.Reply{
			Message:      assistant("", call("s1", "get_weather", `{"city":"Riga"}`), call("s2", "get_weather", `{"city":"Oulu"}`)),
			FinishReason: "tool_calls",
		},
	},
	{
		name: "fragments of two calls in one delta",
		transcript: stream(
			data(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"m1","type":"function","function":{"name":"get_weather","arguments":"{\"ci"}},{"index":1,"id":"m2","type":"function","function":{"name":"get_time","arguments":"{\"t"}}]}}]}`),
			data(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"ty\":\"Bonn\"}"}},{"index":1,"function":{"arguments":"z\":\"UTC\"}"}}]}}]}`),
			data(`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`)),
		want: chat.Reply{
			Message:      assistant("", call("m1", "get_weather", `{"city":"Bonn"}`), call("m2", "get_time", `{"tz":"UTC"}`)),
			FinishReason: "tool_calls",
		},
	},
	{
		name: "two whole calls in one delta, with neither index nor id",
		transcript: stream(
			data(`{"choices":[{"index":0,"delta":{"tool_calls":[{"type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Ely\"}"}},{"type":"function","function":{"name":"now","arguments":"{}"}}]}}]}`),
			data(`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`)),
		want: chat.Reply{
			Message:      assistant("", call("call_1", "get_weather", `{"city":"Ely"}`), call("call_2", "now", `{}`)),
			FinishReason: "tool_calls",
		},
	},
	{
		name: "arguments whole in one delta, empty arguments, no ids",
		transcript: stream(
			data(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Nice\"}"}}]}}]}`),
			data(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"type":"function","function":{"name":"list_cities"}}]}}]}`),
			data(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":2,"type":"function","function":{"name":"now","arguments":""}}]}}]}`),
			data(`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`),
			done),
		want: chat.Reply{
			Message:      assistant("", call("call_1", "get_weather", `{"city":"Nice"}`), call("call_2", "list_cities", `{}`), call("call_3", "now", `{}`)),
			FinishReason: "tool_calls",
		},
	},
	{
		name: "arguments finished on the chunk that carries finish_reason",
		transcript: stream(
			data(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"f1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":"}}]},"finish_reason":null}]}`),
			data(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"Bern\"}"}}]},"finish_reason":"tool_calls"}]}`),
			done),
		want: chat.Reply{Message: assistant("", call("f1", "get_weather", `{"city":"Bern"}`)), FinishReason: "tool_calls"},
	},
	{
		name: "whole arguments repeated on the last fragment",
		transcript: stream(
			data(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"w1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":"}}]}}]}`),
			data(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"Graz\"}"}}]}}]}`),
			data(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":\"Graz\"}"}}]},"finish_reason":"tool_calls"}]}`)),
		want: chat.Reply{Message: assistant("", call("w1", "get_weather", `{"city":"Graz"}`)), FinishReason: "tool_calls"},
	},
	{
		name: "finish_reason stop although a tool was called",
		transcript: stream(
			data(`{"choices":[{"index":0,"delta":{"content":"Let me check."}}]}`),
			data(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"k1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Turin\"}"}}]}}]}`),
			data(`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`),
			done),
		want: chat.Reply{Message: assistant("Let me check.", call("k1", "get_weather", `{"city":"Turin"}`)), FinishReason: "stop"},
	},
	{
		name: "hundreds of keep-alive comments between chunks",
		transcript: stream(
			": OPENROUTER PROCESSING\n\n", keepAlives,
			data(`{"choices":[{"index":0,"delta":{"content":"Still "}}]}`), keepAlives,
			data(`{"choices":[{"index":0,"delta":{"content":"here."}}]}`), keepAlives,
			data(`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`), keepAlives,
			done),
		want: chat.Reply{Message: assistant("Still here."), FinishReason: "stop"},
	},
	{
		name: "thousands of keep-alive comments, cut into small writes",
		transcript: stream(
			strings.Repeat(":\n", 5000),
			data(`{"choices":[{"index":0,"delta":{"content":"Patience."}}]}`),
			strings.Repeat(": ping - 2025-01-01 00:00:00\n\n", 3000),
			data(`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`),
			done),
		chop: 4096,
		want: chat.Reply{Message: assistant("Patience."), FinishReason: "stop"},
	},
	{
		name: "reasoning in reasoning_content",
		transcript: stream(
			data(`{"choices":[{"index":0,"delta":{"role":"assistant","reasoning_content":"The user wants "}}]}`),
			data(`{"choices":[{"index":0,"delta":{"reasoning_content":"the weather."}}]}`),
			data(`{"choices":[{"index":0,"delta":{"content":"Sunny."}}]}`),
			data(`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`),
			done),
		want: chat.Reply{Message: assistant("Sunny."), Reasoning: "The user wants the weather.", FinishReason: "stop"},
	},
	{
		name: "reasoning in reasoning, and in both fields at once",
		transcript: stream(
			data(`{"choices":[{"index":0,"delta":{"role":"assistant","content":"","reasoning":"Think "}}]}`),
			data(`{"choices":[{"index":0,"delta":{"reasoning":"twice.","reasoning_content":"twice."}}]}`),
			data(`{"choices":[{"index":0,"delta":{"content":"Done.","reasoning":null}}]}`),
			data(`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`),
			done),
		want: chat.Reply{Message: assistant("Done."), Reasoning: "Think twice.", FinishReason: "stop"},
	},
	{
		name: "usage in a chunk after the finish chunk",
		transcript: stream(
			data(`{"choices":[{"index":0,"delta":{"content":"Ok"},"finish_reason":null}],"usage":null}`),
			data(`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":null}`),
			data(`{"choices":[{"index":0,"delta":{},"finish_reason":null}],"usage":{"prompt_tokens":7,"completion_tokens":1,"total_tokens":8}}`),
			done),
		want: chat.Reply{Message: assistant("Ok"), FinishReason: "stop", Usage: usage(7, 1)},
	},
	{
		name: "Gemini extra_content on a call without index",
		transcript: stream(
			data(`{"choices":[{"delta":{"role":"assistant","tool_calls":[{"extra_content":{"google":{"thought_signature":"CtYBAdHtim9+sig/=="}},"function":{"arguments":"{\"city\":\"Paris\"}","name":"get_weather"},"id":"function-call-1","type":"function"}]},"finish_reason":"tool_calls","index":0}],"created":1,"model":"gemini-2.5-flash","object":"chat.completion.chunk","usage":{"completion_tokens":5,"prompt_tokens":50,"total_tokens":55}}`),
			done),
		want: chat.Reply{
			Message: assistant("", withExtra(call("function-call-1", "get_weather", `{"city":"Paris"}`),
				"extra_content", `{"google":{"thought_signature":"CtYBAdHtim9+sig/=="}}`)),
			FinishReason: "tool_calls", Usage: usage(50, 5),
		},
	},
	{
		name: "unknown tool-call keys merged across fragments",
		transcript: stream(
			data(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"g1","type":"function","extra_content":{"google":{"thought_signature":"abc"}},"function":{"name":"get_weather","arguments":"{\"city\":"}}]}}]}`),
			data(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"provider_meta":{"n":1},"function":{"arguments":"\"Pisa\"}"}}]}}]}`),
			data(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"extra_content":{"google":{"other":"x"}}}]},"finish_reason":"tool_calls"}]}`),
			done),
		want: chat.Reply{
			Message: assistant("", withExtra(call("g1", "get_weather", `{"city":"Pisa"}`),
				"extra_content", `{"google":{"other":"x","thought_signature":"abc"}}`,
				"provider_meta", `{"n":1}`)),
			FinishReason: "tool_calls",
		},
	},
	{
		name: "data lines with no blank line between them, CRLF endings",
		transcript: "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\r\n" +
			"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"b\"}}]}\r\n" +
			"\r\n" +
			"data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\r\n" +
			"data: [DONE]\r\n\r\n",
		want: chat.Reply{Message: assistant("ab"), FinishReason: "stop"},
	},
	{
		name: "every line cut across reads",
		transcript: stream(
			data(`{"choices":[{"index":0,"delta":{"content":"Cut "}}]}`),
			": keep-alive\n\n",
			data(`{"choices":[{"index":0,"delta":{"content":"into bits.","tool_calls":[{"index":0,"id":"b1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Ulm\"}"}}]}}]}`),
			data(`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`),
			done),
		chop: 3,
		want: chat.Reply{Message: assistant("Cut into bits.", call("b1", "get_weather", `{"city":"Ulm"}`)), FinishReason: "tool_calls"},
	},
	{
		name: "a chunk longer than the read buffer",
		transcript: stream(
			data(`{"choices":[{"index":0,"delta":{"content":"`+strings.Repeat("long ", 30000)+`"}}]}`),
			data(`{"choices":[{"index":0,"delta":{},"finish_reason":"length"}]}`),
			done),
		want: chat.Reply{Message: assistant(strings.Repeat("long ", 30000)), FinishReason: "length"},
	},
	{
		name: "EOF without finish_reason: interrupted, text and reasoning kept",
		transcript: stream(
			data(`{"choices":[{"index":0,"delta":{"reasoning_content":"Hmm."}}]}`),
			data(`{"choices":[{"index":0,"delta":{"content":"Half an ans"}}]}`)),
		want: chat.Reply{Message: assistant("Half an ans"), Reasoning: "Hmm.", Interrupted: true},
	},
	{
		name: "[DONE] without finish_reason: no half-built call survives",
		transcript: stream(
			data(`{"choices":[{"index":0,"delta":{"content":"Calling."}}]}`),
			data(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"h1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Pa"}}]}}]}`),
			done),
		want:       chat.Reply{Message: assistant("Calling."), Interrupted: true},
		toolEvents: []string{"get_weather"},
	},
	{
		name: "connection dropped mid-chunk",
		transcript: stream(
			data(`{"choices":[{"index":0,"delta":{"content":"Hel"}}]}`),
			`data: {"choices":[{"index":0,"delta":{"content":"lo`),
		want: chat.Reply{Message: assistant("Hel"), Interrupted: true},
	},
	{
		name: "error as a data event",
		transcript: stream(
			data(`{"choices":[{"index":0,"delta":{"content":"Par"}}]}`),
			data(`{"error":{"message":"The model is overloaded.","type":"server_error","code":"overloaded"}}`)),
		want:    chat.Reply{Message: assistant("Par"), Interrupted: true},
		wantErr: &chat.APIError{Status: 200, Message: "The model is overloaded.", Type: "server_error", Code: "overloaded"},
	},
	{
		name: "event: error frame",
		transcript: stream(
			data(`{"choices":[{"index":0,"delta":{"content":"Par"}}]}`),
			"event: error\ndata: {\"message\":\"upstream connect error\"}\n\n"),
		want:    chat.Reply{Message: assistant("Par"), Interrupted: true},
		wantErr: &chat.APIError{Status: 200, Message: "upstream connect error"},
	},
	{
		name: "error: SSE field",
		transcript: stream(
			data(`{"choices":[{"index":0,"delta":{"content":"Par"}}]}`),
			"error: context length exceeded\n\n"),
		want:    chat.Reply{Message: assistant("Par"), Interrupted: true},
		wantErr: &chat.APIError{Status: 200, Message: "context length exceeded"},
	},
	{
		name: "error beside choices with finish_reason error",
		transcript: stream(
			data(`{"choices":[{"index":0,"delta":{"content":"Par"}}]}`),
			data(`{"choices":[{"index":0,"delta":{"content":""},"finish_reason":"error"}],"error":{"message":"Provider returned error","code":502}}`)),
		want:    chat.Reply{Message: assistant("Par"), FinishReason: "error", Interrupted: true},
		wantErr: &chat.APIError{Status: 200, Message: "Provider returned error", Code: "502"},
	},
}

func withExtra(tc chat.ToolCall, kv ...string) chat.ToolCall {
	tc.Extra = map[string]json.RawMessage{}
	for i := 0; i+1 < len(kv); i += 2 {
		tc.Extra[kv[i]] = json.RawMessage(kv[i+1])
	}
	return tc
}

func TestStreamVariations(t *testing.T) {
	for _, tc := range streamCases {
		t.Run(tc.name, func(t *testing.T) {
			api := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, n int) {
				writeSSE(w, tc.transcript, tc.chop)
			})
			c := api.client(t, testKey)
			req := testRequest(true)
			var rec recorder
			reply, err := c.Complete(context.Background(), req, rec.on)
			noKey(t, err)
			checkSent(t, api, req, testKey)
			if tc.wantErr != nil {
				var ae *chat.APIError
				if !errors.As(err, &ae) {
					t.Fatalf("err = %v (%T), want *chat.APIError", err, err)
				}
				if *ae != *tc.wantErr {
					t.Errorf("APIError = %+v, want %+v", *ae, *tc.wantErr)
				}
			} else if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			if reply == nil {
				t.Fatal("no reply")
			}
			if reply.Raw != tc.transcript {
				t.Errorf("Raw is not the transcript:\n got %.300q\nwant %.300q", reply.Raw, tc.transcript)
			}
			got := *reply
			got.Raw = ""
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("reply:\n got %s\nwant %s", dump(got), dump(tc.want))
			}
			checkEvents(t, &rec, tc.want, tc.toolEvents)
		})
	}
}

// checkSent checks what the server received: exactly req.Body() on
// POST /v1/chat/completions, with a bearer token only when there is a key.
func checkSent(t *testing.T, api *fakeAPI, req *chat.Request, key string) {
	t.Helper()
	want, err := req.Body()
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range api.requests() {
		if s.method != http.MethodPost || s.path != "/v1/chat/completions" {
			t.Errorf("request %d: %s %s, want POST /v1/chat/completions", i, s.method, s.path)
		}
		if !bytes.Equal(s.body, want) {
			t.Errorf("request %d body differs from req.Body():\n got %s\nwant %s", i, s.body, want)
		}
		wantAuth := ""
		if key != "" {
			wantAuth = "Bearer " + key
		}
		if s.auth != wantAuth {
			t.Errorf("request %d Authorization = %q, want %q", i, s.auth, wantAuth)
		}
	}
}

// checkEvents checks that the events told the reply as it arrived.
func checkEvents(t *testing.T, rec *recorder, want chat.Reply, toolEvents []string) {
	t.Helper()
	if got := rec.joined(chat.EventText, ""); got != want.Message.Content {
		t.Errorf("text events = %.200q, want %.200q", got, want.Message.Content)
	}
	if got := rec.joined(chat.EventReasoning, ""); got != want.Reasoning {
		t.Errorf("reasoning events = %q, want %q", got, want.Reasoning)
	}
	if toolEvents == nil {
		for _, c := range want.Message.ToolCalls {
			toolEvents = append(toolEvents, c.Function.Name)
		}
	}
	if got, w := rec.joined(chat.EventToolCall, ","), strings.Join(toolEvents, ","); got != w {
		t.Errorf("tool-call events = %q, want %q", got, w)
	}
}

func dump(r chat.Reply) string {
	if len(r.Message.Content) > 200 {
		r.Message.Content = r.Message.Content[:200] + "…"
	}
	b, _ := json.Marshal(r)
	return string(b)
}
