package harness

import (
	"sync"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// DefaultEncoding is the tokenizer used to count tokens.
const DefaultEncoding = "o200k_base"

// Tokenizer counts tokens. The BPE tables take a few hundred milliseconds to
// load, so they load once, lazily, on first use (or in the background after
// Warm), never on the UI's path.
type Tokenizer struct {
	name string
	once sync.Once
	enc  *tiktoken.Tiktoken
	err  error
}

// NewTokenizer returns a tokenizer for an encoding name ("" = o200k_base).
func NewTokenizer(encoding string) *Tokenizer {
	if encoding == "" {
		encoding = DefaultEncoding
	}
	return &Tokenizer{name: encoding}
}

var defaultTokenizer = NewTokenizer(DefaultEncoding)

func (t *Tokenizer) load() {
	t.once.Do(func() {
		// The offline loader embeds the tables: no network, ever.
		tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
		t.enc, t.err = tiktoken.GetEncoding(t.name)
	})
}

// Warm starts loading the tables in the background.
func (t *Tokenizer) Warm() { go t.load() }

// Count returns the number of tokens in s. If the tables cannot load, it
// falls back to an estimate of four characters a token.
func (t *Tokenizer) Count(s string) int {
	if s == "" {
		return 0
	}
	t.load()
	if t.err != nil || t.enc == nil {
		return (len([]rune(s)) + 3) / 4
	}
	return len(t.enc.EncodeOrdinary(s))
}

// Name is the encoding's name.
func (t *Tokenizer) Name() string { return t.name }
