//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// The terminal UI in tmux, with the real binary: typing reaches the input
// whatever pane has the focus, a pane zooms, messages typed during a turn
// wait in a queue, and presenter mode shows no rule numbers.

func (s *tmuxSession) keys(keys ...string) {
	s.run(append([]string{"send-keys", "-t", "t"}, keys...)...)
}

func (s *tmuxSession) typeText(text string) { s.run("send-keys", "-t", "t", "-l", text) }

// shows waits until the screen holds text.
func (s *tmuxSession) shows(text string) {
	s.t.Helper()
	s.waitFor(fmt.Sprintf("%q on the screen", text), func() bool { return strings.Contains(s.screen(), text) })
}

// offlineTUI starts the UI with the demo model in a fresh home.
func offlineTUI(t *testing.T, flags string) *tmuxSession {
	t.Helper()
	bin := skilletBinary(t)
	tmp := t.TempDir()
	env := strings.Join(procEnv(tmp), " ")
	tm := newTmux(t, tmp, fmt.Sprintf("env -i %s %s --offline %s", env, bin, flags))
	tm.shows("offline demo model")
	return tm
}

func TestTUITypingReachesTheInputInEveryPane(t *testing.T) {
	tm := offlineTUI(t, "")
	tm.typeText("/load account-review")
	tm.keys("Enter")
	tm.shows("★ account-review")
	const text = "use the fraud triage, unload it, view it, copy it"
	for tabs, name := range []string{"Transcript", "Loaded skills (LRU)", "<current_context>", "Tools"} {
		for range tabs + 1 {
			tm.keys("Tab")
		}
		tm.shows("┏━ " + name) // the pane has the focus
		tm.typeText(text)
		tm.shows("┃ " + text) // in the input, which now has the focus
		s := tm.screen()
		if !strings.Contains(s, "★ account-review") || !strings.Contains(s, "Loaded 1/3") {
			t.Fatalf("typing in %s acted on a pane:\n%s", name, s)
		}
		if strings.Contains(s, "┏━ "+name) {
			t.Fatalf("typing in %s left the focus there:\n%s", name, s)
		}
		tm.keys("C-u") // empty the input
		tm.waitFor("the input emptied", func() bool { return !strings.Contains(tm.screen(), text) })
	}
	// a pane's action takes alt: alt+u in the LRU pane unloads
	tm.keys("Tab", "Tab")
	tm.shows("┏━ Loaded skills (LRU)")
	tm.keys("M-u")
	tm.shows("unloaded account-review")
	// or, in pane mode (ctrl+p … esc), the plain letter
	tm.keys("Escape")
	tm.shows("┏━ Message")
	tm.typeText("/load fraud-triage")
	tm.keys("Enter")
	tm.shows("★ fraud-triage")
	tm.keys("Tab", "Tab", "C-p")
	tm.shows("[pane keys · esc]")
	tm.keys("u")
	tm.shows("unloaded fraud-triage")
}

func TestTUIZoom(t *testing.T) {
	tm := offlineTUI(t, "")
	for _, size := range [][2]string{{"160", "48"}, {"120", "40"}, {"80", "24"}} {
		tm.run("resize-window", "-t", "t", "-x", size[0], "-y", size[1])
		tm.keys("Tab", "Tab")
		tm.shows("Loaded skills (LRU)")
		tm.keys("C-z")
		tm.shows("Loaded skills (LRU) · zoomed")
		s := tm.screen()
		if strings.Contains(s, "Transcript") || strings.Contains(s, "─ Tools") {
			t.Fatalf("%sx%s: other panes show beside the zoomed one:\n%s", size[0], size[1], s)
		}
		lines := strings.Split(s, "\n")
		if w := len([]rune(lines[0])); fmt.Sprint(w) != size[0] {
			t.Fatalf("%sx%s: the zoomed pane is %d columns wide:\n%s", size[0], size[1], w, s)
		}
		tm.keys("C-z")
		tm.waitFor("the layout back", func() bool { return !strings.Contains(tm.screen(), "zoomed") })
		tm.keys("Escape")
		tm.waitFor("the input focused", func() bool { return strings.Contains(tm.screen(), "┏━ Message") })
	}
}

var (
	ruleNumber  = regexp.MustCompile(`\bR\d{1,2}\b`)
	executionID = regexp.MustCompile(`\bx-\d+\b`)
)

