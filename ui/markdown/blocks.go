package markdown

import (
	"sync"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// The streaming render splits a reply where one top-level Markdown block
// ends and the next begins. It asks goldmark, with the block grammar
// glamour parses with (CommonMark, GFM tables, definition lists), so fences
// of any length and kind, lists continuing after blank lines, setext
// headings and lazy quote lines split exactly where glamour would. Inline
// parsing is left out: it never moves a block boundary.

// topBlock is one top-level block of a parse: where its first line starts
// (-1 when the parse cannot tell) and what it is.
type topBlock struct {
	start int
	kind  ast.NodeKind
	level int // a heading's
	// a list's: where each item's first line starts (-1: unknown), and
	// the number it starts at when ordered
	items   []int
	ordered bool
	num     int
	// nested says which items end with a list of their own
	nested []bool
}

var (
	structureOnce   sync.Once
	structureParser parser.Parser
	opensKey        = parser.NewContextKey()
)

// opens records where each top-level block and each item of a top-level
// list was opened, by node: the line a fenced code block's fence is on,
// which its content lines do not show.
type opens map[ast.Node]int

// recorder is a block parser that notes where it opens top-level blocks.
type recorder struct{ parser.BlockParser }

func (r recorder) Open(parent ast.Node, reader text.Reader, pc parser.Context) (ast.Node, parser.State) {
	_, seg := reader.PeekLine()
	node, st := r.BlockParser.Open(parent, reader, pc)
	if node != nil && (parent.Kind() == ast.KindDocument || parent.Kind() == ast.KindList && parent.Parent() != nil && parent.Parent().Kind() == ast.KindDocument) {
		if o, ok := pc.Get(opensKey).(opens); ok {
			o[node] = lineStart(reader.Source(), seg.Start)
		}
	}
	return node, st
}

func blockStructureParser() parser.Parser {
	structureOnce.Do(func() {
		bps := append(parser.DefaultBlockParsers(),
			util.Prioritized(extension.NewDefinitionListParser(), 101),
			util.Prioritized(extension.NewDefinitionDescriptionParser(), 102))
		for i, v := range bps {
			bps[i] = util.Prioritized(recorder{v.Value.(parser.BlockParser)}, v.Priority)
		}
		pts := append(parser.DefaultParagraphTransformers(),
			util.Prioritized(extension.NewTableParagraphTransformer(), 200))
		structureParser = parser.NewParser(parser.WithBlockParsers(bps...), parser.WithParagraphTransformers(pts...))
	})
	return structureParser
}

// topBlocks parses src into its top-level blocks, and reports whether it
// defines link references (which reach blocks anywhere in the text).
func topBlocks(src []byte) (blocks []topBlock, refs bool) {
	pc := parser.NewContext()
	o := opens{}
	pc.Set(opensKey, o)
	doc := blockStructureParser().Parse(text.NewReader(src), parser.WithContext(pc))
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		b := topBlock{start: o.start(src, n), kind: n.Kind()}
		switch n := n.(type) {
		case *ast.Heading:
			b.level = n.Level
		case *ast.List:
			b.ordered, b.num = n.IsOrdered(), n.Start
			for it := n.FirstChild(); it != nil; it = it.NextSibling() {
				b.items = append(b.items, o.start(src, it))
				b.nested = append(b.nested, it.LastChild() != nil && it.LastChild().Kind() == ast.KindList)
			}
		}
		blocks = append(blocks, b)
	}
	return blocks, len(pc.References()) > 0
}

// start is where n's first line starts: where it was opened or where its
// first text is, whichever is first (a setext heading is opened on its
// underline); -1 when neither is known.
func (o opens) start(src []byte, n ast.Node) int {
	start, ok := o[n]
	if !ok {
		start = -1
	}
	if s := firstSegment(n); s >= 0 {
		if s = lineStart(src, s); start < 0 || s < start {
			start = s
		}
	}
	return start
}

// firstSegment is where the first line of text under n starts, or -1.
func firstSegment(n ast.Node) int {
	if n.Type() == ast.TypeBlock && n.Lines().Len() > 0 {
		return n.Lines().At(0).Start
	}
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if s := firstSegment(c); s >= 0 {
			return s
		}
	}
	return -1
}

func lineStart(src []byte, i int) int {
	i = min(i, len(src))
	for i > 0 && src[i-1] != '\n' {
		i--
	}
	return i
}

// splitAt is the block of src (complete lines only) where the open tail
// begins: the last top-level block that later text cannot join to the
// blocks before it. 0 means nothing is finished yet.
//
// A definition list is the one construct that reaches back over a closed
// block: a line starting ": " turns the paragraph before it into a term and
// joins a definition list just before that. So a block may not begin the
// tail when it starts with ':' (it may yet become a description), nor when
// it is a paragraph right after a definition list.
func splitAt(src []byte, blocks []topBlock) int {
	for j := len(blocks) - 1; j > 0; j-- {
		b := blocks[j]
		if b.start <= 0 || src[b.start] == ':' {
			continue
		}
		if b.kind == ast.KindParagraph && blocks[j-1].kind == east.KindDefinitionList {
			continue
		}
		return j
	}
	return 0
}
