// Package tokens counts tokens the way the model's tokenizer does: exactly
// once its tables are loaded, by estimate before, remembering long texts.
package tokens

import (
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"

	"skillet/harness/bpe"
)

// DefaultEncoding is the tokenizer used to count tokens.
const DefaultEncoding = "o200k_base"

// Tokenizer counts tokens. The BPE tables take a few hundred milliseconds to
// load, so they load once, lazily, on first use (or in the background after
// Warm), never on the UI's path. Until they are ready, the session's
// counts (and CountEstimate) answer at once with an estimate.
type Tokenizer struct {
	name string
	once sync.Once
	// count counts with the loaded tables: a counting-only table (package
	// bpe) for the encodings it knows, which loads several times faster
	// than tiktoken's full encoder, used for any other.
	count  func(string) int
	err    error
	ready  atomic.Bool
	loaded chan struct{} // closed when loading ended, however it went
	memo   countMemo
}

// NewTokenizer returns a tokenizer for an encoding name ("" = o200k_base).
func NewTokenizer(encoding string) *Tokenizer {
	if encoding == "" {
		encoding = DefaultEncoding
	}
	return &Tokenizer{name: encoding, loaded: make(chan struct{})}
}

var shared = NewTokenizer(DefaultEncoding)

// Default is the tokenizer of DefaultEncoding every session shares unless
// told otherwise, so that its tables load once per process.
func Default() *Tokenizer { return shared }

func (t *Tokenizer) load() {
	t.once.Do(func() {
		// The tables are embedded: no network, ever.
		if bpe.Known(t.name) {
			var c *bpe.Counter
			if c, t.err = bpe.Load(t.name); t.err == nil {
				t.count = c.Count
			}
		} else {
			tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
			var enc *tiktoken.Tiktoken
			if enc, t.err = tiktoken.GetEncoding(t.name); t.err == nil && enc != nil {
				t.count = func(s string) int { return len(enc.EncodeOrdinary(s)) }
			}
		}
		t.ready.Store(t.err == nil && t.count != nil)
		close(t.loaded)
	})
}

// Warm starts loading the tables in the background.
func (t *Tokenizer) Warm() { go t.load() }

// Loaded is closed once loading the tables has ended, well or not (Ready
// says which), so that counts shown as estimates can be counted again. It
// does not start loading.
func (t *Tokenizer) Loaded() <-chan struct{} { return t.loaded }

// Ready reports whether the tables are loaded, so that Count answers
// without waiting and the session's counts are exact. It stays false when the tables
// could not load.
func (t *Tokenizer) Ready() bool { return t.ready.Load() }

// Count returns the number of tokens in s, waiting for the tables if they
// are still loading. If the tables cannot load, it falls back to
// CountEstimate.
//
// The count is exact except inside a run of more than maxRun bytes of one
// kind of character (letters, digits, spaces or punctuation) with nothing
// else between: BPE takes time quadratic in the length of such a run (a
// model stuck repeating one letter produces megabytes of it), so the run is
// counted in pieces of maxRun bytes. A run cut like that counts the same or
// a little higher than the whole run would (10 KB of one letter: 1,250 both
// ways; "abc" repeated to 10 KB: 3,359 against 3,333 exact), a close upper
// bound, and the time stays linear in len(s).
func (t *Tokenizer) Count(s string) int {
	if s == "" {
		return 0
	}
	t.load()
	if !t.ready.Load() {
		return CountEstimate(s)
	}
	if len(s) < minMemoText {
		return t.encode(s)
	}
	k := t.memo.key(s)
	if n, ok := t.memo.get(k); ok {
		return n
	}
	n := t.encode(s)
	t.memo.put(k, n)
	return n
}

// encode counts s's tokens with the tables, piece by piece.
func (t *Tokenizer) encode(s string) int {
	n := 0
	for _, piece := range pieces(s, maxRun) {
		n += t.count(piece)
	}
	return n
}

// CountEstimate estimates the number of tokens in s without the tables, in
// one pass: about four ASCII bytes a token, and two other characters (an
// accented letter, a CJK character, an emoji) in three. For English prose
// and Markdown it is typically within a fifth of the exact count.
func CountEstimate(s string) int {
	ascii, other := 0, 0
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			ascii++
			i++
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		other++
		i += size
	}
	return (ascii+3)/4 + (other*2+2)/3
}

// maxRun is the longest run of one kind of character that is counted in
// one piece. Words, numbers and indentation are far shorter; at this length
// the quadratic BPE of one piece still costs about what ordinary text does.
const maxRun = 256

// maxPiece is about the longest piece of ordinary text counted at once.
// The encoder holds several times a piece's bytes while it works (its
// characters as runes, a match per pre-token), so a reply of many
// megabytes is counted a piece at a time, in memory that does not grow
// with the reply.
const maxPiece = 16 << 10

// pieces splits s so that no piece holds a run of one character class
// longer than max bytes, cutting only inside such runs (at a character
// boundary), and no piece is much longer than maxPiece: past it, a piece
// ends before a space that follows a word and begins another — where the
// pre-split would end a pre-token too, so the count stays exact — or,
// past twice that, at any change of class. Short text without such a run
// comes back whole, so its count is exact.
func pieces(s string, max int) []string {
	var out []string
	start, runStart, runClass := 0, 0, -1
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		c := charClass(r)
		switch {
		case c != runClass:
			if long := i - start; long > maxPiece && (long > 2*maxPiece || wordSpace(s, i)) {
				out = append(out, s[start:i])
				start = i
			}
			runStart, runClass = i, c
		case i+size-runStart > max:
			out = append(out, s[start:i])
			start, runStart = i, i
		}
		i += size
	}
	return append(out, s[start:])
}

// wordSpace reports whether s[i] is one space between a letter before it
// and a letter after it: " word" is one pre-token, "word" before it another.
func wordSpace(s string, i int) bool {
	if s[i] != ' ' || i == 0 || i+1 >= len(s) {
		return false
	}
	prev, _ := utf8.DecodeLastRuneInString(s[:i])
	next, _ := utf8.DecodeRuneInString(s[i+1:])
	return charClass(prev) == 0 && charClass(next) == 0
}

// charClass groups runes the way the tokenizer's pre-split does: a run of
// one class can be one pre-token, a change of class always ends one.
func charClass(r rune) int {
	switch {
	case r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'):
		return 0
	case r < utf8.RuneSelf && r >= '0' && r <= '9':
		return 1
	case r == ' ' || r == '\t' || r == '\n' || r == '\r':
		return 2
	case r < utf8.RuneSelf:
		return 3
	case unicode.IsLetter(r) || unicode.IsMark(r):
		return 0
	case unicode.IsNumber(r):
		return 1
	case unicode.IsSpace(r):
		return 2
	}
	return 3
}

// Name is the encoding's name.
func (t *Tokenizer) Name() string { return t.name }
