package markdown

import (
	"slices"
	"strconv"
	"strings"

	"github.com/yuin/goldmark/ast"
)

// A reply that is one long list would keep all of it in the open tail, so
// the stream also cuts a top-level list between its items: the items
// before the last are finished, and the rest is drawn as a list of its
// own, continued.

// listCont is a top-level list cut between two items.
type listCont struct {
	ordered bool
	next    int // the number the next item is drawn with
	// nested says the item before the cut ends with a list of its own.
	// Glamour ends an item with a newline unless it ends with a list, and
	// ends a list with one: cut after such an item, the list drew a blank
	// line the whole list does not have.
	nested bool
}

// contBody is the lines of src, the rest of a list cut after an item,
// drawn as it is within the whole list. It is rendered as a list of its
// own after the paragraph sentinel, its first item renumbered; in the
// whole list no blank line stands between the items, so the line the
// list opened with (a blank one) is dropped as well as the sentinel's.
func (s *Stream) contBody(src string, c *listCont, open string) []string {
	alone := s.sentinel(sentinel)
	k := len(alone) - 2
	if k < 0 || alone[k] != open {
		s.whole, s.why = true, "a list cut where the paragraph sentinel does not end its line"
		return nil
	}
	if c.ordered {
		src = renumber(src, c.next)
	}
	out, err := s.r.Render(sentinel + "\n\n" + src)
	lines := strings.Split(out, "\n")
	if err != nil || len(lines) < k+3 || lines[len(lines)-1] != "" || !slices.Equal(lines[:k], alone[:k]) || !isBlankLine(lines[k]) {
		s.whole, s.why = true, "a list continuation drawn unlike a list"
		return nil
	}
	return lines[k+1 : len(lines)-1]
}

// listSplit is where a top-level list b, the last block of src, may be
// cut so its finished items are drawn once, and how many items come
// before the cut: before its last item (still open) or, for an ordered
// list, the last item whose number can be written as it must be drawn
// (first plus the items before it) in the digits its marker has. A
// continuation is drawn as a list of its own with its first marker
// renumbered, and a wider number would move that item's content column.
// 0 when the list cannot be cut.
func listSplit(src []byte, b topBlock, first int) (cut, before int) {
	if b.kind != ast.KindList {
		return 0, 0
	}
	for i := len(b.items) - 1; i >= 1; i-- {
		cut := b.items[i]
		if cut <= b.start {
			return 0, 0
		}
		if b.ordered {
			_, digits, ok := orderedMarker(string(src[cut:]))
			if !ok || len(digits) != len(strconv.Itoa(first+i)) {
				continue
			}
		}
		return cut, i
	}
	return 0, 0
}

// orderedMarker splits an ordered list item's first line into the
// indentation before its number, and the number's digits.
func orderedMarker(line string) (indent, digits string, ok bool) {
	i := 0
	for i < len(line) && line[i] == ' ' {
		i++
	}
	j := i
	for j < len(line) && line[j] >= '0' && line[j] <= '9' {
		j++
	}
	if j == i || j >= len(line) || line[j] != '.' && line[j] != ')' {
		return "", "", false
	}
	return line[:i], line[i:j], true
}

// renumber writes n as the number of the ordered list item src starts
// with, in as many digits as it has (listSplit has checked they fit).
func renumber(src string, n int) string {
	indent, digits, ok := orderedMarker(src)
	num := strconv.Itoa(n)
	if !ok || len(num) != len(digits) {
		return src
	}
	return indent + num + src[len(indent)+len(digits):]
}
