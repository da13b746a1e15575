package ui

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"skillet/harness/event"
	"skillet/harness/termtext"
)

// Presenter mode shows a session to an audience: the chrome says what
// happens without the rule book's numbers, call ids or cache paths; the
// first screen suggests prompts for the skills at hand; loads and
// evictions stand out in the transcript.

var (
	// "(R16)", "(R15: a skill grants nothing)"
	ruleRef = regexp.MustCompile(`\s*\(R\d+\b[^)]*\)`)
	// "(outside the LRU, R16)"
	ruleTail = regexp.MustCompile(`,\s*R\d+\)`)
	// "(/home/me/.cache/skillet/sample-skills/d11dd…)"
	pathRef = regexp.MustCompile(`\s*\((?:/|~/)[^)]*\)`)
	// "(execution x-1)", "(x-4)"
	execRef = regexp.MustCompile(`\s*\((?:execution )?[a-z]-\d+\)`)
)

// clean leaves rule numbers and paths out of s in presenter mode. Only the
// interface's own words are cleaned, where they are made: what the model,
// a tool or a skill wrote is shown as it is.
func (th *theme) clean(s string) string {
	if !th.present || !strings.Contains(s, "(") {
		return s
	}
	s = ruleTail.ReplaceAllString(s, ")")
	s = ruleRef.ReplaceAllString(s, "")
	s = execRef.ReplaceAllString(s, "")
	return pathRef.ReplaceAllString(s, "")
}

// setPresent turns presenter mode on or off.
func (m *model) setPresent(on bool) {
	m.present = on
	m.th.present = on
	m.tr.invalidate() // marks and the window note are drawn anew

	m.lru.dirty, m.cx.dirty, m.tools.dirty = true, true, true
}

// shown is a mark's text as the theme shows it: in presenter mode the
// large form, or the text cleaned.
func (mk mark) shown(th *theme) string {
	switch {
	case !th.present:
		return mk.text
	case mk.big != "":
		return mk.big
	}
	return th.clean(mk.text)
}

// bigText is the large form of a load or eviction mark, for an audience;
// "" for other events.
func bigText(ev event.Event) string {
	switch e := ev.(type) {
	case *event.SkillLoaded:
		var b strings.Builder
		fmt.Fprintf(&b, "━━ SKILL LOADED ━━  %s  (by %s)", e.Skill, orDash(e.By))
		if len(e.Tools) > 0 {
			fmt.Fprintf(&b, "\nbrings the tools %s", strings.Join(e.Tools, ", "))
		}
		return b.String() // an eviction has its own mark
	case *event.SkillUnloaded:
		why := map[event.UnloadReason]string{
			"lru": "evicted: the least recently used", "user": "unloaded by hand", "clear": "the session was cleared",
			"removed": "removed from disk", "invalid": "no longer valid", "too-long": "too long for the budget",
			"limit": "over the limit", "paste": "pasted instead",
		}[e.Reason]
		if why == "" {
			why = string(e.Reason)
		}
		return fmt.Sprintf("━━ SKILL UNLOADED ━━  %s\n%s", e.Skill, why)
	}
	return ""
}

// suggestedPrompts are up to three prompts for the skills at hand, made
// from their descriptions: enabled, valid skills that are not preloaded.
func (m *model) suggestedPrompts() []suggestedPrompt {
	if m.snap == nil {
		return nil
	}
	var out []suggestedPrompt
	for _, s := range m.snap.Skills {
		if !s.Enabled || s.Preload || s.Shadowed || len(s.Problems) > 0 {
			continue
		}
		if p := promptFrom(s.Description); p != "" {
			out = append(out, suggestedPrompt{skill: s.Name, text: p})
		}
		if len(out) == 3 {
			break
		}
	}
	return out
}

type suggestedPrompt struct{ skill, text string }

// asideRE is a parenthesised aside.
var asideRE = regexp.MustCompile(`\s*\([^)]*\)`)

// promptFrom makes a request out of a skill description's first sentence,
// which by convention says what the skill does in the imperative: its
// asides dropped and, when long, cut at a clause.
func promptFrom(desc string) string {
	s := strings.Join(strings.Fields(termtext.Sanitize(desc)), " ")
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimSuffix(s, ".")
	s = asideRE.ReplaceAllString(s, "")
	const most = 60
	if len([]rune(s)) > most {
		// the purpose first: "with …" asides go before a second clause
		for _, group := range [][]string{{" with "}, {" and ", ", "}, {" for ", " before "}} {
			if cut := lastCut(s, group, most); cut > 0 {
				s = s[:cut]
				break
			}
		}
	}
	return strings.TrimSpace(s)
}

// lastCut is the last place at most bytes into s where one of seps
// starts, past the first few words; 0 if none.
func lastCut(s string, seps []string, most int) int {
	cut := 0
	for _, sep := range seps {
		for i := 0; i < len(s); {
			j := strings.Index(s[i:], sep)
			if j < 0 {
				break
			}
			if at := i + j; at <= most && at > 15 && at > cut {
				cut = at
			}
			i += j + 1
		}
	}
	return cut
}

// welcomeLines is the first screen in presenter mode: what the session
// holds and three prompts to try.
func (m *model) welcomeLines(w int) []string {
	th := m.th
	out := []string{"", th.assistant.Render(termtext.Clip("  Welcome to Skillet", w)), ""}
	if m.snap != nil {
		n := 0
		for _, s := range m.snap.Skills {
			if s.Enabled && len(s.Problems) == 0 {
				n++
			}
		}
		out = append(out, indentStyled(th.faint, "  ", fmt.Sprintf("%d skills are at hand. The model sees only their names and descriptions, loads a skill when a request needs it, and puts it away when it is done.", n), w)...)
	}
	ps := m.suggestedPrompts()
	if len(ps) > 0 {
		out = append(out, "", th.bold.Render(termtext.Clip("  Try one of these (alt+1…3 puts one in the input)", w)), "")
	}
	for i, p := range ps {
		out = append(out, indentStyled(th.user, fmt.Sprintf("  %d  ", i+1), "“"+p.text+"”", w)...)
		out = append(out, th.faint.Render(termtext.Clip("     alt+"+strconv.Itoa(i+1)+" · "+p.skill, w)), "")
	}
	return out
}

// welcoming says the transcript is empty, so the first screen shows.
func (m *model) welcoming() bool {
	t := m.tr
	return m.present && t.entries.Len() == 0 && t.pending == "" && t.live == nil
}

// takeSuggestion puts suggested prompt "alt+N" in the input.
func (m *model) takeSuggestion(k string) tea.Cmd {
	n, err := strconv.Atoi(strings.TrimPrefix(k, "alt+"))
	ps := m.suggestedPrompts()
	if err != nil || n < 1 || n > len(ps) {
		return m.flashInfo("no suggested prompt " + strings.TrimPrefix(k, "alt+"))
	}
	cmd := m.setFocus(paneInput)
	m.in.set(ps[n-1].text)
	return cmd
}
