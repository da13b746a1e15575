package share

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"skillet/harness/event"
)

// session is a small journal written by hand, with a ten-minute idle gap
// before the second turn.
func session() []event.Event {
	t0 := time.Date(2026, 9, 1, 10, 0, 0, 0, time.UTC)
	at := func(d time.Duration, turn int, typ string) event.Header {
		return event.Header{Type: typ, Turn: turn, Time: t0.Add(d)}
	}
	req := func(ctx string) json.RawMessage {
		b, _ := json.Marshal(map[string]any{
			"messages": []map[string]any{{"role": "system", "content": "You are helpful.\n" + ctx}, {"role": "user", "content": "hi"}},
			"tools":    []map[string]any{{"type": "function", "function": map[string]any{"name": "load_skill", "description": "Load a skill"}}},
		})
		return b
	}
	return []event.Event{
		&event.SessionStart{Header: at(0, 0, event.TypeSessionStart), SessionID: "s-1", Model: "m", Limits: event.Settings{MaxLoadedSkills: 3}},
		&event.TurnStart{Header: at(time.Second, 1, event.TypeTurnStart), Text: "review <b>account</b>\x1b]52;c;AAAA\x07 4850"},
		&event.ModelCall{Header: at(time.Second+10*time.Millisecond, 1, event.TypeModelCall), Call: 1, Request: req("")},
		&event.Assistant{Header: at(1500*time.Millisecond, 1, event.TypeAssistant), Call: 1,
			ToolCalls: []event.ToolCallRecord{{ID: "c1", Name: "load_skill", Arguments: `{"name":"account-review"}`}}},
		&event.SkillLoaded{Header: at(1600*time.Millisecond, 1, event.TypeSkillLoaded), Skill: "account-review", Version: "2", ExecutionID: "x-1", By: event.ByModel, Tokens: 500},
		&event.ToolResult{Header: at(1600*time.Millisecond, 1, event.TypeToolResult), ToolCallID: "c1", Name: "load_skill", Content: "contextChanged: loaded account-review"},
		&event.ModelCall{Header: at(1700*time.Millisecond, 1, event.TypeModelCall), Call: 2,
			Request: req("<current_context>\n<skill name=\"account-review\">body</skill>\n</current_context>")},
		&event.Assistant{Header: at(2*time.Second, 1, event.TypeAssistant), Call: 2, Text: "All fine </script><script>alert(1)</script>"},
		&event.TurnEnd{Header: at(2*time.Second, 1, event.TypeTurnEnd), Loaded: []string{"account-review"}, StopReason: event.StopDone},
		&event.TurnStart{Header: at(10*time.Minute, 2, event.TypeTurnStart), Text: "again"},
	}
}

// readCast parses an asciicast v2 file as a player does: a header object,
// then [time, code, data] arrays with times that never go back.
func readCast(t *testing.T, b []byte) (map[string]any, [][3]any) {
	t.Helper()
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<24)
	if !sc.Scan() {
		t.Fatal("empty cast")
	}
	var h map[string]any
	if err := json.Unmarshal(sc.Bytes(), &h); err != nil {
		t.Fatalf("header: %v", err)
	}
	if h["version"] != 2.0 || h["width"].(float64) < 1 || h["height"].(float64) < 1 {
		t.Fatalf("header %v: want version 2 and a size", h)
	}
	var evs [][3]any
	last := -1.0
	for sc.Scan() {
		var raw []json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &raw); err != nil || len(raw) != 3 {
			t.Fatalf("event %s: want [time, code, data] (%v)", sc.Text(), err)
		}
		var at float64
		var code, data string
		if json.Unmarshal(raw[0], &at) != nil || json.Unmarshal(raw[1], &code) != nil || json.Unmarshal(raw[2], &data) != nil {
			t.Fatalf("event %s: want a number and two strings", sc.Text())
		}
		if code != "o" || at < last {
			t.Fatalf("event %s: want output at a time not before %v", sc.Text(), last)
		}
		last = at
		evs = append(evs, [3]any{at, code, data})
	}
	return h, evs
}

