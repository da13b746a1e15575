package markdown

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"charm.land/glamour/v2"
	"github.com/yuin/goldmark/ast"

	"skillet/harness/termtext"
)

// Stream renders a Markdown reply while it grows, drawing each finished
// run of top-level blocks (a chunk; or the finished items of a list still
// growing, see listCont) once and only the open tail again on every call.
// Its result equals a whole render of the same text at the same width,
// byte for byte. Its methods may be called from several goroutines.
//
// How chunks join: glamour renders a document's top-level blocks one after
// another into one buffer, then indents and pads that buffer line by line,
// and ends the document with a newline. A block need not end its last line
// (a heading leaves an empty styled run open, a code block its padding);
// the next block continues that open line. So a chunk that follows another
// is rendered after a sentinel: a small block of the kind that ended the
// chunk before, whose own open last line is byte-equal to that chunk's.
// The sentinel's lines before its open line are dropped; the rest is what
// the chunk adds, its first line replacing the open line before it. Where
// no sentinel matches, or glamour fails, the stream renders whole from
// then on: slower, never different.
type Stream struct {
	mu sync.Mutex

	style string
	w     int // wrap width (at least 8), as renderWith uses it
	r     *glamour.TermRenderer
	// sentinels holds each sentinel's lines rendered alone.
	sentinels map[string][]string

	text    streamText
	src     string // the sanitized text last rendered, but for...
	partial string // ...its last line, while it is written
	done    int    // src[:done] is finished, drawn in chunks
	chunks  []mdChunk
	// doneLines is the chunks' lines joined, trimmed but for the last:
	// the open line.
	doneLines []string
	// whole is set when the text defines link references (they reach
	// blocks anywhere in it) or a join is not exact: from then on the text
	// renders whole.
	whole bool
	why   string // what made it whole
}

// mdChunk is a finished run of top-level blocks, src[from:to].
type mdChunk struct {
	from, to int
	// next are sentinels for what follows, tried in turn: a one-word
	// block like its last one, its last block itself, the chunk itself.
	next []string
	// lines is the chunk drawn at Stream.w (nil after a width change);
	// the first replaces the open line before it, the last is left open.
	lines []string
	// cont is set when the chunk ends inside a list: what follows starts
	// with the list's next item.
	cont *listCont
}

// maxSelfSentinel bounds a block or chunk used itself as the sentinel for
// what follows it, since the tail is drawn after it on every call.
const maxSelfSentinel = 4 << 10

// sentinel is the paragraph sentinel: a block that ends its last line.
const sentinel = "x"

// maxSentinels bounds the sentinels a chunk keeps.
const maxSentinels = 6

// NewStream is a stream with no text yet.
func NewStream() *Stream { return &Stream{} }

// State is how a stream has been drawing.
type State struct {
	Chunks int    // finished chunks, each drawn once
	Whole  bool   // it draws the whole text on every call from now on...
	Why    string // ...because of this
}

// State says how the stream has been drawing, for tests and diagnostics.
func (s *Stream) State() State {
	s.mu.Lock()
	defer s.mu.Unlock()
	return State{Chunks: len(s.chunks), Whole: s.whole, Why: s.why}
}

// extendedBy is whether text extends the text the stream last drew.
func (s *Stream) extendedBy(text string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.text.raw != "" && strings.HasPrefix(text, s.text.raw)
}

// Render draws text, which extends the text of the previous call, as
// Markdown in w columns with the given style. A width or style change
// draws every chunk again, once; a text that does not extend the last
// (shorter, or its finished part changed) starts the stream over.
func (s *Stream) Render(style, text string, w int) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	src, partial := s.text.update(text)
	ww := max(w, 8)
	if style != s.style || ww != s.w || s.r == nil {
		r, err := newRenderer(style, ww)
		if err != nil {
			return termtext.Wrap(src+partial, w)
		}
		s.style, s.w, s.r = style, ww, r
		s.sentinels = map[string][]string{}
		s.doneLines = nil
		for i := range s.chunks {
			s.chunks[i].lines = nil
		}
	}
	if len(src) < s.done || src[:s.done] != s.src[:s.done] || len(src)+len(partial) < len(s.src)+len(s.partial) {
		// the text was not extended but replaced: start over
		s.done, s.chunks, s.doneLines, s.whole, s.why = 0, nil, nil, false, ""
	}
	s.src, s.partial = src, partial
	if s.whole {
		return renderWhole(s.r, src+partial, w)
	}
	if s.doneLines == nil {
		s.redraw()
	}
	if !s.whole {
		s.advance()
	}
	var tail []string
	if !s.whole {
		tail = s.body(src[s.done:]+partial, s.last())
	}
	if s.whole {
		return renderWhole(s.r, src+partial, w)
	}
	out := make([]string, 0, len(s.doneLines)+len(tail))
	out = join(append(out, s.doneLines...), tail)
	for i := max(0, len(s.doneLines)-1); i < len(out); i++ {
		out[i] = strings.TrimRight(out[i], " ")
	}
	if out = trimBlankEnds(out); len(out) == 0 {
		return nil
	}
	return out
}

