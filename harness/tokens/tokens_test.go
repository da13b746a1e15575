package tokens

import (
	"os"
	"path/filepath"
	"skillet/harness/harnesstest"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// realSkillTexts reads the SKILL.md files of the real skills beside the
// repository, skipping when they are absent.
func realSkillTexts(t testing.TB) []string {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(harnesstest.SharedPath("real-skills"), "*", "SKILL.md"))
	if len(paths) == 0 || harnesstest.SharedPath("real-skills") == "" {
		t.Skip("no real skills in a shared/real-skills folder above the package: skipped")
	}
	var out []string
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	return out
}

var (
	fullOnce sync.Once
	fullEnc  *tiktoken.Tiktoken
	fullErr  error
)

// fullCount is s's count by tiktoken's full encoder, which Count must
// equal.
func fullCount(t testing.TB, s string) int {
	t.Helper()
	fullOnce.Do(func() {
		tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
		fullEnc, fullErr = tiktoken.GetEncoding(DefaultEncoding)
	})
	if fullErr != nil {
		t.Fatal(fullErr)
	}
	return len(fullEnc.EncodeOrdinary(s))
}

func TestCountIsExactForOrdinaryText(t *testing.T) {
	tok := NewTokenizer("")
	tok.load()
	texts := append(realSkillTexts(t), "", "a", "héllo wörld — 日本語のテキスト 🙂", strings.Repeat("word ", 2000))
	for _, s := range texts {
		want := fullCount(t, (s))
		if got := tok.Count(s); got != want {
			t.Errorf("Count = %d, the encoder says %d, for %.60q", got, want, s)
		}
	}
}

func TestCountOfLongRunsIsCloseAndAbove(t *testing.T) {
	tok := NewTokenizer("")
	tok.load()
	for _, s := range []string{
		strings.Repeat("a", 10_000),
		strings.Repeat("é", 5_000),
		strings.Repeat(" ", 10_000),
		strings.Repeat("!", 10_000),
		"start " + strings.Repeat("xy", 5_000) + " end",
		strings.Repeat("abc", 3_333),
	} {
		exact := fullCount(t, (s))
		got := tok.Count(s)
		if got < exact || float64(got) > float64(exact)*1.02+2 {
			t.Errorf("%.12q×%d: Count %d, exact %d; want within 2%% above", s, len(s), got, exact)
		}
	}
}

func TestPiecesCutOnlyLongRuns(t *testing.T) {
	for _, s := range []string{
		"", "plain words, short ones.", strings.Repeat("a", 1000), strings.Repeat("日", 300),
		"x" + strings.Repeat(" ", 700) + "y", strings.Repeat("ab12", 300), strings.Repeat("é", 257),
	} {
		ps := pieces(s, 256)
		if strings.Join(ps, "") != s {
			t.Fatalf("pieces of %.20q do not join back", s)
		}
		for _, p := range ps {
			if !utf8.ValidString(p) {
				t.Fatalf("a piece of %.20q cuts a character: %q", s, p)
			}
			run, last := 0, -1
			for _, r := range p {
				if c := charClass(r); c == last {
					run += utf8.RuneLen(r)
				} else {
					run, last = utf8.RuneLen(r), c
				}
				if run > 256 {
					t.Fatalf("a piece of %.20q holds a run of %d bytes", s, run)
				}
			}
		}
		if longest := longestRun(s); longest <= 256 && len(ps) != 1 {
			t.Fatalf("%.20q (longest run %d) was cut into %d pieces", s, longest, len(ps))
		}
	}
}

func longestRun(s string) int {
	best, run, last := 0, 0, -1
	for _, r := range s {
		if c := charClass(r); c == last {
			run += utf8.RuneLen(r)
		} else {
			run, last = utf8.RuneLen(r), c
		}
		best = max(best, run)
	}
	return best
}

