package main

import (
	"strings"
	"testing"
)

// What `skillet run` prints to a new user: each turn's answer headed by
// its turn, Markdown's escapes as the characters they stand for, and the
// demo model's choice of skill named whatever the profile.

func TestRunHeadsEachTurnAndPrintsNoMarkdownEscapes(t *testing.T) {
	isolate(t)
	code, out, errOut := runBinary(t, "run", "--offline", "review account ACC-1042 for anomalies", "run the release checks for v1.4.0")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	first := strings.Index(out, "── turn 1: review account ACC-1042 for anomalies\n")
	second := strings.Index(out, "\n\n── turn 2: run the release checks for v1.4.0\n")
	if first != 0 || second < 0 {
		t.Fatalf("the turns' answers are not headed apart:\n%s", out)
	}
	if strings.Contains(out, `\_`) || !strings.Contains(out, "--approve run_checks") {
		t.Fatalf("Markdown escapes in the plain output:\n%s", out)
	}
	// one message: the answer alone, as scripts read it
	_, out, _ = runBinary(t, "run", "--offline", "review account ACC-1042 for anomalies")
	if !strings.HasPrefix(out, "[demo model] ") {
		t.Fatalf("a single answer is headed:\n%s", out)
	}
}

func TestUnescapeMarkdownLeavesCodeAlone(t *testing.T) {
	for in, want := range map[string]string{
		`run\_checks and \*bold\*`:                  `run_checks and *bold*`,
		"`a\\_b` stays, c\\_d does not":             "`a\\_b` stays, c_d does not",
		"```\nx\\_y\n```\nz\\_w":                    "```\nx\\_y\n```\nz_w",
		`a \d is no escape, \\ is one`:              `a \d is no escape, \ is one`,
		"``code with ` inside\\_`` then e\\_f done": "``code with ` inside\\_`` then e_f done",
	} {
		if got := unescapeMarkdown(in); got != want {
			t.Errorf("unescapeMarkdown(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDemoModelPicksMeetingNotesForADecisionAndSaysWhatItActivated(t *testing.T) {
	isolate(t)
	_, out, errOut := runBinary(t, "run", "--offline", "what did we decide on friday?")
	if !strings.Contains(out, "loaded meeting-notes") {
		t.Fatalf("the demo model did not load meeting-notes:\n%s%s", out, errOut)
	}
	_, out, errOut = runBinary(t, "run", "--offline", "--profile", "claude-code", "what did we decide on friday?")
	if !strings.Contains(out, "Activated `meeting-notes` with `Skill`.") {
		t.Fatalf("under claude-code the answer does not say which skill it activated:\n%s%s", out, errOut)
	}
}
