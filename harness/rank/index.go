package rank

import (
	"hash/maphash"
	"math"
	"sort"
	"strings"
	"sync"

	"skillet/skills"
)

// rankIndex is the word index of one set of parsed skills: immutable once
// built, so sessions on any goroutine read it without a lock.
type rankIndex struct {
	// skills are the set in the order the index was built in; postings'
	// positions are into it, and pos is the reverse.
	skills []*skills.Skill
	pos    map[*skills.Skill]int
	// postings lists, per word, the positions holding it and the word's
	// weight there times its rarity.
	postings map[string][]posting
	// byName are the skills' names, sorted.
	byName []string
	// key is setKey of skills.
	key uint64
}

// maxIndexes bounds the indexes kept: an eval has one set of skills, a
// session one per change of its enabled skills.
const maxIndexes = 8

// maxTerms bounds the skills whose words are kept between builds.
const maxTerms = 1 << 15

var rankIndexes struct {
	mu sync.Mutex
	// recent are the indexes, newest last.
	recent []*rankIndex
	// terms are each parsed skill's weighted words: a skill never changes
	// once parsed, and most of a changed pool is skills seen before.
	terms map[*skills.Skill]map[string]float64
}

// setKey hashes a set of skills whatever their order: a sum of mixed
// pointer hashes. Equal keys are checked skill by skill before sharing.
func setKey(pool []*skills.Skill) uint64 {
	var k uint64
	for _, s := range pool {
		k += mix64(maphash.Comparable(keySeed, s))
	}
	return k + uint64(len(pool))
}

// keySeed seeds setKey's pointer hashes.
var keySeed = maphash.MakeSeed()

// mix64 is the finalizer of SplitMix64: every bit of x moves every bit of
// the result.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// sharedIndex returns the index of pool's skills, built now or shared
// from an earlier pool of the same skills, and where each of the index's
// positions is in pool.
func sharedIndex(pool []*skills.Skill) (*rankIndex, []int) {
	key := setKey(pool)
	rankIndexes.mu.Lock()
	defer rankIndexes.mu.Unlock()
	for i := len(rankIndexes.recent) - 1; i >= 0; i-- {
		idx := rankIndexes.recent[i]
		if idx.key != key || len(idx.skills) != len(pool) {
			continue
		}
		if at, ok := idx.placed(pool); ok {
			return idx, at
		}
	}
	idx := buildIndex(pool, key)
	at := make([]int, len(pool))
	for i := range at {
		at[i] = i
	}
	if len(idx.pos) == len(pool) { // a pool naming one skill twice is not shared
		if len(rankIndexes.recent) >= maxIndexes {
			rankIndexes.recent = rankIndexes.recent[1:]
		}
		rankIndexes.recent = append(rankIndexes.recent, idx)
	}
	return idx, at
}

// placed maps the index's positions to pool's, when pool holds exactly the
// index's skills.
func (idx *rankIndex) placed(pool []*skills.Skill) ([]int, bool) {
	at := make([]int, len(pool))
	for i := range at {
		at[i] = -1
	}
	for i, s := range pool {
		p, ok := idx.pos[s]
		if !ok || at[p] >= 0 {
			return nil, false
		}
		at[p] = i
	}
	return at, len(pool) == len(idx.skills)
}

// buildIndex indexes pool. Called with rankIndexes.mu held.
func buildIndex(pool []*skills.Skill, key uint64) *rankIndex {
	idx := &rankIndex{skills: append([]*skills.Skill(nil), pool...), pos: make(map[*skills.Skill]int, len(pool)), key: key}
	terms := make([]map[string]float64, len(pool))
	df := map[string]int{}
	for i, s := range pool {
		idx.pos[s] = i
		terms[i] = skillTerms(s)
		for w := range terms[i] {
			df[w]++
		}
	}
	n := float64(len(pool))
	idx.postings = make(map[string][]posting, len(df))
	for i := range pool {
		for w, wt := range terms[i] {
			idf := math.Log(1 + n/float64(df[w]))
			idx.postings[w] = append(idx.postings[w], posting{i: i, wt: wt * idf})
		}
	}
	idx.byName = make([]string, 0, len(pool))
	for _, s := range pool {
		idx.byName = append(idx.byName, s.Name)
	}
	sort.Strings(idx.byName)
	return idx
}

// skillTerms are s's weighted words. Called with rankIndexes.mu held.
func skillTerms(s *skills.Skill) map[string]float64 {
	if t, ok := rankIndexes.terms[s]; ok {
		return t
	}
	t := map[string]float64{}
	for _, w := range words(s.Description) {
		t[w] = 1
	}
	for _, w := range words(strings.ReplaceAll(s.Name, "-", " ")) {
		t[w] = 2 // a word of the name says more than one of the description
	}
	if rankIndexes.terms == nil || len(rankIndexes.terms) >= maxTerms {
		rankIndexes.terms = map[*skills.Skill]map[string]float64{}
	}
	rankIndexes.terms[s] = t
	return t
}
