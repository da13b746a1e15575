// Package bpe counts the tokens of a text under one of OpenAI's tiktoken
// encodings: the text split by the encoding's pattern, each piece merged
// by byte-pair ranks. It only counts, so it builds only the table of
// ranks — no decoder, no sorted token list — and loads in a fraction of
// the time a full encoder takes, which is what a first screen with exact
// counts waits on.
package bpe

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/dlclark/regexp2"
	"github.com/pkoukk/tiktoken-go-loader/assets"
)

// The split patterns of the encodings, as tiktoken defines them.
var (
	o200kPattern = strings.Join([]string{
		`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?`,
		`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?`,
		`\p{N}{1,3}`,
		` ?[^\s\p{L}\p{N}]+[\r\n/]*`,
		`\s*[\r\n]+`,
		`\s+(?!\S)`,
		`\s+`,
	}, "|")
	cl100kPattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	gpt2Pattern   = `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`
)

// encodings maps an encoding's name to its table file and pattern.
var encodings = map[string][2]string{
	"o200k_base":  {"o200k_base.tiktoken", o200kPattern},
	"cl100k_base": {"cl100k_base.tiktoken", cl100kPattern},
	"p50k_base":   {"p50k_base.tiktoken", gpt2Pattern},
	"p50k_edit":   {"p50k_base.tiktoken", gpt2Pattern},
	"r50k_base":   {"r50k_base.tiktoken", gpt2Pattern},
}

// Known reports whether name is an encoding Load knows.
func Known(name string) bool {
	_, ok := encodings[name]
	return ok
}

// Counter counts tokens under one encoding. It is safe for concurrent
// use.
type Counter struct {
	ranks map[string]int
	pat   *regexp2.Regexp
}

// Load reads an encoding's table, embedded in the binary (no network).
func Load(name string) (*Counter, error) {
	enc, ok := encodings[name]
	if !ok {
		return nil, fmt.Errorf("load encoding %q: unknown encoding", name)
	}
	data, err := assets.Assets.ReadFile(enc[0])
	if err != nil {
		return nil, fmt.Errorf("load encoding %q: %w", name, err)
	}
	ranks, err := parseRanks(data)
	if err != nil {
		return nil, fmt.Errorf("load encoding %q: %w", name, err)
	}
	pat, err := regexp2.Compile(enc[1], regexp2.None)
	if err != nil {
		return nil, fmt.Errorf("load encoding %q: pattern: %w", name, err)
	}
	return &Counter{ranks: ranks, pat: pat}, nil
}

// parseRanks reads a .tiktoken table: a base64 token and its rank a line.
// The tokens are decoded into one string and the keys are pieces of it:
// one allocation for 200,000 tokens instead of one each.
func parseRanks(data []byte) (map[string]int, error) {
	lines := bytes.Count(data, []byte{'\n'}) + 1
	arena := make([]byte, 0, base64.StdEncoding.DecodedLen(len(data)))
	type span struct{ from, to, rank int }
	spans := make([]span, 0, lines)
	for n := 1; len(data) > 0; n++ {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if len(line) == 0 {
			continue
		}
		sp := bytes.IndexByte(line, ' ')
		if sp < 0 {
			return nil, fmt.Errorf("line %d: no rank after the token", n)
		}
		from := len(arena)
		var err error
		if arena, err = base64.StdEncoding.AppendDecode(arena, line[:sp]); err != nil {
			return nil, fmt.Errorf("line %d: token: %w", n, err)
		}
		rank, ok := parseRank(line[sp+1:])
		if !ok {
			return nil, fmt.Errorf("line %d: rank %q is not a number", n, line[sp+1:])
		}
		spans = append(spans, span{from, len(arena), rank})
	}
	all := string(arena)
	ranks := make(map[string]int, len(spans))
	for _, sp := range spans {
		ranks[all[sp.from:sp.to]] = sp.rank
	}
	return ranks, nil
}

// parseRank reads a rank: decimal digits, at most nine.
func parseRank(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 9 {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// Count is the number of tokens text encodes to (special tokens counted
// as ordinary text).
func (c *Counter) Count(text string) int {
	if text == "" {
		return 0
	}
	runes := []rune(text)
	n := 0
	var piece []byte
	m, _ := c.pat.FindRunesMatch(runes)
	for m != nil {
		piece = appendRunes(piece[:0], runes[m.Index:m.Index+m.Length])
		n += c.pieceTokens(piece)
		m, _ = c.pat.FindNextMatch(m)
	}
	return n
}

func appendRunes(b []byte, rs []rune) []byte {
	for _, r := range rs {
		b = utf8.AppendRune(b, r)
	}
	return b
}

// pieceTokens is how many tokens one piece of the split merges into: the
// pair of adjacent parts with the lowest rank merges first, until no
// pair has a rank.
func (c *Counter) pieceTokens(piece []byte) int {
	if len(piece) <= 1 {
		return len(piece)
	}
	if _, ok := c.ranks[string(piece)]; ok {
		return 1
	}
	// parts[i] is where part i starts and the rank of it merged with the
	// next part
	type part struct{ start, rank int }
	parts := make([]part, len(piece)+1)
	rank := func(i, skip int) int {
		if i+skip+2 < len(parts) {
			if r, ok := c.ranks[string(piece[parts[i].start:parts[i+skip+2].start])]; ok {
				return r
			}
		}
		return math.MaxInt
	}
	for i := range parts {
		parts[i] = part{i, math.MaxInt}
	}
	for i := 0; i < len(parts)-2; i++ {
		parts[i].rank = rank(i, 0)
	}
	for len(parts) > 1 {
		low, at := math.MaxInt, -1
		for i := 0; i < len(parts)-1; i++ {
			if parts[i].rank < low {
				low, at = parts[i].rank, i
			}
		}
		if at < 0 {
			break
		}
		parts[at].rank = rank(at, 1)
		if at > 0 {
			parts[at-1].rank = rank(at-1, 1)
		}
		parts = append(parts[:at+1], parts[at+2:]...)
	}
	return len(parts) - 1
}
