package llm

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"skillet/harness/chat"
)

func TestRetry429HonoursRetryAfterZero(t *testing.T) {
	api := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 0 {
			w.Header().Set("Retry-After", "0")
			writeJSON(w, 429, `{"error":{"message":"Rate limit reached for requests","type":"requests","code":"rate_limit_exceeded"}}`)
			return
		}
		writeSSE(w, okStream, 0)
	})
	c := api.client(t, testKey) // real sleep: a zero wait
	req := testRequest(true)
	var rec recorder
	reply, err := c.Complete(context.Background(), req, rec.on)
	if err != nil || reply.Message.Content != "ok" {
		t.Fatalf("Complete = %+v, %v", reply, err)
	}
	checkSent(t, api, req, testKey)
	if n := len(api.requests()); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
	retries := rec.kind(chat.EventRetry)
	if len(retries) != 1 || retries[0].Attempt != 1 || retries[0].Wait != 0 {
		t.Fatalf("retry events = %+v, want one with Attempt 1, Wait 0", retries)
	}
	var ae *chat.APIError
	if !errors.As(retries[0].Err, &ae) || ae.Status != 429 || ae.Message != "Rate limit reached for requests" {
		t.Errorf("retry Err = %v, want the 429 with the server's message", retries[0].Err)
	}
}

func TestRetry429HonoursRetryAfterSeconds(t *testing.T) {
	api := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 0 {
			w.Header().Set("Retry-After", "1")
			writeJSON(w, 429, `{"error":{"message":"slow down"}}`)
			return
		}
		writeSSE(w, okStream, 0)
	})
	c := api.client(t, testKey)
	var s sleeps
	c.sleep = s.sleep
	var rec recorder
	if _, err := c.Complete(context.Background(), testRequest(true), rec.on); err != nil {
		t.Fatal(err)
	}
	if len(s.d) != 1 || s.d[0] != time.Second {
		t.Errorf("waits = %v, want [1s]", s.d)
	}
	if r := rec.kind(chat.EventRetry); len(r) != 1 || r[0].Wait != time.Second {
		t.Errorf("retry events = %+v, want one announcing 1s", r)
	}
}

func TestRetry503BacksOffExponentially(t *testing.T) {
	api := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n < 3 {
			writeJSON(w, 503, `{"error":{"message":"The engine is currently overloaded"}}`)
			return
		}
		writeSSE(w, okStream, 0)
	})
	c := api.client(t, testKey)
	var s sleeps
	c.sleep = s.sleep
	var rec recorder
	reply, err := c.Complete(context.Background(), testRequest(true), rec.on)
	if err != nil || reply.Message.Content != "ok" {
		t.Fatalf("Complete = %+v, %v", reply, err)
	}
	if len(s.d) != 3 {
		t.Fatalf("waits = %v, want 3", s.d)
	}
	for i, d := range s.d {
		full := baseRetryWait << i
		if d < full/2 || d > full {
			t.Errorf("wait %d = %v, want between %v and %v", i+1, d, full/2, full)
		}
	}
	for i, ev := range rec.kind(chat.EventRetry) {
		if ev.Attempt != i+1 || ev.Wait != s.d[i] {
			t.Errorf("retry event %d = %+v, want Attempt %d, Wait %v", i, ev, i+1, s.d[i])
		}
	}
}

func TestRetryGivesUpAfterMaxRetries(t *testing.T) {
	api := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, n int) {
		writeJSON(w, 429, `{"error":{"message":"You exceeded your current quota.","code":"insufficient_quota"}}`)
	})
	c := api.client(t, testKey, func(c *Config) { c.MaxRetries = 2 })
	var s sleeps
	c.sleep = s.sleep
	var rec recorder
	_, err := c.Complete(context.Background(), testRequest(true), rec.on)
	var ae *chat.APIError
	if !errors.As(err, &ae) || ae.Status != 429 || ae.Message != "You exceeded your current quota." {
		t.Fatalf("err = %v, want the last 429 with the server's message", err)
	}
	if n := len(api.requests()); n != 3 {
		t.Errorf("%d requests, want 3 (one and two retries)", n)
	}
	if n := len(rec.kind(chat.EventRetry)); n != 2 {
		t.Errorf("%d retry events, want 2", n)
	}

	never := api.client(t, testKey, func(c *Config) { c.MaxRetries = -1 })
	before := len(api.requests())
	if _, err := never.Complete(context.Background(), testRequest(true), nil); err == nil {
		t.Error("want an error")
	}
	if n := len(api.requests()) - before; n != 1 {
		t.Errorf("MaxRetries -1 sent %d requests, want 1", n)
	}
}

