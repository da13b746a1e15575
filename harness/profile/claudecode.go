package profile

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/clipperhouse/displaywidth"
)

// Claude Code's listing rules. Sources: code.claude.com/docs/en/skills
// ("Skill descriptions are cut short") and /docs/en/settings
// (skillListingBudgetFraction, skillListingMaxDescChars); the budget
// formula and the usage ranking as read from the shipped CLI in
// martinholovsky/SOTA-skills #349 and anthropics/claude-code #64606; the
// rest measured on Claude Code 2.1.332 (the requests it sent a loopback
// endpoint).
const (
	// claudeAgent is the version the profile reproduces.
	claudeAgent = "Claude Code 2.1.332"
	// claudeWindow is the context window assumed when the model's is not
	// known; claudeWindow1M is the window of opus-4-7 and of a model named
	// with the [1m] suffix.
	claudeWindow   = 200_000
	claudeWindow1M = 1_000_000
	// claudeBytesPerToken × claudeBudgetPercent / 100 of the window is the
	// listing budget in characters: 200,000 × 4 × 1 % = 8,000. Models the
	// CLI does not count 4 bytes a token for count 3 (claudeBytesPerToken3).
	claudeBytesPerToken  = 4
	claudeBytesPerToken3 = 3
	claudeBudgetPercent  = 1
	// claudeMaxDesc caps description + when_to_use per entry
	// (skillListingMaxDescChars, default 1,536, in UTF-16 units as
	// JavaScript counts): a longer one keeps 1,535 and an ellipsis.
	claudeMaxDesc = 1536
	// claudeHalfLifeDays and claudeDecayFloor: usage decays by half every
	// week, never below a tenth (usageCount × max(0.5^(days/7), 0.1)).
	claudeHalfLifeDays = 7
	claudeDecayFloor   = 0.1
)

// claudeHeader heads the listing (the skill_listing attachment, sent as a
// meta user message wrapped in <system-reminder>), the first and the later
// ones alike: 2.1.332's renderer writes "The following skills are also
// available for use with the Skill tool. This list adds to the skills
// listed earlier in this conversation and is not the full list:" only for
// an attachment marked addsToEarlier, which it marks only while a
// server-side feature flag (tengu_hazy_boole, default off) is on; with
// the flag off, as a run against a loopback endpoint has it, a later
// listing repeats this header (TestClaudeCodeLaterListing, --continue).
const claudeHeader = "The following skills are available for use with the Skill tool:"

type claudeCode struct{}

func (claudeCode) Name() string { return "claude-code" }

// Agent is the version reproduced.
func (claudeCode) Agent() string      { return claudeAgent }
func (claudeCode) DefaultWindow() int { return claudeWindow }

// ClaudeBudget is Claude Code's listing budget in characters for a context
// window in tokens, at 4 bytes a token.
func ClaudeBudget(window int) int {
	if window <= 0 {
		window = claudeWindow
	}
	return window * claudeBytesPerToken * claudeBudgetPercent / 100
}

// claudeModelRE finds a model's family and version in its name:
// claude-opus-4-5-20251101, claude-sonnet-4-20250514, claude-3-5-haiku….
var claudeModelRE = regexp.MustCompile(`(opus|sonnet|haiku)-(\d+)(?:-(\d{1,2}))?(?:$|[^0-9])`)

// ClaudeBytesPerToken is how many bytes a token Claude Code counts for a
// model: 4 for claude-3*, opus 4.0, 4.1, 4.5 and 4.6, sonnet 4.0, 4.5 and
// 4.6 and haiku 4.5; 3 for any other Claude model. A name that is not a
// Claude model's (none, or the model a session under this profile really
// talks to) counts 4, the documented 8,000 characters at 200,000 tokens.
func ClaudeBytesPerToken(model string) int {
	m := strings.ToLower(model)
	if !strings.Contains(m, "claude") || strings.Contains(m, "claude-3") {
		return claudeBytesPerToken
	}
	sub := claudeModelRE.FindStringSubmatch(m)
	if sub == nil {
		return claudeBytesPerToken3
	}
	minor := sub[3]
	if minor == "" {
		minor = "0"
	}
	four := map[string]bool{"opus-4-0": true, "opus-4-1": true, "opus-4-5": true, "opus-4-6": true,
		"sonnet-4-0": true, "sonnet-4-5": true, "sonnet-4-6": true, "haiku-4-5": true}
	if four[sub[1]+"-"+sub[2]+"-"+minor] {
		return claudeBytesPerToken
	}
	return claudeBytesPerToken3
}

