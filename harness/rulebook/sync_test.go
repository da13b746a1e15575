package rulebook

import (
	"strings"
	"testing"

	"skillet/harness/event"
)

func TestSync(t *testing.T) {
	limit := func(s *event.Settings) { s.MaxSkillChars = 100 }
	st := fold(limit, userMsg(1, "hi"), loaded(1, "a", "x-1"), loaded(1, "b", "x-2"))
	tr := fold(limit, userMsg(1, "hi"), &event.SkillLoaded{Header: event.Header{Turn: 1}, Skill: "a", Version: "1", ExecutionID: "x-1", By: event.ByModel, Delivery: event.DeliveryToolResult})
	edited := Disk{Changed: true, Chars: 20, Version: "2", Body: event.SkillBody{Text: "new text"}, Tokens: 3, Tools: []string{"t2@1"}, Removed: []string{"t1@1"}, Added: []string{"t2@1"}}
	for _, tc := range []struct {
		name string
		st   *State
		disk map[string]Disk
		want string
		// line is part of the last contextChanged line the model reads.
		line string
	}{
		{"nothing changed: nothing recorded", st, nil, "", ""},
		{"removed from disk", st, map[string]Disk{"a": {Gone: GoneRemoved}}, "unload(a:removed) warning note", "unloaded a (removed)"},
		{"turned invalid", st, map[string]Disk{"b": {Gone: GoneInvalid, Problems: "name: missing"}}, "unload(b:invalid) warning note", "unloaded b (invalid)"},
		{"no longer enabled", st, map[string]Disk{"a": {Gone: GoneNotEnabled}}, "unload(a:removed) warning note", "unloaded a (removed)"},
		{"grew past max_skill_chars", st, map[string]Disk{"a": {Changed: true, Chars: 101}}, "unload(a:too-long) warning note", "over max_skill_chars"},
		{"edited: rendered anew, tools named", st, map[string]Disk{"a": edited}, "skill_changed note", "a changed on disk; its new text is rendered from now on; tools removed, they leave the request: t1@1; tools added: t2@1"},
		{"edited under tool-result delivery: read it again", tr, map[string]Disk{"a": edited}, "skill_changed note", "read it again with load_skill"},
		{"most recent first", st, map[string]Disk{"a": {Gone: GoneRemoved}, "b": {Gone: GoneRemoved}}, "unload(b:removed) warning note unload(a:removed) warning note", "unloaded a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Sync(tc.st, func(ls *Loaded) Disk { return tc.disk[ls.Name] })
			if b := brief(got); b != tc.want {
				t.Fatalf("got %q, want %q", b, tc.want)
			}
			if tc.line == "" {
				return
			}
			last := got[len(got)-1].(*event.ContextChanged).Line
			if !strings.Contains(last, tc.line) {
				t.Errorf("line %q lacks %q", last, tc.line)
			}
		})
	}
	// the edit, folded, is what the next request renders
	events := Sync(st, func(ls *Loaded) Disk {
		if ls.Name == "a" {
			return edited
		}
		return Disk{}
	})
	for _, e := range events {
		st.Apply(e)
	}
	if a := st.FindLoaded("a"); a.Body.Text != "new text" || a.Version != "2" || !a.Changed || strings.Join(a.Tools, ",") != "t2@1" {
		t.Errorf("after the fold a is %+v", a)
	}
}
