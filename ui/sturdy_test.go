package ui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"skillet/harness/event"
	"skillet/harness/rulebook"
	"skillet/harness/view"
)

// wideEntries is a transcript full of wide text: CJK, emoji, long words.
func wideEntries() []rulebook.Entry {
	es := []rulebook.Entry{
		{Kind: rulebook.EntryUser, Text: "日本語のテキストを表示します。中文也可以。한국어도 됩니다 🚀✨ and a verylongwordthatdoesnotfitanywhereatallinanarrowpane"},
		{Kind: rulebook.EntryAssistant, Reasoning: "考える 🤔", Text: "## 見出し 🎉\n\n- 項目一つ目 ✅\n- 二つ目は `コード` です\n\n| 列 | 値 |\n|---|---|\n| 名前 | 🍣 寿司 |",
			ToolCalls: []event.ToolCallRecord{{ID: "c1", Name: "get_account_activity", Arguments: `{"account_id":"顧客-42","note":"🚀 ロケット"}`}}},
		{Kind: rulebook.EntryTool, ToolCallID: "c1", ToolName: "get_account_activity", Text: `{"名前":"山田太郎","絵文字":"👍🏽👨‍👩‍👧","items":["一","二","三","四","五","六","七","八"]}`},
		{Kind: rulebook.EntryNote, NoteKind: rulebook.NoteContextChanged, Text: "contextChanged: loaded 日本語スキル v1 (x-1) — # 日本語のスキル 🚀"},
		{Kind: rulebook.EntryTool, ToolCallID: "c2", ToolName: "tab\ttool", Text: "raw \x1b[31mred\x1b[0m and a\ttab and a \r carriage return \x07 bell", Refused: true, IsError: true},
	}
	for i := range es {
		es[i].Index, es[i].Turn = i, 1
		es[i].Message = i
		if es[i].Kind == rulebook.EntryNote {
			es[i].Message = -1
		}
	}
	return es
}

func wideStatic(tb testing.TB) *staticEngine {
	st := newStatic(tb, wideEntries())
	st.snap.Loaded = []view.LoadedSkill{{Name: "日本語スキル", Version: "1", ExecutionID: "x-1", Active: true, Tokens: 99,
		Tools: []string{"ツール@1"}, State: []byte(`{"状態":"🚀"}`)}}
	st.snap.Instructions += "\n<current_context>\n<skill name=\"日本語スキル\">\n全角の文字と絵文字 🎉🎉🎉 が並ぶ行はここです。\n</skill>\n</current_context>"
	st.snap.Tools = append(st.snap.Tools, event.ToolInfo{Name: "ツール", Source: "skill", Skill: "日本語スキル", Version: 1, Approval: "ask"})
	st.snap.Model = "モデル-🚀"
	return st
}

var borderRunes = map[string]bool{"╭": true, "╮": true, "╰": true, "╯": true, "┏": true, "┓": true, "┗": true, "┛": true}
var sideRunes = map[string]bool{"│": true, "┃": true}

// checkScreen fails unless the view is exactly w×h and every pane's border
// is where the layout puts it.
func checkScreen(t *testing.T, m *model, w, h int) {
	t.Helper()
	content := m.View().Content
	lines := strings.Split(content, "\n")
	if len(lines) != h {
		t.Fatalf("%dx%d: %d lines", w, h, len(lines))
	}
	plain := make([]string, len(lines))
	for i, l := range lines {
		if lw := ansi.StringWidth(l); lw != w {
			t.Fatalf("%dx%d: line %d is %d columns:\n%q", w, h, i, lw, ansi.Strip(l))
		}
		plain[i] = ansi.Strip(l)
	}
	if m.overlay != nil || len(m.approvals) > 0 {
		return
	}
	cell := func(x, y int) string { return ansi.Cut(plain[y], x, x+1) }
	lay := m.layout()
	for p := pane(0); p < numPanes; p++ {
		r := lay.panes[p]
		if r.w < 2 || r.h < 2 {
			continue
		}
		for _, c := range [][2]int{{r.x, r.y}, {r.x + r.w - 1, r.y}, {r.x, r.y + r.h - 1}, {r.x + r.w - 1, r.y + r.h - 1}} {
			if got := cell(c[0], c[1]); !borderRunes[got] {
				t.Fatalf("%dx%d: %s corner (%d,%d) is %q:\n%s", w, h, p.title(), c[0], c[1], got, strings.Join(plain, "\n"))
			}
		}
		for y := r.y + 1; y < r.y+r.h-1; y++ {
			if l, rr := cell(r.x, y), cell(r.x+r.w-1, y); !sideRunes[l] || !sideRunes[rr] {
				t.Fatalf("%dx%d: %s border at row %d is %q…%q:\n%s", w, h, p.title(), y, l, rr, strings.Join(plain, "\n"))
			}
		}
	}
}

func TestResizeSweepKeepsBordersAndWidths(t *testing.T) {
	m := loadStatic(t, wideStatic(t), 120, 40)
	sizes := [][2]int{{40, 12}, {41, 13}, {80, 24}, {99, 30}, {100, 30}, {159, 40}, {160, 48}, {200, 60}, {40, 60}, {200, 12}}
	for w := 40; w <= 200; w += 13 {
		for h := 12; h <= 60; h += 8 {
			sizes = append(sizes, [2]int{w, h})
		}
	}
	for i, sz := range sizes {
		m.Update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		// every pane focused in turn, so thick and round borders are both drawn
		m.focus = pane(i % int(numPanes))
		m.shown = pane(1 + i%4)
		checkScreen(t, m, sz[0], sz[1])
	}
	// and back up again after the smallest
	m.Update(tea.WindowSizeMsg{Width: 40, Height: 12})
	m.View()
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
	checkScreen(t, m, 160, 48)
}