// join appends lines that continue the open last line of out.
func join(out, lines []string) []string {
	if len(lines) == 0 {
		return out
	}
	if len(out) > 0 {
		out = out[:len(out)-1]
	}
	return append(out, lines...)
}

// addDone joins a chunk's lines to doneLines, trimming the padding of all
// but the open last line once, not on every render.
func (s *Stream) addDone(lines []string) {
	from := max(0, len(s.doneLines)-1)
	s.doneLines = join(s.doneLines, lines)
	for i := from; i < len(s.doneLines)-1; i++ {
		s.doneLines[i] = strings.TrimRight(s.doneLines[i], " ")
	}
}

func (s *Stream) last() *mdChunk {
	if len(s.chunks) == 0 {
		return nil
	}
	return &s.chunks[len(s.chunks)-1]
}

// redraw draws every chunk at the current width.
func (s *Stream) redraw() {
	s.doneLines = []string{}
	for i := range s.chunks {
		c := &s.chunks[i]
		var prev *mdChunk
		if i > 0 {
			prev = &s.chunks[i-1]
		}
		c.lines = s.chunkLines(c, prev)
		s.addDone(c.lines)
	}
}

// advance moves the finished blocks of the complete lines after s.done
// into a new chunk, or sets s.whole when the text defines link
// references.
func (s *Stream) advance() {
	complete := strings.LastIndexByte(s.src, '\n') + 1
	if partial := s.src[max(complete, s.done):] + s.partial; strings.Contains(partial, "]:") {
		// a definition may be taking shape on the last line
		if _, refs := topBlocks([]byte(s.src[s.done:] + s.partial)); refs {
			s.whole, s.why = true, "link reference definitions"
			return
		}
	}
	if complete <= s.done {
		return
	}
	// Only complete lines decide: a line still being written may change
	// what it is ("#" is a heading that interrupts a paragraph, "#x" is
	// not).
	seg := []byte(s.src[s.done:complete])
	blocks, refs := topBlocks(seg)
	if refs {
		s.whole, s.why = true, "link reference definitions"
		return
	}
	j := splitAt(seg, blocks)
	if j > 0 {
		s.addChunk(seg, blocks[j].start, s.sentinelsAfter(seg, blocks, j), nil)
		if s.whole {
			return
		}
		seg, blocks = seg[blocks[j].start:], shift(blocks[j:], blocks[j].start)
	}
	// The tail may be a long list: its finished items are drawn once too.
	if len(blocks) != 1 {
		return
	}
	b := blocks[0]
	first := b.num
	if p := s.last(); p != nil && p.cont != nil {
		first = p.cont.next // the list goes on from the chunk before
	}
	if cut, n := listSplit(seg, b, first); cut > 0 {
		s.addChunk(seg, cut, []string{sentinel}, &listCont{ordered: b.ordered, next: first + n, nested: b.nested[n-1]})
	}
}

// shift makes the starts of blocks relative to off.
func shift(blocks []topBlock, off int) []topBlock {
	out := make([]topBlock, len(blocks))
	for i, b := range blocks {
		b.start -= off
		b.items = slices.Clone(b.items)
		for k := range b.items {
			b.items[k] -= off
		}
		out[i] = b
	}
	return out
}

// addChunk finishes seg[:to] (seg starting at s.done) as a chunk.
func (s *Stream) addChunk(seg []byte, to int, next []string, cont *listCont) {
	c := mdChunk{from: s.done, to: s.done + to, next: next, cont: cont}
	if c.lines = s.chunkLines(&c, s.last()); s.whole {
		return
	}
	s.chunks = append(s.chunks, c)
	s.addDone(c.lines)
	s.done = c.to
}

