package bpe

import (
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// corpus is text to count: the real skills' SKILL.md files when present,
// and always text with what tokenizers trip on (contractions, digits,
// CJK, emoji, invalid UTF-8, runs of spaces and newlines).
func corpus(t *testing.T) []string {
	texts := []string{
		"", "a", " ", "\n\n\n", "Hello, world! It's 2026; we've 12345678 items.",
		"  indented\n\tand tabbed  \r\n", "日本語のテキストと emoji 🎉🎉 mixed", "bad \xff\xfe utf-8",
		"CamelCaseWords and SHOUTING'LL don't I'D", "<|endoftext|> stays text", strings.Repeat("ab", 300),
	}
	r := rand.New(rand.NewPCG(3, 4))
	alphabet := []rune("aZ09 \n\t'.,!é日🎉-_/\\\"")
	for range 200 {
		var b strings.Builder
		for range r.IntN(80) {
			b.WriteRune(alphabet[r.IntN(len(alphabet))])
		}
		texts = append(texts, b.String())
	}
	dir := filepath.Join("..", "..", "..", "shared", "real-corpus")
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == "SKILL.md" && len(texts) < 300 {
			if b, err := os.ReadFile(p); err == nil {
				texts = append(texts, string(b))
			}
		}
		return nil
	})
	return texts
}

// Counts equal the full encoder's for every encoding, over real skills
// and awkward text.
func TestCountMatchesTiktoken(t *testing.T) {
	tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
	texts := corpus(t)
	for k, name := range []string{"o200k_base", "cl100k_base", "p50k_base", "r50k_base"} {
		if k > 0 {
			texts = texts[:250] // the others on the short texts and some skills
		}
		c, err := Load(name)
		if err != nil {
			t.Fatal(err)
		}
		full, err := tiktoken.GetEncoding(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range texts {
			if got, want := c.Count(s), len(full.EncodeOrdinary(s)); got != want {
				t.Fatalf("%s: %d tokens in %q, the full encoder has %d", name, got, clip(s), want)
			}
		}
	}
	t.Logf("%d texts", len(texts))
}

func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

// An unknown encoding or a broken table is an error that names it.
func TestLoadErrors(t *testing.T) {
	if _, err := Load("o300k"); err == nil || !strings.Contains(err.Error(), `"o300k"`) {
		t.Fatalf("unknown encoding: %v", err)
	}
	for _, bad := range []string{"QQ==\n", "!!! 1\n", "QQ== x\n"} {
		if _, err := parseRanks([]byte(bad)); err == nil || !strings.Contains(err.Error(), "line 1") {
			t.Fatalf("table %q: %v", bad, err)
		}
	}
}

// BenchmarkLoad is loading the o200k table for counting, against the
// full encoder's load measured in the same run (full/count).
func BenchmarkLoad(b *testing.B) {
	var count, full time.Duration
	for b.Loop() {
		t0 := time.Now()
		if _, err := Load("o200k_base"); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		ranks, err := tiktoken_loader.NewOfflineLoader().LoadTiktokenBpe("o200k_base.tiktoken")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := tiktoken.NewCoreBPE(ranks, nil, o200kPattern); err != nil {
			b.Fatal(err)
		}
		count += t1.Sub(t0)
		full += time.Since(t1)
	}
	b.ReportMetric(float64(count.Milliseconds())/float64(b.N), "ms/load")
	b.ReportMetric(float64(full)/float64(count), "full/count")
}
