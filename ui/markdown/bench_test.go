package markdown

import (
	"fmt"
	"strings"
	"testing"
	"time"
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

// BenchmarkStream100KB streams a 100 KB reply in 1000 chunks and reports
// its time as a multiple of one whole render of the final text, measured
// in the same loop (stream/whole). every-chunk renders after each chunk,
// the most a stream can cost; every-10th renders as the 50 ms throttle
// does when the 1000 chunks take 5 s.
func BenchmarkStream100KB(b *testing.B) {
	reply := longReply(100 << 10)
	chunks := evenChunks(reply, 1000)
	md := New("dark")
	md.Render("warm up", 100)
	for _, every := range []int{1, 10} {
		name := "every-chunk"
		if every > 1 {
			name = fmt.Sprintf("every-%dth", every)
		}
		b.Run(name, func(b *testing.B) {
			var whole, stream time.Duration
			b.ReportAllocs()
			for b.Loop() {
				t0 := time.Now()
				md.Render(reply, 100)
				t1 := time.Now()
				s := NewStream()
				var text strings.Builder
				for i, c := range chunks {
					text.WriteString(c)
					if (i+1)%every == 0 {
						s.Render("dark", text.String(), 100)
					}
				}
				stream += time.Since(t1)
				whole += t1.Sub(t0)
			}
			b.ReportMetric(float64(stream)/float64(whole), "stream/whole")
		})
	}
}

// streamAt is a stream that has rendered text[:at].
func streamAt(text string, at, w int) *Stream {
	s := NewStream()
	s.Render("dark", text[:at], w)
	return s
}

// benchStreamFrom renders text growing by step bytes from at, one step
// per iteration; every 40 steps it starts again from a fresh stream at
// at, outside the timer.
func benchStreamFrom(b *testing.B, text string, at, step, w int) {
	s := streamAt(text, at, w)
	k := 0
	for b.Loop() {
		if k++; k > 40 {
			b.StopTimer()
			s, k = streamAt(text, at, w), 1
			b.StartTimer()
		}
		s.Render("dark", text[:at+k*step], w)
	}
}

// BenchmarkStreamChunk is the cost of rendering one more 100-byte chunk
// near the start (5 KB in) and near the end (95 KB in) of a 100 KB reply,
// each iteration one of each; end/start says how flat it stays as the
// reply grows. Every 40 chunks both start again where they began, so
// both see the same kinds of blocks.
func BenchmarkStreamChunk(b *testing.B) {
	reply := longReply(120 << 10)
	start, end := streamNearStartAndEnd(b, reply, 40, func(s *Stream, at, k int) {
		s.Render("dark", reply[:at+k*100], 100)
	})
	b.ReportMetric(float64(end)/float64(start), "end/start")
	b.ReportMetric(float64(end.Nanoseconds())/float64(b.N), "ns/chunk-at-end")
}

// streamNearStartAndEnd runs step on a stream 5 KB into reply and on one
// 95 KB in, each iteration one of each (k counts from 1), both begun again
// every restart iterations so both see the same kinds of blocks; it
// returns the time each took.
func streamNearStartAndEnd(b *testing.B, reply string, restart int, step func(s *Stream, at, k int)) (start, end time.Duration) {
	type pos struct {
		s    *Stream
		at   int
		took time.Duration
	}
	ps := []*pos{{at: 5 << 10}, {at: 95 << 10}}
	k := 0
	b.ReportAllocs()
	for b.Loop() {
		if k++; k > restart || ps[0].s == nil {
			b.StopTimer()
			for _, p := range ps {
				p.s = streamAt(reply, p.at, 100)
			}
			k = 1
			b.StartTimer()
		}
		for _, p := range ps {
			t0 := time.Now()
			step(p.s, p.at, k)
			p.took += time.Since(t0)
		}
	}
	return ps[0].took, ps[1].took
}

// BenchmarkStreamVsWholeRenders streams a 20 KB reply in 200 chunks both
// ways, rendering after every chunk: as chunks (Stream) and, as before
// it, the whole text each time. whole/stream is the speed-up.
func BenchmarkStreamVsWholeRenders(b *testing.B) {
	reply := longReply(20 << 10)
	chunks := evenChunks(reply, 200)
	md := New("dark")
	md.Render("warm up", 100)
	var whole, stream time.Duration
	for b.Loop() {
		var text strings.Builder
		s := NewStream()
		for _, c := range chunks {
			text.WriteString(c)
			t0 := time.Now()
			s.Render("dark", text.String(), 100)
			t1 := time.Now()
			md.Render(text.String(), 100)
			stream += t1.Sub(t0)
			whole += time.Since(t1)
		}
	}
	b.ReportMetric(float64(whole)/float64(stream), "whole/stream")
}

// BenchmarkStreamSecond is one second of a reply streaming at 100 tokens
// a second (about 500 bytes), rendered on the 50 ms throttle: 20 renders
// of 25 more bytes each, near the start (5 KB in) and near the end
// (95 KB in) of a long reply. %core is the CPU that second costs at the
// end, as a share of one core; end/start how flat it stays.
func BenchmarkStreamSecond(b *testing.B) {
	reply := longReply(140 << 10)
	// 8 seconds is 4 KB on: then start again
	start, end := streamNearStartAndEnd(b, reply, 8, func(s *Stream, at, k int) {
		for tick := range 20 {
			s.Render("dark", reply[:at+(k-1)*500+(tick+1)*25], 100)
		}
	})
	b.ReportMetric(float64(end)/float64(start), "end/start")
	b.ReportMetric(100*end.Seconds()/float64(b.N), "%core-at-end")
}
