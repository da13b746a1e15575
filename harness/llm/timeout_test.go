package llm

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

func tiny(first, idle time.Duration) func(*Config) {
	return func(c *Config) {
		c.FirstByteTimeout, c.IdleTimeout = first, idle
		c.MaxRetries = -1
	}
}

func wantTimeout(t *testing.T, err error, which string) {
	t.Helper()
	var te *TimeoutError
	if !errors.As(err, &te) || te.Which != which {
		t.Fatalf("err = %v (%T), want a %s TimeoutError", err, err, which)
	}
	if !strings.Contains(err.Error(), which+" timeout") {
		t.Errorf("error %q does not name the %s timeout", err, which)
	}
	noKey(t, err)
}

func TestFirstByteTimeoutWithoutHeaders(t *testing.T) {
	api := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, n int) { blockUntilDone(r) })
	c := api.client(t, testKey, tiny(50*time.Millisecond, time.Minute))
	_, err := c.Complete(context.Background(), testRequest(true), nil)
	wantTimeout(t, err, TimeoutFirstByte)
}

func TestFirstByteTimeoutCountsTheBodyNotTheHeaders(t *testing.T) {
	api := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, n int) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		w.(http.Flusher).Flush()
		blockUntilDone(r)
	})
	c := api.client(t, testKey, tiny(50*time.Millisecond, time.Minute))
	_, err := c.Complete(context.Background(), testRequest(true), nil)
	wantTimeout(t, err, TimeoutFirstByte)
}

func TestIdleTimeoutMidStream(t *testing.T) {
	api := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, n int) {
		writeSSE(w, data(`{"choices":[{"index":0,"delta":{"content":"Before the stall"}}]}`), 0)
		blockUntilDone(r)
	})
	c := api.client(t, testKey, tiny(time.Minute, 50*time.Millisecond))
	reply, err := c.Complete(context.Background(), testRequest(true), nil)
	wantTimeout(t, err, TimeoutIdle)
	if reply == nil || reply.Message.Content != "Before the stall" || !reply.Interrupted {
		t.Errorf("reply = %+v, want the text so far, interrupted", reply)
	}
}

// sendKeepAlives sends SSE comments every few milliseconds until the client
// hangs up, as a proxy in front of a stuck model does.
func sendKeepAlives(w http.ResponseWriter, r *http.Request) {
	fl := w.(http.Flusher)
	for r.Context().Err() == nil {
		if _, err := w.Write([]byte(": keep-alive\n\n")); err != nil {
			return
		}
		fl.Flush()
		time.Sleep(5 * time.Millisecond)
	}
}

func TestKeepAliveCommentsAloneHitTheFirstByteTimeout(t *testing.T) {
	api := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, n int) {
		w.Header().Set("Content-Type", "text/event-stream")
		sendKeepAlives(w, r)
	})
	c := api.client(t, testKey, tiny(150*time.Millisecond, 50*time.Millisecond))
	_, err := c.Complete(context.Background(), testRequest(true), nil)
	wantTimeout(t, err, TimeoutFirstByte)
}

func TestKeepAliveCommentsDoNotResetTheIdleTimer(t *testing.T) {
	api := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, n int) {
		writeSSE(w, data(`{"choices":[{"index":0,"delta":{"content":"Before the comments"}}]}`), 0)
		sendKeepAlives(w, r)
	})
	c := api.client(t, testKey, tiny(time.Minute, 100*time.Millisecond))
	reply, err := c.Complete(context.Background(), testRequest(true), nil)
	wantTimeout(t, err, TimeoutIdle)
	if reply == nil || reply.Message.Content != "Before the comments" || !reply.Interrupted {
		t.Errorf("reply = %+v, want the text so far, interrupted", reply)
	}
}

func TestSlowDataKeepsTheStreamAlive(t *testing.T) {
	const idle = 200 * time.Millisecond
	api := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, n int) {
		w.Header().Set("Content-Type", "text/event-stream")
		fl := w.(http.Flusher)
		// data for well over the idle timeout in all, each piece well
		// within it, some pieces in the middle of a line
		for range 12 {
			w.Write([]byte(data(`{"choices":[{"index":0,"delta":{"content":"."}}]}`)))
			fl.Flush()
			time.Sleep(idle / 8)
			w.Write([]byte(`data: {"choices":[{"index":0,`))
			fl.Flush()
			time.Sleep(idle / 8)
			w.Write([]byte(`"delta":{"content":"."}}]}` + "\n\n"))
			fl.Flush()
		}
		w.Write([]byte(okStream))
	})
	c := api.client(t, testKey, tiny(time.Minute, idle))
	reply, err := c.Complete(context.Background(), testRequest(true), nil)
	if err != nil || reply.Message.Content != strings.Repeat(".", 24)+"ok" {
		t.Fatalf("Complete = %+v, %v", reply, err)
	}
}

func TestCancelWhileWaitingForTheFirstByte(t *testing.T) {
	api := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, n int) { blockUntilDone(r) })
	c := api.client(t, testKey)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for len(api.requests()) == 0 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	_, err := c.Complete(ctx, testRequest(false), nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	var te *TimeoutError
	if errors.As(err, &te) {
		t.Errorf("a cancel was reported as a timeout: %v", err)
	}
}

func TestConnectionDroppedMidStreamIsAnInterruptedReply(t *testing.T) {
	api := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, n int) {
		writeSSE(w, stream(
			data(`{"choices":[{"index":0,"delta":{"content":"So far"}}]}`),
			data(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"d1","type":"function","function":{"name":"get_weather","arguments":"{"}}]}}]}`)), 0)
		panic(http.ErrAbortHandler) // drop the connection with no chunked terminator
	})
	reply, err := api.client(t, testKey).Complete(context.Background(), testRequest(true), nil)
	if err != nil {
		t.Fatalf("err = %v, want nil: a dropped stream is an interrupted reply", err)
	}
	if reply.Message.Content != "So far" || !reply.Interrupted || len(reply.Message.ToolCalls) != 0 {
		t.Errorf("reply = %+v, want the text so far, interrupted, no tool calls", reply)
	}
}
