package eval

import (
	"math"
	"math/rand/v2"
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

// Known points of the confidence sequence: a unanimous query is decided
// after 6 runs, not before, and a coin flip's 4 of 4 is not.
func TestSequence_DecidesUnanimousQueriesAfterSixRuns(t *testing.T) {
	auto := Plan{MinRuns: 3, MaxRuns: 10}
	for n := 1; n <= 5; n++ {
		if v := auto.Verdict(n, n, true); v != VerdictUndetermined {
			t.Errorf("%d of %d: %s, want undetermined", n, n, v)
		}
	}
	if v := auto.Verdict(6, 6, true); v != VerdictPass {
		t.Errorf("6 of 6: %s, want pass", v)
	}
	if v := auto.Verdict(0, 6, true); v != VerdictFail {
		t.Errorf("0 of 6: %s, want fail", v)
	}
	if v := auto.Verdict(9, 10, true); v != VerdictUndetermined {
		t.Errorf("9 of 10: %s, want undetermined", v)
	}
	// wider than Wilson at every n, and it holds the observed rate
	for n := 1; n <= 30; n++ {
		for k := 0; k <= n; k++ {
			lo, hi := Sequence(k, n)
			wlo, whi := Wilson(k, n)
			p := float64(k) / float64(n)
			if lo > p || hi < p || lo > wlo+1e-9 || hi < whi-1e-9 || lo < 0 || hi > 1 {
				t.Fatalf("Sequence(%d, %d) = [%.4f, %.4f], Wilson [%.4f, %.4f]", k, n, lo, hi, wlo, whi)
			}
		}
	}
	if auto.IntervalMethod() != IntervalSequence || (Plan{Runs: 5}).IntervalMethod() != IntervalWilson {
		t.Error("interval methods")
	}
}

// simulate runs evals of one query with true rate p under a stopping
// rule: after each run, stop unless needs says otherwise. It returns the
// share of evals whose interval at the stop covered p, the share of
// pass and fail verdicts of a should-trigger row, and the mean runs.
func simulate(rng *rand.Rand, p float64, evals int, interval func(k, n int) (float64, float64), needs func(k, n int) bool) (cover, pass, fail, runs float64) {
	for range evals {
		k, n := 0, 0
		for {
			n++
			if rng.Float64() < p {
				k++
			}
			if !needs(k, n) {
				break
			}
		}
		lo, hi := interval(k, n)
		if lo <= p && p <= hi {
			cover++
		}
		switch verdictOf(lo, hi, Threshold, true) {
		case VerdictPass:
			pass++
		case VerdictFail:
			fail++
		}
		runs += float64(n)
	}
	e := float64(evals)
	return cover / e, pass / e, fail / e, runs / e
}

// With --runs auto the eval looks after every run and stops once decided:
// the reported interval must still cover the true rate 95 % of the time,
// and a verdict on the wrong side of the threshold must stay rare. The
// old rule (Wilson at every look) is run beside it to show the check can
// fail.
func TestSequence_CoverageHoldsWhereverAutoStops(t *testing.T) {
	const evals = 4000
	rng := rand.New(rand.NewPCG(22, 1))
	for _, most := range []int{10, 20} {
		auto := Plan{MinRuns: 3, MaxRuns: most}
		needs := func(k, n int) bool { return auto.Needs(n, auto.Verdict(k, n, true)) }
		t.Logf("| rate | coverage | pass | fail | mean runs |  (--runs auto --max-runs %d, %d evals each)", most, evals)
		for _, p := range []float64{0.1, 0.2, 0.3, 0.4, 0.45, 0.5, 0.55, 0.6, 0.7, 0.8, 0.9} {
			cover, pass, fail, runs := simulate(rng, p, evals, Sequence, needs)
			t.Logf("| %.2f | %.3f | %.3f | %.3f | %.1f |", p, cover, pass, fail, runs)
			if cover < 0.95 {
				t.Errorf("max %d, rate %.2f: the interval covered it in %.3f of evals, want ≥ 0.95", most, p, cover)
			}
			switch {
			case p < Threshold && pass > 0.035:
				t.Errorf("max %d, rate %.2f: passed in %.3f of evals, want ≤ 0.035", most, p, pass)
			case p > Threshold && fail > 0.035:
				t.Errorf("max %d, rate %.2f: failed in %.3f of evals, want ≤ 0.035", most, p, fail)
			}
		}
	}
	auto := Plan{MinRuns: 3, MaxRuns: 10}
	// a coin flip no longer passes from 4 of 4
	if v := auto.Verdict(4, 4, true); v != VerdictUndetermined {
		t.Errorf("4 of 4 under auto: %s", v)
	}
	// the old rule: Wilson after every run
	old := func(k, n int) bool {
		return n < 10 && (n < 3 || Verdict(k, n, true) == VerdictUndetermined)
	}
	cover, pass, _, _ := simulate(rng, 0.5, evals, Wilson, old)
	t.Logf("old rule at 0.50: coverage %.3f, pass %.3f", cover, pass)
	if cover >= 0.9 || pass < 0.05 {
		t.Errorf("the old rule covered 0.5 in %.3f and passed %.3f: the simulation does not tell the rules apart", cover, pass)
	}
}

func TestPlan_CanFail(t *testing.T) {
	for _, c := range []struct {
		plan Plan
		want bool
	}{
		{Plan{Runs: 3}, false},
		{Plan{Runs: 4}, true},
		{Plan{Runs: 3, Threshold: 0.7}, true}, // 0 of 3: [0, 0.56] lies below 0.7
		{Plan{MinRuns: 3, MaxRuns: 5}, false},
		{Plan{MinRuns: 3, MaxRuns: 10}, true},
	} {
		if got := c.plan.CanFail(); got != c.want {
			t.Errorf("%+v: CanFail %v, want %v", c.plan, got, c.want)
		}
	}
}
