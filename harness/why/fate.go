package why

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"skillet/harness/event"
	"skillet/harness/rulebook"
)

// Explain computes a skill's record from its facts and a session's events
// (nil for none), judged by limits when there is no session. Each event is
// folded by the rule book, which stamps it with its transcript position and
// keeps the limits in force, before the walker reads it. A nil counter
// estimates tokens.
func Explain(f Facts, events []event.Event, limits event.Settings, count Counter) *Record {
	x := NewExplainer(f, limits, count)
	for _, e := range events {
		x.Add(e)
	}
	return x.Record()
}

// Explainer is Explain one event at a time, for a reader that streams a
// long session's journal rather than holding its events.
type Explainer struct {
	f Facts
	w *walker
}

// NewExplainer starts explaining the skill of f; see Explain.
func NewExplainer(f Facts, limits event.Settings, count Counter) *Explainer {
	if count == nil {
		count = estimate{}
	}
	st := rulebook.New("", "", limits)
	w := &walker{name: f.Name, count: count, st: st, calls: map[string]string{}, open: map[string]int{},
		rec: &Record{Skill: f.Name, Turns: []Turn{}, Tools: []ToolSpan{}}}
	return &Explainer{f: f, w: w}
}

// Add folds the session's next event.
func (x *Explainer) Add(e event.Event) {
	x.w.st.Apply(e)
	x.w.step(e)
}

// Record is the record once every event is added; the Explainer is done
// with after it.
func (x *Explainer) Record() *Record {
	f, w := x.f, x.w
	w.endTurn(nil)
	r := w.rec
	r.Limits = w.st.Settings
	if r.Session != "" {
		var last *Turn
		if n := len(r.Turns); n > 0 {
			last = &r.Turns[n-1]
		}
		r.Fate = w.fate(last)
	}
	if w.textTokens > 0 {
		// the session counted the text it loaded: a better measure than ours
		f.Tokens, f.Tokenizer = w.textTokens, "the session's count"
	}
	r.Status = statuses(f, r.Limits, r.Fate)
	c := &r.Cost
	c.Tokenizer = w.count.Name()
	c.ListEntry, c.Text = f.ListEntry, f.Tokens
	if w.textTokens > 0 {
		c.Text = w.textTokens
	}
	for _, t := range f.Tools {
		if c.SchemaByTools == nil {
			c.SchemaByTools = map[string]int{}
		}
		c.SchemaByTools[t.Name] = t.Schema
		c.SchemaTokens += t.Schema
	}
	return r
}

// walker follows one skill through a session's events.
type walker struct {
	name  string
	count Counter
	// st is the rule book's fold up to the event being read: its
	// settings are the limits in force then.
	st  *rulebook.State
	rec *Record
	cur *Turn
	// calls maps the tool call ids of load_skill calls to the skill named.
	calls map[string]string
	// open maps a tool to its open span in rec.Tools.
	open map[string]int
	// textTokens is the size of the text now loaded; delivery how it goes.
	textTokens int
	delivery   event.Delivery
	loaded     bool
	loadedTurn int
	loadedBy   string
	// gone is the last eviction, unload or refusal of the skill since it
	// was last loaded: with the fold's loaded set, what decides its fate.
	gone *Fate
	// what the model did this turn besides this skill: the loads of other
	// skills it made, and those refused (why, by skill)
	otherLoads, otherTools []string
	otherRefused           []string
	refusedWhy             map[string]string
	answered               bool
}

// fate is what decides the skill's fate now, from the rule book's state
// after the event just read: loaded, else the last eviction, unload or
// refusal, else what the list of turn t did with it.
func (w *walker) fate(t *Turn) *Fate {
	for _, ls := range append(slices.Clone(w.st.Loaded), w.st.Preloads...) {
		if ls.Name == w.name {
			by := w.loadedBy
			if by == "" {
				by = string(ls.By)
			}
			return &Fate{Kind: FateLoaded, Turn: w.loadedTurn, By: by}
		}
	}
	if w.gone != nil {
		f := *w.gone
		return &f
	}
	switch {
	case t == nil:
		return nil
	case t.LeftOff != nil:
		return &Fate{Kind: FateLeftOff, Turn: t.Turn, LeftOff: t.LeftOff}
	case t.Offered != nil:
		return &Fate{Kind: FateOffered, Turn: t.Turn, Offered: t.Offered}
	}
	return &Fate{Kind: FateNotListed, Turn: t.Turn}
}

