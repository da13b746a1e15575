package tokens

import (
	"hash/maphash"
	"sync"
)

// Counting a long text is the costliest step of a run that loads a real
// skill (BPE over 20 KB takes milliseconds), and the same texts — skill
// bodies, instructions, the catalogue — come back in every session of an
// eval. A tokenizer therefore remembers the counts of long texts by a hash
// of their content, across sessions.
const (
	// minMemoText is the shortest text whose count is remembered: below
	// it hashing and a lookup cost about what counting does.
	minMemoText = 512
	// maxMemoTexts bounds the remembered counts; when full the memo starts
	// over, so memory stays at a few hundred KB whatever runs.
	maxMemoTexts = 1 << 14
)

// memoKey names a text by two independent 64-bit hashes and its length:
// two different texts share a key with odds far below one in 2^100.
type memoKey struct {
	a, b uint64
	n    int
}

// countMemo is a bounded map from text content to token count, safe for
// concurrent use.
type countMemo struct {
	once   sync.Once
	sa, sb maphash.Seed
	mu     sync.Mutex
	counts map[memoKey]int
}

func (m *countMemo) key(s string) memoKey {
	m.once.Do(func() { m.sa, m.sb = maphash.MakeSeed(), maphash.MakeSeed() })
	return memoKey{a: maphash.String(m.sa, s), b: maphash.String(m.sb, s), n: len(s)}
}

func (m *countMemo) get(k memoKey) (int, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, ok := m.counts[k]
	return n, ok
}

func (m *countMemo) put(k memoKey, n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.counts == nil || len(m.counts) >= maxMemoTexts {
		m.counts = make(map[memoKey]int)
	}
	m.counts[k] = n
}

// size is how many counts are remembered.
func (m *countMemo) size() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.counts)
}
