package why

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"skillet/harness/event"
)

// Find returns the record of a turn, or nil.
func (r *Record) Find(turn int) *Turn {
	for i := range r.Turns {
		if r.Turns[i].Turn == turn {
			return &r.Turns[i]
		}
	}
	return nil
}

// SetVerdict words the record's verdict, about the given turn (0: the last).
func (r *Record) SetVerdict(turn int) {
	var parts []string
	tooLarge := false
	for _, s := range r.Status {
		tooLarge = tooLarge || s.Code == StatusTooLarge
	}
	for _, s := range r.Status {
		switch s.Code {
		case StatusUnknown:
			parts = append(parts, "not on disk: "+s.Detail)
		case StatusInvalid:
			parts = append(parts, "invalid ("+s.Detail+"), so it is left out")
		case StatusPinMismatch:
			parts = append(parts, "pin mismatch: "+s.Detail)
		case StatusNotEnabled:
			parts = append(parts, "not enabled: "+s.Detail)
		case StatusTooLarge:
			parts = append(parts, "too large to ever load: "+s.Detail)
		case StatusOverBudget:
			if !tooLarge { // one reason it never loads is enough for a verdict
				parts = append(parts, "over budget: "+s.Detail)
			}
		}
	}
	t := r.Find(turn)
	fate := r.Fate // the session's end decides when no turn is asked
	if t != nil {
		fate = t.Fate
	} else if turn == 0 && len(r.Turns) > 0 {
		t = &r.Turns[len(r.Turns)-1]
	}
	switch {
	case t != nil:
		parts = append(parts, VerdictWords(t, fate))
	case turn == 0 && fate != nil:
		parts = append(parts, FateWords(fate))
	case turn > 0:
		parts = append(parts, fmt.Sprintf("the session has no turn %d", turn))
	case r.Would != nil:
		parts = append(parts, wouldWords(r.Would))
	case len(parts) == 0 && r.Session == "":
		parts = append(parts, statusWord(r.Status)+"; no session says more (give --session, or --message to see its rank)")
	}
	r.Verdict = strings.Join(parts, "; ")
}

func statusWord(st []Status) string {
	for _, s := range st {
		if s.Code == StatusPreloaded {
			return "preloaded at every turn"
		}
	}
	return "enabled"
}

func wouldWords(w *Would) string {
	switch {
	case w.Offered != nil:
		return fmt.Sprintf("would be offered at %s for that message", rankWords(w.Offered))
	case w.LeftOff != nil:
		return fmt.Sprintf("would be left off the list for that message: list_size is %d, and %s", w.LeftOff.ListSize, aboveCount(len(w.LeftOff.Above), w.LeftOff.Of))
	}
	return "would not be on the list for that message"
}

func rankWords(r *Rank) string {
	s := fmt.Sprintf("rank %d of %d", r.Rank, r.Of)
	if !r.Ranked {
		s += " (all enabled skills fit the list, in config order)"
	} else if r.Score != nil {
		s += fmt.Sprintf(" (score %.2f)", *r.Score)
	}
	return s
}

// VerdictWords leads with the fact that decides the skill's fate (an
// eviction, an unload, a refused load, a load on an earlier turn), then
// says what became of it on turn t and what the model did instead.
func VerdictWords(t *Turn, f *Fate) string {
	if f == nil {
		return TurnWords(t)
	}
	same := f.Turn == t.Turn && !f.Between
	switch f.Kind {
	case FateEvicted, FateUnloaded, FateRefused:
		if same {
			return FateWords(f) + "; " + turnWords(t, f.Kind)
		}
		return FateWords(f) + "; " + TurnWords(t)
	case FateLoaded:
		if !same && t.LoadedOn == 0 {
			return FateWords(f) + "; " + TurnWords(t)
		}
	}
	return TurnWords(t)
}

