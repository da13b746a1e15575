package demo

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
)

// answerPrefix starts every text answer, so no one takes the demo model
// for a language model.
const answerPrefix = "[demo model] "

// Sizes of what an answer quotes.
const (
	resultChars      = 300
	instructionChars = 200
)

// answer is the Markdown text the demo model ends a turn with: what this
// turn's tools returned, which skills it follows, and, when nothing in the
// message matched, what it can do.
func (v *view) answer() string {
	var results []callRecord
	for _, c := range v.turn {
		if c.Answered {
			results = append(results, c)
		}
	}
	following := v.following()

	var paras []string
	switch {
	case len(results) > 0:
		paras = append(paras, "Here is what the tools answered this turn:", v.resultList(results))
		if following != "" {
			paras = append(paras, following)
		}
	case following != "":
		paras = append(paras, following)
	}
	if len(v.turn) > 0 && len(results) == 0 {
		paras = append(paras, "No tool call of this turn has a result.")
	}
	if act := v.prompt.active(); act != nil {
		if line := firstInstruction(act.Instructions); line != "" {
			// one line: glamour keeps a quote's source line breaks
			paras = append(paras, "> "+firstSentence(strings.Join(strings.Fields(line), " "), instructionChars))
		}
	}
	if len(v.turn) >= MaxTurnCalls {
		paras = append(paras, "I stopped calling tools: this turn already made "+strconv.Itoa(len(v.turn))+" tool calls.")
	}
	if len(v.turn) == 0 {
		paras = append(paras, v.help()...)
	}
	paras[0] = answerPrefix + paras[0]
	return strings.Join(paras, "\n\n")
}

// following names the skills whose text the model has: the active one and
// the preloaded ones, then the other loaded ones.
func (v *view) following() string {
	var parts []string
	act := v.prompt.active()
	if act != nil {
		parts = append(parts, code(act.Name)+" (active)")
	}
	for _, s := range v.prompt.preloaded {
		parts = append(parts, code(s.Name)+" (preloaded)")
	}
	var others []string
	for _, s := range v.prompt.loaded {
		if act == nil || s.Name != act.Name {
			others = append(others, code(s.Name))
		}
	}
	var out []string
	// under an agent's profile a skill comes in through its activation
	// tool, not <current_context>: the answer names what it activated
	if tool, key := v.activationTool(); tool != toolLoadSkill {
		var named []string
		for _, c := range v.turn {
			var args map[string]any
			if c.Name != tool || json.Unmarshal([]byte(c.Args), &args) != nil {
				continue
			}
			if n, ok := args[key].(string); ok && n != "" && !slices.Contains(named, code(n)) {
				named = append(named, code(n))
			}
		}
		if len(named) > 0 {
			out = append(out, "Activated "+joinAnd(named)+" with "+code(tool)+".")
		}
	}
	if len(parts) > 0 {
		out = append(out, "Following "+joinAnd(parts)+".")
	}
	if len(others) > 0 {
		out = append(out, "Also loaded: "+strings.Join(others, ", ")+".")
	}
	return strings.Join(out, " ")
}

// resultList is a Markdown list of this turn's tool results.
func (v *view) resultList(results []callRecord) string {
	lines := make([]string, 0, len(results))
	for _, c := range results {
		if !strings.HasPrefix(c.Result, unknownPrefix) {
			if strings.TrimSpace(c.Result) == "" {
				lines = append(lines, "- "+code(c.Name)+" returned nothing.")
			} else {
				lines = append(lines, "- "+code(c.Name)+" answered: "+summary(c.Result))
			}
			continue
		}
		line := "- " + code(c.Name) + " was refused with " + code(clip(c.Result, resultChars)) + ": "
		switch {
		case v.offered[c.Name]:
			line += "it was not offered then, and it is offered again now."
		case v.workedBefore(c.Name):
			line += "it is no longer offered (the skill that brought it has left the context)."
		default:
			line += "it is not offered."
		}
		if !v.offered[c.Name] {
			if s, ok := v.skillListing(c.Name); ok {
				line += " Loading " + code(s) + " may bring it back: " + code("load "+s) + "."
			}
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

// workedBefore reports whether an earlier turn called the tool and got an
// answer other than "Unknown tool".
func (v *view) workedBefore(name string) bool {
	for _, c := range v.past {
		if c.Name == name && c.Answered && !strings.HasPrefix(c.Result, unknownPrefix) {
			return true
		}
	}
	return false
}

// skillListing guesses which listed skill brings a tool: the one whose name
// and description share the most words with the tool's name.
func (v *view) skillListing(tool string) (string, bool) {
	tw := wordSet(tool)
	best, bestScore := "", 0
	for _, s := range v.prompt.listed {
		if score := overlap(tw, wordSet(s.Name+" "+s.Description)); score > bestScore {
			best, bestScore = s.Name, score
		}
	}
	return best, bestScore > 0
}

// help says what the demo model can do, for a message nothing matched.
func (v *view) help() []string {
	intro := "I am Skillet's built-in demo model: I follow fixed rules and am not a language model. "
	if v.user == "" {
		intro += "There is no user message to answer yet."
	} else {
		intro += "Nothing in your message matched a skill to load or a tool to call."
	}
	paras := []string{intro}
	if len(v.prompt.listed) > 0 {
		names := make([]string, len(v.prompt.listed))
		for i, s := range v.prompt.listed {
			names[i] = code(s.Name)
		}
		paras = append(paras, "Skills I can see: "+strings.Join(names, ", ")+".")
	} else {
		paras = append(paras, "I see no skills to load.")
	}
	paras = append(paras, strings.Join([]string{
		"Commands I follow, one per line:",
		"",
		"- " + code("load NAME") + " calls load_skill",
		"- " + code(`call TOOL {"key": "value"}`) + " calls any tool, even one not offered",
		"- " + code("read NAME/PATH") + " calls read_skill_resource",
	}, "\n"))
	return paras
}

// code writes s as a Markdown code span on one line, fenced with more
// backticks than s holds in a row so any text stays literal.
func code(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// joinAnd joins items as "a, b and c".
func joinAnd(items []string) string {
	if len(items) <= 1 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}
