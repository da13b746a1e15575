package llm

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"skillet/harness/chat"
)

// A reply that trickles in (a chunk every 5 ms) reaches a paced client in
// a few reads, each bringing every chunk sent since the one before; the
// text is whole.
func TestReadPaceGathersATricklingStream(t *testing.T) {
	const chunks = 60
	api := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, n int) {
		w.Header().Set("Content-Type", "text/event-stream")
		fl := w.(http.Flusher)
		for i := range chunks {
			fmt.Fprintf(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"w%d \"}}]}\n\n", i)
			fl.Flush()
			time.Sleep(5 * time.Millisecond)
		}
		io.WriteString(w, "data: [DONE]\n\n")
	})
	gathered := func(pace time.Duration) (int, string) {
		var last time.Time
		groups := 0
		on := func(ev chat.StreamEvent) {
			if ev.Kind != chat.EventText {
				return
			}
			// deltas of one read are passed on back to back
			if now := time.Now(); now.Sub(last) > time.Millisecond {
				groups++
				last = now
			} else {
				last = now
			}
		}
		reply, err := api.client(t, testKey, func(c *Config) { c.ReadPace = pace }).Complete(context.Background(), testRequest(true), on)
		if err != nil {
			t.Fatalf("pace %v: %v", pace, err)
		}
		return groups, reply.Message.Content
	}
	var want strings.Builder
	for i := range chunks {
		fmt.Fprintf(&want, "w%d ", i)
	}
	groups, text := gathered(50 * time.Millisecond)
	if text != want.String() {
		t.Fatalf("paced reply %q, want %q", text, want.String())
	}
	// 300 ms of chunks in reads at least 50 ms apart: about 6 groups
	if groups > 15 {
		t.Errorf("paced at 50 ms, the %d chunks came in %d separate reads; want at most 15", chunks, groups)
	}
	t.Logf("%d chunks over 300 ms: %d reads paced at 50 ms", chunks, groups)
}

// burstReader hands out what it holds a few bytes at a time, at once.
type burstReader struct{ s string }

func (b *burstReader) Read(p []byte) (int, error) {
	if b.s == "" {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), 7)], b.s)
	b.s = b.s[n:]
	return n, nil
}

// slowReader waits before each read, as a socket does for a trickling
// sender.
type slowReader struct {
	wait time.Duration
	n    int
}

func (s *slowReader) Read(p []byte) (int, error) {
	if s.n == 0 {
		return 0, io.EOF
	}
	time.Sleep(s.wait)
	s.n--
	p[0] = 'x'
	return 1, nil
}

// Reads of bytes already there never wait for the pace; reads that
// blocked are spaced by it; a cancelled context ends a wait.
func TestReadPaceWaitsOnlyAfterAReadThatWaited(t *testing.T) {
	body := func(r io.Reader, pace time.Duration, ctx context.Context) *watchedBody {
		dog := &watchdog{}
		return &watchedBody{r: r, w: dog, raw: &rawText{}, events: true, pace: pace, ctx: ctx}
	}
	burst := body(&burstReader{s: strings.Repeat("data: x\n\n", 500)}, time.Hour, context.Background())
	if b, err := io.ReadAll(burst); err != nil || len(b) != 500*9 {
		t.Fatalf("burst: %d bytes, %v", len(b), err)
	}
	if burst.waits != 0 {
		t.Errorf("a burst already there waited %d times for the pace", burst.waits)
	}

	slow := body(&slowReader{wait: 3 * paceBlocked, n: 4}, 20*time.Millisecond, context.Background())
	var returns []time.Time
	buf := make([]byte, 16)
	for {
		_, err := slow.Read(buf)
		returns = append(returns, time.Now())
		if err != nil {
			break
		}
	}
	if slow.waits < 3 {
		t.Errorf("reads that blocked were followed by %d paced waits, want at least 3", slow.waits)
	}
	for i := 1; i < len(returns); i++ {
		if gap := returns[i].Sub(returns[i-1]); gap < 20*time.Millisecond {
			t.Errorf("read %d returned %v after the one before, inside the 20 ms pace", i, gap)
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	held := body(&slowReader{wait: 3 * paceBlocked, n: 2}, time.Hour, ctx)
	held.Read(buf) // blocked: the next read waits an hour, unless cancelled
	done := make(chan struct{})
	go func() { held.Read(buf); close(done) }()
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("a cancelled context did not end the pace's wait")
	}
}
