package rank

import (
	"fmt"
	"math/rand"
	"slices"
	"sort"
	"testing"

	"skillet/skills"
)

// top (the list of R10) is the head of the full ranking, and the skills
// left off are the rest by name, whatever the message.
func TestR10_TopIsTheHeadOfTheRanking(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	vocab := []string{"account", "review", "release", "incident", "query", "report", "billing", "refund", "deploy", "audit"}
	var pool []*skills.Skill
	for i := 0; i < 300; i++ {
		pool = append(pool, &skills.Skill{Name: fmt.Sprintf("s-%03d", rng.Intn(1000)*1000+i), Description: vocab[rng.Intn(len(vocab))] + " and " + vocab[rng.Intn(len(vocab))]})
	}
	r := New()
	for trial := 0; trial < 200; trial++ {
		msg := vocab[rng.Intn(len(vocab))] + " " + vocab[rng.Intn(len(vocab))]
		if trial%7 == 0 {
			msg = "nothing matches"
		}
		k := 1 + rng.Intn(40)
		ranked, _ := New().rank(pool, msg)
		list, left, _ := r.Top(pool, msg, k)
		if !slices.Equal(list, ranked[:k]) {
			t.Fatalf("%q k=%d: the list is not the head of the ranking", msg, k)
		}
		var rest []string
		for _, s := range ranked[k:] {
			rest = append(rest, s.Name)
		}
		sort.Strings(rest)
		if !slices.Equal(left, rest) {
			t.Fatalf("%q k=%d: left off %v, want %v", msg, k, left, rest)
		}
	}
}

// rank orders pool by relevance to msg (stable: ties keep pool order) and
// returns the scores in the same order: the plain sort that top must agree
// with.
func (r *Ranker) rank(pool []*skills.Skill, msg string) ([]*skills.Skill, []float64) {
	r.prepare(pool)
	q := words(msg)
	seen := make(map[string]bool, len(q))
	type scored struct {
		s     *skills.Skill
		score float64
		i     int
	}
	all := make([]scored, len(pool))
	for i, s := range pool {
		all[i] = scored{s: s, i: i}
	}
	for _, w := range q {
		if seen[w] {
			continue
		}
		seen[w] = true
		for _, p := range r.idx.postings[w] {
			all[r.at[p.i]].score += p.wt
		}
	}
	sort.SliceStable(all, func(a, b int) bool { return all[a].score > all[b].score })
	out := make([]*skills.Skill, len(all))
	scores := make([]float64, len(all))
	for i, a := range all {
		out[i], scores[i] = a.s, a.score
	}
	return out, scores
}

// privateRanker ranks pool with an index of its own, built for pool's
// order and shared with no one.
func privateRanker(pool []*skills.Skill) *Ranker {
	rankIndexes.mu.Lock()
	idx := buildIndex(pool, 0)
	rankIndexes.mu.Unlock()
	at := make([]int, len(pool))
	for i := range at {
		at[i] = i
	}
	return &Ranker{idx: idx, at: at, gen: slices.Clone(pool)}
}

// Pools of the same skills in other orders share one index, and rank as an
// index built for their own order would: ties keep each pool's order.
func TestR10_PoolsOfTheSameSkillsShareAnIndex(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	vocab := []string{"account", "review", "release", "incident", "query", "report"}
	var pool []*skills.Skill
	for i := 0; i < 120; i++ {
		pool = append(pool, &skills.Skill{Name: fmt.Sprintf("s-%03d", i), Description: vocab[rng.Intn(len(vocab))] + " " + vocab[rng.Intn(len(vocab))]})
	}
	first := New()
	first.prepare(pool)
	for trial := 0; trial < 50; trial++ {
		perm := slices.Clone(pool)
		rng.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
		r := New()
		msg := vocab[rng.Intn(len(vocab))] + " " + vocab[rng.Intn(len(vocab))]
		k := 1 + rng.Intn(60)
		list, left, scores := r.Top(perm, msg, k)
		if r.idx != first.idx {
			t.Fatal("a reordered pool of the same skills built an index of its own")
		}
		wl, wleft, wscores := privateRanker(perm).Top(perm, msg, k)
		if !slices.Equal(list, wl) || !slices.Equal(left, wleft) || !slices.Equal(scores, wscores) {
			t.Fatalf("%q k=%d: the shared index ranks differently from the pool's own", msg, k)
		}
	}
	// a different set of skills, even of the same size, is not shared
	other := slices.Clone(pool)
	other[0] = &skills.Skill{Name: "replaced", Description: "report"}
	r := New()
	r.prepare(other)
	if r.idx == first.idx {
		t.Fatal("a pool with a replaced skill shares the old index")
	}
	// a pool naming one skill twice ranks each place
	dup := append(slices.Clone(pool[:3]), pool[0])
	list, _, _ := New().Top(dup, "nothing matches", 4)
	if !slices.Equal(list, dup) {
		t.Fatalf("a pool with a repeated skill lists %v", list)
	}
}
