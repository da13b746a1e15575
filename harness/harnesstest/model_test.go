package harnesstest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"skillet/harness/chat"
)

func ask(t *testing.T, m *Model, ctx context.Context, text string) (*chat.Reply, []chat.StreamEvent, error) {
	t.Helper()
	var evs []chat.StreamEvent
	r, err := m.Complete(ctx, &chat.Request{Model: "m", Messages: []chat.Message{{Role: chat.RoleUser, Content: text}}}, func(e chat.StreamEvent) { evs = append(evs, e) })
	return r, evs, err
}

func TestModelPlaysItsScriptThenTheFallback(t *testing.T) {
	boom := errors.New("model API said 500: boom")
	m := New(Say("hello"), Load("alpha"), Fail(boom))
	m.Fallback = Func(func(req *chat.Request) (*chat.Reply, error) {
		user, _ := SinceUser(req)
		return Text("echo " + user), nil
	})
	ctx := context.Background()
	if r, evs, err := ask(t, m, ctx, "one"); err != nil || r.Message.Content != "hello" || len(evs) != 1 || evs[0].Text != "hello" {
		t.Fatalf("say: %+v %+v %v", r, evs, err)
	}
	r, _, err := ask(t, m, ctx, "two")
	if err != nil || len(r.Message.ToolCalls) != 1 || r.Message.ToolCalls[0].Function.Name != LoadSkillTool ||
		r.Message.ToolCalls[0].Function.Arguments != `{"name":"alpha"}` || r.FinishReason != "tool_calls" {
		t.Fatalf("load: %+v %v", r, err)
	}
	if _, _, err := ask(t, m, ctx, "three"); !errors.Is(err, boom) {
		t.Fatalf("fail: %v", err)
	}
	if r, _, _ := ask(t, m, ctx, "four"); r.Message.Content != "echo four" {
		t.Fatalf("fallback: %+v", r)
	}
	reqs := m.Requests()
	if len(reqs) != 4 || m.Last().Messages[0].Content != "four" || m.Pending() != 0 {
		t.Fatalf("%d requests kept, last %+v", len(reqs), m.Last())
	}
	// the kept request is a copy: changing the one sent changes nothing
	req := &chat.Request{Messages: []chat.Message{{Role: chat.RoleUser, Content: "five"}}}
	m.Complete(ctx, req, nil)
	req.Messages[0].Content = "changed"
	if m.Last().Messages[0].Content != "five" {
		t.Fatal("the kept request shares the sender's slices")
	}
	m.ForgetRequests()
	if m.Last() != nil {
		t.Fatal("requests kept after ForgetRequests")
	}
}

// Tool call ids are the same in every run and new to the request, even
// when a fresh model takes over a session.
func TestToolCallIDsAreNumberedPastTheRequests(t *testing.T) {
	m := New(Call("x", "{}", "y", "{}"), Call("x", "{}"))
	a, _ := m.Complete(context.Background(), &chat.Request{}, nil)
	b, _ := m.Complete(context.Background(), &chat.Request{}, nil)
	var ids []string
	for _, c := range append(a.Message.ToolCalls, b.Message.ToolCalls...) {
		ids = append(ids, c.ID)
	}
	if strings.Join(ids, ",") != "c1,c2,c3" {
		t.Fatalf("ids %v", ids)
	}
	fresh := New(Load("alpha"))
	req := &chat.Request{Messages: []chat.Message{{Role: chat.RoleAssistant, ToolCalls: a.Message.ToolCalls}, {Role: chat.RoleAssistant, ToolCalls: b.Message.ToolCalls}}}
	r, _ := fresh.Complete(context.Background(), req, nil)
	if id := r.Message.ToolCalls[0].ID; id != "c4" {
		t.Fatalf("a fresh model's first id after c3 is %s", id)
	}
}