func TestExportCastIsAsciicastV2WithIdleGapsCut(t *testing.T) {
	s, err := Fold(session())
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteCast(&buf, s); err != nil {
		t.Fatal(err)
	}
	h, evs := readCast(t, buf.Bytes())
	if h["title"] != "Skillet session s-1" {
		t.Errorf("title %v", h["title"])
	}
	var all strings.Builder
	for _, e := range evs {
		all.WriteString(e[2].(string))
	}
	text := all.String()
	for _, want := range []string{"review <b>account</b> 4850", "→ load_skill {\"name\":\"account-review\"}", "▲ loaded account-review v2", "All fine", "again"} {
		if !strings.Contains(text, want) {
			t.Errorf("the cast lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "\x07") || strings.Contains(text, "\x1b]") {
		t.Errorf("an escape sequence of the journal reached the cast: %q", text)
	}
	if strings.Contains(strings.ReplaceAll(text, "\r\n", ""), "\n") {
		t.Errorf("a bare newline: a terminal would not return to the first column")
	}
	// the last turn came ten minutes later: the cast waits MaxGap
	end := evs[len(evs)-1][0].(float64)
	prev := evs[len(evs)-2][0].(float64)
	if gap := end - prev; gap > MaxGap.Seconds()+1e-9 || gap < MaxGap.Seconds()-1e-9 {
		t.Errorf("the ten-minute pause plays as %.3fs, want %v", gap, MaxGap)
	}
	// the 490 ms the first call took are kept
	var call, answer float64
	for _, e := range evs {
		if strings.Contains(e[2].(string), "→ load_skill") {
			answer = e[0].(float64)
		}
		if strings.Contains(e[2].(string), "review <b>") {
			call = e[0].(float64)
		}
	}
	if d := answer - call; d < 0.49 || d > 0.51 {
		t.Errorf("the reply came %.3fs after the message, want 0.5s as journaled", d)
	}
}

func TestExportFramesPerModelCall(t *testing.T) {
	s, err := Fold(session())
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Frames) != 2 {
		t.Fatalf("want 2 frames, got %+v", s.Frames)
	}
	f1, f2 := s.Frames[0], s.Frames[1]
	if len(f1.Loaded) != 0 || f1.Context != "" || len(f1.Tools) != 1 || f1.Tools[0].Name != "load_skill" {
		t.Errorf("frame 1: %+v", f1)
	}
	if len(f2.Loaded) != 1 || f2.Loaded[0].Name != "account-review" || !strings.HasPrefix(f2.Context, "<current_context>") ||
		!strings.HasSuffix(f2.Context, "</current_context>") {
		t.Errorf("frame 2: %+v", f2)
	}
	// the second turn's message belongs to no call of the first
	if f2.Until >= len(s.Entries) || s.Entries[f2.Until].Kind != "user" {
		t.Errorf("frame 2 brought entries up to %d of %+v", f2.Until, s.Entries)
	}
	if f1.Before >= f1.Until || f1.Until != f2.Before {
		t.Errorf("frames: %+v %+v", f1, f2)
	}
}

func TestExportHTMLHoldsNoExternalResourceAndNoLiveMarkup(t *testing.T) {
	s, err := Fold(session())
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteHTML(&buf, s); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, bad := range []string{"http://", "https://", "src=", "<link", "@import", "</script><script>alert"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q", bad)
		}
	}
	if strings.Count(page, "</script>") != 2 {
		t.Errorf("want the data and the page's script closed once each, got %d", strings.Count(page, "</script>"))
	}
}

func TestExportFoldRefusesWhatIsNoSession(t *testing.T) {
	if _, err := Fold(nil); err == nil || !strings.Contains(err.Error(), "not a session journal") {
		t.Errorf("no events: %v", err)
	}
	evs := session()[1:]
	if _, err := Fold(evs); err == nil || !strings.Contains(err.Error(), "turn_start, not session_start") {
		t.Errorf("no session_start: %v", err)
	}
}

// A journal cut in the middle of a turn still shares what it holds.
func TestExportTornJournal(t *testing.T) {
	evs := session()[:4] // the tool call never got its result
	s, err := Fold(evs)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Frames) != 1 || len(s.Problems) == 0 {
		t.Errorf("frames %d, problems %v: want one frame and the repair named", len(s.Frames), s.Problems)
	}
	var buf bytes.Buffer
	if err := WriteCast(&buf, s); err != nil {
		t.Fatal(err)
	}
	readCast(t, buf.Bytes())
}

func TestExportWrapKeepsIndentAndWidth(t *testing.T) {
	long := "    " + strings.Repeat("word ", 60)
	for _, l := range wrap(long, 40) {
		if n := len([]rune(l)); n > 40 || !strings.HasPrefix(l, "    ") {
			t.Errorf("line %q: %d runes", l, n)
		}
	}
	unbroken := strings.Repeat("x", 95)
	if got := wrap(unbroken, 40); len(got) != 3 || got[2] != strings.Repeat("x", 15) {
		t.Errorf("a word longer than the line: %q", got)
	}
}

// A session that never called the model still shares its transcript.
func TestExportSessionWithoutModelCalls(t *testing.T) {
	s, err := Fold(session()[:2])
	if err != nil {
		t.Fatal(err)
	}
	var page, cast bytes.Buffer
	if err := WriteHTML(&page, s); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), `"frames":[]`) || !strings.Contains(page.String(), `review \u003cb\u003eaccount`) {
		t.Errorf("page data: %.400s", page.String())
	}
	if err := WriteCast(&cast, s); err != nil {
		t.Fatal(err)
	}
	readCast(t, cast.Bytes())
}
