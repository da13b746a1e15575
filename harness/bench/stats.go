package bench

import (
	"math"

	"skillet/harness/eval"
)

// Verdicts of an eval and of a skill.
const (
	VerdictHelps      = "helps"
	VerdictHurts      = "hurts"
	VerdictNoEvidence = "no evidence"
	// VerdictError is an eval that has no scored runs in a configuration.
	VerdictError = "error"
)

// Newcombe is the 95 % interval of p1 − p2, two independent proportions
// k1/n1 and k2/n2, by Newcombe's hybrid score method (his method 10):
// it combines the Wilson intervals of each and keeps its coverage near
// 95 % at the small counts of a benchmark, where the Wald interval of the
// difference collapses to a point at 0/n against n/n.
func Newcombe(k1, n1, k2, n2 int) (d, lo, hi float64) {
	if n1 == 0 || n2 == 0 {
		return 0, -1, 1
	}
	p1, p2 := float64(k1)/float64(n1), float64(k2)/float64(n2)
	l1, u1 := eval.Wilson(k1, n1)
	l2, u2 := eval.Wilson(k2, n2)
	d = p1 - p2
	lo = d - math.Sqrt((p1-l1)*(p1-l1)+(u2-p2)*(u2-p2))
	hi = d + math.Sqrt((u1-p1)*(u1-p1)+(p2-l2)*(p2-l2))
	return d, math.Max(-1, lo), math.Min(1, hi)
}

// VerdictOf says what a delta's interval shows: helps or hurts only when
// it excludes 0.
func VerdictOf(lo, hi float64) string {
	switch {
	case lo > 0:
		return VerdictHelps
	case hi < 0:
		return VerdictHurts
	}
	return VerdictNoEvidence
}

// Spread is skill-creator's summary of a measure over runs.
type Spread struct {
	Mean   float64 `json:"mean"`
	Stddev float64 `json:"stddev"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
}

// SpreadOf summarizes values: the mean and the sample standard deviation
// (n − 1, as skill-creator's aggregate_benchmark computes it).
func SpreadOf(vals []float64) Spread {
	if len(vals) == 0 {
		return Spread{}
	}
	s := Spread{Min: vals[0], Max: vals[0]}
	for _, v := range vals {
		s.Mean += v
		s.Min, s.Max = math.Min(s.Min, v), math.Max(s.Max, v)
	}
	s.Mean /= float64(len(vals))
	if len(vals) > 1 {
		var ss float64
		for _, v := range vals {
			ss += (v - s.Mean) * (v - s.Mean)
		}
		s.Stddev = math.Sqrt(ss / float64(len(vals)-1))
	}
	s.Mean, s.Stddev, s.Min, s.Max = round4(s.Mean), round4(s.Stddev), round4(s.Min), round4(s.Max)
	return s
}

func round4(v float64) float64 { return math.Round(v*1e4) / 1e4 }
