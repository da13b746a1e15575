package bench_test

import (
	"math"
	"testing"

	"skillet/harness/bench"
)

func TestNewcombe_KnownValues(t *testing.T) {
	// Newcombe (1998), Statistics in Medicine 17:873–890, Table II,
	// method 10, examples (a), (b) and (h)
	for _, c := range []struct {
		k1, n1, k2, n2 int
		lo, hi         float64
	}{
		{56, 70, 48, 80, 0.0524, 0.3339},
		{9, 10, 3, 10, 0.1705, 0.8090},
		{10, 10, 0, 10, 0.6075, 1},
	} {
		_, lo, hi := bench.Newcombe(c.k1, c.n1, c.k2, c.n2)
		if math.Abs(lo-c.lo) > 6e-4 || math.Abs(hi-c.hi) > 6e-4 {
			t.Errorf("%d/%d − %d/%d: [%.4f, %.4f], want [%.4f, %.4f]", c.k1, c.n1, c.k2, c.n2, lo, hi, c.lo, c.hi)
		}
	}
}

func TestVerdictOf_OnlyAnIntervalExcludingZeroDecides(t *testing.T) {
	for _, c := range []struct {
		k1, k2 int
		want   string
	}{{5, 0, bench.VerdictHelps}, {0, 5, bench.VerdictHurts}, {3, 1, bench.VerdictNoEvidence}, {5, 5, bench.VerdictNoEvidence}, {4, 1, bench.VerdictNoEvidence}} {
		_, lo, hi := bench.Newcombe(c.k1, 5, c.k2, 5)
		if got := bench.VerdictOf(lo, hi); got != c.want {
			t.Errorf("%d/5 vs %d/5: [%.2f, %.2f] %s, want %s", c.k1, c.k2, lo, hi, got, c.want)
		}
	}
	d, lo, hi := bench.Newcombe(3, 5, 1, 5)
	t.Logf("3/5 vs 1/5: %+.2f [%+.2f, %+.2f]", d, lo, hi)
}

func TestSpreadOf_IsSkillCreatorsSampleStddev(t *testing.T) {
	s := bench.SpreadOf([]float64{0.8, 0.9, 0.85})
	if s.Mean != 0.85 || s.Stddev != 0.05 || s.Min != 0.8 || s.Max != 0.9 {
		t.Errorf("%+v", s)
	}
	if (bench.SpreadOf(nil) != bench.Spread{}) || bench.SpreadOf([]float64{3}).Stddev != 0 {
		t.Error("empty or single")
	}
}