func TestStreamSendsReasoningTextThenCalls(t *testing.T) {
	m := New(Stream(Streamed{Reasoning: "think it over", Text: "the answer is here", Calls: []string{"t", `{"q":1}`}, Chunk: 5}))
	r, evs, err := ask(t, m, context.Background(), "q")
	if err != nil {
		t.Fatal(err)
	}
	var reasoning, text strings.Builder
	var kinds []chat.EventKind
	for _, e := range evs {
		if len(kinds) == 0 || kinds[len(kinds)-1] != e.Kind {
			kinds = append(kinds, e.Kind)
		}
		switch e.Kind {
		case chat.EventReasoning:
			reasoning.WriteString(e.Text)
		case chat.EventText:
			text.WriteString(e.Text)
			if len([]rune(e.Text)) > 5 {
				t.Fatalf("piece %q longer than the chunk", e.Text)
			}
		}
	}
	if reasoning.String() != "think it over" || text.String() != "the answer is here" || len(kinds) != 3 || kinds[2] != chat.EventToolCall {
		t.Fatalf("events %+v", evs)
	}
	if r.Reasoning != "think it over" || r.Message.Content != "the answer is here" || len(r.Message.ToolCalls) != 1 || r.FinishReason != "tool_calls" {
		t.Fatalf("reply %+v", r)
	}
}

func TestStreamAndBlockStopWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	m := New(Stream(Streamed{Text: strings.Repeat("x", 100), Chunk: 1, Delay: time.Millisecond}))
	var n int
	_, err := m.Complete(ctx, &chat.Request{}, func(chat.StreamEvent) {
		if n++; n == 3 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) || n != 3 {
		t.Fatalf("stream after cancel: %v after %d pieces", err, n)
	}

	ctx, cancel = context.WithCancel(context.Background())
	started := make(chan struct{})
	m = New(Block(started))
	done := make(chan error, 1)
	go func() { _, err := m.Complete(ctx, &chat.Request{}, nil); done <- err }()
	<-started
	select {
	case err := <-done:
		t.Fatalf("block returned before the cancel: %v", err)
	default:
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("block: %v", err)
	}
}

func TestRawRepliesCarryTheBody(t *testing.T) {
	m := New(Say("hi"), Load("alpha"))
	m.Raw = true
	r, _, _ := ask(t, m, context.Background(), "q")
	if r.Raw != `{"object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}]}` {
		t.Fatalf("raw %s", r.Raw)
	}
	r, _, _ = ask(t, m, context.Background(), "q")
	if !strings.Contains(r.Raw, `"content":null,"tool_calls":[{"function":{"name":"load_skill","arguments":"{\"name\":\"alpha\"}"}`) {
		t.Fatalf("raw %s", r.Raw)
	}
}

func TestModelsListsTheNamesGiven(t *testing.T) {
	m := New()
	if _, err := m.Models(context.Background()); err == nil {
		t.Fatal("a model without names listed some")
	}
	m.Names = []string{"a", "b"}
	if got, err := m.Models(context.Background()); err != nil || strings.Join(got, ",") != "a,b" {
		t.Fatalf("models %q %v", got, err)
	}
}

func TestRequestHelpers(t *testing.T) {
	req := &chat.Request{Messages: []chat.Message{
		{Role: chat.RoleSystem, Content: "sys"}, {Role: chat.RoleUser, Content: "one"}, {Role: chat.RoleAssistant, Content: "a"},
		{Role: chat.RoleUser, Content: "two"}, {Role: chat.RoleAssistant}, {Role: chat.RoleTool, Content: "r"},
	}, Tools: []chat.Tool{{Type: "function", Function: &chat.FunctionDefinition{Name: "t1"}}, {Type: "function", Function: &chat.FunctionDefinition{Name: "t2"}}}}
	if System(req) != "sys" || strings.Join(ToolNames(req), ",") != "t1,t2" {
		t.Fatalf("system %q, tools %q", System(req), ToolNames(req))
	}
	user, after := SinceUser(req)
	if user != "two" || len(after) != 2 || after[1].Role != chat.RoleTool {
		t.Fatalf("since user: %q %+v", user, after)
	}
}
