package tools

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCutOutput(t *testing.T) {
	if got := CutOutput("short", 10); got != "short" {
		t.Errorf("under the cap: %q", got)
	}
	if got := CutOutput("exactly10!", 10); got != "exactly10!" {
		t.Errorf("at the cap: %q", got)
	}
	got := CutOutput(strings.Repeat("a", 25), 10)
	if want := strings.Repeat("a", 10) + "\n[output cut: 15 of 25 bytes not shown]"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestCutOutput_KeepsWholeCharacters(t *testing.T) {
	s := strings.Repeat("ж", 10) // 2 bytes each
	got := CutOutput(s, 5)
	body, _, _ := strings.Cut(got, "\n[output cut")
	if body != "жж" || !utf8.ValidString(got) {
		t.Fatalf("got %q", got)
	}
	if !strings.Contains(got, "16 of 20 bytes") {
		t.Fatalf("note should count the bytes really cut: %q", got)
	}
}

func TestCutOutput_DefaultCap(t *testing.T) {
	s := strings.Repeat("x", DefaultMaxOutput+1000)
	got := CutOutput(s, 0)
	if !strings.HasPrefix(got, strings.Repeat("x", DefaultMaxOutput)+"\n[output cut: 1,000 of 66,536 bytes") {
		t.Fatalf("got ...%q", got[DefaultMaxOutput-5:])
	}
}

func TestHeadBuffer_CapsMemoryAndCutsWholeCharacters(t *testing.T) {
	h := &headBuffer{max: 7}
	for range 1000 {
		h.Write([]byte("€uro")) // 6 bytes: the cap falls inside the second €
	}
	if len(h.buf) != 7 {
		t.Fatalf("kept %d bytes, cap 7", len(h.buf))
	}
	got := h.String()
	if want := "€uro\n[output cut: 5,994 of 6,000 bytes not shown]"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestTailBuffer_KeepsTheEnd(t *testing.T) {
	tb := &tailBuffer{max: 10}
	tb.Write([]byte(strings.Repeat("noise ", 100)))
	tb.Write([]byte("the end"))
	if got := tb.Last(7); got != "the end" {
		t.Errorf("Last = %q", got)
	}
	got := tb.String()
	if want := "[first 597 of 607 bytes not shown]\nse the end"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestGroupDigits(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 4000000: "4,000,000", 123456: "123,456"} {
		if got := groupDigits(n); got != want {
			t.Errorf("groupDigits(%d) = %q, want %q", n, got, want)
		}
	}
}
