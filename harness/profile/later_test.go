package profile

import (
	"strings"
	"testing"
)

// TestClaudeLaterListing: with the skills earlier listings named, Claude
// Code's listing holds only the new ones and the ones whose description
// changed, without the bundled skills already listed, budgeted on its
// own; when nothing is new it has no block.
func TestClaudeLaterListing(t *testing.T) {
	p := claudeCode{}
	first := p.Catalogue(Input{Skills: []Skill{sk("alpha", "Alpha."), sk("beta", "Beta.")}})
	if len(first.Listed) != 2+len(claudeBundled) {
		t.Fatalf("the first listing names %d skills, want the 2 user ones and %d bundled", len(first.Listed), len(claudeBundled))
	}
	same := p.Catalogue(Input{Skills: []Skill{sk("alpha", "Alpha."), sk("beta", "Beta.")}, Listed: first.Listed})
	if len(same.Blocks) != 0 || len(same.Listed) != 0 {
		t.Fatalf("nothing new, yet a listing: %q", same.Text())
	}
	if e := same.Entries[0]; e.State != Full || !strings.Contains(e.Reason, "listed earlier in the conversation") {
		t.Errorf("an earlier-listed skill's entry: %+v", e)
	}
	later := p.Catalogue(Input{Skills: []Skill{sk("alpha", "Alpha, changed."), sk("beta", "Beta."), sk("gamma", "Gamma.")}, Listed: first.Listed})
	want := "<system-reminder>\n" + claudeHeader + "\n\n- alpha: Alpha, changed.\n- gamma: Gamma.\n</system-reminder>"
	if len(later.Blocks) != 1 || later.Blocks[0].Text != want {
		t.Fatalf("later listing:\n%s\nwant:\n%s", later.Text(), want)
	}
	if later.Budget.Used != len("- alpha: Alpha, changed.\n- gamma: Gamma.") || len(later.Bundled) != 0 {
		t.Errorf("the later listing is budgeted on its own skills: used %d, bundled %d", later.Budget.Used, len(later.Bundled))
	}
	// with the bundled skills left out, nothing of theirs is listed anew
	if c := p.Catalogue(Input{Skills: []Skill{sk("alpha", "Alpha.")}, Listed: first.Listed, NoBundled: true}); len(c.Blocks) != 0 {
		t.Errorf("bundled skills listed again: %q", c.Text())
	}
}