// left records that the skill left the loaded set, or that a load of it
// was refused.
func (w *walker) left(e event.Event, f Fate) {
	f.Turn, f.Between = e.Head().Turn, w.cur == nil
	w.gone = &f
}

// at returns the record of the turn an event belongs to: the running
// turn, or for an event between turns (a reopened session syncing with
// disk, say) the record of its turn, made when there is none.
func (w *walker) at(e event.Event) *Turn {
	if w.cur != nil {
		return w.cur
	}
	n := event.TurnOf(e)
	if k := len(w.rec.Turns); k > 0 && w.rec.Turns[k-1].Turn == n {
		return &w.rec.Turns[k-1]
	}
	w.rec.Turns = append(w.rec.Turns, Turn{Turn: n, Timeline: []Step{}})
	return &w.rec.Turns[len(w.rec.Turns)-1]
}

func (w *walker) note(e event.Event, format string, args ...any) {
	t, what := w.at(e), fmt.Sprintf(format, args...)
	if w.cur == nil {
		what = "between turns: " + what
	}
	t.Timeline = append(t.Timeline, Step{Entry: e.Head().Entry, What: what})
}

func (w *walker) startTurn(e *event.TurnStart) {
	w.rec.Turns = append(w.rec.Turns, Turn{Turn: e.Turn, Message: Clip(e.Text, 80), Timeline: []Step{}})
	w.cur = &w.rec.Turns[len(w.rec.Turns)-1]
	w.otherLoads, w.otherTools, w.otherRefused, w.refusedWhy, w.answered = nil, nil, nil, map[string]string{}, false
}

func (w *walker) step(e event.Event) {
	switch e := e.(type) {
	case *event.SessionStart:
		w.rec.Session = e.SessionID
	case *event.TurnStart:
		w.startTurn(e)
	case *event.ModelCall:
		w.modelCall(e)
	case *event.SkillPreload:
		if e.Skill != w.name {
			return
		}
		w.addDelivered(e, "preload")
		w.textTokens, w.delivery = e.Tokens, event.DeliveryContext
		w.loadedTurn, w.loadedBy, w.gone = e.Turn, string(event.ByPreload), nil
		w.note(e, "preloaded as execution %s (%d tokens)", e.ExecutionID, e.Tokens)
		for _, r := range e.Body.Tools {
			w.join(strings.ReplaceAll(r.Name, "/", "__"), e.Turn)
		}
	case *event.SkillLoaded:
		w.skillLoaded(e)
	case *event.SkillActivated:
		if e.Skill == w.name {
			w.note(e, "read again by the %s and made the active skill (execution %s)", e.By, e.ExecutionID)
			w.gone = nil
		} else if e.By == event.ByModel {
			w.otherLoads = appendNew(w.otherLoads, e.Skill)
		}
	case *event.SkillChanged:
		if e.Skill != w.name {
			return
		}
		w.textTokens = e.Tokens
		w.note(e, "changed on disk: version %s, %d tokens, rendered from the next call", orNone(e.Version), e.Tokens)
		now := map[string]bool{}
		for _, r := range e.Body.Tools {
			now[strings.ReplaceAll(r.Name, "/", "__")] = true
		}
		for tool := range w.open {
			if !now[tool] {
				w.leave(tool, e.Turn, "an edit of SKILL.md removed it from tools:")
			}
		}
		for _, r := range e.Body.Tools {
			w.join(strings.ReplaceAll(r.Name, "/", "__"), e.Turn)
		}
	case *event.SkillUnloaded:
		if e.Skill != w.name || e.Reason == event.UnloadLRU {
			return // an eviction is told with the load that caused it
		}
		why := unloadWhy(e.Reason)
		t := w.at(e)
		t.Unloaded = append(t.Unloaded, why)
		w.note(e, "unloaded: %s", why)
		w.unload(e.Turn, "unloaded: "+why)
		w.left(e, Fate{Kind: FateUnloaded, Why: why})
	case *event.Warning:
		w.warning(e)
	case *event.ContextChanged:
		if mentions(e.Line, w.name) {
			w.rec.Cost.R7Lines++
			w.rec.Cost.R7Tokens += w.count.Count(e.Line)
		}
	case *event.Assistant:
		if e.Manual {
			return
		}
		for _, tc := range e.ToolCalls {
			if tc.Name != rulebook.ToolLoadSkill {
				w.otherTools = appendNew(w.otherTools, tc.Name)
				continue
			}
			var args struct {
				Name string `json:"name"`
			}
			_ = json.Unmarshal([]byte(tc.Arguments), &args)
			w.calls[tc.ID] = strings.TrimSpace(args.Name)
		}
		if len(e.ToolCalls) == 0 && strings.TrimSpace(e.Text) != "" {
			w.answered = true
		}
	case *event.ToolResult:
		if sh := e.Shell; sh != nil && w.loaded && !e.Manual {
			// a command the model ran while the skill was loaded: what its
			// load led to
			cmd := clipCommand(sh.Command)
			t := w.at(e)
			t.Commands = append(t.Commands, Command{Command: cmd, ExitCode: sh.ExitCode, ToolCallID: e.ToolCallID})
			w.note(e, "while loaded, the model ran %s (exit %d)", cmd, sh.ExitCode)
			return
		}
		if e.Name != rulebook.ToolLoadSkill {
			return
		}
		if other := w.calls[e.ToolCallID]; other != w.name {
			if e.Refused && w.cur != nil && other != "" {
				w.otherRefused = appendNew(w.otherRefused, other)
				w.refusedWhy[other] = refusal(e.Content)
			}
			return
		}
		switch {
		case e.Refused:
			why := refusal(e.Content)
			t := w.at(e)
			t.Refused = append(t.Refused, why)
			w.note(e, "load refused: %s", why)
			w.left(e, Fate{Kind: FateRefused, Why: why})
		case w.loaded && w.delivery == event.DeliveryToolResult:
			w.rec.Cost.ResultCopies++
			w.rec.Cost.ResultTokens += w.count.Count(e.Content)
		}
	case *event.TurnEnd:
		w.endTurn(e)
	}
}

