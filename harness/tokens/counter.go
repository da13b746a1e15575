package tokens

import (
	"sync"
	"unicode/utf8"

	"skillet/skills"
)

// Counter counts tokens with a tokenizer, remembering recent texts: skill
// texts and messages are counted again at every snapshot otherwise. It has
// its own lock, so snapshots count after releasing the session's. It
// implements rulebook.Counter.
type Counter struct {
	tok *Tokenizer
	// mu guards cache and chars.
	mu    sync.Mutex
	cache map[string]int
	// chars are the characters of parsed skills' load text: a catalog's
	// skills never change once parsed (a refresh parses a new one), and
	// snapshots check every skill against max_skill_chars.
	chars map[*skills.Skill]int
}

// NewCounter returns a counter over tok.
func NewCounter(tok *Tokenizer) *Counter { return &Counter{tok: tok} }

// SkillChars is the number of characters a load of sk delivers.
func (c *Counter) SkillChars(sk *skills.Skill) int {
	c.mu.Lock()
	n, ok := c.chars[sk]
	c.mu.Unlock()
	if ok {
		return n
	}
	n = utf8.RuneCountInString(sk.LoadText())
	c.mu.Lock()
	if c.chars == nil || len(c.chars) > 1<<16 {
		c.chars = map[*skills.Skill]int{}
	}
	c.chars[sk] = n
	c.mu.Unlock()
	return n
}

func (c *Counter) cached(text string) (int, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, ok := c.cache[text]
	return n, ok
}

// Count counts tokens exactly, waiting for the tokenizer's tables.
func (c *Counter) Count(text string) int {
	if len(text) < 64 {
		return c.tok.Count(text)
	}
	if n, ok := c.cached(text); ok {
		return n
	}
	n := c.tok.Count(text)
	c.mu.Lock()
	if c.cache == nil || len(c.cache) > 512 {
		c.cache = map[string]int{}
	}
	c.cache[text] = n
	c.mu.Unlock()
	return n
}

// CountNow counts tokens without waiting for the tokenizer's tables: an
// estimate until they are ready (and *estimated is set, when given).
func (c *Counter) CountNow(text string, estimated *bool) int {
	if c.tok.Ready() {
		return c.Count(text)
	}
	if n, ok := c.cached(text); ok {
		return n
	}
	if estimated != nil {
		*estimated = true
	}
	return CountEstimate(text)
}
