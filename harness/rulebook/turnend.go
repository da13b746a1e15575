// Rules R20 (each turn records Offered, Delivered and Loaded) and R21 (and
// the uses of skills and tools), at the turn's end.

package rulebook

import "skillet/harness/event"

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
	for i := len(st.Entries) - 1; i >= 0 && st.Entries[i].Turn == st.Turn; i-- {
		if st.Entries[i].Kind == EntryAssistant && st.Entries[i].Text != "" {
			answer = st.Entries[i].Text
			break
		}
	}
	return &event.TurnEnd{Offered: cur.Offered.List(), Delivered: cur.Delivered.List(), Loaded: cur.LoadedNames.List(),
		Uses: uses, LeftOff: cur.LeftOff, StopReason: stop, Answer: answer}
}