func TestRetryAfterAConnectionClosedBeforeAnyByte(t *testing.T) {
	for _, reset := range []bool{false, true} {
		api := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, n int) {
			if n == 0 {
				hijackClose(t, w, reset)
				return
			}
			writeSSE(w, okStream, 0)
		})
		c := api.client(t, testKey)
		var s sleeps
		c.sleep = s.sleep
		var rec recorder
		reply, err := c.Complete(context.Background(), testRequest(true), rec.on)
		if err != nil || reply.Message.Content != "ok" {
			t.Fatalf("reset=%v: Complete = %+v, %v", reset, reply, err)
		}
		if r := rec.kind(chat.EventRetry); len(r) != 1 || !strings.Contains(r[0].Err.Error(), "connection closed before any answer") {
			t.Errorf("reset=%v: retry events = %+v", reset, r)
		}
	}
}

func TestRetrySleepStopsWhenCancelled(t *testing.T) {
	api := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, n int) {
		w.Header().Set("Retry-After", "3600")
		writeJSON(w, 503, `{"error":{"message":"maintenance"}}`)
	})
	c := api.client(t, testKey) // the real sleep
	ctx, cancel := context.WithCancel(context.Background())
	var wait time.Duration
	on := func(ev chat.StreamEvent) {
		if ev.Kind == chat.EventRetry {
			wait = ev.Wait
			cancel()
		}
	}
	errc := make(chan error, 1)
	go func() {
		_, err := c.Complete(ctx, testRequest(true), on)
		errc <- err
	}()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Complete kept sleeping after ctx was cancelled")
	}
	if wait != DefaultMaxRetryWait {
		t.Errorf("announced wait %v, want the cap %v", wait, DefaultMaxRetryWait)
	}
	if n := len(api.requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

func TestRetryAfterHeader(t *testing.T) {
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		header map[string]string
		want   time.Duration
		set    bool
	}{
		{map[string]string{"Retry-After": "0"}, 0, true},
		{map[string]string{"Retry-After": "2"}, 2 * time.Second, true},
		{map[string]string{"Retry-After": "1.5"}, 1500 * time.Millisecond, true},
		{map[string]string{"Retry-After": "90"}, 90 * time.Second, true}, // honoured in full
		{map[string]string{"Retry-After": "600"}, DefaultMaxRetryWait, true},
		{map[string]string{"Retry-After": now.Add(7 * time.Second).Format(http.TimeFormat)}, 7 * time.Second, true},
		{map[string]string{"Retry-After": now.Add(-time.Minute).Format(http.TimeFormat)}, 0, true},
		{map[string]string{"Retry-After": now.Add(time.Hour).Format(http.TimeFormat)}, DefaultMaxRetryWait, true},
		{map[string]string{"Retry-After-Ms": "250", "Retry-After": "9"}, 250 * time.Millisecond, true},
		{map[string]string{"Retry-After": "soon"}, 0, false},
		{nil, 0, false},
	}
	for _, tc := range cases {
		h := http.Header{}
		for k, v := range tc.header {
			h.Set(k, v)
		}
		hint := retryAfter(h, now)
		if hint.set != tc.set {
			t.Errorf("%v: set = %v, want %v", tc.header, hint.set, tc.set)
			continue
		}
		if tc.set {
			if got := hint.wait(1, DefaultMaxRetryWait); got != tc.want {
				t.Errorf("%v: wait = %v, want %v", tc.header, got, tc.want)
			}
		}
	}
	unset := &retryHint{}
	for n := 1; n <= 20; n++ {
		if d := unset.wait(n, DefaultMaxRetryWait); d <= 0 || d > maxBackoff {
			t.Errorf("backoff %d = %v, want in (0, %v]", n, d, maxBackoff)
		}
	}
}
