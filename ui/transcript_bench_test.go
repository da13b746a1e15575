package ui

import (
	"testing"
	"time"

	"skillet/harness/view"
	"skillet/ui/markdown"
)

// BenchmarkTranscriptAppend is one new entry in a transcript of 10,000
// and in one of 100,000 entries, each iteration one of each: the index
// extended and the pane drawn (which renders the new entry); the index
// alone is reported too.
// 100k/10k says how flat it stays as the transcript grows.
func BenchmarkTranscriptAppend(b *testing.B) {
	const spare = 2000
	es := fakeEntries(100000 + spare)
	type pane struct {
		tr          *transcriptPane
		n           int
		took, index time.Duration
	}
	ps := []*pane{{n: 10000}, {n: 100000}}
	start := func(p *pane) {
		p.tr.setEntries(view.TranscriptOf(es[:1]), 0) // a new session: the pane starts over
		p.tr.setEntries(view.TranscriptOf(es[:p.n]), 0)
		p.tr.view(100, 40)
	}
	for _, p := range ps {
		p.tr = newTranscriptPane(newTheme(true), markdown.New("dark"))
		start(p)
	}
	k := 0
	b.ReportAllocs()
	for b.Loop() {
		if k++; k > spare {
			b.StopTimer()
			for _, p := range ps {
				start(p)
			}
			k = 1
			b.StartTimer()
		}
		for _, p := range ps {
			t0 := time.Now()
			p.tr.setEntries(view.TranscriptOf(es[:p.n+k]), 0)
			t1 := time.Now()
			p.tr.view(100, 40)
			p.took += time.Since(t0)
			p.index += t1.Sub(t0)
		}
	}
	b.ReportMetric(float64(ps[1].took)/float64(ps[0].took), "100k/10k")
	b.ReportMetric(float64(ps[1].took.Nanoseconds())/float64(b.N), "ns/entry-at-100k")
	b.ReportMetric(float64(ps[1].index.Nanoseconds())/float64(b.N), "ns/index-at-100k")
}
