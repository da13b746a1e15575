package tokens

import (
	"strings"
	"testing"
)

// Long texts are counted once per tokenizer; the remembered count is the
// count, and texts that differ in one byte are told apart.
func TestTokenizerRemembersLongTexts(t *testing.T) {
	tok := NewTokenizer("")
	text := strings.Repeat("Parse the molecule with RDKit and report its rings. ", 40)
	want := tok.encodeForTest(text)
	if got := tok.Count(text); got != want {
		t.Fatalf("first count %d, want %d", got, want)
	}
	if tok.memo.size() != 1 {
		t.Fatalf("%d counts remembered, want 1", tok.memo.size())
	}
	if got := tok.Count(text); got != want {
		t.Fatalf("remembered count %d, want %d", got, want)
	}
	other := text[:len(text)-2] + "x!"
	if got, exact := tok.Count(other), tok.encodeForTest(other); got != exact {
		t.Fatalf("a text differing in its last bytes counts %d, want %d", got, exact)
	}
	if short := "a short text"; tok.Count(short) != tok.encodeForTest(short) || tok.memo.size() != 2 {
		t.Fatalf("short texts are counted, not remembered: %d remembered", tok.memo.size())
	}
}

// The memo never holds more than its bound.
func TestCountMemoIsBounded(t *testing.T) {
	var m countMemo
	for i := range maxMemoTexts + 10 {
		m.put(m.key(strings.Repeat("x", minMemoText)+string(rune('a'+i%26))+strings.Repeat("y", i)), i)
	}
	if n := m.size(); n > maxMemoTexts || n == 0 {
		t.Fatalf("%d counts remembered, bound %d", n, maxMemoTexts)
	}
}

// encodeForTest counts without the memo.
func (t *Tokenizer) encodeForTest(s string) int {
	t.load()
	return t.encode(s)
}