// sentinelsAfter are the sentinels for what follows blocks[:j] of seg,
// tried in turn: a one-word block like the last, the last block itself,
// all of them; then those of the chunk before, since blocks that draw
// nothing (an HTML comment) leave open the line before them.
func (s *Stream) sentinelsAfter(seg []byte, blocks []topBlock, j int) []string {
	next := []string{sentinelFor(seg, blocks[j-1])}
	if b := blocks[j-1]; b.start >= 0 && blocks[j].start-b.start <= maxSelfSentinel {
		next = append(next, strings.TrimRight(string(seg[b.start:blocks[j].start]), "\n"))
	}
	if blocks[j].start <= maxSelfSentinel {
		next = append(next, strings.TrimRight(string(seg[:blocks[j].start]), "\n"))
	}
	if p := s.last(); p != nil {
		for _, n := range p.next {
			if len(next) < maxSentinels && !slices.Contains(next, n) {
				next = append(next, n)
			}
		}
	}
	return next
}

// body is the lines src adds to a whole render: drawn as the document's
// first blocks, or after the chunk prev. Its first line replaces prev's
// open line; its last is left open. It sets s.whole when glamour fails or
// the sentinel's open line differs from prev's.
func (s *Stream) body(src string, prev *mdChunk) []string {
	if strings.TrimSpace(src) == "" {
		return nil
	}
	if prev == nil {
		out, err := s.r.Render(src)
		lines := strings.Split(out, "\n")
		if err != nil || lines[len(lines)-1] != "" {
			s.whole, s.why = true, "glamour failed or did not end the document with a newline"
			return nil
		}
		return lines[:len(lines)-1]
	}
	if len(prev.lines) == 0 {
		s.whole, s.why = true, "a chunk drew nothing"
		return nil
	}
	open := prev.lines[len(prev.lines)-1]
	if prev.cont != nil {
		return s.contBody(src, prev.cont, open)
	}
	for _, sent := range prev.next {
		alone := s.sentinel(sent)
		k := len(alone) - 2 // the sentinel's open line
		if k < 0 || alone[k] != open {
			continue
		}
		out, err := s.r.Render(sent + "\n\n" + src)
		lines := strings.Split(out, "\n")
		if err != nil || len(lines) < k+2 || lines[len(lines)-1] != "" || !slices.Equal(lines[:k], alone[:k]) {
			s.whole, s.why = true, fmt.Sprintf("sentinel %q drawn differently before a chunk", sent)
			return nil
		}
		return lines[k : len(lines)-1]
	}
	s.whole, s.why = true, fmt.Sprintf("no sentinel ends its line as %q does", prev.next)
	return nil
}

// chunkLines draws chunk c, which follows prev.
func (s *Stream) chunkLines(c, prev *mdChunk) []string {
	lines := s.body(s.src[c.from:c.to], prev)
	if c.cont != nil && c.cont.nested && !s.whole {
		// drop the blank line before the open one
		if n := len(lines); n >= 2 && isBlankLine(lines[n-2]) {
			return append(lines[:n-2:n-2], lines[n-1])
		}
		s.whole, s.why = true, "a list cut after a nested list drew no blank line"
		return nil
	}
	return lines
}

// sentinel is a sentinel's render, split in lines, kept per width.
func (s *Stream) sentinel(src string) []string {
	if ls, ok := s.sentinels[src]; ok {
		return ls
	}
	out, err := s.r.Render(src)
	var ls []string
	if err == nil {
		if ls = strings.Split(out, "\n"); ls[len(ls)-1] != "" {
			ls = nil
		}
	}
	s.sentinels[src] = ls
	return ls
}

// sentinelFor is a one-word block that ends its last line as b does: the
// same heading level, the same code fence, or a paragraph.
func sentinelFor(src []byte, b topBlock) string {
	switch b.kind {
	case ast.KindHeading:
		return strings.Repeat("#", max(1, b.level)) + " x"
	case ast.KindCodeBlock:
		return "    x"
	case ast.KindThematicBreak:
		return "---"
	case ast.KindFencedCodeBlock:
		if b.start < 0 {
			break
		}
		line, _, _ := strings.Cut(string(src[b.start:]), "\n")
		fence := strings.TrimLeft(line, " ")
		n := 0
		for n < len(fence) && fence[n] == fence[0] {
			n++
		}
		return fence + "\nx\n" + fence[:n]
	}
	return sentinel
}
