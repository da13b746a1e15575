package termtext

import (
	"strings"
	"testing"
)

func TestWrapKeepsNamesWhole(t *testing.T) {
	for w := 12; w < 40; w++ {
		for _, l := range Wrap("delivered house-style, account-review · loaded account-review", w) {
			if strings.HasSuffix(l, "-") {
				t.Fatalf("width %d broke a name: %q", w, l)
			}
		}
	}
}

// Wide characters and escape codes count as they draw: a fitted line is
// exactly its width, a wrapped one at most.
func TestFitAndWrapCountCells(t *testing.T) {
	for _, s := range []string{"plain text", "中文字符的宽度", "\x1b[1mbold\x1b[0m and more", "emoji 🙂🙂 here"} {
		for w := 1; w < 20; w++ {
			if got := Width(Fit(s, w)); got != w {
				t.Errorf("Fit(%q, %d) is %d wide", s, w, got)
			}
			if c := Clip(s, w); Width(c) > w {
				t.Errorf("Clip(%q, %d) is %d wide", s, w, Width(c))
			}
			for _, l := range Wrap(s, w) {
				if Width(l) > w {
					t.Errorf("Wrap(%q, %d) drew %q, %d wide", s, w, l, Width(l))
				}
			}
		}
	}
}

func TestSanitizeDropsEscapesAndControls(t *testing.T) {
	for in, want := range map[string]string{
		"plain\nlines":                         "plain\nlines",
		"\x1b[31mred\x1b[0m":                   "red",
		"tab\there":                            "tab    here",
		"cr\r\nlf":                             "cr\nlf",
		"bell\x07 and del\x7f":                 "bell and del",
		"c1 \u009b31m csi":                     "c1 31m csi",
		"\x1b]8;;http://x\x07link\x1b]8;;\x07": "link",
	} {
		if got := Sanitize(in); got != want {
			t.Errorf("Sanitize(%q) = %q, want %q", in, got, want)
		}
	}
}
