package ui

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"skillet/harness/chat"
	"skillet/harness/harnesstest"
	"skillet/harness/rulebook"
	"skillet/harness/termtext"
)

// The words a user types in a pane must reach the input, whatever the
// pane: none of its letters may act on the pane.
func TestTypingReachesTheInputFromEveryPane(t *testing.T) {
	for _, size := range [][2]int{{160, 48}, {120, 40}, {80, 24}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			d := newDriver(t, nil, size[0], size[1])
			d.send("/load account-review")
			for _, p := range []pane{paneTranscript, paneLRU, paneContext, paneTools} {
				d.m.setFocus(p)
				d.key("down") // a selection, as a user would have
				const text = "use the fraud triage, unload nothing, call nobody, view? yes"
				d.typeText(text)
				d.settle()
				if got := d.m.in.value(); got != text {
					t.Fatalf("typed in %s, the input holds %q", p.title(), got)
				}
				if d.m.focus != paneInput {
					t.Fatalf("typing in %s left the focus on %v", p.title(), d.m.focus)
				}
				if loaded := d.m.snap.Loaded; len(loaded) != 1 || loaded[0].Name != "account-review" {
					t.Fatalf("typing in %s changed the loaded skills: %+v", p.title(), loaded)
				}
				if d.m.overlay != nil {
					t.Fatalf("typing in %s opened %T", p.title(), d.m.overlay)
				}
				d.m.in.take()
			}
		})
	}
}

// Pane actions take keys that cannot be typed text: alt+u unloads.
func TestAltKeysActOnTheFocusedPane(t *testing.T) {
	d := newDriver(t, nil, 160, 48)
	d.send("/load account-review")
	d.m.setFocus(paneLRU)
	d.key("u") // text: goes to the input
	d.settle()
	if len(d.m.snap.Loaded) != 1 || d.m.in.value() != "u" {
		t.Fatalf("u in the LRU pane: loaded %d, input %q", len(d.m.snap.Loaded), d.m.in.value())
	}
	d.m.in.take()
	d.m.setFocus(paneLRU)
	d.key("alt+u")
	d.settle()
	if len(d.m.snap.Loaded) != 0 {
		t.Fatalf("alt+u did not unload: %+v", d.m.snap.Loaded)
	}
	// pane mode, for terminals whose alt types characters: plain letters
	// act on the pane until esc
	d.send("/load account-review")
	d.m.setFocus(paneLRU)
	d.key("ctrl+p")
	d.m.flash = ""
	if s := d.screen(); !strings.Contains(s, "[pane keys · esc]") || !strings.Contains(s, "u unload") {
		t.Fatalf("pane mode not shown:\n%s", s)
	}
	d.key("u")
	d.settle()
	if len(d.m.snap.Loaded) != 0 || d.m.in.value() != "" {
		t.Fatalf("u in pane mode: loaded %+v, input %q", d.m.snap.Loaded, d.m.in.value())
	}
	d.key("esc")
	d.typeText("use it")
	if d.m.in.value() != "use it" || d.m.paneMode {
		t.Fatalf("after esc, typing gave %q (pane mode %v)", d.m.in.value(), d.m.paneMode)
	}
	d.m.in.take()
	// the hint line says so: it is drawn from the same key map
	d.m.setFocus(paneLRU)
	d.m.flash = ""
	if s := d.screen(); !strings.Contains(s, "alt+u unload") || !strings.Contains(s, "typing goes to the input") {
		t.Fatalf("hint line lacks the pane's keys:\n%s", s)
	}
}

