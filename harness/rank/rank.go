// Package rank ranks skills against a user message (R10's list, R22's
// choice of skills to paste): by shared words, weighted by how rare each
// word is among the skills ranked.
package rank

import (
	"sort"
	"strings"
	"unicode"

	"skillet/skills"
)

// Ranker scores skills against a message by shared words, weighted by how
// rare each word is among the enabled skills (R10, R22). The word index of
// a set of skills is built once per process and shared by every ranker
// whose pool holds that set, in whatever order: the runs of an eval and
// the turns of a session over unchanged skills rank against one index.
type Ranker struct {
	// idx is the index of the pool's skills; at maps the index's
	// positions to pool positions.
	idx *rankIndex
	at  []int
	// gen is the pool idx and at were made for.
	gen []*skills.Skill
	// score is scratch space for top, one slot per skill, all zero
	// between calls.
	score []float64
	// last is the last list asked for, kept while the pool and the
	// message stay the same: a session composes many times per message.
	last *topList
}

// topList is one answer of top.
type topList struct {
	msg    string
	k      int
	list   []*skills.Skill
	left   []string
	scores []float64
}

type posting struct {
	i  int
	wt float64
}

// New returns a ranker with no pool yet.
func New() *Ranker { return &Ranker{} }

// Forget drops the last list kept, so the next Top ranks again even for
// the same message.
func (r *Ranker) Forget() { r.last = nil }

var stopWords = map[string]bool{
	"the": true, "and": true, "for": true, "with": true, "use": true, "when": true, "this": true,
	"that": true, "from": true, "into": true, "your": true, "you": true, "are": true, "any": true,
	"all": true, "can": true, "how": true, "what": true, "which": true, "about": true, "them": true,
	"then": true, "than": true, "its": true, "our": true, "was": true, "were": true, "will": true,
	"should": true, "would": true, "could": true, "have": true, "has": true, "not": true, "but": true,
	"skill": true, "skills": true, "please": true, "want": true, "need": true, "also": true,
}

// words splits text into lower-case stems without stop words.
func words(text string) []string {
	fields := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	out := fields[:0]
	for _, f := range fields {
		if len([]rune(f)) < 3 || stopWords[f] {
			continue
		}
		out = append(out, stem(f))
	}
	return out
}

func stem(w string) string {
	for _, suf := range []string{"ing", "ed", "es", "s"} {
		if len(w) > len(suf)+3 && strings.HasSuffix(w, suf) {
			return w[:len(w)-len(suf)]
		}
	}
	return w
}

func sameSkills(a, b []*skills.Skill) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func (r *Ranker) prepare(pool []*skills.Skill) {
	if r.idx != nil && sameSkills(r.gen, pool) {
		return
	}
	r.idx, r.at = sharedIndex(pool)
	r.gen = append(r.gen[:0], pool...)
	r.last = nil
}

// Top returns the k skills of pool that fit msg best (ties keep pool
// order) and the names of the others, sorted. Only skills that share a word
// with msg are sorted; the rest keep their order, so a list over thousands
// of skills costs about what the matching ones do.
func (r *Ranker) Top(pool []*skills.Skill, msg string, k int) ([]*skills.Skill, []string, []float64) {
	r.prepare(pool) // which forgets the last list when the pool changed
	if l := r.last; l != nil && l.msg == msg && l.k == k {
		return l.list, l.left, l.scores
	}
	if len(r.score) != len(pool) {
		r.score = make([]float64, len(pool))
	}
	// score and hits are by pool position
	score := r.score
	var hits []int
	seen := map[string]bool{}
	for _, w := range words(msg) {
		if seen[w] {
			continue
		}
		seen[w] = true
		for _, p := range r.idx.postings[w] {
			i := r.at[p.i]
			if score[i] == 0 {
				hits = append(hits, i)
			}
			score[i] += p.wt
		}
	}
	defer func() {
		for _, i := range hits {
			score[i] = 0
		}
	}()
	sort.Slice(hits, func(a, b int) bool {
		if sa, sb := score[hits[a]], score[hits[b]]; sa != sb {
			return sa > sb
		}
		return hits[a] < hits[b]
	})
	list := make([]*skills.Skill, 0, min(k, len(pool)))
	scores := make([]float64, 0, cap(list))
	for _, i := range hits {
		if len(list) == k {
			break
		}
		list, scores = append(list, pool[i]), append(scores, score[i])
	}
	for i := 0; i < len(pool) && len(list) < k; i++ {
		if score[i] <= 0 {
			list, scores = append(list, pool[i]), append(scores, 0)
		}
	}
	listed := make(map[string]bool, len(list))
	for _, s := range list {
		listed[s.Name] = true
	}
	left := make([]string, 0, len(pool)-len(list))
	for _, name := range r.idx.byName {
		if !listed[name] {
			left = append(left, name)
		}
	}
	r.last = &topList{msg: msg, k: k, list: list, left: left, scores: scores}
	return list, left, scores
}
