package skills

import (
	"strings"
	"testing"
	"unsafe"
)

// A skill with examples renders its load text once, when parsed: every
// load and preload of it keeps the same string, not a copy of its own.
func TestLoadTextIsRenderedOnce(t *testing.T) {
	s := ParseSkill([]byte("---\nname: demo\ndescription: Use for demos.\nexamples:\n  - situation: The diff is <empty>.\n    resolution: Say so.\n---\n\nThe steps."), "demo")
	if !s.Valid() {
		t.Fatalf("problems: %v", s.Problems)
	}
	a, b := s.LoadText(), s.LoadText()
	if a != s.renderLoadText() || !strings.Contains(a, "<situation>The diff is &lt;empty&gt;.</situation>") {
		t.Fatalf("load text %q", a)
	}
	if unsafe.StringData(a) != unsafe.StringData(b) {
		t.Error("each LoadText call renders a new copy")
	}
	// a skill built by hand renders on each call, the same text
	hand := &Skill{Body: "The steps.", Examples: s.Examples}
	if hand.LoadText() != a {
		t.Errorf("a hand-built skill renders %q", hand.LoadText())
	}
}
