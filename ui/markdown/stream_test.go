package markdown

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"skillet/harness/harnesstest"
	"skillet/harness/termtext"
)

// streamReplies are replies whose block structure is easy to get wrong
// when split: fences of both kinds and several lengths (also inside lists
// and quotes), loose lists whose items go on after blank lines, setext
// headings, indented code, tables, definition lists, CJK text.
var streamReplies = map[string]string{
	"headings": "# Release notes\n\nSome text under the title.\n## Changes\nA paragraph right after a heading.\n\nSetext title\n============\n\nAnother one\n---\n\nText\n#not a heading\n# a heading\n",
	"lists":    "Steps:\n\n- first item\n- second item\n  continues here\n- third\n\n1. one\n2. two\n   - nested a\n   - nested b\n3. three\n\n- loose one\n\n- loose two\n\n  with a second paragraph\n\n- loose three\n\n7. starts at seven\n8. eight\n\nAfter the lists.\n- [ ] a task\n- [x] done task\n",
	"tables":   "Results:\n\n| id | amount | kind |\n|---:|:------:|------|\n| 1 | 120.5 | card |\n| 2 | -9999 | refund with a long description that wraps |\n\nname | value\n--- | ---\na | b\n\n| only | header |\n|---|---|\n\nText after.\n",
	"quotes":   "> A quote\n> over lines\nlazy continuation\n\n> Quote with a list:\n> - a\n> - b\n>\n> and a paragraph\n\n> > nested quote\n> back to one level\n\nplain\n",
	"fences":   "Code:\n\n```go\nfunc main() {\n\tfmt.Println(\"hi\")\n}\n```\n\n````markdown\n```python\nnot closed here\n```\nstill inside\n````\n\n~~~\ntilde fence with ``` inside\n```\n~~~~\n\n- item with code:\n\n  ```sh\n  echo inside a list\n  ```\n\n  more text in the item\n\n> ```js\n> let q = 1\n> ```\n\n```\nunclosed at the end\n",
	"indented": "A paragraph.\n\n    indented code\n    more code\n\n        deeper\n\nText\n    not code, a continuation\n\n---\n***\n",
	"long":     strings.Repeat("This is a long paragraph of prose that goes on and on, with *emphasis*, **strong words**, `inline code`, and [a link](https://example.com/page) so that wrapping is exercised at every width. ", 12) + "\n\nShort.\n",
	"cjk":      "# 发布说明\n\n这是一个很长的中文段落，用来测试宽字符的换行是否正确，每个字占两列，所以换行的位置和英文不同。日本語の文章も混ぜておきます。한국어 문장도 있습니다。\n\n- 列表项一\n- 列表项二：包含`代码`和**粗体**\n\n| 名称 | 值 |\n|---|---|\n| 甲 | 一 |\n",
	"deflist":  "Apple\n: A fruit\n\nOrange\n\n: Another fruit\n\n: A colour too\n\nplain paragraph\n\nTerm after\n: its meaning\n",
	"refs":     "See [the docs][d] and [more].\n\nParagraph two.\n\n[d]: https://example.com/docs\n[more]: https://example.com/more \"More\"\n\nAfter the definitions, [d] again.\n",
	"html":     "<div>\nsome html\n</div>\n\n<!-- a comment\nover lines -->\n\nText with <b>inline</b> html.\n",
	"mixed":    "## Findings\n\nThe review read **every page**; see the table and the query below.\n\n| id | amount | kind |\n|---|---|---|\n| 1 | 120.5 | card |\n\n```go\nfunc check(items []Item) error {\n\tfor _, it := range items {\n\t\tif it.Amount < -1000 {\n\t\t\treturn fmt.Errorf(\"refund %d\", it.ID)\n\t\t}\n\t}\n\treturn nil\n}\n```\n\n" + strings.Repeat("- a finding that explains one more thing about the account in a sentence\n", 6) + "\n> Mark the review incomplete when a page fails.\n\nThanks.",
}

// chunkReply cuts text into pieces of random length (whole runes, as
// deltas arrive), fixed by seed.
func chunkReply(text string, seed uint64, maxLen int) []string {
	rng := rand.New(rand.NewPCG(seed, 15))
	var out []string
	for len(text) > 0 {
		n := 1 + rng.IntN(maxLen)
		if rng.IntN(10) == 0 {
			n = 1 + rng.IntN(8*maxLen) // now and then a big delta
		}
		n = min(n, len(text))
		for n < len(text) && !utf8.RuneStart(text[n]) {
			n++
		}
		out = append(out, text[:n])
		text = text[n:]
	}
	return out
}

func diffLines(a, b []string) string { return harnesstest.FirstLineDiff("stream", "whole ", a, b) }

