package ui

import (
	"context"
	"strconv"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"skillet/harness/event"
	"skillet/harness/rulebook"
	"skillet/ui/markdown"
)

// BenchmarkViewLargeTranscript draws a frame of a 10,000-message
// transcript: at rest (the usual frame), and while paging up through
// messages never drawn before (each page renders new Markdown).
func BenchmarkViewLargeTranscript(b *testing.B) {
	st := newStatic(b, fakeEntries(10000))
	b.Run("steady", func(b *testing.B) {
		m := loadStatic(b, st, 160, 48)
		b.ReportAllocs()
		for b.Loop() {
			m.View()
		}
	})
	b.Run("paging-cold", func(b *testing.B) {
		// the worst frame: a page of messages never drawn before
		m := loadStatic(b, st, 160, 48)
		b.ReportAllocs()
		for b.Loop() {
			m.tr.invalidate()
			m.tr.pageUp()
			if p := m.tr.pos[m.tr.top]; p == 0 {
				m.tr.end()
			}
			m.View()
		}
	})
	b.Run("paging-cold-2KB-messages", func(b *testing.B) {
		// the same with every answer a 2 KB Markdown message with a code
		// block: the costliest glamour input
		es := fakeEntries(10000)
		long := "## Findings\n\nThe review read **every page**; see the table and the query below.\n\n" +
			"| id | amount | kind |\n|---|---|---|\n| 1 | 120.5 | card |\n| 2 | -9999 | refund |\n\n" +
			"```go\nfunc check(items []Item) error {\n\tfor _, it := range items {\n\t\tif it.Amount < -1000 {\n\t\t\treturn fmt.Errorf(\"refund %d\", it.ID)\n\t\t}\n\t}\n\treturn nil\n}\n```\n\n" +
			strings.Repeat("- a finding that explains one more thing about the account in a sentence\n", 14) +
			"\n> Mark the review incomplete when a page fails.\n"
		for i := range es {
			if es[i].Kind == rulebook.EntryAssistant && es[i].Text != "" {
				es[i].Text = long
			}
		}
		m := loadStatic(b, newStatic(b, es), 160, 48)
		b.ReportAllocs()
		for b.Loop() {
			m.tr.invalidate()
			m.tr.pageUp()
			if p := m.tr.pos[m.tr.top]; p == 0 {
				m.tr.end()
			}
			m.View()
		}
	})
	b.Run("paging", func(b *testing.B) {
		m := loadStatic(b, st, 160, 48)
		b.ReportAllocs()
		for b.Loop() {
			m.tr.pageUp()
			if p := m.tr.pos[m.tr.top]; p == 0 {
				m.tr.end()
			}
			m.View()
		}
	})
}

// BenchmarkFirstFrame is the time to the first frame: build the model,
// size it, take the first snapshot and draw.
func BenchmarkFirstFrame(b *testing.B) {
	for _, n := range []int{12, 10000} {
		st := newStatic(b, fakeEntries(n))
		b.Run(strconv.Itoa(n)+"-messages", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				m := newModel(context.Background(), st, Options{Style: "dark"})
				m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
				m.Update(refreshMsg{snap: st.snap, entries: st.Transcript()})
				m.View()
			}
		})
	}
}

// streamingModel has a 20 KB reply streaming into a long transcript, its
// Markdown rendered once (as the throttled render leaves it).
func streamingModel(b *testing.B) *model {
	st := newStatic(b, fakeEntries(2000))
	m := loadStatic(b, st, 160, 48)
	para := "The account shows **activity** across several pages; each page lists `items` with amounts and kinds.\n\n"
	m.Update(eventsMsg{&event.TextDelta{Header: event.Header{Turn: 9}, Call: 1, Text: strings.Repeat(para, 200)}})
	m.Update(m.tr.onTick(liveTickMsg{gen: m.tr.live.gen})())
	m.View()
	return m
}

// BenchmarkKeyPressWhileStreaming is one frame of a reply streaming at
// 100 tokens a second while the user types: a delta arrives, a key is
// pressed, the frame is drawn. Markdown rendering of the stream runs in a
// command on the throttle, never here.
func BenchmarkKeyPressWhileStreaming(b *testing.B) {
	m := streamingModel(b)
	delta := eventsMsg{&event.TextDelta{Header: event.Header{Turn: 9}, Call: 1, Text: "word "}}
	key := tea.KeyPressMsg{Code: 'a', Text: "a"}
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		m.Update(delta)
		m.Update(key)
		m.View()
		if n++; n%80 == 0 { // a message is typed, sent, the next begins
			m.in.take()
		}
	}
}

// BenchmarkStreamRender is the throttled background render of the 20 KB
// streaming reply (at most once per 50 ms), a word longer each time.
func BenchmarkStreamRender(b *testing.B) {
	m := streamingModel(b)
	text := m.tr.live.text.String() + strings.Repeat("more ", 4000)
	at := len(text) - 4000*5
	b.ReportAllocs()
	var s *markdown.Stream
	k := 0
	for b.Loop() {
		// every 40 words the stream starts again where it began
		if k++; s == nil || k > 40 {
			b.StopTimer()
			s, k = markdown.NewStream(), 1
			s.Render("dark", text[:at], 56)
			b.StartTimer()
		}
		s.Render("dark", text[:at+k*5], 56)
	}
}

// BenchmarkLargeResultScroll pages through a 1 MB tool result in the
// viewer.
func BenchmarkLargeResultScroll(b *testing.B) {
	o := newTextOverlay(newTheme(true), "dump", prettyJSON(bigResult()), nil, "dump.txt", "")
	o.view(160, 48)
	b.ReportAllocs()
	for b.Loop() {
		o.p.down(o.h, o.h)
		if o.p.atEnd {
			o.p.home()
		}
		o.view(160, 48)
	}
}

// BenchmarkDeltaFrame is one frame of a 100 KB reply streaming at 100
// tokens a second once its Markdown is drawn: a delta arrives and the
// screen is drawn, which shows what the frame before showed (the render
// of the new text lands on the throttle). It should cost next to nothing.
func BenchmarkDeltaFrame(b *testing.B) {
	m := loadStatic(b, newStatic(b, fakeEntries(20)), 160, 48)
	para := "The account shows **activity** across several pages; each page lists `items` with amounts and kinds.\n\n"
	m.Update(eventsMsg{&event.TextDelta{Header: event.Header{Turn: 9}, Call: 1, Text: strings.Repeat(para, 1000)}})
	m.Update(m.tr.onTick(liveTickMsg{gen: m.tr.live.gen})())
	first := m.View().Content
	delta := eventsMsg{&event.TextDelta{Header: event.Header{Turn: 9}, Call: 1, Text: "word "}}
	b.ReportAllocs()
	for b.Loop() {
		m.Update(delta)
		if m.View().Content != first {
			b.Fatal("a delta changed the screen before its render landed")
		}
	}
}