func TestResizeWithOverlaysOpen(t *testing.T) {
	d := newDriver(t, nil, 120, 40)
	d.send("draft it in the brand voice")
	opens := []func(){
		func() { d.key("ctrl+o"); d.settle() },
		func() { d.send("/skills") },
		func() { d.send("/help") },
		func() { d.send("/call get_weather") },
		func() { d.send("/model") },
	}
	for _, open := range opens {
		open()
		if d.m.overlay == nil {
			t.Fatal("overlay did not open")
		}
		for _, sz := range [][2]int{{40, 12}, {63, 17}, {100, 30}, {160, 48}, {200, 60}} {
			d.update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
			checkScreen(t, d.m, sz[0], sz[1])
		}
		d.key("esc")
	}
	// the approval dialog over everything
	d.update(eventsMsg{approvalMsg{id: 9, req: view.ApprovalRequest{Name: "ツール", Arguments: `{"x":"日本語 🚀"}`}, reply: make(chan event.Decision, 1)}})
	for _, sz := range [][2]int{{40, 12}, {80, 24}, {160, 48}} {
		d.update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		checkScreen(t, d.m, sz[0], sz[1])
	}
}

func TestWideTextKeepsColumnsAligned(t *testing.T) {
	m := loadStatic(t, wideStatic(t), 160, 48)
	for _, w := range []int{40, 57, 80, 101, 133, 160, 187} {
		m.Update(tea.WindowSizeMsg{Width: w, Height: 40})
		for p := pane(1); p < numPanes; p++ {
			m.focus, m.shown = p, p
			m.tr.openAll = p == paneTranscript // unfolded too
			checkScreen(t, m, w, 40)
		}
	}
	s := screenOf(m)
	for _, want := range []string{"日本語のテキスト", "🚀", "山田太郎"} {
		if !strings.Contains(strings.Join(paneText(m, paneTranscript), ""), want) && !strings.Contains(s, want) {
			t.Errorf("wide text %q lost", want)
		}
	}
	// control characters never reach the screen
	if strings.ContainsAny(m.View().Content, "\x07\r\t") {
		t.Fatal("control characters from a tool result reached the screen")
	}
}

// bigResult is about 1 MB of JSON.
func bigResult() string {
	var b strings.Builder
	b.WriteString(`{"rows":[`)
	for i := 0; b.Len() < 1<<20; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%d,"name":"row %d","tags":["a","b"],"ok":true}`, i, i)
	}
	b.WriteString(`]}`)
	return b.String()
}

func bigStatic(tb testing.TB) *staticEngine {
	es := fakeEntries(2)
	es = append(es, rulebook.Entry{Index: 2, Message: 2, Turn: 1, Kind: rulebook.EntryTool, ToolCallID: "c0", ToolName: "dump", Text: bigResult()})
	es = append(es, rulebook.Entry{Index: 3, Message: 3, Turn: 1, Kind: rulebook.EntryAssistant, Text: "That was big."})
	return newStatic(tb, es)
}

func TestLargeResultFoldedAndViewable(t *testing.T) {
	m := loadStatic(t, bigStatic(t), 160, 48)
	p := m.tr.pos[item{itemEntry, 2}]
	folded := m.tr.linesAt(p, m.tr.w-1)
	if len(folded) > foldLines+2 {
		t.Fatalf("folded 1 MB result is %d lines", len(folded))
	}
	if !strings.Contains(ansi.Strip(folded[len(folded)-1]), "more line(s) · enter unfolds") {
		t.Fatalf("fold hint missing: %q", ansi.Strip(folded[len(folded)-1]))
	}
	m.tr.sel, m.tr.hasSel = item{itemEntry, 2}, true
	m.tr.toggle()
	open := m.tr.linesAt(p, m.tr.w-1)
	if len(open) > openLines+3 || !strings.Contains(ansi.Strip(open[len(open)-1]), "v views all") {
		t.Fatalf("unfolded result: %d lines, last %q", len(open), ansi.Strip(open[len(open)-1]))
	}
	checkScreen(t, m, 160, 48)
	// the viewer pages through all of it
	_, text, _ := m.tr.selectedText()
	o := newTextOverlay(m.th, "dump", text, nil, "dump.txt", "")
	m.overlay = o
	m.View()
	o.p.end(o.h)
	s := screenOf(m)
	if !strings.Contains(s, `"ok": true`) || !strings.Contains(s, "100%") {
		t.Fatalf("viewer end:\n%s", s)
	}
	if n := len(o.p.rows); n > 4*o.h+10 {
		t.Fatalf("viewer wrapped %d lines to show one screen", n)
	}
	checkScreen(t, m, 160, 48)
}

func TestTranscriptCacheBounded(t *testing.T) {
	m := loadStatic(t, newStatic(t, fakeEntries(10000)), 120, 40)
	m.tr.home()
	for i := 0; i < 900; i++ {
		m.tr.pageDown()
		m.View()
	}
	if n := len(m.tr.cache); n > maxCached {
		t.Fatalf("%d rendered items kept", n)
	}
	if s := screenOf(m); !strings.Contains(s, "Question") && !strings.Contains(s, "Turn") {
		t.Fatalf("paging lost the transcript:\n%s", s)
	}
}