// againOnce runs a streaming check and, if it fails, once more from the
// start. Chroma gives each highlighting regexp 250 ms, and on a machine
// loaded enough a match times out and the code is drawn as an error: a
// difference no replay repeats. A fault in the stream repeats.
func againOnce(t *testing.T, check func() string) {
	t.Helper()
	if d := check(); d != "" {
		if d2 := check(); d2 != "" {
			t.Fatal(d2)
		}
		t.Logf("a difference that did not repeat (chroma timing out under load?):\n%s", d)
	}
}

// Streaming a reply in random pieces draws, at every step, exactly what a
// whole render of the text so far draws: the final frame at several
// widths, every frame at two.
func TestStreamEqualsWholeRender(t *testing.T) {
	md := New("dark")
	for name, reply := range streamReplies {
		for _, w := range []int{20, 37, 56, 80, 121} {
			every := w == 37 || w == 80
			for seed := range uint64(3) {
				againOnce(t, func() string {
					s := NewStream()
					text := ""
					for i, piece := range chunkReply(reply, seed+uint64(w), 24) {
						text += piece
						last := len(text) == len(reply)
						if !every && !last && i%7 != 0 {
							continue
						}
						if d := diffLines(s.Render("dark", text, w), md.Render(text, w)); d != "" {
							return fmt.Sprintf("%s, width %d, seed %d, after %d bytes (%q):\n%s", name, w, seed, len(text), tailOf(text), d)
						}
					}
					checkIncremental(t, name, s)
					return ""
				})
			}
		}
	}
}

func tailOf(s string) string {
	if len(s) > 60 {
		return "…" + s[len(s)-60:]
	}
	return s
}

// checkIncremental fails when a reply that should stream in chunks fell
// back to whole renders, which would make the equality above hollow.
func checkIncremental(t *testing.T, name string, s *Stream) {
	t.Helper()
	if name == "refs" {
		if !s.whole {
			t.Fatalf("%s: link reference definitions must make the stream render whole", name)
		}
		return
	}
	if s.whole || len(s.chunks) == 0 {
		t.Fatalf("%s: streamed without finished chunks (whole=%v: %s)", name, s.whole, s.why)
	}
}

// Text whose meaning turns on its last, unfinished line, streamed a byte
// at a time: a "#" that is a heading until a letter follows it, a fence
// that opens and closes, a colon that makes the paragraph before it a
// definition term, a setext underline, a list that goes on after a blank
// line.
func TestStreamEveryByte(t *testing.T) {
	md := New("dark")
	for _, reply := range []string{
		"Text\n#\n\nText\n#x and more\n\n# real\n",
		"para\n\n```\ncode\n``\n```\n\n~~~~\n~~~\n~~~~\nafter\n",
		"Apple\n\n: a fruit\n\nPear\n:x not a definition\n\nPlum\n\n:  a stone fruit\n",
		"Title\n-\n\nOther\n===\n\n- a\n\n  b\n\nc\n\n1) one\n2) two\n",
		"> quote\n>\n> ```\n> in quote\n\nlazy\n\n    code\n\n---\n",
		"1. a\n   - n\n2. b\n\n   para\n3. c\n   ```\n   x\n   ```\n4. d\n- e\n- f\n  - g\n- h\n",
	} {
		s := NewStream()
		for n := 1; n <= len(reply); n++ {
			text := reply[:n]
			if d := diffLines(s.Render("dark", text, 30), md.Render(text, 30)); d != "" {
				t.Fatalf("after %q:\n%s", text, d)
			}
		}
		if s.whole || len(s.chunks) == 0 {
			t.Fatalf("%q streamed without finished chunks (%s)", reply, s.why)
		}
	}
}

// A width or style change part way draws the finished chunks again, and
// the result is still a whole render at the new width.
func TestStreamWidthAndStyleChange(t *testing.T) {
	md := New("dark")
	light := New("light")
	reply := streamReplies["mixed"] + "\n\n" + streamReplies["fences"]
	s := NewStream()
	half := len(reply) / 2
	s.Render("dark", reply[:half], 50)
	chunks := len(s.chunks)
	if d := diffLines(s.Render("dark", reply[:half+10], 72), md.Render(reply[:half+10], 72)); d != "" {
		t.Fatalf("after a width change:\n%s", d)
	}
	if d := diffLines(s.Render("light", reply, 72), light.Render(reply, 72)); d != "" {
		t.Fatalf("after a style change:\n%s", d)
	}
	if chunks == 0 || s.whole {
		t.Fatalf("no chunks kept across the change (whole=%v: %s)", s.whole, s.why)
	}
}

