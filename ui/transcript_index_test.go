package ui

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"skillet/harness/view"
	"skillet/ui/markdown"
)

// The transcript index grown step by step (entries appended, marks
// placed, pending and streaming messages coming and going, the window
// moving) always equals the index laid out from scratch.
func TestTranscriptIndexGrowsLikeARebuild(t *testing.T) {
	es := fakeEntries(400)
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 6))
		grown := newTranscriptPane(newTheme(true), markdown.New("dark"))
		fresh := newTranscriptPane(newTheme(true), markdown.New("dark"))
		n, fiw, seq := 0, 0, uint64(0)
		var log []string
		for step := range 200 {
			var op string
			switch rng.IntN(7) {
			case 0, 1:
				n = min(len(es), n+1+rng.IntN(6))
				op = fmt.Sprintf("entries %d", n)
			case 2:
				after := []int{-1, n, rng.IntN(n + 1)}[rng.IntN(3)]
				op = fmt.Sprintf("mark after %d", after)
				m := mark{kind: markLoaded, after: after, text: op}
				grown.addMark(m)
				fresh.addMark(m)
			case 3:
				text := []string{"", "hello"}[rng.IntN(2)]
				op = fmt.Sprintf("pending %q", text)
				grown.setPending(text)
				fresh.setPending(text)
			case 4:
				op = "delta"
				grown.onDelta(step, 1, "word ", false)
				fresh.onDelta(step, 1, "word ", false)
			case 5:
				seq++
				op = "live done"
				for _, p := range []*transcriptPane{grown, fresh} {
					p.finishLive(seq)
					p.dropLive(seq)
				}
			case 6:
				fiw = rng.IntN(n + 1)
				op = fmt.Sprintf("window from %d", fiw)
			}
			log = append(log, op)
			grown.setEntries(view.TranscriptOf(es[:n]), fiw)
			fresh.setEntries(view.TranscriptOf(es[:n]), fiw)
			fresh.reindex()
			if !slices.Equal(grown.items, fresh.items) {
				t.Fatalf("seed %d after %v:\n grown %v\n fresh %v", seed, log, grown.items, fresh.items)
			}
			for it, p := range fresh.pos {
				if q, ok := grown.pos[it]; !ok || q != p || len(grown.pos) != len(fresh.pos) {
					t.Fatalf("seed %d after %v: position of %v is %d, want %d (%d vs %d items)", seed, log, it, q, p, len(grown.pos), len(fresh.pos))
				}
			}
		}
	}
}
