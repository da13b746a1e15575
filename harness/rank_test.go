package harness

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
	r := newRanker()
	for trial := 0; trial < 200; trial++ {
		msg := vocab[rng.Intn(len(vocab))] + " " + vocab[rng.Intn(len(vocab))]
		if trial%7 == 0 {
			msg = "nothing matches"
		}
		k := 1 + rng.Intn(40)
		ranked, _ := newRanker().rank(pool, msg)
		list, left, _ := r.top(pool, msg, k)
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
func (r *ranker) rank(pool []*skills.Skill, msg string) ([]*skills.Skill, []float64) {
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
		for _, p := range r.postings[w] {
			all[p.i].score += p.wt
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
