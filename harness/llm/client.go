package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"skillet/harness/chat"
)

// Client talks to an OpenAI-compatible chat-completions API. It is safe for
// concurrent use.
type Client struct {
	cfg         Config
	key         string
	secrets     []string // the key and a password in the base URL: never let out
	completions string   // the chat/completions URL
	http        *http.Client
	ids         atomic.Int64
	// sleep waits between retries; tests replace it to record the waits.
	sleep func(ctx context.Context, d time.Duration) error
}

var _ chat.Model = (*Client)(nil)

// New checks cfg and makes a Client. Zero fields take their defaults.
func New(cfg Config) (*Client, error) {
	cfg = cfg.withDefaults()
	base := strings.TrimRight(cfg.BaseURL, "/")
	u, err := url.Parse(base)
	if err != nil {
		return nil, fmt.Errorf("model base URL %q: %w", cfg.BaseURL, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("model base URL %q: want http:// or https:// and a host, such as %s", cfg.BaseURL, DefaultBaseURL)
	}
	cfg.BaseURL = base
	c := &Client{cfg: cfg, key: cfg.APIKey, secrets: secretsOf(cfg.APIKey, u), completions: endpointURL(u, "chat/completions"), http: cfg.HTTPClient, sleep: sleepCtx}
	if c.http == nil {
		c.http = &http.Client{Transport: &http.Transport{
			Proxy:               http.ProxyFromEnvironment,
			DialContext:         dialer(cfg.ConnectTimeout),
			ForceAttemptHTTP2:   true,
			TLSHandshakeTimeout: cfg.ConnectTimeout,
			MaxIdleConns:        16,
			MaxIdleConnsPerHost: 4,
			IdleConnTimeout:     90 * time.Second,
		}}
	}
	return c, nil
}

// endpointURL is an API path under the base URL, its query kept where it
// belongs: https://h/v1?api-key=K gives https://h/v1/chat/completions?api-key=K.
func endpointURL(base *url.URL, path string) string {
	u := *base
	u.Path = strings.TrimRight(u.Path, "/") + "/" + path
	if u.RawPath != "" {
		u.RawPath = strings.TrimRight(u.RawPath, "/") + "/" + path
	}
	return u.String()
}

// BaseURL is the API root the client talks to, as it was given.
func (c *Client) BaseURL() string { return c.cfg.BaseURL }

// Complete sends req and returns the model's reply, reading it as a stream
// of server-sent events when req.Stream is set. Pieces are reported through
// on (which may be nil) as they arrive: text, reasoning, tool names, and
// retries of a request answered 429 or 503. on runs on the reading
// goroutine, so it should hand pieces on rather than block: while it runs
// nothing is read, and the idle timeout keeps counting.
//
// A stream that ends without a finish reason gives an interrupted reply
// (Reply.Interrupted) and a nil error. When a stream fails midway (an error
// event, a timeout, ctx cancelled) the reply so far comes back together with
// the error, so that what arrived can still be shown. HTTP errors and errors
// sent by the server are *chat.APIError; timeouts are *TimeoutError; a
// cancelled ctx gives ctx's error. A reply that outgrows maxBody ends with
// an error naming the cap. The API key never appears in the reply nor in
// the pieces reported through on, even when the server echoes it.
func (c *Client) Complete(ctx context.Context, req *chat.Request, on func(chat.StreamEvent)) (*chat.Reply, error) {
	if req == nil {
		return nil, errors.New("model request: nil request")
	}
	body, err := req.Body()
	if err != nil {
		return nil, err
	}
	return c.CompleteBody(ctx, req, body, on)
}

// CompleteBody is Complete sending body, which is req.Body().
func (c *Client) CompleteBody(ctx context.Context, req *chat.Request, body []byte, on func(chat.StreamEvent)) (*chat.Reply, error) {
	if req == nil {
		return nil, errors.New("model request: nil request")
	}
	for attempt := 0; ; attempt++ {
		reply, retry, err := c.attempt(ctx, body, req.Stream, on)
		if retry == nil || attempt >= c.cfg.MaxRetries || ctx.Err() != nil {
			if err != nil && ctx.Err() != nil {
				return reply, ctx.Err()
			}
			return reply, c.redact(err)
		}
		wait := retry.wait(attempt+1, c.cfg.MaxRetryWait)
		if on != nil {
			on(chat.StreamEvent{Kind: chat.EventRetry, Attempt: attempt + 1, Wait: wait, Err: c.redact(err)})
		}
		if err := c.sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

// attempt sends body once. A non-nil retry says the failure is worth
// another try and how long the server asked to wait.
func (c *Client) attempt(parent context.Context, body []byte, stream bool, on func(chat.StreamEvent)) (*chat.Reply, *retryHint, error) {
	whole := parent
	if d := c.cfg.ReplyTimeout; d > 0 {
		// the overall deadline: a stream that trickles data keeps the idle
		// clock happy for ever
		var cancel context.CancelFunc
		whole, cancel = context.WithTimeoutCause(parent, d, &TimeoutError{Which: TimeoutReply, After: d})
		defer cancel()
	}
	ctx, dog := watch(whole, c.cfg.FirstByteTimeout, c.cfg.IdleTimeout)
	defer dog.stop()

	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, c.completions, bytes.NewReader(body))
	if err != nil {
		return nil, nil, fmt.Errorf("model request: %w", err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	if stream {
		hreq.Header.Set("Accept", "text/event-stream")
	} else {
		hreq.Header.Set("Accept", "application/json")
	}
	if c.key != "" {
		hreq.Header.Set("Authorization", "Bearer "+c.key)
	}
	resp, err := c.http.Do(hreq)
	if err != nil {
		err = dog.explain(parent, ctx, err)
		if parent.Err() == nil && isReset(err) {
			return nil, &retryHint{}, fmt.Errorf("model API: connection closed before any answer: %w", err)
		}
		var te *TimeoutError
		if errors.As(err, &te) || parent.Err() != nil {
			return nil, nil, err
		}
		// The dialer's and the watchdog's timeouts are told apart above;
		// the only other one is the TLS handshake's, part of connecting.
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return nil, nil, &TimeoutError{Which: TimeoutConnect, After: c.cfg.ConnectTimeout}
		}
		return nil, nil, fmt.Errorf("model API: %w", err)
	}
	defer resp.Body.Close()

	raw := &rawText{}
	rd := &watchedBody{r: resp.Body, w: dog, raw: raw}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		b, rerr := io.ReadAll(io.LimitReader(rd, 64<<10))
		if rerr != nil {
			return nil, nil, fmt.Errorf("model API said %d and its message could not be read: %w", resp.StatusCode, dog.explain(parent, ctx, rerr))
		}
		aerr := apiError(resp.StatusCode, b)
		if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
			return nil, retryAfter(resp.Header, time.Now()), aerr
		}
		return nil, nil, aerr
	}

	asm := &assembler{on: on, newID: func() string { return callID(c.ids.Add(1)) }, max: maxBody,
		hideText: newKeyFilter(c.secrets), hideReasoning: newKeyFilter(c.secrets)}
	ctype := resp.Header.Get("Content-Type")
	if stream && !isJSON(ctype) {
		var events int
		rd.events = true
		rd.pace, rd.ctx = c.cfg.ReadPace, ctx
		events, err = readStream(rd, asm, dog.alive)
		if err == nil && events == 0 && raw.buf.Len() > 0 && !isEventStream(ctype) {
			// Not a stream that died early: a page from something that is not
			// the model API (a proxy, a captive portal).
			err = fmt.Errorf("model API answered %q, not an event stream: %s", ctype, firstText([]byte(raw.buf.String()), 200))
		}
	} else {
		stream, asm.whole = false, true
		err = readWhole(rd, asm)
	}
	asm.flush()
	reply := asm.reply(stream)
	c.hideKey(reply)
	reply.Raw = c.rawString(raw)
	if err != nil {
		var ae *chat.APIError
		if !errors.As(err, &ae) {
			err = dog.explain(parent, ctx, err)
		}
		reply.Interrupted = true
		reply.Message.ToolCalls = nil
		return reply, nil, err
	}
	dog.drain(rd)
	return reply, nil, nil
}

// readStream feeds the chunks of an SSE stream to asm until [DONE] or EOF,
// and counts the events it saw. progress (which may be nil) is called as
// data arrives.
func readStream(r io.Reader, asm *assembler, progress func()) (int, error) {
	sse := newSSEReader(r)
	sse.progress = progress
	for events := 0; ; events++ {
		ev, err := sse.next()
		if errors.Is(err, io.EOF) || isReset(err) {
			// The stream ended, cleanly or with the connection dropped: the
			// reply is whatever arrived, interrupted when it had no finish.
			return events, nil
		}
		if err != nil {
			return events, fmt.Errorf("model stream: %w", err)
		}
		if ev.isError {
			msg := bytes.TrimSpace(ev.data)
			if len(msg) == 0 {
				return events, &chat.APIError{Status: 200, Message: "the server sent an error event with no message"}
			}
			return events, apiError(200, msg)
		}
		data := bytes.TrimSpace(ev.data)
		if len(data) == 0 {
			continue
		}
		if string(data) == "[DONE]" {
			return events + 1, nil
		}
		var ch chunk
		if err := json.Unmarshal(data, &ch); err != nil {
			if ev.cut { // the connection dropped mid-chunk: an interrupted reply
				return events, nil
			}
			return events, fmt.Errorf("model stream: a chunk is not valid JSON (%v): %s", err, firstText(data, 200))
		}
		if err := asm.add(&ch); err != nil {
			return events, err
		}
	}
}

// maxBody bounds a non-streamed reply, and what a streamed one holds.
const maxBody = 64 << 20

// readWhole decodes a non-streamed JSON reply into asm.
func readWhole(r io.Reader, asm *assembler) error {
	b, err := io.ReadAll(io.LimitReader(r, maxBody+1))
	if err != nil {
		return fmt.Errorf("model reply: %w", err)
	}
	if len(b) > maxBody {
		return fmt.Errorf("model reply: longer than the %d MiB a reply may hold; the rest was not read", maxBody>>20)
	}
	var ch chunk
	if err := json.Unmarshal(b, &ch); err != nil {
		return fmt.Errorf("model reply is not valid JSON (%v): %s", err, firstText(b, 200))
	}
	if err := asm.add(&ch); err != nil {
		return err
	}
	if len(ch.Choices) == 0 {
		return fmt.Errorf("model reply has no choices: %s", firstText(b, 200))
	}
	return nil
}

// rawString is Reply.Raw: what arrived, cut with a note when long, with the
// key removed in case a server echoed it.
func (c *Client) rawString(r *rawText) string {
	s := r.buf.String()
	if r.dropped > 0 {
		s += fmt.Sprintf("\n[raw reply cut at %d bytes; %d more bytes not kept]", maxRaw, r.dropped)
	}
	return hideAll(ScrubStream(s, c.secrets), c.secrets)
}

func isEventStream(contentType string) bool {
	mt, _, _ := mime.ParseMediaType(contentType)
	return mt == "text/event-stream"
}

func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
