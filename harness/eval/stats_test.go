package eval

import (
	"math"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) < 5e-4 }

// Known Wilson 95 % intervals (z = 1.96), computed by hand from the formula.
func TestWilson_KnownValues(t *testing.T) {
	cases := []struct {
		k, n   int
		lo, hi float64
	}{
		{0, 3, 0, 0.5615},
		{3, 3, 0.4385, 1},
		{0, 4, 0, 0.4899},
		{4, 4, 0.5101, 1},
		{5, 10, 0.2366, 0.7634},
		{7, 10, 0.3968, 0.8922},
		{10, 10, 0.7225, 1},
		{1, 2, 0.0945, 0.9055},
	}
	for _, c := range cases {
		lo, hi := Wilson(c.k, c.n)
		if !near(lo, c.lo) || !near(hi, c.hi) {
			t.Errorf("Wilson(%d, %d) = [%.4f, %.4f], want [%.4f, %.4f]", c.k, c.n, lo, hi, c.lo, c.hi)
		}
	}
	if lo, hi := Wilson(0, 0); lo != 0 || hi != 1 {
		t.Errorf("no runs: [%v, %v]", lo, hi)
	}
}

func TestVerdict_UndeterminedWhileTheIntervalStraddles(t *testing.T) {
	cases := []struct {
		k, n   int
		should bool
		want   string
	}{
		{0, 3, false, VerdictUndetermined}, // [0, 0.56] straddles 0.5
		{3, 3, true, VerdictUndetermined},
		{4, 4, true, VerdictPass},
		{0, 4, false, VerdictPass},
		{0, 4, true, VerdictFail},
		{4, 4, false, VerdictFail},
		{9, 10, true, VerdictPass},
		{7, 10, true, VerdictUndetermined},
		{1, 10, true, VerdictFail},
		{0, 0, true, VerdictUndetermined},
	}
	for _, c := range cases {
		if got := Verdict(c.k, c.n, c.should); got != c.want {
			t.Errorf("Verdict(%d/%d, should=%v) = %s, want %s", c.k, c.n, c.should, got, c.want)
		}
	}
}

func TestPass_IsSkillCreatorsRule(t *testing.T) {
	if !Pass(0.5, true) || Pass(0.49, true) || Pass(0.5, false) || !Pass(0.33, false) {
		t.Error("pass rule differs from skill-creator's (≥ 0.5 should, < 0.5 should not)")
	}
}
