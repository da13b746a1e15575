package demo

import (
	"regexp"
	"strings"
)

// notFor finds a description's exclusions: "not for X (that is Y)", "not
// for X", "not a X". X runs to the next clause mark; Y names the skill that
// does X instead.
var notFor = regexp.MustCompile(`(?i)\bnot (?:for|a|an) ([^.;:()]+)(?:\(that is (?:the )?([A-Za-z0-9_-]+)[^)]*\))?`)

// listedMatch is how well one listed skill matches U.
type listedMatch struct {
	score int // name and description words U uses, less the exclusions it hits
	// when is the words U uses of the description's "Use when" clause, which
	// says when to pick the skill: on a tie it outweighs what the skill does
	when int
	desc int // description words U uses, outside exclusions
	size int // description words, for the finer tie-break
}

// bestListed ranks the listed skills against U and returns the index and
// score of the best, -1 when none shares a word. Words of an exclusion
// ("not for X (that is Y)") count against the skill and, when Y is named,
// for Y. Ties go to the skill whose description U matches more of, then
// to the one whose description matches a larger share, then to the
// earlier one.
func (v *view) bestListed() (int, int) {
	u := wordSet(v.user)
	matches := make([]listedMatch, len(v.prompt.listed))
	index := map[string]int{}
	for i, s := range v.prompt.listed {
		index[strings.ToLower(s.Name)] = i
	}
	for i, s := range v.prompt.listed {
		positive := notFor.ReplaceAllString(s.Description, " ")
		descWords := wordSet(positive)
		m := &matches[i]
		m.desc, m.size = overlap(u, descWords), len(descWords)
		m.when = overlap(u, wordSet(useWhen(positive)))
		m.score = overlap(u, wordSet(s.Name+" "+positive))
		for _, ex := range notFor.FindAllStringSubmatch(s.Description, -1) {
			hit := overlap(u, wordSet(ex[1]))
			if hit < 2 {
				continue // one shared word is no sign the user means X
			}
			m.score -= hit
			if j, ok := index[strings.ToLower(ex[2])]; ok && j != i {
				matches[j].score += hit
			}
		}
	}
	best := -1
	for i, m := range matches {
		if m.score <= 0 {
			continue
		}
		if best < 0 || better(m, matches[best]) {
			best = i
		}
	}
	if best < 0 {
		return -1, 0
	}
	return best, matches[best].score
}

func better(a, b listedMatch) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	if a.when != b.when {
		return a.when > b.when
	}
	if a.desc != b.desc {
		return a.desc > b.desc
	}
	// a larger share of a shorter description: a closer fit
	return a.size > 0 && b.size > 0 && a.desc*b.size > b.desc*a.size
}

// useWhenRE finds a description's trigger clause: "Use when …", "Use
// after …", "Use for …", to the end of its sentence.
var useWhenRE = regexp.MustCompile(`(?i)\buse (?:it )?(?:when|after|for|if)\b[^.]*`)

// useWhen is the description's trigger clauses, "" when it has none.
func useWhen(desc string) string {
	return strings.Join(useWhenRE.FindAllString(desc, -1), " ")
}
