package ui

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"

	"skillet/harness/event"
	"skillet/harness/harnesstest"
)

// streamedReply mixes the blocks a streamed reply is cut between: a
// heading, prose, a table, code, long and nested lists, a quote, fences
// of both kinds.
var streamedReply = "## Findings\n\nThe review read **every page**; see the table and the query below.\n\n" +
	"| id | amount | kind |\n|---|---|---|\n| 1 | 120.5 | card |\n\n" +
	"```go\nfunc check(items []Item) error {\n\tfor _, it := range items {\n\t\tif it.Amount < -1000 {\n\t\t\treturn fmt.Errorf(\"refund %d\", it.ID)\n\t\t}\n\t}\n\treturn nil\n}\n```\n\n" +
	strings.Repeat("- a finding that explains one more thing about the account in a sentence\n", 6) +
	"\n> Mark the review incomplete when a page fails.\n\n" +
	"Steps:\n\n- first item\n- second item\n  continues here\n\n1. one\n2. two\n   - nested a\n   - nested b\n3. three\n\n" +
	"~~~\ntilde fence with ``` inside\n```\n~~~~\n\n- item with code:\n\n  ```sh\n  echo inside a list\n  ```\n\nThanks.\n"

// randomPieces cuts text into pieces of random length (whole runes, as
// deltas arrive), fixed by seed.
func randomPieces(text string, seed uint64, maxLen int) []string {
	rng := rand.New(rand.NewPCG(seed, 15))
	var out []string
	for len(text) > 0 {
		n := min(1+rng.IntN(maxLen), len(text))
		for n < len(text) && !utf8.RuneStart(text[n]) {
			n++
		}
		out = append(out, text[:n])
		text = text[n:]
	}
	return out
}

func diffLines(a, b []string) string { return harnesstest.FirstLineDiff("stream", "whole ", a, b) }

// Renders are spaced by what the last one cost, within bounds.
func TestLiveRenderBacksOff(t *testing.T) {
	for _, c := range []struct{ took, want time.Duration }{
		{0, liveInterval},
		{time.Millisecond, liveInterval},
		{30 * time.Millisecond, 270 * time.Millisecond},
		{10 * time.Second, liveMaxDelay},
	} {
		if got := liveDelay(c.took); got != c.want {
			t.Errorf("after a render of %v: wait %v, want %v", c.took, got, c.want)
		}
	}
}

// Through the model as the program runs it (deltas, throttle ticks, the
// render command, its result), the streaming message shows what a whole
// render of its text at the pane's width shows.
func TestStreamingPaneShowsWholeRender(t *testing.T) {
	m := loadStatic(t, newStatic(t, fakeEntries(4)), 120, 40)
	screenOf(m)
	for i, piece := range randomPieces(streamedReply, 4, 40) {
		m.Update(eventsMsg{&event.TextDelta{Header: event.Header{Turn: 2}, Call: 1, Text: piece}})
		if i%3 != 0 {
			continue
		}
		l := m.tr.live
		if cmd := m.tr.onTick(liveTickMsg{gen: l.gen}); cmd != nil {
			m.Update(cmd())
		}
		screenOf(m)
		want := m.md.Render(l.text.String(), m.tr.w-1)
		if d := diffLines(l.lines, want); d != "" {
			t.Fatalf("after %d bytes:\n%s", l.text.Len(), d)
		}
	}
	if s := m.tr.live.stream.State(); s.Chunks == 0 || s.Whole {
		t.Fatalf("the pane's stream kept no chunks (whole=%v: %s)", s.Whole, s.Why)
	}
}

// Streamed text alone reaches the program at most once per spinner frame,
// however fast it comes; an event of another kind comes with the text
// queued before it, in order.
func TestSinkPacesTextToTheSpinnerFrame(t *testing.T) {
	s := NewEventSink()
	d := &driver{msgs: make(chan tea.Msg, 1000)}
	stop := s.attach(d)
	defer stop()
	h := event.Header{Turn: 1}
	start := time.Now()
	for range 100 {
		s.OnEvent(&event.TextDelta{Header: h, Call: 1, Text: "word "})
		time.Sleep(4 * time.Millisecond)
	}
	s.OnEvent(&event.TextDelta{Header: h, Call: 1, Text: "last"})
	s.OnEvent(&event.Assistant{Header: h, Call: 1, Text: "done"})
	took := time.Since(start)
	var text strings.Builder
	deliveries := 0
	for done := false; !done; {
		select {
		case msg := <-d.msgs:
			deliveries++
			for _, it := range msg.(eventsMsg) {
				switch e := it.(type) {
				case *event.TextDelta:
					text.WriteString(e.Text)
				case *event.Assistant:
					done = true
				}
			}
		case <-time.After(5 * time.Second):
			t.Fatal("the assistant event was not delivered")
		}
	}
	if want := strings.Repeat("word ", 100) + "last"; text.String() != want {
		t.Fatalf("the text delivered before the assistant event is %q", text.String())
	}
	// one delivery per frame, and the first and the last at once
	if most := int(took/deltaFrame) + 2; deliveries > most {
		t.Fatalf("%d deliveries in %v, want at most %d", deliveries, took, most)
	}
}

// While the model's text streams in the spinner, which paces the screen,
// turns at streamFrame; before the text and once the reply is whole, at
// spinFrame.
func TestSpinnerSlowsWhileTextStreams(t *testing.T) {
	m := loadStatic(t, newStatic(t, fakeEntries(4)), 120, 40)
	m.running = true
	tick := func() time.Duration {
		m.Update(m.spin.Tick())
		return m.spin.Spinner.FPS
	}
	if got := tick(); got != spinFrame {
		t.Fatalf("before any text: frame %v, want %v", got, spinFrame)
	}
	h := event.Header{Turn: 2}
	m.Update(eventsMsg{&event.TextDelta{Header: h, Call: 1, Text: "The reply begins"}})
	if got := tick(); got != streamFrame {
		t.Fatalf("while text streams: frame %v, want %v", got, streamFrame)
	}
	m.Update(eventsMsg{&event.Assistant{Header: h, Call: 1, Text: "The reply begins"}})
	if got := tick(); got != spinFrame {
		t.Fatalf("once the reply is whole: frame %v, want %v", got, spinFrame)
	}
}