// FateWords says what decides the skill's fate, in plain words.
func FateWords(f *Fate) string {
	on := fmt.Sprintf(" on turn %d", f.Turn)
	if f.Between {
		on = fmt.Sprintf(" between turns (after turn %d)", f.Turn)
	}
	switch f.Kind {
	case FateLoaded:
		switch f.By {
		case string(event.ByPreload):
			return "preloaded" + on
		case string(event.ByPaste):
			return "pasted into the instructions" + on
		}
		return "loaded by the " + f.By + on
	case FateEvicted:
		return fmt.Sprintf("evicted by the load of %s%s (max_loaded_skills is %d)", f.By, on, f.MaxLoaded)
	case FateUnloaded:
		return "unloaded" + on + ": " + f.Why
	case FateRefused:
		return "its load was refused" + on + ": " + f.Why
	case FateLeftOff:
		return fmt.Sprintf("left off the list%s: list_size is %d, and %s", on, f.LeftOff.ListSize, aboveCount(len(f.LeftOff.Above), f.LeftOff.Of))
	case FateOffered:
		return "offered at " + rankWords(f.Offered) + on
	}
	return "not on the list" + on
}

// TurnWords says in plain words what became of the skill in one turn.
func TurnWords(t *Turn) string { return turnWords(t, "") }

// turnWords is TurnWords without the fact of kind told, which the
// verdict has said first.
func turnWords(t *Turn, told string) string {
	on := fmt.Sprintf(" on turn %d", t.Turn)
	gone := t.EvictedBy != "" || len(t.Unloaded) > 0
	var s string
	switch {
	case t.Loaded && t.Offered != nil:
		s = "offered at " + rankWords(t.Offered) + on + " and loaded by the model"
	case t.Loaded:
		s = "loaded by the model" + on
	case t.LoadedOn > 0 && gone:
		// delivered while it stayed, until it left during the turn
		s = fmt.Sprintf("still loaded at the start of turn %d (loaded on turn %d)", t.Turn, t.LoadedOn)
	case t.LoadedOn > 0:
		s = fmt.Sprintf("still loaded%s (loaded on turn %d)", on, t.LoadedOn)
	case has(t.Delivered, "preload"):
		s = "preloaded" + on
	case has(t.Delivered, "paste"):
		s = "pasted into the instructions" + on
	case len(t.Delivered) > 0:
		s = "delivered" + on
	case t.Offered != nil:
		s = "offered at " + rankWords(t.Offered) + on
	case t.LeftOff != nil:
		s = fmt.Sprintf("left off the list%s: list_size is %d, and %s", on, t.LeftOff.ListSize, aboveCount(len(t.LeftOff.Above), t.LeftOff.Of))
	default:
		s = "not on the list" + on
	}
	if told != FateRefused {
		for _, r := range t.Refused {
			s += "; its load was refused: " + r
		}
	}
	if in := t.Instead; in != nil && len(t.Refused) == 0 {
		switch in.Kind {
		case "loaded":
			s += "; the model loaded " + strings.Join(in.Skills, ", ") + " instead"
			if len(in.Refused) > 0 {
				s += " (" + refusedWords(in) + ")"
			}
		case "refused":
			s += "; the model asked to load " + strings.Join(in.Skills, ", ") + " instead"
			if len(in.Skills) == 1 {
				s += ", and was refused: " + in.Refused[in.Skills[0]]
			} else {
				s += ", and was refused (" + refusedWords(in) + ")"
			}
		case "tool":
			s += "; the model called " + strings.Join(in.Tools, ", ") + " instead"
		default:
			s += "; the model answered directly"
		}
	}
	if t.EvictedBy != "" && told != FateEvicted {
		s += "; then evicted by the load of " + t.EvictedBy
	}
	if told != FateUnloaded {
		for _, u := range t.Unloaded {
			s += "; unloaded: " + u
		}
	}
	if t.TextOutOfWindow {
		s += "; its text left the window"
	}
	return s
}

