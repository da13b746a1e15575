// Rules R20 (each turn records Offered, Delivered and Loaded) and R21 (and
// the uses of skills and tools), at the turn's end.

package rulebook

import (
	"slices"

	"skillet/harness/event"
)

// TurnEnd records the end of the running turn: Offered / Delivered /
// Loaded as the turn gathered them (R20), the skill uses of what was
// delivered followed by the tool uses (R21), why it stopped, and the last
// assistant text of the turn as its answer.
func TurnEnd(st *State, stop event.StopReason) *event.TurnEnd {
	cur := st.Cur
	if cur == nil {
		cur = &TurnState{}
	}
	uses := make([]event.Use, 0, len(cur.SkillUses)+len(cur.ToolUses))
	for _, name := range cur.Delivered.Names {
		uses = append(uses, cur.SkillUses[name])
	}
	uses = append(uses, cur.ToolUses...)
	answer := ""
	for i := st.Entries.Len() - 1; i >= 0; i-- {
		en := st.Entries.At(i)
		if en.Turn != st.Turn {
			break
		}
		if en.Kind == EntryAssistant && en.Text != "" {
			answer = en.Text
			break
		}
	}
	end := &event.TurnEnd{Offered: cur.Offered.List(), Delivered: cur.Delivered.List(), Loaded: cur.LoadedNames.List(),
		Uses: uses, LeftOff: cur.LeftOff, StopReason: stop, Answer: answer}
	if last := st.Last; last != nil {
		// turns mostly offer and deliver what the last one did: a session
		// keeps every turn's record, so equal lists are kept once
		end.Offered = reuse(last.Offered, end.Offered)
		end.Delivered = reuse(last.Delivered, end.Delivered)
		end.Loaded = reuse(last.Loaded, end.Loaded)
	}
	return end
}

// reuse returns prev when it holds what cur holds, else cur. The records
// are never changed once made, so they may share.
func reuse(prev, cur []string) []string {
	if prev != nil && cur != nil && slices.Equal(prev, cur) {
		return prev
	}
	return cur
}