func TestTUIPresenterScreenHasNoRuleIDs(t *testing.T) {
	tm := offlineTUI(t, "--present")
	tm.shows("Try one of these")
	check := func(when string) {
		t.Helper()
		s := tm.screen()
		if ids := ruleNumber.FindAllString(s, -1); ids != nil {
			t.Fatalf("%s: rule ids %v on the presenter screen:\n%s", when, ids, s)
		}
		if strings.Contains(s, "sample-skills/") || strings.Contains(s, "/cache/") {
			t.Fatalf("%s: a cache path on the presenter screen:\n%s", when, s)
		}
		// the interface's own lines name no execution (the model's reply
		// and the exact request text are shown as they are)
		for _, l := range strings.Split(s, "\n") {
			if strings.Contains(l, "⇡") && executionID.MatchString(l) {
				t.Fatalf("%s: an execution id in the preload line on the presenter screen:\n%s", when, s)
			}
		}
	}
	check("first screen")
	for _, want := range []string{"account-review", "fraud-triage", "alt+1"} {
		tm.shows(want)
	}
	tm.keys("M-1") // the first suggestion goes to the input
	tm.shows("┃ Review a customer account's recent activity for anomalies")
	tm.keys("C-u")
	tm.typeText("review account ACC-1042 for anomalies")
	tm.keys("Enter")
	tm.shows("turn 1 ended")
	check("after a turn")
	tm.keys("Tab")
	tm.shows("┏━ Transcript")
	tm.keys("Home") // the load, large, at the top of the turn
	tm.shows("━━ SKILL LOADED ━━  account-review")
	check("at the top of the turn")
	tm.keys("F2") // the full chrome again
	tm.shows("active · x-2")
}

// gatedModel answers every chat request with text; the first waits until
// release is closed. It records the last user message of each request.
func gatedModel(t *testing.T) (srv *httptest.Server, release chan struct{}, users func() []string) {
	release = make(chan struct{})
	var mu sync.Mutex
	var seen []string
	first := true
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			Messages []struct {
				Role    string `json:"role"`
				Content any    `json:"content"`
			} `json:"messages"`
		}
		json.Unmarshal(body, &req)
		last := ""
		for _, m := range req.Messages {
			if m.Role == "user" {
				last = fmt.Sprint(m.Content)
			}
		}
		mu.Lock()
		seen = append(seen, last)
		wait := first
		first = false
		mu.Unlock()
		if wait {
			select {
			case <-release:
			case <-r.Context().Done():
				return
			}
		}
		answerText("noted", nil)(w, r.Clone(r.Context()))
	}))
	t.Cleanup(srv.Close)
	return srv, release, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), seen...)
	}
}

func TestTUIQueuesMessagesTypedDuringATurn(t *testing.T) {
	bin := skilletBinary(t)
	tmp := t.TempDir()
	srv, release, users := gatedModel(t)
	env := strings.Join(procEnv(tmp, "OPENAI_API_KEY="+testAPIKey), " ")
	tm := newTmux(t, tmp, fmt.Sprintf("env -i %s %s --base-url %s/v1", env, bin, srv.URL))
	tm.shows("gpt-4o-mini")
	tm.typeText("first question")
	tm.keys("Enter")
	tm.waitFor("the first request", func() bool { return len(users()) == 1 })
	tm.typeText("second question")
	tm.keys("Enter")
	tm.shows("⏸ queued second question")
	tm.shows("1 queued for after this turn")
	tm.typeText("third question")
	tm.keys("Enter")
	tm.shows("⏸ queued third question")
	tm.keys("C-x") // drops the last one
	tm.waitFor("third question dropped", func() bool { return !strings.Contains(tm.screen(), "⏸ queued third") })
	close(release)
	tm.waitFor("the queued message sent", func() bool { return len(users()) == 2 })
	if got := users()[1]; !strings.Contains(got, "second question") {
		t.Fatalf("the second request's user message is %q", got)
	}
	tm.waitFor("the queue emptied", func() bool { return !strings.Contains(tm.screen(), "queued") })
	time.Sleep(200 * time.Millisecond)
	if n := len(users()); n != 2 {
		t.Fatalf("%d requests: the dropped message was sent", n)
	}
}