// refusal is a refused load_skill result without its prefix: the limit.
func refusal(content string) string {
	return strings.TrimPrefix(strings.TrimPrefix(content, "load refused: "), "load_skill: ")
}

func (w *walker) modelCall(e *event.ModelCall) {
	if w.cur == nil {
		return
	}
	for _, u := range e.Delivered {
		if u.Role == "SKILL" && u.Name == w.name && w.delivery != event.DeliveryToolResult {
			w.rec.Cost.ContextCalls++
			w.rec.Cost.ContextTotal += w.textTokens
		}
	}
	if w.cur.Offered != nil || w.cur.LeftOff != nil {
		return
	}
	of := len(e.Offered) + len(e.LeftOff)
	if i := slices.Index(e.Offered, w.name); i >= 0 {
		r := &Rank{Rank: i + 1, Of: of, Ranked: len(e.LeftOff) > 0}
		if i < len(e.Scores) {
			s := e.Scores[i]
			r.Score = &s
		}
		w.cur.Offered = r
		return
	}
	if slices.Contains(e.LeftOff, w.name) {
		w.cur.LeftOff = &LeftOff{Of: of, ListSize: w.st.Settings.ListSize, Above: slices.Clone(e.Offered)}
		w.note(e, "left off the list: list_size is %d, and %s", w.st.Settings.ListSize, aboveCount(len(e.Offered), of))
	}
}

// aboveCount says how many listed skills ranked above a left-off one.
func aboveCount(n, of int) string {
	if n == 1 {
		return fmt.Sprintf("the 1 skill listed of %d ranked above it", of)
	}
	return fmt.Sprintf("the %d skills listed of %d ranked above it", n, of)
}