// ClaudeKnows reports whether Claude Code knows a model by its name: a
// Claude model of a family and version it names (claude-3*, opus, sonnet
// or haiku with a version), or one of its aliases (opus, sonnet, haiku,
// with or without [1m]).
func ClaudeKnows(model string) bool {
	m := strings.TrimSuffix(strings.ToLower(model), "[1m]")
	switch m {
	case "opus", "sonnet", "haiku", "opusplan", "best", "default":
		return true
	}
	return strings.Contains(m, "claude-3") || strings.Contains(m, "claude") && claudeModelRE.MatchString(m)
}

// ClaudeWindow is the context window Claude Code assumes for a model:
// 1,000,000 for opus-4-7 and a name ending in [1m], else 200,000.
func ClaudeWindow(model string) int {
	m := strings.ToLower(model)
	if strings.HasSuffix(m, "[1m]") || strings.Contains(m, "opus-4-7") {
		return claudeWindow1M
	}
	return claudeWindow
}

// ClaudeBudgetFor is the listing budget in characters for a model and a
// context window (0: the model's): floor(window × bytes a token × 1 %).
func ClaudeBudgetFor(model string, window int) int {
	if window <= 0 {
		window = ClaudeWindow(model)
	}
	return window * ClaudeBytesPerToken(model) * claudeBudgetPercent / 100
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

// jsLen is a string's length as JavaScript counts it (UTF-16 code units).
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

// width is a string's length as Claude Code measures its listing: the
// columns it takes in a terminal (East Asian wide characters and emoji
// count 2).
func width(s string) int { return displaywidth.String(s) }

// claudeControl is a run of control characters: each becomes one space.
var claudeControl = regexp.MustCompile(`[\x00-\x1f\x7f-\x9f]+`)

// claudeClean is what the listing makes of a description: angle brackets
// escaped, each run of control characters (newlines among them) one
// space, and no space at either end.
func claudeClean(s string) string {
	s = strings.NewReplacer("<", "&lt;", ">", "&gt;").Replace(s)
	return strings.TrimSpace(claudeControl.ReplaceAllString(s, " "))
}

// Listed names the skills the listings of a conversation have shown, by
// the name an entry gives, each with the digest of its name and
// description. Claude Code 2.1.332 attaches its listing to the first user
// message and, to a later one, only the skills no earlier listing named
// with the same digest (the skill_listing attachment's names and digests,
// sha256 of [name, description]).
type Listed map[string]string

// claudeDigest is the digest a listing records of a skill.
func claudeDigest(label, desc string) string {
	sum := sha256.Sum256([]byte(label + "\x00" + desc))
	return hex.EncodeToString(sum[:8])
}

type claudeLine struct {
	idx      int // index in Input.Skills; -1 for a bundled skill
	name     string
	full     string // "- name: description"
	bare     string // "- name"
	kept     int    // description characters the full line keeps
	length   int
	cut      bool
	score    float64
	rank     int
	upgraded bool
	bundled  bool
	late     bool
	label    string
	digest   string
}

func (p claudeCode) Catalogue(in Input) Catalogue {
	win := in.ContextWindow
	if win <= 0 {
		win = ClaudeWindow(in.Model)
	}
	bpt := ClaudeBytesPerToken(in.Model)
	limit := ClaudeBudgetFor(in.Model, win)
	now := in.Now
	if now.IsZero() {
		now = time.Now()
	}
	cat := Catalogue{Profile: p.Name(), Agent: claudeAgent, Entries: make([]Entry, len(in.Skills))}
	newLine := func(idx int, s Skill) *claudeLine {
		desc := s.Description
		if s.WhenToUse != "" {
			// the docs say the two are combined; the separator is not documented
			desc += " - " + s.WhenToUse
		}
		desc = claudeClean(desc)
		l := &claudeLine{idx: idx, name: s.Name, length: runes(desc), score: DecayedUsage(s.Usage, now)}
		// the cap counts string length (UTF-16 units), not columns: 800
		// CJK characters, 1,600 columns, are listed whole by 2.1.332
		kept := desc
		if jsLen(desc) > claudeMaxDesc {
			kept, l.cut = jsCut(desc, claudeMaxDesc-1)+"…", true
		}
		l.kept = runes(kept)
		// a skill is known by its folder; a different frontmatter name
		// follows in parentheses
		label := s.folder()
		if s.Name != "" && s.Name != label {
			label += " (" + s.Name + ")"
		}
		l.label, l.digest = label, claudeDigest(label, desc)
		l.bare = "- " + label
		l.full = l.bare
		if kept != "" {
			l.full += ": " + kept
		}
		return l
	}
	// the user's skills (~/.claude/skills before the project's), then the
	// bundled ones, then the built-in commands
	var user []*claudeLine
	order := make([]int, 0, len(in.Skills))
	for i, s := range in.Skills {
		if s.Scope == "user" {
			order = append(order, i)
		}
	}
	for i, s := range in.Skills {
		if s.Scope != "user" {
			order = append(order, i)
		}
	}
	for _, i := range order {
		s := in.Skills[i]
		if s.DisableModelInvocation {
			cat.Entries[i] = omitted(s.Name, s.Description, "disable-model-invocation: only the user can invoke it, so it is not listed")
			continue
		}
		user = append(user, newLine(i, s))
	}
	var bundled, late []*claudeLine
	bundledSkills := bundledFor(in, claudeBundled, claudeAgent)
	for i, b := range bundledSkills {
		l := newLine(-1-i, b)
		l.bundled = true
		for _, cb := range claudeBundled {
			if cb.name == b.Name {
				l.late = cb.late
			}
		}
		if l.late {
			late = append(late, l)
		} else {
			bundled = append(bundled, l)
		}
	}
	if len(in.Listed) > 0 {
		// a later listing: only what no earlier one named with the same
		// digest, budgeted on its own (2.1.332 sends the attachment's
		// skills through the same formatter)
		keep := func(ls []*claudeLine) []*claudeLine {
			var out []*claudeLine
			for _, l := range ls {
				if in.Listed[l.label] != l.digest {
					out = append(out, l)
				} else if l.idx >= 0 {
					n := runes(in.Skills[l.idx].Description)
					cat.Entries[l.idx] = Entry{Name: l.name, State: Full, Kept: n, Length: n,
						Reason: "listed earlier in the conversation: Claude Code lists a skill again only when its description changes"}
				}
			}
			return out
		}
		user, bundled, late = keep(user), keep(bundled), keep(late)
	}
	lines := append(append(append([]*claudeLine(nil), user...), bundled...), late...)
	sum := func(pick func(*claudeLine) string) int {
		n := 0
		for i, l := range lines {
			if i > 0 {
				n++ // the newline between entries
			}
			n += width(pick(l))
		}
		return n
	}
	fullWidth := sum(func(l *claudeLine) string { return l.full })
	over := fullWidth > limit
	if !over {
		for _, l := range lines {
			l.upgraded = true
		}
	} else {
		// Names are always listed; descriptions go first to the bundled
		// skills, then to the most used of the user's, so never-used
		// skills lose theirs first, and last to the built-in commands.
		ranked := append([]*claudeLine(nil), user...)
		sort.SliceStable(ranked, func(a, b int) bool { return ranked[a].score > ranked[b].score })
		ranked = append(append(append([]*claudeLine(nil), bundled...), ranked...), late...)
		slack := limit - sum(func(l *claudeLine) string { return l.bare })
		for r, l := range ranked {
			l.rank = r + 1
			cost := width(l.full) - width(l.bare)
			if cost <= slack {
				l.upgraded = true
				slack -= cost
			}
		}
	}
	used := sum(func(l *claudeLine) string {
		if l.upgraded {
			return l.full
		}
		return l.bare
	})
	text := make([]string, 0, len(lines))
	cat.Listed = Listed{}
	for _, l := range lines {
		cat.Listed[l.label] = l.digest
		e := Entry{Name: l.name, Length: l.length, Rank: l.rank, Bundled: l.bundled}
		switch {
		case !l.upgraded:
			e.State = NameOnly
			e.Reason = fmt.Sprintf("with every description the listing needs %d characters, over the %d budget; %s it ranks %d of %d and its description did not fit in what was left, so only its name is listed",
				fullWidth, limit, claudeRankText(l), l.rank, len(lines))
			text = append(text, l.bare)
		case l.cut:
			e.State, e.Kept = Truncated, l.kept
			e.Reason = fmt.Sprintf("description and when_to_use cut at %d characters per entry, ending in an ellipsis (kept %d of %d)", claudeMaxDesc-1, l.kept-1, l.length)
			text = append(text, l.full)
		default:
			e.State, e.Kept = Full, l.kept
			if over {
				e.Reason = fmt.Sprintf("over budget (%d characters needed, %d allowed), but %s it ranks %d of %d and its description fit", fullWidth, limit, claudeRankText(l), l.rank, len(lines))
			} else {
				e.Reason = fmt.Sprintf("the whole listing fits: %d of the %d characters", fullWidth, limit)
			}
			text = append(text, l.full)
		}
		if l.idx >= 0 {
			cat.Entries[l.idx] = e
		} else {
			cat.Bundled = append(cat.Bundled, e)
		}
	}
	rule := fmt.Sprintf("context window %d tokens × %d bytes a token × %d %%", win, bpt, claudeBudgetPercent)
	if in.Model != "" {
		rule += " (model " + in.Model + ")"
	}
	if len(cat.Bundled) > 0 {
		rule += fmt.Sprintf("; %s bundled with %s share it", plural(len(cat.Bundled), "skill"), claudeAgent)
	}
	cat.Budget = &Budget{Window: win, Unit: "characters", Limit: limit, Used: used, Rule: rule}
	if len(text) > 0 {
		cat.Blocks = []Block{{Placement: ReminderMessage, Text: "<system-reminder>\n" + claudeHeader + "\n\n" + strings.Join(text, "\n") + "\n</system-reminder>"}}
	}
	if dropped := countState(cat.Entries, NameOnly) + countState(cat.Bundled, NameOnly); dropped > 0 {
		// the /doctor and startup warning names how many lost their text (claude-code #56832)
		cat.Warnings = append(cat.Warnings, fmt.Sprintf("%s dropped (full descriptions kept for most-used skills)", plural(dropped, "description")))
	}
	warnEntries(&cat, in)
	return cat
}

// claudeRankText says which part of the budget order a line is in.
func claudeRankText(l *claudeLine) string {
	switch {
	case l.late:
		return "as a built-in command, charged after every other skill,"
	case l.bundled:
		return "as a bundled skill, charged before the user's skills,"
	}
	return "by use (" + useText(l.score) + ")"
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
// invocation answers only that the skill is loaded (2.1.332).
func (claudeCode) Activate(s Skill, r Request) Activation {
	if r.Repeat {
		// 2.1.332 answers a repeat with this line and the arguments, and
		// sends the body no more
		text := "Skill /" + s.Name + " is already loaded above; instructions unchanged."
		if r.Args != "" {
			text += "\n\nARGUMENTS: " + r.Args
		}
		return Activation{ToolResult: text}
	}
	a := Activation{ToolResult: "Launching skill: " + s.Name}
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
		RepeatNote: "a repeated invocation answers \"Skill /NAME is already loaded above; instructions unchanged.\" and the arguments",
		Note:       "after auto-compaction the latest invocation of each skill is re-attached, 5,000 tokens each, 25,000 in all, most recent first"}
}
