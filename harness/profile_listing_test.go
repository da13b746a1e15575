package harness

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"skillet/harness/chat"
	"skillet/harness/event"
	"skillet/harness/rulebook"
)

// listingHeader heads Claude Code 2.1.332's skill listing, the first one
// and the later ones alike (its "also available" header is behind a
// server-side flag that is off by default; see the claude-code profile).
const listingHeader = "<system-reminder>\nThe following skills are available for use with the Skill tool:\n\n"

// listingsOf returns the skill listings of a request, each with the
// user message that follows it.
func listingsOf(req *chat.Request) (listings, next []string) {
	for i, m := range req.Messages {
		if m.Role == chat.RoleUser && strings.HasPrefix(m.Content, listingHeader) {
			listings = append(listings, strings.TrimSuffix(strings.TrimPrefix(m.Content, listingHeader), "\n</system-reminder>"))
			following := ""
			if i+1 < len(req.Messages) {
				following = req.Messages[i+1].Content
			}
			next = append(next, following)
		}
	}
	return listings, next
}

// TestClaudeCodeListsEachSkillOnce: under claude-code the listing is
// attached once, to the first user message; a skill added mid-session is
// listed, alone, with the next user message, and the earlier listing
// stays as it was sent; a turn with nothing new adds no listing; a skill
// whose description changes is listed again; a reopened session composes
// the same listings from its journal.
func TestClaudeCodeListsEachSkillOnce(t *testing.T) {
	w := newWorkspace(t)
	basicSkills(w)
	f := w.open("[session]\nbundled_skills = false\n", func(o *Options) { o.Profile = "claude-code" })
	f.turn("first", say("ok"))
	first := f.model.last()
	ls, next := listingsOf(first)
	want := "- alpha: Alpha reviews accounts for anomalies.\n- beta: Beta drafts release notes.\n- gamma: Gamma writes incident reports."
	if len(ls) != 1 || ls[0] != want || next[0] != "first" {
		t.Fatalf("first request's listings %q before %q, want one: %q before \"first\"", ls, next, want)
	}

	w.skill("delta", "Delta finds duplicate invoices.", "Delta instructions.", "")
	f.turn("second", activateStep("claude-code", w.root, "delta"), say("done"))
	reqs := f.model.requests()
	for _, req := range reqs[1:] {
		ls, next = listingsOf(req)
		if len(ls) != 2 || ls[0] != want || next[0] != "first" || ls[1] != "- delta: Delta finds duplicate invoices." || next[1] != "second" {
			t.Fatalf("second turn's listings %q before %q, want the first unchanged and delta alone before \"second\"", ls, next)
		}
	}
	if !strings.Contains(mustBody(t, reqs[2]), "Launching skill: delta") {
		t.Errorf("the added skill did not activate:\n%s", mustBody(t, reqs[2]))
	}

	f.turn("third", say("ok"))
	third := f.model.last()
	if ls, _ = listingsOf(third); len(ls) != 2 {
		t.Fatalf("a turn with no new skill added a listing: %q", ls)
	}

	// an edited description is listed again; the old entry stays where it was sent
	w.skill("beta", "Beta drafts release notes and changelogs.", "Beta instructions.", "tools:\n  - name: beta_tool\n")
	f.turn("fourth", say("ok"))
	ls, next = listingsOf(f.model.last())
	if len(ls) != 3 || ls[2] != "- beta: Beta drafts release notes and changelogs." || next[2] != "fourth" {
		t.Fatalf("after an edit, listings %q before %q", ls, next)
	}

	// a removed skill leaves its entry where it was sent and adds nothing
	if err := os.RemoveAll(w.root + "/gamma"); err != nil {
		t.Fatal(err)
	}
	f.turn("fifth", say("ok"))
	if ls, _ = listingsOf(f.model.last()); len(ls) != 3 {
		t.Fatalf("removing a skill added a listing: %q", ls)
	}
	// the journal records each listing once, and a reopened session
	// composes the same request
	var recorded []string
	for _, e := range f.rec.ofType(event.TypeModelCall) {
		if l := e.(*event.ModelCall).Listing; l != nil {
			recorded = append(recorded, l.Text)
		}
	}
	if len(recorded) != 3 {
		t.Fatalf("%d model calls record a listing, want 3 (turns one, two and four)", len(recorded))
	}
	f.s.mu.Lock()
	live, _ := rulebook.ComposeNext(f.s.st, f.s.w.World).Request.Body()
	f.s.mu.Unlock()
	f.s.Close()
	s, err := Open(f.s.Dir(), Options{Catalog: w.catalog(), Model: &scripted{}, ModelName: "test-model"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.mu.Lock()
	again, _ := rulebook.ComposeNext(s.st, s.w.World).Request.Body()
	s.mu.Unlock()
	if !bytes.Equal(live, again) {
		t.Fatalf("the reopened session composes other listings")
	}

}

// TestProfileVersionAndModelNotice: a session under claude-code@2.1.332
// records the profile by its name; a model Claude Code does not know is
// said among the session's notices, with what the budget then rests on;
// another version is refused, naming the one reproduced.
func TestProfileVersionAndModelNotice(t *testing.T) {
	w := newWorkspace(t)
	basicSkills(w)
	f := w.open("", func(o *Options) { o.Profile = "claude-code@2.1.332" })
	f.turn("hello", say("ok"))
	if got := f.s.State().Profile; got != "claude-code" {
		t.Errorf("profile recorded as %q", got)
	}
	notices := strings.Join(f.s.Snapshot().Notices, "\n")
	if !strings.Contains(notices, `Claude Code 2.1.332 does not know the model "test-model"`) {
		t.Errorf("no notice of the unknown model: %q", notices)
	}
	if err := f.s.SwitchProfile("codex@0.1.0"); err == nil || !strings.Contains(err.Error(), "reproduces Codex 0.171.0 only") {
		t.Errorf("switch to an unknown version: %v", err)
	}
	if err := f.s.SwitchProfile("codex@0.171.0"); err != nil || f.s.State().Profile != "codex" {
		t.Errorf("switch to codex@0.171.0: %v, %q", err, f.s.State().Profile)
	}
}