func TestZoomGivesAPaneTheWholeBody(t *testing.T) {
	d := newDriver(t, nil, 120, 40)
	d.m.setFocus(paneLRU)
	d.key("ctrl+z")
	s := d.screen()
	if !strings.Contains(s, "Loaded skills (LRU) · zoomed") || strings.Contains(s, "Transcript") || strings.Contains(s, "Tools") {
		t.Fatalf("zoomed screen:\n%s", s)
	}
	if r := d.m.layout().panes[paneLRU]; r.w != 120 || r.h < 30 {
		t.Fatalf("zoomed LRU pane is %dx%d", r.w, r.h)
	}
	d.key("tab") // the zoom follows the focus
	if s := d.screen(); !strings.Contains(s, "<current_context> · zoomed") {
		t.Fatalf("tab did not move the zoom:\n%s", s)
	}
	// typing still reaches the input, under the zoomed pane
	d.typeText("hello")
	if d.m.in.value() != "hello" || !strings.Contains(d.screen(), "hello") {
		t.Fatalf("typing while zoomed: %q\n%s", d.m.in.value(), d.screen())
	}
	d.key("esc")
	if s := d.screen(); strings.Contains(s, "zoomed") || !strings.Contains(s, "Transcript") {
		t.Fatalf("esc did not restore the layout:\n%s", s)
	}
}

