package profile

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
	"unicode/utf16"
)

// Claude Code's listing rules. Sources: code.claude.com/docs/en/skills
// ("Skill descriptions are cut short") and /docs/en/settings
// (skillListingBudgetFraction, skillListingMaxDescChars); the budget
// formula and the usage ranking as read from the shipped CLI in
// martinholovsky/SOTA-skills #349 and anthropics/claude-code #64606.
const (
	// claudeWindow is the context window assumed when none is known
	// ("200,000 when unknown", the 2.1.261 binary per the sources above).
	claudeWindow = 200_000
	// claudeBytesPerToken × claudeBudgetPercent / 100 of the window is the
	// listing budget in characters: 200,000 × 4 × 1 % = 8,000.
	claudeBytesPerToken = 4
	claudeBudgetPercent = 1
	// claudeMaxDesc caps description + when_to_use per entry
	// (skillListingMaxDescChars, default 1,536).
	claudeMaxDesc = 1536
	// claudeHalfLifeDays and claudeDecayFloor: usage decays by half every
	// week, never below a tenth (usageCount × max(0.5^(days/7), 0.1)).
	claudeHalfLifeDays = 7
	claudeDecayFloor   = 0.1
)

// claudeHeader heads the listing (the skill_listing attachment, sent as a
// meta user message wrapped in <system-reminder>).
const claudeHeader = "The following skills are available for use with the Skill tool:"

type claudeCode struct{}

func (claudeCode) Name() string       { return "claude-code" }
func (claudeCode) DefaultWindow() int { return claudeWindow }

// ClaudeBudget is Claude Code's listing budget in characters for a context
// window in tokens.
func ClaudeBudget(window int) int {
	if window <= 0 {
		window = claudeWindow
	}
	return window * claudeBytesPerToken * claudeBudgetPercent / 100
}

// DecayedUsage is Claude Code's usage score: the count, halved for every
// week since the last use, never below a tenth of the count.
func DecayedUsage(u Usage, now time.Time) float64 {
	if u.Count <= 0 {
		return 0
	}
	days := 0.0
	if !u.LastUsed.IsZero() && now.After(u.LastUsed) {
		days = now.Sub(u.LastUsed).Hours() / 24
	}
	return float64(u.Count) * math.Max(math.Pow(0.5, days/claudeHalfLifeDays), claudeDecayFloor)
}

