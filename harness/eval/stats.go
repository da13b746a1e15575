package eval

import "math"

// Threshold is skill-creator's trigger threshold: a should-trigger query
// passes at a rate of at least this, a should-not query below it.
const Threshold = 0.5

// z95 is the normal quantile of a two-sided 95 % interval.
const z95 = 1.959963984540054

// Verdicts of a query.
const (
	VerdictPass         = "pass"
	VerdictFail         = "fail"
	VerdictUndetermined = "undetermined"
)

// Wilson is the Wilson score 95 % interval of k successes in n trials;
// [0, 1] when n is 0.
func Wilson(k, n int) (lo, hi float64) {
	if n <= 0 {
		return 0, 1
	}
	p := float64(k) / float64(n)
	nf := float64(n)
	z2 := z95 * z95
	den := 1 + z2/nf
	center := (p + z2/(2*nf)) / den
	half := z95 * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf)) / den
	return math.Max(0, center-half), math.Min(1, center+half)
}

// Pass is skill-creator's rule: rate ≥ 0.5 for a should-trigger query,
// < 0.5 for a should-not one.
func Pass(rate float64, shouldTrigger bool) bool {
	if shouldTrigger {
		return rate >= Threshold
	}
	return rate < Threshold
}

// Verdict is pass or fail once the interval of k in n lies on one side of
// the threshold, undetermined while it straddles it.
func Verdict(k, n int, shouldTrigger bool) string {
	if n == 0 {
		return VerdictUndetermined
	}
	lo, hi := Wilson(k, n)
	above, below := lo >= Threshold, hi < Threshold
	switch {
	case above && shouldTrigger, below && !shouldTrigger:
		return VerdictPass
	case above, below:
		return VerdictFail
	}
	return VerdictUndetermined
}

// combine joins the trigger verdict with a row's routing check: fail if
// either fails, else undetermined if either is.
func combine(a, b string) string {
	switch {
	case a == VerdictFail || b == VerdictFail:
		return VerdictFail
	case a == VerdictUndetermined || b == VerdictUndetermined:
		return VerdictUndetermined
	}
	return VerdictPass
}

// ratio is a/b, 0 when b is 0.
func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}
