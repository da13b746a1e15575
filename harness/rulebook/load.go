// Rules R12 (a turn's loads are limited, as limits.go decides) and R13
// (within a turn, loads of one version of a skill share one execution),
// as the shell asks them before it records a load.

package rulebook

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"skillet/harness/event"
)

// OverLimit says why a load the model asks for, of a skill whose text is
// chars characters and tokens tokens, would break a limit of the running
// turn (R12, decided by LoadLimits); "" when it breaks none.
func OverLimit(st *State, name string, chars, tokens int) string {
	var used Usage
	if st.Cur != nil {
		used = st.Cur.Usage
	}
	if rs := LoadLimits(st.Settings, used, PathModel, name, chars, tokens); len(rs) > 0 {
		return rs[0].Why
	}
	return ""
}

// ReadThisTurn returns the execution under which the running turn read
// this version of a skill (R13), if it did.
func ReadThisTurn(st *State, name, version string) (string, bool) {
	if st.Cur == nil {
		return "", false
	}
	exec, ok := st.Cur.Execs[name]
	return exec, ok && st.Cur.ExecVersion[name] == version
}

// ExcerptChars is how much of each line of a skill a load's
// contextChanged line carries (R7).
const ExcerptChars = 200

// Load is a load of a skill that is not loaded, as the shell rendered it:
// its text and token count, and the tools it makes available once loaded
// in place of the skills it evicts.
type Load struct {
	Skill, Version, Exec string
	By                   event.LoadedBy
	Delivery             event.Delivery
	// ToolCallID is the load_skill call the lines answer; "" records them
	// as notes.
	ToolCallID string
	// Repeat marks a skill read earlier this turn, under the same
	// execution, and unloaded since (R13).
	Repeat bool
	Body   event.SkillBody
	Tokens int
	Tools  []string
}

// Evicted names the skills a load of a skill not loaded unloads to stay
// within max_loaded_skills (R2), least recently used first; none without
// the lifecycle rules.
func Evicted(st *State, lifecycle bool) []string {
	var out []string
	for n := len(st.Loaded); lifecycle && n > 0 && n >= st.Settings.MaxLoadedSkills; n-- {
		out = append(out, st.Loaded[n-1].Name)
	}
	return out
}

// Insert records a load of a skill that is not loaded: the unloads of the
// skills it evicts, then the load, each with its contextChanged line (R2,
// R7). It returns the events and the lines.
func Insert(st *State, l Load, evicted []string) ([]event.Event, []string) {
	var events []event.Event
	var lines []string
	note := func(line string) {
		lines = append(lines, line)
		events = append(events, &event.ContextChanged{Line: line, ToolCallID: l.ToolCallID})
	}
	for _, name := range evicted {
		events = append(events, &event.SkillUnloaded{Skill: name, Reason: event.UnloadLRU})
		note(fmt.Sprintf("contextChanged: unloaded %s (least recently used; max_loaded_skills is %d): its instructions and tools left", name, st.Settings.MaxLoadedSkills))
	}
	events = append(events, &event.SkillLoaded{Skill: l.Skill, Version: l.Version, ExecutionID: l.Exec, Evicted: nonNil(evicted), Tools: nonNil(l.Tools),
		By: l.By, Tokens: l.Tokens, Delivery: l.Delivery, Repeat: l.Repeat, Body: l.Body})
	note(loadLine(l))
	return events, lines
}

// loadLine is the contextChanged record of a load, with the first
// ExcerptChars characters of each line the skill added (R7).
func loadLine(l Load) string {
	var b strings.Builder
	b.Grow(len(l.Body.Text) + len(l.Body.Text)/8 + 256) // the excerpt: about the text
	fmt.Fprintf(&b, "contextChanged: loaded %s version %s as execution %s", l.Skill, orNone(l.Version), l.Exec)
	if l.By == event.ByUser {
		b.WriteString(" by the user")
	}
	b.WriteString("; it is the active skill")
	if len(l.Tools) > 0 {
		b.WriteString("; tools: " + strings.Join(l.Tools, ", "))
	}
	for _, line := range firstChars(l.Body.Text, ExcerptChars) {
		b.WriteString("\n  | ")
		b.WriteString(line)
	}
	return b.String()
}

// firstChars keeps the first n characters of each non-empty line.
func firstChars(text string, n int) []string {
	var out []string
	for line := range strings.SplitSeq(text, "\n") {
		line = strings.TrimRight(line, " \t\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		// counted first: most lines are short, and a line's runes cost
		// four bytes each to hold
		if utf8.RuneCountInString(line) > n {
			line = string([]rune(line)[:n])
		}
		out = append(out, line)
	}
	return out
}

func nonNil(v []string) []string {
	if v == nil {
		return []string{}
	}
	return v
}
