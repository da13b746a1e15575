package ui

import (
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"skillet/ui/markdown"
)

// liveInterval is how often the streaming message is rendered again: often
// enough to look live, rarely enough that key presses never wait on it. It
// is the spinner's frame while text streams in (streamFrame): while a turn
// runs, a render that lands waits for the next spinner frame to show, so
// the screen changes once per frame, not once for each.
const liveInterval = streamFrame

// spinFrame is the status bar spinner's frame while a turn runs. Any
// change to the screen makes the terminal renderer read all of it again
// (about a millisecond for a 160×48 screen, as much again to compare and
// write it), so the changes a running turn makes (the spinner, the
// streaming message) are kept to one per frame, ten a second.
const spinFrame = time.Second / 10

// streamFrame is the spinner's frame while the model's text streams in:
// five a second. The text moves on every frame then, and no one reads
// faster than that: at 100 tokens a second a frame adds about a line and a
// half, which the eye takes as one step. Half the frames of spinFrame
// halve what drawing the stream costs.
const streamFrame = time.Second / 5

// StreamReadPace is how the terminal UI's model client spaces the reads
// of a reply that streams slowly (llm.Config.ReadPace): a quarter of
// streamFrame, so every frame still shows the text that arrived before
// it, while the process wakes for the network twenty times a second
// rather than once per chunk.
const StreamReadPace = streamFrame / 4

// liveBackoff spaces renders whose open tail is costly (a long code block
// still being written is highlighted whole each time): the wait after a
// render is at least this many times as long as the render took, so
// streaming renders take at most a tenth of a core. The wait is capped
// (liveMaxDelay) so a one-off costly render, such as drawing everything
// again after a resize, does not stall the message.
const (
	liveBackoff  = 9
	liveMaxDelay = time.Second
)

// liveDelay is how long to wait before rendering again after a render
// that took took.
func liveDelay(took time.Duration) time.Duration {
	return min(max(liveInterval, liveBackoff*took), liveMaxDelay)
}

// liveState is the assistant message streaming in. Its Markdown is
// rendered off the program's goroutine on a throttle, by a stream that
// draws each finished block once; until a render lands the raw text shows.
type liveState struct {
	gen        int
	turn, call int
	text       strings.Builder
	reasoning  strings.Builder

	stream *markdown.Stream // only the render command in flight touches it
	lines  []string         // last Markdown render of text
	linesW int
	plain  []string // raw text wrapped, until the first render
	plainN int
	plainW int

	// view is the message as last drawn, from what viewKey holds.
	view    []string
	viewKey liveKey
	renders int // renders shown, so a new one draws the message again
	// held is a render that landed while the screen is paced by the
	// spinner, shown at its next frame.
	held *liveRenderedMsg

	took                      time.Duration // the last render
	dirty, ticking, rendering bool
	// done is set by the whole message (the assistant event); the live
	// message stays until a transcript holding it arrives.
	done    bool
	doneSeq uint64
}

// liveKey is what the streaming message's drawing depends on.
type liveKey struct {
	w               int
	done, open      bool
	reasoning, text int
	renders         int
}

type liveTickMsg struct{ gen int }

type liveRenderedMsg struct {
	gen, w int
	lines  []string
	took   time.Duration
}

// onDelta adds streamed text and schedules a render.
func (t *transcriptPane) onDelta(turn, call int, text string, reasoning bool) tea.Cmd {
	if t.live == nil || t.live.turn != turn || t.live.call != call || t.live.done {
		gen := 1
		if t.live != nil {
			gen = t.live.gen + 1
		}
		t.live = &liveState{gen: gen, turn: turn, call: call, stream: markdown.NewStream()}
		delete(t.cache, item{itemLive, 0})
		t.rebuild()
	}
	l := t.live
	if reasoning {
		l.reasoning.WriteString(text)
		return nil
	}
	l.text.WriteString(text)
	l.dirty = true
	return t.schedule()
}

func (t *transcriptPane) schedule() tea.Cmd {
	l := t.live
	if l == nil || l.ticking || l.rendering {
		return nil
	}
	l.ticking = true
	gen := l.gen
	return tea.Tick(liveDelay(l.took), func(time.Time) tea.Msg { return liveTickMsg{gen: gen} })
}

// onTick starts a render of the text so far, in a command.
func (t *transcriptPane) onTick(msg liveTickMsg) tea.Cmd {
	l := t.live
	if l == nil || l.gen != msg.gen {
		return nil
	}
	l.ticking = false
	if !l.dirty && l.renderedW() == t.w-1 {
		return nil
	}
	l.dirty, l.rendering = false, true
	st, style, text, w, gen := l.stream, t.md.Style(), l.text.String(), t.w-1, l.gen
	return func() tea.Msg {
		t0 := time.Now()
		lines := st.Render(style, text, w)
		return liveRenderedMsg{gen: gen, w: w, lines: lines, took: time.Since(t0)}
	}
}

func (t *transcriptPane) onRendered(msg liveRenderedMsg) tea.Cmd {
	l := t.live
	if l == nil || l.gen != msg.gen {
		return nil
	}
	l.rendering, l.took = false, msg.took
	if t.paced && !l.done {
		l.held = &msg
	} else {
		l.show(msg)
	}
	if l.dirty || msg.w != t.w-1 {
		l.dirty = true
		return t.schedule()
	}
	return nil
}

// show makes a landed render the message's drawing.
func (l *liveState) show(msg liveRenderedMsg) {
	l.lines, l.linesW, l.held = msg.lines, msg.w, nil
	l.renders++
}

// renderedW is the width of the newest render, shown or held.
func (l *liveState) renderedW() int {
	if l.held != nil {
		return l.held.w
	}
	return l.linesW
}

// frame is the spinner's frame: streamFrame while the model's text
// streams in, spinFrame otherwise.
func (t *transcriptPane) frame() time.Duration {
	if l := t.live; l != nil && !l.done && l.text.Len() > 0 {
		return streamFrame
	}
	return spinFrame
}

// setPaced says whether a spinner frame paces the screen; when it stops,
// a held render shows at once.
func (t *transcriptPane) setPaced(paced bool) {
	t.paced = paced
	if !paced {
		t.showHeld()
	}
}

// showHeld shows the render held for the spinner's frame, if any.
func (t *transcriptPane) showHeld() {
	if l := t.live; l != nil && l.held != nil {
		l.show(*l.held)
	}
}

// finishLive marks the streaming message whole; it goes once a transcript
// fetched after event seq arrives.
func (t *transcriptPane) finishLive(seq uint64) {
	if t.live != nil && !t.live.done {
		t.live.done, t.live.doneSeq = true, seq
		t.showHeld()
		// the message that replaces it is drawn by its stream: only
		// the tail is drawn again, not the whole reply
		t.md.Continue(t.live.stream)
	}
}

// dropLive removes a finished live message once the transcript holds it.
func (t *transcriptPane) dropLive(seq uint64) {
	if t.live != nil && t.live.done && seq >= t.live.doneSeq {
		t.live = nil
		t.rebuild()
	}
}
