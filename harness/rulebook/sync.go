// Rule R17: skills are read from disk at every turn. A loaded skill that
// changed is rendered anew from then on and the model is told, with the
// tools the edit removed or added; one that was removed, is no longer
// enabled, turned invalid or grew past max_skill_chars unloads with a
// warning; the others keep working.

package rulebook

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"skillet/harness/event"
	"skillet/skills"
)

// Gone says why a loaded skill is no longer selected; "" when it is.
type Gone string

// Why a loaded skill is no longer selected.
const (
	GoneRemoved    Gone = "removed"
	GoneInvalid    Gone = "invalid"
	GoneNotEnabled Gone = "not enabled"
)

// Disk is a loaded skill as the shell read it from disk for a sync.
type Disk struct {
	Gone Gone
	// Problems are an invalid skill's problems, as text.
	Problems string
	// Changed marks a text, version, folder or tool list that differs
	// from what the load rendered; the fields below matter only then.
	Changed bool
	Chars   int
	Version string
	Body    event.SkillBody
	Tokens  int
	// Tools are what the edited body makes available (name@version);
	// Removed and Added what the edit took away and brought.
	Tools, Removed, Added []string
}

// Sync records what the disk says of each loaded skill, most recent
// first.
func Sync(st *State, disk func(*Loaded) Disk) []event.Event {
	var events []event.Event
	unload := func(name string, reason event.UnloadReason, warn, line string) {
		events = append(events, &event.SkillUnloaded{Skill: name, Reason: reason},
			&event.Warning{Message: warn, Log: true}, &event.ContextChanged{Line: line})
	}
	max := st.Settings.MaxSkillChars
	for _, ls := range st.Loaded {
		d := disk(ls)
		switch {
		case d.Gone != "":
			reason, warn := event.UnloadRemoved, fmt.Sprintf("skill %s is no longer enabled: unloaded", ls.Name)
			switch d.Gone {
			case GoneRemoved:
				warn = fmt.Sprintf("skill %s was removed from disk: unloaded", ls.Name)
			case GoneInvalid:
				reason = event.UnloadInvalid
				warn = fmt.Sprintf("skill %s is now invalid and left out (%s): unloaded; the others keep working", ls.Name, d.Problems)
			}
			unload(ls.Name, reason, warn, fmt.Sprintf("contextChanged: unloaded %s (%s): its instructions and tools left", ls.Name, reason))
		case d.Changed && Breaks(LoadLimits(st.Settings, Usage{}, PathEdit, ls.Name, d.Chars, 0), LimitChars):
			unload(ls.Name, event.UnloadTooLong,
				fmt.Sprintf("skill %s grew past max_skill_chars (%d) on disk: unloaded, since a skill arrives whole or not at all", ls.Name, max),
				fmt.Sprintf("contextChanged: unloaded %s (its new text is over max_skill_chars): its instructions and tools left", ls.Name))
		case d.Changed:
			line := fmt.Sprintf("contextChanged: %s changed on disk; its new text is rendered from now on", ls.Name)
			if ls.Delivery == event.DeliveryToolResult {
				line = fmt.Sprintf("contextChanged: %s changed on disk; read it again with load_skill for the new text", ls.Name)
			}
			if len(d.Removed) > 0 {
				line += "; tools removed, they leave the request: " + strings.Join(d.Removed, ", ")
			}
			if len(d.Added) > 0 {
				line += "; tools added: " + strings.Join(d.Added, ", ")
			}
			events = append(events, &event.SkillChanged{Skill: ls.Name, Version: d.Version, Body: d.Body, Tokens: d.Tokens, Tools: d.Tools, Removed: d.Removed},
				&event.ContextChanged{Line: line})
		}
	}
	return events
}

// Synced reconciles the state with the skills as the catalog now reads
// them (R17), once the shell refreshed the catalog and made the world's
// selection anew (selErr says why the config's skills did not select
// cleanly): unloads of removed or invalid skills, edits of loaded ones,
// and warnings of skills that turned invalid.
func Synced(st *State, w *World, changes skills.Changes, selErr error) []event.Event {
	sel := w.Sel
	var newlyInvalid []string
	for _, name := range changes.Changed {
		if sk := w.Catalog.Get(name); sk != nil && !sk.Valid() && st.FindLoaded(name) == nil {
			newlyInvalid = append(newlyInvalid, fmt.Sprintf("skill %s is now invalid and left out: %s", name, ProblemsText(sk.Problems)))
		}
	}
	for _, name := range changes.Added {
		if sk := w.Catalog.Get(name); sk != nil && !sk.Valid() {
			newlyInvalid = append(newlyInvalid, fmt.Sprintf("new skill %s is invalid and left out: %s", name, ProblemsText(sk.Problems)))
		}
	}
	var events []event.Event
	if selErr != nil {
		events = append(events, &event.Warning{Message: "skills in the config no longer select cleanly; keeping the valid ones: " + strings.Join(strings.Fields(selErr.Error()), " ")})
	}
	for _, w := range newlyInvalid {
		events = append(events, &event.Warning{Message: w})
	}
	return append(events, Sync(st, func(ls *Loaded) Disk { return onDisk(st, w, sel, ls) })...)
}

// onDisk is a loaded skill as the catalog now reads it (R17).
func onDisk(st *State, w *World, sel *Selection, ls *Loaded) Disk {
	cur := sel.ByName[ls.Name]
	if cur == nil {
		sk := w.Catalog.Get(ls.Name)
		switch {
		case sk == nil:
			return Disk{Gone: GoneRemoved}
		case !sk.Valid():
			return Disk{Gone: GoneInvalid, Problems: ProblemsText(sk.Problems)}
		}
		return Disk{Gone: GoneNotEnabled}
	}
	if !bodyChanged(cur, ls) {
		return Disk{}
	}
	d := Disk{Changed: true, Chars: utf8.RuneCountInString(cur.LoadText()), Version: cur.Version, Body: BodyOf(cur)}
	if len(LoadLimits(st.Settings, Usage{}, PathEdit, ls.Name, d.Chars, 0)) == 0 {
		d.Tokens = w.Count.CountNow(d.Body.Text, nil)
		d.Tools, d.Removed, d.Added = ToolsAfterEdit(st, w, ls, d.Body)
	}
	return d

}

// bodyChanged reports whether a skill on disk differs from what a load
// rendered of it.
func bodyChanged(sk *skills.Skill, ls *Loaded) bool {
	if sk.Version != ls.Version || sk.Dir != ls.Body.Dir || sk.LoadText() != ls.Body.Text || len(sk.Tools) != len(ls.Body.Tools) {
		return true
	}
	for i, r := range sk.Tools {
		if r != ls.Body.Tools[i] {
			return true
		}
	}
	return false
}