// jsLen is a string's length as JavaScript counts it (UTF-16 code units):
// Claude Code is a JavaScript program and measures its budget so.
func jsLen(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// jsCut keeps the first n UTF-16 code units of s, never splitting a
// character.
func jsCut(s string, n int) string {
	used := 0
	for i, r := range s {
		w := utf16.RuneLen(r)
		if used+w > n {
			return s[:i]
		}
		used += w
	}
	return s
}

type claudeLine struct {
	idx      int
	name     string
	full     string // "- name: description"
	bare     string // "- name"
	kept     int    // description characters the full line keeps
	length   int
	cut      bool
	score    float64
	rank     int
	upgraded bool
}

func (p claudeCode) Catalogue(in Input) Catalogue {
	win := window(p, in)
	limit := ClaudeBudget(win)
	now := in.Now
	if now.IsZero() {
		now = time.Now()
	}
	cat := Catalogue{Profile: p.Name(), Entries: make([]Entry, len(in.Skills))}
	var lines []*claudeLine
	for i, s := range in.Skills {
		desc := s.Description
		if s.WhenToUse != "" {
			// the docs say the two are combined; the separator is not documented
			desc += " - " + s.WhenToUse
		}
		if s.DisableModelInvocation {
			cat.Entries[i] = omitted(s.Name, desc, "disable-model-invocation: only the user can invoke it, so it is not listed")
			continue
		}
		l := &claudeLine{idx: i, name: s.Name, length: runes(desc), score: DecayedUsage(s.Usage, now)}
		kept := desc
		if jsLen(desc) > claudeMaxDesc {
			kept, l.cut = jsCut(desc, claudeMaxDesc), true
		}
		l.kept = runes(kept)
		l.bare = "- " + s.Name
		l.full = l.bare
		if kept != "" {
			l.full += ": " + kept
		}
		lines = append(lines, l)
	}
	width := func(pick func(*claudeLine) string) int {
		n := 0
		for i, l := range lines {
			if i > 0 {
				n++ // the newline between entries
			}
			n += jsLen(pick(l))
		}
		return n
	}
	fullWidth := width(func(l *claudeLine) string { return l.full })
	over := fullWidth > limit
	if !over {
		for _, l := range lines {
			l.upgraded = true
		}
	} else {
		// Names are always listed; descriptions go to the most used skills
		// first while they fit, so never-used skills lose theirs first.
		ranked := append([]*claudeLine(nil), lines...)
		sort.SliceStable(ranked, func(a, b int) bool { return ranked[a].score > ranked[b].score })
		slack := limit - width(func(l *claudeLine) string { return l.bare })
		for r, l := range ranked {
			l.rank = r + 1
			cost := jsLen(l.full) - jsLen(l.bare)
			if cost <= slack {
				l.upgraded = true
				slack -= cost
			}
		}
	}
	used := width(func(l *claudeLine) string {
		if l.upgraded {
			return l.full
		}
		return l.bare
	})
	text := make([]string, 0, len(lines))
	for _, l := range lines {
		e := Entry{Name: l.name, Length: l.length, Rank: l.rank}
		switch {
		case !l.upgraded:
			e.State = NameOnly
			e.Reason = fmt.Sprintf("with every description the listing needs %d characters, over the %d budget; by use (%s) it ranks %d of %d and its description did not fit in what was left, so only its name is listed",
				fullWidth, limit, useText(l.score), l.rank, len(lines))
			text = append(text, l.bare)
		case l.cut:
			e.State, e.Kept = Truncated, l.kept
			e.Reason = fmt.Sprintf("description and when_to_use cut at %d characters per entry (kept %d of %d)", claudeMaxDesc, l.kept, l.length)
			text = append(text, l.full)
		default:
			e.State, e.Kept = Full, l.kept
			if over {
				e.Reason = fmt.Sprintf("over budget (%d characters needed, %d allowed), but it ranks %d of %d by use (%s) and its description fit", fullWidth, limit, l.rank, len(lines), useText(l.score))
			} else {
				e.Reason = fmt.Sprintf("the whole listing fits: %d of the %d characters", fullWidth, limit)
			}
			text = append(text, l.full)
		}
		cat.Entries[l.idx] = e
	}
	cat.Budget = &Budget{Window: win, Unit: "characters", Limit: limit, Used: used,
		Rule: fmt.Sprintf("context window %d tokens × %d × %d %%", win, claudeBytesPerToken, claudeBudgetPercent)}
	if len(text) > 0 {
		cat.Blocks = []Block{{Placement: ReminderMessage, Text: "<system-reminder>\n" + claudeHeader + "\n\n" + strings.Join(text, "\n") + "\n</system-reminder>"}}
	}
	if dropped := countState(cat.Entries, NameOnly); dropped > 0 {
		// the /doctor and startup warning names how many lost their text (claude-code #56832)
		cat.Warnings = append(cat.Warnings, fmt.Sprintf("%s dropped (full descriptions kept for most-used skills)", plural(dropped, "description")))
	}
	return cat
}

// useText describes a usage score for a reason.
func useText(score float64) string {
	if score == 0 {
		return "never used: ties keep the listing order"
	}
	return fmt.Sprintf("score %.2f", score)
}

func countState(es []Entry, st State) int {
	n := 0
	for _, e := range es {
		if e.State == st {
			n++
		}
	}
	return n
}

func (claudeCode) Tool(Input) *Tool {
	return &Tool{
		Name:        "Skill",
		Description: Fixed("Claude Code's Skill tool description (how to invoke a skill by name with optional arguments)", 0),
		Parameters: jsonSchema(map[string]any{
			"type": "object",
			"properties": map[string]any{
				"skill": map[string]any{"type": "string", "description": "The skill name."},
				"args":  map[string]any{"type": "string", "description": "Optional arguments for the skill."},
			},
			"required":             []string{"skill"},
			"additionalProperties": false,
		}),
	}
}

// Activate follows the documented lifecycle (code.claude.com/docs/en/skills):
// the tool result is short, then one meta user message carries the base
// directory and the body without frontmatter, with $ARGUMENTS replaced (or
// "ARGUMENTS: …" appended when the body has no placeholder). A repeated
// identical invocation adds only a note (2.1.202).
func (claudeCode) Activate(s Skill, r Request) Activation {
	a := Activation{ToolResult: "Launching skill: " + s.Name}
	if r.Repeat {
		a.Messages = []Message{{Role: "user", Text: fmt.Sprintf("Skill %q is already loaded in this conversation; its instructions above still apply.", s.Name)}}
		a.Note = "the wording of the already-loaded note is approximated"
		return a
	}
	body := strings.TrimSpace(s.Body)
	switch {
	case strings.Contains(body, "$ARGUMENTS"):
		body = strings.ReplaceAll(body, "$ARGUMENTS", r.Args)
	case r.Args != "":
		body += "\n\nARGUMENTS: " + r.Args
	}
	a.Messages = []Message{{Role: "user", Text: "Base directory for this skill: " + s.Dir + "\n\n" + body}}
	a.Note = "shell injection (!`cmd`) in the body is not run"
	return a
}

func (claudeCode) Persistence() Persistence {
	return Persistence{BodyStays: true, CarriedAcrossTurns: true,
		RepeatNote: "an identical repeated invocation adds only an already-loaded note",
		Note:       "after auto-compaction the latest invocation of each skill is re-attached, 5,000 tokens each, 25,000 in all, most recent first"}
}