// A text that is replaced rather than extended starts the stream over.
func TestStreamReplacedText(t *testing.T) {
	md := New("dark")
	s := NewStream()
	s.Render("dark", streamReplies["lists"], 40)
	other := streamReplies["quotes"]
	if d := diffLines(s.Render("dark", other, 40), md.Render(other, 40)); d != "" {
		t.Fatalf("after replacing the text:\n%s", d)
	}
	s.Render("dark", streamReplies["refs"], 40) // renders whole from here
	if !s.whole {
		t.Fatal("link reference definitions did not make the stream render whole")
	}
	short := streamReplies["fences"][:100]
	if d := diffLines(s.Render("dark", short, 40), md.Render(short, 40)); d != "" {
		t.Fatalf("after replacing the text:\n%s", d)
	}
	if s.whole {
		t.Fatal("a new text still renders whole")
	}
}

// The incremental sanitizing matches termtext.Sanitize of the whole text, however
// the text is cut, with tabs, controls, escape sequences split across
// pieces, C1 controls and broken UTF-8 in it.
func TestStreamTextMatchesSanitize(t *testing.T) {
	local := []string{"plain words ", "\n", "\t", "tab\tbed\n", "中文", "\x00", "\x7f", "\r\n", "é", "\n\n"}
	escapes := append([]string{"\x1b[31mred\x1b[0m", "\x1b]8;;http://x\x07link\x1b]8;;\x07", "\x1b[", "2J", "\u0085", "\u009b1m", "\x9b", "\xff"}, local...)
	rng := rand.New(rand.NewPCG(7, 15))
	for _, parts := range [][]string{local, escapes} {
		for range 300 {
			var raw strings.Builder
			var st streamText
			for range 1 + rng.IntN(40) {
				raw.WriteString(parts[rng.IntN(len(parts))])
				if rng.IntN(3) == 0 {
					continue
				}
				done, partial := st.update(raw.String())
				if got, want := done+partial, termtext.Sanitize(raw.String()); got != want {
					t.Fatalf("after %q:\n got  %q\n want %q", raw.String(), got, want)
				}
			}
			if len(parts) == len(local) && st.whole {
				t.Fatalf("%q: text without escapes was sanitized whole", raw.String())
			}
		}
	}
}

// The light style joins its chunks as exactly as the dark one.
func TestStreamLightStyle(t *testing.T) {
	md := New("light")
	for name, reply := range streamReplies {
		againOnce(t, func() string {
			s := NewStream()
			text := ""
			for i, piece := range chunkReply(reply, 5, 24) {
				text += piece
				if i%5 != 0 && len(text) < len(reply) {
					continue
				}
				if d := diffLines(s.Render("light", text, 56), md.Render(text, 56)); d != "" {
					return fmt.Sprintf("%s after %d bytes (%q):\n%s", name, len(text), tailOf(text), d)
				}
			}
			checkIncremental(t, name, s)
			return ""
		})
	}
}

// A long list is cut between its items, so its finished items are drawn
// once too; the cut list draws as the whole list does, numbering, nested
// lists, loose items and code in items included. A list numbered "1." on
// every item is cut only among its first nine: item 10 drawn as "10."
// has a wider marker than its "1.".
func TestStreamLongLists(t *testing.T) {
	var seq, ones, bullets strings.Builder
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&seq, "%d. item %d with **bold** text that is long enough to wrap\n", i, i)
		fmt.Fprintf(&ones, "1. step %d\n", i)
		fmt.Fprintf(&bullets, "- point %d\n", i)
		switch i % 7 {
		case 2:
			fmt.Fprintf(&seq, "   - nested %d\n   - nested more\n", i)
			bullets.WriteString("  - nested\n")
		case 4:
			seq.WriteString("\n   a second paragraph in the item\n\n")
			bullets.WriteString("\n  ```sh\n  echo in an item\n  ```\n\n")
		}
	}
	md := New("dark")
	for name, reply := range map[string]string{"numbered": seq.String(), "all ones": ones.String(), "bullets": bullets.String() + "\nAfter the list.\n"} {
		againOnce(t, func() string {
			s := NewStream()
			text := ""
			for _, piece := range chunkReply(reply, 9, 30) {
				text += piece
				if d := diffLines(s.Render("dark", text, 44), md.Render(text, 44)); d != "" {
					return fmt.Sprintf("%s after %d bytes (%q):\n%s", name, len(text), tailOf(text), d)
				}
			}
			min := 9
			if name == "all ones" {
				min = 1
			}
			if len(s.chunks) < min || s.whole {
				return fmt.Sprintf("%s: %d chunks (whole=%v: %s), want at least %d", name, len(s.chunks), s.whole, s.why, min)
			}
			return ""
		})
	}
}