// Print writes the record for people: the verdict, the status, the
// timeline (of one turn when turn > 0), the tools and the cost.
func Print(w io.Writer, r *Record, turn int) {
	fmt.Fprintf(w, "%s: %s\n", r.Skill, r.Verdict)
	fmt.Fprintln(w, "\nstatus:")
	for _, s := range r.Status {
		fmt.Fprintf(w, "  %-12s %s\n", s.Code, s.Detail)
	}
	if r.Would != nil {
		fmt.Fprintf(w, "\nfor the message %q: %s\n", Clip(r.Would.Message, 60), wouldWords(r.Would))
		if lo := r.Would.LeftOff; lo != nil {
			fmt.Fprintf(w, "  ranked above it: %s\n", aboveWords(lo))
		}
	}
	if r.Session != "" {
		fmt.Fprintf(w, "\nturns of session %s:\n", r.Session)
		if len(r.Turns) == 0 {
			fmt.Fprintln(w, "  (none)")
		}
	}
	for i := range r.Turns {
		t := &r.Turns[i]
		if turn > 0 && t.Turn != turn {
			continue
		}
		fmt.Fprintf(w, "  %d · %q · %s\n", t.Turn, t.Message, TurnWords(t))
		if t.LeftOff != nil && turn > 0 {
			fmt.Fprintf(w, "      ranked above it: %s\n", aboveWords(t.LeftOff))
		}
		for _, s := range t.Timeline {
			fmt.Fprintf(w, "      [entry %d] %s\n", s.Entry, s.What)
		}
	}
	if len(r.Tools) > 0 {
		fmt.Fprintln(w, "\ntools:")
	}
	for _, t := range r.Tools {
		left := "still offered"
		if t.Left > 0 {
			left = fmt.Sprintf("left on turn %d: %s", t.Left, t.Why)
		}
		fmt.Fprintf(w, "  %s · joined on turn %d · %s\n", t.Tool, t.Joined, left)
	}
	c := r.Cost
	fmt.Fprintf(w, "\ncost in tokens (%s):\n", c.Tokenizer)
	fmt.Fprintf(w, "  list entry        %6d per request that lists it\n", c.ListEntry)
	fmt.Fprintf(w, "  text              %6d\n", c.Text)
	fmt.Fprintf(w, "  <current_context> %6d in %d requests\n", c.ContextTotal, c.ContextCalls)
	fmt.Fprintf(w, "  R7 lines          %6d in %d lines of the transcript\n", c.R7Tokens, c.R7Lines)
	fmt.Fprintf(w, "  load results      %6d in %d results carrying its text\n", c.ResultTokens, c.ResultCopies)
	names := make([]string, 0, len(c.SchemaByTools))
	for n := range c.SchemaByTools {
		names = append(names, n)
	}
	sort.Strings(names)
	for i, n := range names {
		names[i] = fmt.Sprintf("%s %d", n, c.SchemaByTools[n])
	}
	fmt.Fprintf(w, "  tool schemas      %6d %s\n", c.SchemaTokens, strings.Join(names, ", "))
	for _, s := range r.Skipped {
		fmt.Fprintf(w, "\nskipped: %s\n", s)
	}
}

// refusedWords names the refused loads of other skills and their limits.
func refusedWords(in *Instead) string {
	var names []string
	for name := range in.Refused {
		names = append(names, name)
	}
	sort.Strings(names)
	var parts []string
	for _, name := range names {
		parts = append(parts, "the load of "+name+" was refused: "+in.Refused[name])
	}
	return strings.Join(parts, "; ")
}

func aboveWords(lo *LeftOff) string { return strings.Join(lo.Above, ", ") }

func has(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Clip puts s on one line, its runs of white space made one space, and
// cuts it to n characters (n > 0), the last an ellipsis when it is cut:
// a message or query quoted in a line of a report.
func Clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
