package llm

import (
	"fmt"
	"net/http"
	"os"
	"time"
)

// Defaults used for zero Config fields.
const (
	DefaultBaseURL          = "https://api.openai.com/v1"
	DefaultConnectTimeout   = 10 * time.Second
	DefaultFirstByteTimeout = 120 * time.Second
	DefaultIdleTimeout      = 60 * time.Second
	DefaultReplyTimeout     = 10 * time.Minute
	DefaultMaxRetries       = 3
	// DefaultMaxRetryWait bounds the wait a 429 or 503 asks for: a
	// provider's Retry-After is honoured in full up to it.
	DefaultMaxRetryWait = 5 * time.Minute
)

// Config says where the model API is and how patiently to talk to it.
type Config struct {
	// BaseURL is the API root, such as https://api.openai.com/v1; requests go
	// to BaseURL + "/chat/completions". Empty means DefaultBaseURL.
	BaseURL string
	// APIKey is sent as a bearer token when set. It only ever comes from the
	// environment (OPENAI_API_KEY) and never appears in errors or in the
	// Config's String.
	APIKey string
	// ConnectTimeout bounds dialing the server; FirstByteTimeout bounds the
	// wait from sending the request to the first byte of the reply body;
	// IdleTimeout bounds any silence after that. In an event stream only
	// data counts: keep-alive comments neither answer the first-byte
	// timeout nor reset the idle one, so a server that sends nothing else
	// still times out. Zero means the default; a negative value means no
	// limit.
	// ConnectTimeout has no effect when HTTPClient is set.
	ConnectTimeout, FirstByteTimeout, IdleTimeout time.Duration
	// ReplyTimeout bounds one request from sending it to the reply's end,
	// however steadily data arrives. Zero means the default; a negative
	// value means no limit.
	ReplyTimeout time.Duration
	// MaxRetries is how many times a request answered 429 or 503, or whose
	// connection was reset before any answer, is sent again. Zero means
	// DefaultMaxRetries; a negative value means never.
	MaxRetries int
	// MaxRetryWait is the longest wait before a retry that the server may
	// ask for (Retry-After); a longer ask waits this long. Zero means
	// DefaultMaxRetryWait.
	MaxRetryWait time.Duration
	// ReadPace, when above zero, spaces the reads of a reply that streams
	// slowly: after a read that waited for its bytes, the next one waits
	// until ReadPace has passed, so the chunks sent meanwhile arrive in one
	// read. A screen that shows text a few times a second loses nothing by
	// it, and the process wakes for the network a few times a second
	// instead of once per chunk (a hundred times a second at 100 tokens a
	// second). A stream that arrives faster than it is read is never
	// slowed: its reads do not wait. Zero reads as data comes, for callers
	// that measure or pass on each chunk's timing.
	ReadPace time.Duration
	// HTTPClient replaces the client's own HTTP client, for tests.
	HTTPClient *http.Client
}

// ConfigFromEnv is the default Config with the base URL from OPENAI_BASE_URL
// (when set) and the key from OPENAI_API_KEY.
func ConfigFromEnv() Config {
	cfg := Config{
		BaseURL:          DefaultBaseURL,
		APIKey:           os.Getenv("OPENAI_API_KEY"),
		ConnectTimeout:   DefaultConnectTimeout,
		FirstByteTimeout: DefaultFirstByteTimeout,
		IdleTimeout:      DefaultIdleTimeout,
		ReplyTimeout:     DefaultReplyTimeout,
		MaxRetries:       DefaultMaxRetries,
	}
	if base := os.Getenv("OPENAI_BASE_URL"); base != "" {
		cfg.BaseURL = base
	}
	return cfg
}

// String shows the Config without its key, so that printing it with %v or
// %+v can never leak the key.
func (c Config) String() string {
	key := "unset"
	if c.APIKey != "" {
		key = "set"
	}
	return fmt.Sprintf("llm.Config{BaseURL: %q, APIKey: %s, ConnectTimeout: %s, FirstByteTimeout: %s, IdleTimeout: %s, ReplyTimeout: %s, MaxRetries: %d}",
		Redacted(c.BaseURL), key, c.ConnectTimeout, c.FirstByteTimeout, c.IdleTimeout, c.ReplyTimeout, c.MaxRetries)
}

// GoString keeps %#v from printing the key too.
func (c Config) GoString() string { return c.String() }

// withDefaults fills zero fields and turns "no limit" into 0.
func (c Config) withDefaults() Config {
	if c.BaseURL == "" {
		c.BaseURL = DefaultBaseURL
	}
	c.ConnectTimeout = orDefault(c.ConnectTimeout, DefaultConnectTimeout)
	c.FirstByteTimeout = orDefault(c.FirstByteTimeout, DefaultFirstByteTimeout)
	c.IdleTimeout = orDefault(c.IdleTimeout, DefaultIdleTimeout)
	if c.MaxRetryWait <= 0 {
		c.MaxRetryWait = DefaultMaxRetryWait
	}
	c.ReplyTimeout = orDefault(c.ReplyTimeout, DefaultReplyTimeout)
	switch {
	case c.MaxRetries == 0:
		c.MaxRetries = DefaultMaxRetries
	case c.MaxRetries < 0:
		c.MaxRetries = 0
	}
	return c
}

func orDefault(d, def time.Duration) time.Duration {
	switch {
	case d == 0:
		return def
	case d < 0:
		return 0
	}
	return d
}
