package eval

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"skillet/skills"
)

func TestSplit_StratifiedSixtyFortyFromTheSeed(t *testing.T) {
	var qs []Query
	for i := range 10 {
		qs = append(qs, Query{Query: fmt.Sprint(i), ShouldTrigger: i < 6})
	}
	train, val, err := Split(qs, 42)
	if err != nil {
		t.Fatal(err)
	}
	kinds := func(idx []int) (should, not int) {
		for _, i := range idx {
			if qs[i].ShouldTrigger {
				should++
			} else {
				not++
			}
		}
		return
	}
	if s, n := kinds(train); s != 4 || n != 3 {
		t.Errorf("train holds %d should and %d should-not, want 4 and 3 (40%% of each kind held out, rounded down)", s, n)
	}
	if s, n := kinds(val); s != 2 || n != 1 {
		t.Errorf("validation holds %d should and %d should-not", s, n)
	}
	again, _, _ := Split(qs, 42)
	other, _, _ := Split(qs, 43)
	if !slices.Equal(train, again) {
		t.Error("the same seed split differently")
	}
	if slices.Equal(train, other) {
		t.Error("another seed gave the same split (possible, but not with these numbers)")
	}
	// one of a kind: it goes to train
	tr, va, err := Split([]Query{{ShouldTrigger: true}, {ShouldTrigger: false}, {ShouldTrigger: false}}, 1)
	if err != nil || len(tr) != 2 || len(va) != 1 || !slices.Contains(tr, 0) {
		t.Errorf("small split: %v %v %v", tr, va, err)
	}
	if _, _, err := Split([]Query{{ShouldTrigger: true}}, 1); err == nil || !strings.Contains(err.Error(), "0 should not") {
		t.Errorf("one kind only: %v", err)
	}
}

func TestSetDescription_KeepsTheRestOfTheFile(t *testing.T) {
	text := "---\nname: alpha\ndescription: old one\nmetadata:\n  version: \"2\"\n---\n\n# Alpha\n\nBody: keep me.\n"
	out, err := SetDescription([]byte(text), "New: with a colon, and \"quotes\".")
	if err != nil {
		t.Fatal(err)
	}
	sk := skills.ParseSkill(out, "alpha")
	if sk.Description != "New: with a colon, and \"quotes\"." || sk.Version != "2" || !strings.Contains(sk.Body, "Body: keep me.") || sk.Name != "alpha" {
		t.Errorf("after the edit: %+v\n%s", sk, out)
	}
	if _, err := SetDescription([]byte("# no frontmatter\n"), "x"); err == nil {
		t.Error("a file without frontmatter was edited")
	}
}

func TestParseDescription_TakesTheTaggedText(t *testing.T) {
	if got := parseDescription("Sure!\n<new_description>\nUse it\n when X.\n</new_description>\nThanks"); got != "Use it when X." {
		t.Errorf("got %q", got)
	}
	if got := parseDescription("  bare answer "); got != "bare answer" {
		t.Errorf("got %q", got)
	}
}

func TestBeats_OnlyBeyondTheIntervals(t *testing.T) {
	score := func(k, n int) SplitScore {
		lo, hi := Wilson(k, n)
		return SplitScore{Correct: k, Runs: n, Accuracy: float64(k) / float64(n), Low: lo, High: hi}
	}
	if beats(score(9, 12), score(6, 12)) {
		t.Error("9/12 over 6/12 is within the noise and must not win")
	}
	if !beats(score(12, 12), score(6, 12)) {
		t.Error("12/12 over 6/12 should win")
	}
	if beats(score(2, 3), score(1, 3)) {
		t.Error("2/3 over 1/3 is within the noise at three runs")
	}
}