func (w *walker) skillLoaded(e *event.SkillLoaded) {
	if e.Skill != w.name {
		if slices.Contains(e.Evicted, w.name) {
			w.at(e).EvictedBy = e.Skill
			w.note(e, "evicted by the load of %s (max_loaded_skills is %d)", e.Skill, w.st.Settings.MaxLoadedSkills)
			w.unload(e.Turn, "evicted by the load of "+e.Skill)
			w.left(e, Fate{Kind: FateEvicted, By: e.Skill, MaxLoaded: w.st.Settings.MaxLoadedSkills})
		}
		if e.By == event.ByModel {
			w.otherLoads = appendNew(w.otherLoads, e.Skill)
		}
		return
	}
	how := "load"
	if e.By == event.ByPaste {
		how = "paste"
	}
	w.addDelivered(e, how)
	w.loaded, w.loadedTurn, w.loadedBy, w.gone = true, e.Turn, string(e.By), nil
	w.textTokens, w.delivery = e.Tokens, e.Delivery
	repeat := ""
	if e.Repeat {
		repeat = ", the same execution as earlier this turn"
	}
	w.note(e, "loaded by the %s as execution %s (%d tokens, delivered in %s%s)", e.By, e.ExecutionID, e.Tokens, e.Delivery, repeat)
	for _, t := range e.Tools {
		tool, _, _ := strings.Cut(t, "@")
		w.join(tool, e.Turn)
	}
}

func (w *walker) warning(e *event.Warning) {
	if e.OutOfWindow == w.name {
		w.at(e).TextOutOfWindow = true
		w.note(e, "its load_skill result left the window: the model no longer sees its text (its tools stay)")
		return
	}
	if !mentions(e.Message, w.name) || strings.HasPrefix(e.Message, "the list holds ") {
		return
	}
	// harness.log notes name a tool left out: "tool T of skill S is left out: why"
	if rest, ok := strings.CutPrefix(e.Message, "tool "); ok {
		tool, tail, _ := strings.Cut(rest, " of skill "+w.name+" is left out: ")
		if tail != "" {
			w.leave(tool, e.Turn, tail)
		}
	}
	if strings.HasPrefix(e.Message, "preloaded skill "+w.name+" ") {
		t := w.at(e)
		t.Refused = append(t.Refused, e.Message)
		w.left(e, Fate{Kind: FateRefused, Why: e.Message})
	}
	w.note(e, "harness.log: %s", e.Message)
}

func (w *walker) endTurn(e *event.TurnEnd) {
	if w.cur == nil || e == nil {
		return
	}
	t := w.cur
	t.Loaded = slices.Contains(e.Loaded, w.name)
	delivered := slices.Contains(e.Delivered, w.name)
	if delivered && len(t.Delivered) == 0 && w.loadedTurn > 0 {
		t.Delivered, t.LoadedOn = []string{"load"}, w.loadedTurn
	}
	if t.Offered == nil && t.LeftOff == nil && slices.Contains(e.Offered, w.name) {
		t.Offered = &Rank{Rank: slices.Index(e.Offered, w.name) + 1, Of: len(e.Offered) + len(e.LeftOff), Ranked: len(e.LeftOff) > 0}
	}
	if t.Offered != nil && !t.Loaded && !delivered {
		var refused map[string]string
		if len(w.otherRefused) > 0 {
			refused = w.refusedWhy
		}
		switch {
		case len(w.otherLoads) > 0:
			t.Instead = &Instead{Kind: "loaded", Skills: w.otherLoads, Refused: refused}
		case len(w.otherRefused) > 0:
			t.Instead = &Instead{Kind: "refused", Skills: w.otherRefused, Refused: refused}
		case len(w.otherTools) > 0:
			t.Instead = &Instead{Kind: "tool", Tools: w.otherTools}
		case w.answered:
			t.Instead = &Instead{Kind: "answered"}
		}
	}
	t.Fate = w.fate(t)
	w.cur = nil
}

func (w *walker) addDelivered(e event.Event, how string) {
	if t := w.at(e); !slices.Contains(t.Delivered, how) {
		t.Delivered = append(t.Delivered, how)
	}
}

func (w *walker) join(tool string, turn int) {
	if _, ok := w.open[tool]; ok {
		return
	}
	w.open[tool] = len(w.rec.Tools)
	w.rec.Tools = append(w.rec.Tools, ToolSpan{Tool: tool, Joined: turn})
}

