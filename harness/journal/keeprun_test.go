package journal

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// keepRunEveryStart is keepRun measured from every pair of positions: the
// plain search the indexed one must agree with.
func keepRunEveryStart(prev, next []string) (first []string, keep [2]int, last []string) {
	bestLen, bestI, bestH := 0, 0, 0
	for h := range next {
		for i := range prev {
			n := 0
			for h+n < len(next) && i+n < len(prev) && next[h+n] == prev[i+n] {
				n++
			}
			if n > bestLen {
				bestLen, bestI, bestH = n, i, h
			}
		}
	}
	if bestLen == 0 {
		return next, [2]int{0, 0}, nil
	}
	return next[:bestH], [2]int{bestI, bestI + bestLen}, next[bestH+bestLen:]
}

func TestKeepRunFindsTheLongestRunThePlainSearchFinds(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	refs := func(n, alphabet int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprint("m", rng.IntN(alphabet))
		}
		return out
	}
	for trial := range 3000 {
		alphabet := 2 + trial%9
		prev := refs(rng.IntN(30), alphabet)
		next := refs(rng.IntN(30), alphabet)
		if trial%3 == 0 && len(prev) > 2 {
			// the window moves on: a tail of prev, then new messages
			next = append(slices.Clone(prev[rng.IntN(len(prev)):]), next...)
		}
		f1, k1, l1 := keepRun(prev, next)
		f2, k2, l2 := keepRunEveryStart(prev, next)
		if !slices.Equal(f1, f2) || k1 != k2 || !slices.Equal(l1, l2) {
			t.Fatalf("prev %v next %v: got %v %v %v, want %v %v %v", prev, next, f1, k1, l1, f2, k2, l2)
		}
	}
}