// A message typed while a turn runs is queued, shown, and sent when the
// turn ends; ↑ takes one back and ctrl+x drops one.
func TestMessagesTypedDuringATurnAreQueued(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	var texts []string
	script := &harnesstest.Model{Fallback: func(ctx context.Context, req *chat.Request, _ func(chat.StreamEvent)) (*chat.Reply, error) {
		text, _ := harnesstest.SinceUser(req)
		mu.Lock()
		texts = append(texts, text)
		first := len(texts) == 1
		mu.Unlock()
		if first {
			select {
			case <-release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return harnesstest.Text("answer to " + text), nil
	}}
	d := newDriver(t, script, 120, 40)
	d.typeText("first")
	d.key("enter")
	d.pump(func(m *model) bool { return m.running && m.pendingSeq > 0 })
	for _, s := range []string{"second", "third", "fourth"} {
		d.typeText(s)
		d.key("enter")
	}
	s := d.screen()
	for _, want := range []string{"⏸ queued second", "⏸ queued third", "⏸ queued fourth", "3 queued for after this turn"} {
		if !strings.Contains(s, want) {
			t.Fatalf("screen lacks %q:\n%s", want, s)
		}
	}
	d.key("ctrl+x") // drops "fourth"
	d.key("up")     // takes "third" back into the input
	if d.m.in.value() != "third" || len(d.m.queue) != 1 {
		t.Fatalf("after ctrl+x and ↑: input %q, queue %q", d.m.in.value(), d.m.queue)
	}
	d.m.in.take()
	close(release)
	d.settle()
	mu.Lock()
	defer mu.Unlock()
	if len(texts) != 2 || texts[1] != "second" {
		t.Fatalf("turns sent: %q", texts)
	}
	if s := d.screen(); !strings.Contains(s, "answer to second") || strings.Contains(s, "queued") {
		t.Fatalf("the queued message was not sent after the turn:\n%s", s)
	}
}

func TestCommandMenuSuggestsCommandsAndArguments(t *testing.T) {
	d := newDriver(t, nil, 120, 40)
	d.typeText("/lo")
	s := d.screen()
	if !strings.Contains(s, "Commands") || !strings.Contains(s, "/load NAME") || strings.Contains(s, "/unload NAME") {
		t.Fatalf("menu for /lo:\n%s", s)
	}
	d.key("down", "enter") // takes /load; it needs a name, so it waits
	if d.m.in.value() != "/load " {
		t.Fatalf("input after choosing /load: %q", d.m.in.value())
	}
	if s := d.screen(); !strings.Contains(s, "data-cleanup") || !strings.Contains(s, "brand-voice") {
		t.Fatalf("menu does not list the skills to load:\n%s", s)
	}
	d.typeText("da")
	d.key("down", "enter")
	d.settle()
	if len(d.m.snap.Loaded) != 1 || d.m.snap.Loaded[0].Name != "data-cleanup" {
		t.Fatalf("enter on a suggestion did not run it: %+v (flash %q)", d.m.snap.Loaded, d.m.flash)
	}
	if strings.Contains(d.screen(), "Commands") {
		t.Fatalf("menu still shown:\n%s", d.screen())
	}
}

func TestFindAndTurnJumps(t *testing.T) {
	m := loadStatic(t, newStatic(t, fakeEntries(80)), 120, 40)
	at := func() rulebook.Entry {
		t.Helper()
		if !m.tr.hasSel || m.tr.sel.kind != itemEntry {
			t.Fatalf("no entry selected")
		}
		return m.tr.entries.At(m.tr.sel.idx)
	}
	m.Update(keyMsg("ctrl+f"))
	for _, r := range "question 7:" {
		m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	m.View()
	if e := at(); e.Turn != 7 || e.Kind != rulebook.EntryUser {
		t.Fatalf("find went to %+v", e)
	}
	if s := screenOf(m); !strings.Contains(s, "Question 7: what does the account show?") || !strings.Contains(s, "find ›") {
		t.Fatalf("the match is not on screen:\n%s", s)
	}
	m.Update(keyMsg("esc"))
	m.Update(keyMsg("ctrl+up"))
	m.View()
	if e := at(); e.Turn != 6 || e.Kind != rulebook.EntryUser {
		t.Fatalf("ctrl+up went to %+v", e)
	}
	m.Update(keyMsg("ctrl+down"))
	m.Update(keyMsg("ctrl+down"))
	m.View()
	if e := at(); e.Turn != 8 {
		t.Fatalf("ctrl+down ×2 went to %+v", e)
	}
}

// Scrolled up, the transcript says when output arrives below.
func TestNewOutputBelowCue(t *testing.T) {
	st := newStatic(t, fakeEntries(40))
	m := loadStatic(t, st, 120, 40)
	m.tr.pageUp()
	m.View()
	if strings.Contains(screenOf(m), "new output below") {
		t.Fatal("cue shown before anything new arrived")
	}
	st.entries = fakeEntries(44)
	m.Update(refreshMsg{snap: st.snap, entries: st.Transcript()})
	if !strings.Contains(screenOf(m), "↓ new output below") {
		t.Fatalf("no cue:\n%s", screenOf(m))
	}
	m.tr.end()
	if strings.Contains(screenOf(m), "new output below") {
		t.Fatal("cue kept at the bottom")
	}
}

var ruleID = regexp.MustCompile(`\bR\d{1,2}\b`)

func TestPresenterModeHidesRuleIDsAndWelcomes(t *testing.T) {
	d := newDriverWith(t, nil, 160, 48, Options{Style: "dark", Present: true})
	s := d.screen()
	for _, want := range []string{"Welcome to Skillet", "Try one of these", "“Review account activity for anomalies”", "alt+1 · account-review"} {
		if !strings.Contains(s, want) {
			t.Fatalf("first screen lacks %q:\n%s", want, s)
		}
	}
	if ids := ruleID.FindAllString(s, -1); ids != nil {
		t.Fatalf("presenter screen shows rule ids %v:\n%s", ids, s)
	}
	d.key("alt+1")
	if d.m.in.value() != "Review account activity for anomalies" {
		t.Fatalf("alt+1 put %q in the input", d.m.in.value())
	}
	d.m.in.take()
	d.send("/load account-review")
	d.send("/load brand-voice")
	s = d.screen()
	if !strings.Contains(s, "━━ SKILL LOADED ━━  account-review") || strings.Contains(s, "· x-1 ·") {
		t.Fatalf("load mark not large, or with its call id:\n%s", s)
	}
	if ids := ruleID.FindAllString(s, -1); ids != nil {
		t.Fatalf("presenter screen shows rule ids %v:\n%s", ids, s)
	}
	d.key("f2") // off again: the full chrome
	s = d.screen()
	if !strings.Contains(s, "active · x-2") || !strings.Contains(s, "▲ loaded account-review v2 · x-1") {
		t.Fatalf("f2 did not leave presenter mode:\n%s", s)
	}
}

// Presenter mode cleans the interface's own words, never what the model
// wrote: a reply citing "(R3)" or "(x-4)" shows as it came.
func TestPresenterModeShowsTheReplyAsWritten(t *testing.T) {
	reply := "Rule three applies (R3); see the load (x-4)."
	d := newDriverWith(t, harnesstest.New(harnesstest.Say(reply)), 160, 48, Options{Style: "dark", Present: true})
	d.send("which rule applies?")
	if s := d.screen(); !strings.Contains(s, reply) {
		t.Fatalf("the reply is not shown as written:\n%s", s)
	}
}

func TestStatusBarKeepsTheMainFigures(t *testing.T) {
	d := newDriver(t, nil, 160, 48)
	for _, w := range []int{160, 100, 80, 60, 45} {
		line := stripped(d.m.statusLine(w))
		if termtext.Width(line) > w {
			t.Fatalf("status line wider than %d: %q", w, line)
		}
		if !strings.Contains(line, "gpt-4o-mini") || !strings.Contains(line, "next") || strings.HasSuffix(strings.TrimSpace(line), "…") {
			t.Errorf("at %d columns the status line is %q", w, line)
		}
	}
}

// An overlay hides what is under it: no pane border beside its edges.
func TestOverlaysCoverWhatIsUnderThem(t *testing.T) {
	for _, size := range [][2]int{{160, 48}, {120, 40}, {80, 24}} {
		d := newDriver(t, nil, size[0], size[1])
		d.typeText("please review account ACME-42")
		d.key("enter")
		d.waitApproval()
		s := strings.Split(d.screen(), "\n")
		for i, l := range s {
			if !strings.Contains(l, "┃") || i == len(s)-1 {
				continue
			}
			r := []rune(l)
			first := strings.IndexRune(l, '┃')
			col := len([]rune(l[:first]))
			if col > 0 && r[col-1] != ' ' && !strings.ContainsRune("┃━┏┗", r[col-1]) {
				t.Errorf("%dx%d row %d: %q shows beside the dialog: %s", size[0], size[1], i, r[col-1], l)
			}
		}
		d.key("a")
		d.settle()
		d.key("ctrl+o")
		d.settle()
		for i, l := range strings.Split(d.screen(), "\n") {
			if strings.ContainsAny(l, "│╭╰") && i < size[1]-1 {
				t.Errorf("%dx%d: pane borders show around the inspector, row %d: %s", size[0], size[1], i, l)
			}
		}
		// what a key in the overlay did shows inside it
		d.key("y")
		d.settle()
		lines := strings.Split(d.screen(), "\n")
		found := false
		for _, l := range lines {
			if strings.Contains(l, "┃") && strings.Contains(l, "copied") {
				found = true
			}
		}
		if !found {
			t.Errorf("%dx%d: the copy's confirmation is not inside the inspector:\n%s", size[0], size[1], d.screen())
		}
	}
}

func TestPromptFromDescription(t *testing.T) {
	for desc, want := range map[string]string{
		"Triage suspicious transactions and decide whether to escalate them to the fraud team, clear them, or ask the customer. Use when…": "Triage suspicious transactions",
		"Write a blameless incident postmortem with a timeline, impact, root cause and action items. Use after an outage.":                 "Write a blameless incident postmortem",
		"Run pre-release checks before tagging a release (version tag format, changelog entry, tests) and say whether it can go out.":      "Run pre-release checks before tagging a release",
		"Fill and read PDF forms.": "Fill and read PDF forms",
	} {
		if got := promptFrom(desc); got != want {
			t.Errorf("promptFrom(%q) = %q, want %q", desc, got, want)
		}
	}
}

func stripped(s string) string { return strings.TrimRight(ansi.Strip(s), " ") }

// The search bar's count follows the query and a transcript that grows.
func TestFindCountsMatchesAsTheTranscriptGrows(t *testing.T) {
	st := newStatic(t, fakeEntries(40))
	m := loadStatic(t, st, 120, 40)
	m.Update(keyMsg("ctrl+f"))
	for _, r := range "refund" {
		m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	if s := screenOf(m); !strings.Contains(s, "10 match(es)") {
		t.Fatalf("10 answers mention a refund; the bar says:\n%s", s)
	}
	st.entries = fakeEntries(44)
	m.Update(refreshMsg{snap: st.snap, entries: st.Transcript()})
	if s := screenOf(m); !strings.Contains(s, "11 match(es)") {
		t.Fatalf("after one more turn the bar says:\n%s", s)
	}
	m.Update(tea.KeyPressMsg{Code: 'x', Text: "x"})
	if s := screenOf(m); strings.Contains(s, "match(es)") || !strings.Contains(s, "no more matches") {
		t.Fatalf("a query nothing holds still counts:\n%s", s)
	}
}
