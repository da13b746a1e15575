package ui

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"skillet/harness"
)

// longReply is Markdown of at least n bytes shaped like a long model
// reply: sections with a heading, prose, a list, a code block, a table
// and a quote.
func longReply(n int) string {
	var b strings.Builder
	for i := 1; b.Len() < n; i++ {
		fmt.Fprintf(&b, "## Part %d: what the logs show\n\n", i)
		fmt.Fprintf(&b, "The service restarted **%d times** between the deploys; each restart follows a burst of `timeout` errors from the payment gateway, and the retries pile up until the queue is full. The pattern repeats on every node, which points at configuration rather than hardware.\n\n", i)
		for j := range 5 {
			fmt.Fprintf(&b, "- node %d-%d: %d restarts, the last at 10:%02d after a queue of %d\n", i, j, i+j, j*7, 100*j)
		}
		fmt.Fprintf(&b, "\n```go\nfunc retry%d(ctx context.Context, call func() error) error {\n\tfor attempt := 0; attempt < 5; attempt++ {\n\t\tif err := call(); err == nil {\n\t\t\treturn nil\n\t\t}\n\t\tselect {\n\t\tcase <-ctx.Done():\n\t\t\treturn ctx.Err()\n\t\tcase <-time.After(time.Duration(attempt) * time.Second):\n\t\t}\n\t}\n\treturn errors.New(\"gave up\")\n}\n```\n\n", i)
		fmt.Fprintf(&b, "| node | restarts | queue |\n|---|---:|---:|\n| a%d | %d | 120 |\n| b%d | %d | 80 |\n\n", i, i, i, i+1)
		b.WriteString("> Raise the gateway timeout before adding nodes; more nodes only retry faster.\n\n")
	}
	return b.String()
}

// evenChunks cuts s into n pieces of about the same length.
func evenChunks(s string, n int) []string {
	out := make([]string, 0, n)
	for i := range n {
		out = append(out, s[i*len(s)/n:(i+1)*len(s)/n])
	}
	return out
}

// BenchmarkStream100KB streams a 100 KB reply in 1000 chunks, rendering
// after every chunk (the throttle renders at most every 50 ms, so this is
// the most work a stream can cost), and reports its time as a multiple of
// one whole render of the final text, measured in the same loop.
func BenchmarkStream100KB(b *testing.B) {
	reply := longReply(100 << 10)
	chunks := evenChunks(reply, 1000)
	md := newMarkdown("dark")
	md.render("warm up", 100)
	var whole, stream time.Duration
	b.ReportAllocs()
	for b.Loop() {
		t0 := time.Now()
		md.render(reply, 100)
		t1 := time.Now()
		s := newMDStream()
		var text strings.Builder
		for _, c := range chunks {
			text.WriteString(c)
			s.render("dark", text.String(), 100)
		}
		stream += time.Since(t1)
		whole += t1.Sub(t0)
	}
	b.ReportMetric(float64(stream)/float64(whole), "stream/whole")
}

// streamMark is a stream's finished part, to rewind it to.
type streamMark struct {
	chunks, done, lines int
	open                string
}

func (s *mdStream) mark() streamMark {
	m := streamMark{chunks: len(s.chunks), done: s.done, lines: len(s.doneLines)}
	if m.lines > 0 {
		m.open = s.doneLines[m.lines-1]
	}
	return m
}

func (s *mdStream) rewind(m streamMark) {
	s.chunks, s.done, s.doneLines = s.chunks[:m.chunks], m.done, s.doneLines[:m.lines]
	if m.lines > 0 {
		s.doneLines[m.lines-1] = m.open // join replaced the open line
	}
}

// benchStreamFrom renders text growing by step bytes from at, for each
// iteration; after 40 steps the stream rewinds to at (outside the timer).
func benchStreamFrom(b *testing.B, s *mdStream, text string, at, step, w int, each func()) {
	m := s.mark()
	k := 0
	for b.Loop() {
		if k++; k > 40 {
			b.StopTimer()
			s.rewind(m)
			k = 1
			b.StartTimer()
		}
		s.render("dark", text[:at+k*step], w)
		each()
	}
}

// BenchmarkStreamChunk is the cost of rendering one more 100-byte chunk
// near the start (5 KB in) and near the end (95 KB in) of a 100 KB reply;
// end/start says how flat it stays as the reply grows.
func BenchmarkStreamChunk(b *testing.B) {
	reply := longReply(120 << 10)
	var took [2]time.Duration
	for i, at := range []int{5 << 10, 95 << 10} {
		b.Run(strconv.Itoa(at>>10)+"KB", func(b *testing.B) {
			s := newMDStream()
			s.render("dark", reply[:at], 100)
			b.ReportAllocs()
			t0 := time.Now()
			benchStreamFrom(b, s, reply, at, 100, 100, func() {})
			took[i] = time.Since(t0) / time.Duration(max(1, b.N))
		})
	}
	if took[0] > 0 && took[1] > 0 {
		b.Logf("per chunk: %v at 5 KB, %v at 95 KB: end/start %.2f", took[0], took[1], float64(took[1])/float64(took[0]))
	}
}

// BenchmarkTranscriptAppend is one new entry in a transcript of 10,000
// and of 100,000 entries: the index extended and the pane drawn.
func BenchmarkTranscriptAppend(b *testing.B) {
	const spare = 2000
	for _, n := range []int{10000, 100000} {
		es := fakeEntries(n + spare)
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			tr := newTranscriptPane(newTheme(true), newMarkdown("dark"))
			tr.setEntries(es[:n], 0)
			tr.view(100, 40)
			k := 0
			b.ReportAllocs()
			for b.Loop() {
				if k++; k > spare {
					b.StopTimer()
					tr.setEntries(es[:1], 0) // a new session: the pane starts over
					tr.setEntries(es[:n], 0)
					k = 1
					b.StartTimer()
				}
				tr.setEntries(es[:n+k], 0)
				tr.view(100, 40)
			}
		})
	}
}

var _ = harness.EntryUser