func (w *walker) leave(tool string, turn int, why string) {
	i, ok := w.open[tool]
	if !ok {
		return
	}
	delete(w.open, tool)
	w.rec.Tools[i].Left, w.rec.Tools[i].Why = turn, why
}

func (w *walker) unload(turn int, why string) {
	w.loaded = false
	for tool := range w.open {
		w.leave(tool, turn, why)
	}
}

func unloadWhy(r event.UnloadReason) string {
	switch r {
	case event.UnloadUser:
		return "by the user (/unload)"
	case event.UnloadRemoved:
		return "its folder was removed from disk or it is no longer enabled"
	case event.UnloadInvalid:
		return "it turned invalid on disk"
	case event.UnloadTooLong:
		return "its text grew past max_skill_chars on disk"
	case event.UnloadPaste:
		return "it no longer ranks among the skills pasted for the message"
	case event.UnloadLimit:
		return "a limit was lowered below what is loaded"
	case event.UnloadClear:
		return "the session was cleared"
	}
	return string(r)
}

// statuses are the facts' statuses under the limits, most telling first,
// with what the session did to the skill last before its config status.
func statuses(f Facts, set event.Settings, fate *Fate) []Status {
	var out []Status
	if !f.Found {
		return []Status{{Code: StatusUnknown, Detail: "no folder of that name is in the skills folders"}}
	}
	for _, p := range f.Problems {
		out = append(out, Status{Code: StatusInvalid, Detail: p})
	}
	if f.PinProblem != "" {
		out = append(out, Status{Code: StatusPinMismatch, Detail: f.PinProblem})
	}
	if f.ConfigNames && !f.Named {
		out = append(out, Status{Code: StatusNotEnabled, Detail: "the config's [[skills]] names other skills, not this one"})
	}
	// the rule book's R12, asked whether any load could take the text
	ever := rulebook.LoadLimits(set, rulebook.Usage{}, rulebook.PathEver, f.Name, f.Chars, f.Tokens)
	if rulebook.Breaks(ever, rulebook.LimitChars) {
		out = append(out, Status{Code: StatusTooLarge, Detail: fmt.Sprintf("%d characters, over max_skill_chars (%d): every load is refused", f.Chars, set.MaxSkillChars)})
	}
	if rulebook.Breaks(ever, rulebook.LimitTokens) {
		out = append(out, Status{Code: StatusOverBudget, Detail: fmt.Sprintf("%d tokens (%s), alone over load_token_budget (%d): every load is refused", f.Tokens, f.Tokenizer, set.LoadTokenBudget)})
	}
	for _, d := range f.Shadowed {
		out = append(out, Status{Code: StatusShadowed, Detail: fmt.Sprintf("the copy in %s is shadowed by %s", d, f.ShadowedBy)})
	}
	if fate != nil {
		switch fate.Kind {
		case FateLoaded, FateEvicted, FateUnloaded, FateRefused:
			out = append(out, Status{Code: fate.Kind, Detail: FateWords(fate)})
		}
	}
	switch {
	case f.Enabled && f.Preload:
		out = append(out, Status{Code: StatusPreloaded, Detail: "the config preloads it at the start of every turn"})
	case f.Enabled:
		out = append(out, Status{Code: StatusEnabled, Detail: "enabled from " + f.Dir})
	}
	return out
}

// mentions reports whether text names the skill as a whole word.
func mentions(text, name string) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], name)
		if j < 0 {
			return false
		}
		a, b := i+j, i+j+len(name)
		if (a == 0 || !nameRune(lastRune(text[:a]))) && (b == len(text) || !nameRune(firstRune(text[b:]))) {
			return true
		}
		i = a + 1
	}
}

func nameRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_' }

func lastRune(s string) rune { r, _ := utf8.DecodeLastRuneInString(s); return r }

func firstRune(s string) rune { r, _ := utf8.DecodeRuneInString(s); return r }

func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

func orNone(v string) string {
	if v == "" {
		return "(none)"
	}
	return v
}

// clipCommand is a command on one line, cut for a card.
func clipCommand(c string) string {
	c = strings.Join(strings.Fields(c), " ")
	if r := []rune(c); len(r) > 120 {
		return string(r[:119]) + "…"
	}
	return c
}