func TestCountNowDoesNotWaitForTheTables(t *testing.T) {
	tok := NewTokenizer("") // never loaded
	c := NewCounter(tok)
	estimated := false
	n := c.CountNow("some text to count", &estimated)
	exact := !estimated
	if exact || n != CountEstimate("some text to count") || tok.Ready() {
		t.Fatalf("before loading: %d, exact %v, ready %v", n, exact, tok.Ready())
	}
	select {
	case <-tok.Loaded():
		t.Fatal("Loaded is closed before loading")
	default:
	}
	tok.Warm()
	<-tok.Loaded()
	estimated = false
	n = c.CountNow("some text to count", &estimated)
	exact = !estimated
	if !exact || !tok.Ready() || n != fullCount(t, ("some text to count")) {
		t.Fatalf("after loading: %d, exact %v, ready %v", n, exact, tok.Ready())
	}
}

func TestCountEstimateIsNearOnRealSkills(t *testing.T) {
	tok := NewTokenizer("")
	texts := realSkillTexts(t)
	var est, exact int
	for _, s := range texts {
		est += CountEstimate(s)
		exact += tok.Count(s)
	}
	ratio := float64(est) / float64(exact)
	t.Logf("estimate/exact over %d real skills: %d/%d = %.3f", len(texts), est, exact, ratio)
	if ratio < 0.8 || ratio > 1.25 {
		t.Fatalf("estimate %d against exact %d (ratio %.2f): want within a fifth", est, exact, ratio)
	}
}

// BenchmarkCount counts one repeated letter and ordinary prose at growing
// lengths; ns/op divided by the bytes (or MB/s) should stay flat.
func BenchmarkCount(b *testing.B) {
	tok := NewTokenizer("")
	tok.load()
	prose := strings.Join(realSkillTexts(b), "\n")
	for _, size := range []int{10 << 10, 80 << 10, 1 << 20} {
		text := strings.Repeat(prose, size/len(prose)+1)[:size]
		for _, tc := range []struct{ name, s string }{
			{"letter", strings.Repeat("a", size)},
			{"prose", strings.ToValidUTF8(text, "")},
		} {
			b.Run(tc.name+"/"+byteSize(size), func(b *testing.B) {
				b.SetBytes(int64(len(tc.s)))
				start := cpuTime()
				for b.Loop() {
					tok.Count(tc.s)
				}
				// CPU time, unlike ns/op, does not grow when other
				// processes share the machine.
				b.ReportMetric(float64(cpuTime()-start)/float64(b.N)/float64(len(tc.s)), "cpu-ns/B")
			})
		}
	}
}

// cpuTime is the CPU time the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func byteSize(n int) string {
	if n >= 1<<20 {
		return strconv.Itoa(n>>20) + "MB"
	}
	return strconv.Itoa(n>>10) + "KB"
}

// A reply of megabytes is counted a piece at a time: the count of prose
// stays exact, and what counting allocates at once stays far below the
// ~100 bytes per byte counting it whole took.
func TestCountOfAHugeReplyIsExactAndBounded(t *testing.T) {
	tok := NewTokenizer("")
	tok.load()
	prose := strings.Repeat("The quick brown fox jumps over the lazy dog, again and again. ", 1<<20/62)
	ps := pieces(prose, maxRun)
	if len(ps) < 2 {
		t.Fatal("a megabyte of prose is counted in one piece")
	}
	for _, p := range ps {
		if len(p) > 2*maxPiece+maxRun {
			t.Fatalf("a piece of %d bytes", len(p))
		}
	}
	sample := prose[:200<<10]
	if got, want := tok.Count(sample), fullCount(t, (sample)); got != want {
		t.Errorf("Count = %d, the encoder says %d", got, want)
	}
	var before, after syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	big := strings.Repeat(prose, 8) // 8 MB
	if n := tok.Count(big); n < len(big)/8 {
		t.Fatalf("Count = %d", n)
	}
	syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	if grew := (after.Maxrss - before.Maxrss) * 1024; grew > 20*int64(len(big)) {
		t.Errorf("counting 8 MB grew the peak by %d MB", grew>>20)
	}
}
