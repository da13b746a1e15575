package ui

import (
	"fmt"
	"slices"
	"testing"

	"skillet/harness/event"
)

// A long session's marks, fetched at the first refresh, come out whole and
// in order, while of the events only the latest are held, to tell apart
// those also arriving live.
func TestCollectMarksKeepsEveryMarkAndOnlyTheLatestEvents(t *testing.T) {
	for _, n := range []int{0, 1, markEnRoute, 2 * markEnRoute, 2*markEnRoute + 1, 5*markEnRoute + 17} {
		var evs []event.Event
		var want []mark
		for i := range n {
			ev := event.Event(&event.SettingChanged{Key: "max_loaded_skills", Value: fmt.Sprint(i)})
			ev.Head().Entry = i
			evs = append(evs, ev, &event.ToolStarted{}) // the second has no mark
			mk, ok := markOf(ev)
			if !ok {
				t.Fatal("a setting change has no mark")
			}
			want = append(want, mk)
		}
		mm := collectMarks(slices.Values(evs))
		got := append(slices.Clone(mm.older), mm.marks...)
		if len(mm.marks) != len(mm.recent) {
			t.Fatalf("%d marks: %d latest events held with %d marks", n, len(mm.recent), len(mm.marks))
		}
		for i, ev := range mm.recent {
			if mk, _ := markOf(ev); mk != mm.marks[i] {
				t.Fatalf("%d marks: latest event %d held with another's mark", n, i)
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%d marks: got %d, not the same in the same order", n, len(got))
		}
		if len(mm.recent) > 2*markEnRoute || len(mm.recent) < min(n, markEnRoute) {
			t.Fatalf("%d marks: %d events held, want from %d to %d", n, len(mm.recent), min(n, markEnRoute), 2*markEnRoute)
		}
		if k := len(mm.recent); k > 0 && mm.recent[k-1] != evs[len(evs)-2] {
			t.Fatalf("%d marks: the last event held is not the last mark", n)
		}
	}
}
