package llm

import (
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Bounds of the wait between retries.
const (
	// maxBackoff caps the client's own backoff, when the server names no
	// wait.
	maxBackoff = 30 * time.Second
	// baseRetryWait is the first wait when the server names none; it
	// doubles with each retry.
	baseRetryWait = 500 * time.Millisecond
)

// retryHint marks a failure worth retrying; after is the wait the server
// asked for, when set.
type retryHint struct {
	after time.Duration
	set   bool
}

// wait is how long to wait before retry n (1, 2, …): what the server asked
// for, in full up to limit, else exponential backoff with jitter, capped
// at maxBackoff.
func (h *retryHint) wait(n int, limit time.Duration) time.Duration {
	if h.set {
		return min(max(h.after, 0), limit)
	}
	d := baseRetryWait << min(n-1, 16)
	if d <= 0 || d > maxBackoff {
		d = maxBackoff
	}
	// Equal jitter: between half and all of d, so clients that failed
	// together do not retry together.
	return d/2 + rand.N(d/2+1)
}

// retryAfter reads the wait a 429 or 503 answer asks for: retry-after-ms
// (OpenAI), else Retry-After in seconds or as an HTTP date.
func retryAfter(h http.Header, now time.Time) *retryHint {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			return &retryHint{after: time.Duration(ms * float64(time.Millisecond)), set: true}
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return &retryHint{}
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil && secs >= 0 {
		if secs > (24 * time.Hour).Seconds() {
			return &retryHint{after: 24 * time.Hour, set: true}
		}
		return &retryHint{after: time.Duration(secs * float64(time.Second)), set: true}
	}
	if t, err := http.ParseTime(v); err == nil {
		return &retryHint{after: t.Sub(now), set: true}
	}
	return &retryHint{}
}

// isReset says whether a request failed because the server closed or reset
// the connection before answering anything, which a retry can cure.
func isReset(err error) bool {
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.EPIPE)
}
