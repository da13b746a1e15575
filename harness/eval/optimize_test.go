package eval

import (
	"fmt"
	"math"
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

func TestCompare_PairsTheQueries(t *testing.T) {
	// iteration of should-trigger validation queries with these
	// triggers, each of runs runs
	iter := func(n, runs int, triggers ...int) Iteration {
		it := Iteration{N: n}
		for i, k := range triggers {
			it.Queries = append(it.Queries, IterQuery{Index: i, Should: true, Split: SplitValidation, Triggers: k, Runs: runs})
		}
		return it
	}
	if z := normalQuantile(0.975); math.Abs(z-z95) > 1e-9 {
		t.Fatalf("normal quantile %v", z)
	}
	for _, c := range []struct {
		name      string
		cand, inc Iteration
		tries     int
		wins      bool
	}{
		{"two queries fixed, 3 of 3 from 0 of 3", iter(1, 3, 3, 3, 3), iter(0, 3, 0, 0, 3), 5, true},
		{"one query fixed, among five tries", iter(1, 3, 3, 3), iter(0, 3, 0, 3), 5, false},
		{"one query fixed, the only try", iter(1, 3, 3, 3), iter(0, 3, 0, 3), 1, true},
		{"9 of 12 over 6 of 12 is noise", iter(1, 12, 9), iter(0, 12, 6), 5, false},
		{"12 of 12 over 6 of 12", iter(1, 12, 12), iter(0, 12, 6), 5, true},
		{"the same counts", iter(1, 3, 2, 1), iter(0, 3, 2, 1), 1, false},
		// pooled, 6/9 beats 3/9; paired, one query lost where one was won
		{"a gain bought with a loss", iter(1, 3, 3, 0, 3), iter(0, 3, 0, 3, 3), 1, false},
	} {
		pt := compare(c.cand, c.inc, c.tries)
		if pt.Wins != c.wins {
			t.Errorf("%s: z %.2f, needed %.2f, wins %v; want %v", c.name, pt.Z, pt.Needed, pt.Wins, c.wins)
		}
	}
}
