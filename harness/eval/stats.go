package eval

import (
	"math"
	"sync"
)

// Threshold is skill-creator's default trigger threshold: a
// should-trigger query passes at a rate of at least this, a should-not
// query below it.
const Threshold = 0.5

// z95 is the normal quantile of a two-sided 95 % interval.
const z95 = 1.959963984540054

// Verdicts of a query.
const (
	VerdictPass         = "pass"
	VerdictFail         = "fail"
	VerdictUndetermined = "undetermined"
	// VerdictError is a query whose runs kept failing before the model
	// decided: it has fewer scored runs than its plan needs.
	VerdictError = "error"
)

// Interval methods, as reports name them.
const (
	// IntervalWilson is the Wilson score interval, right for a fixed
	// number of runs.
	IntervalWilson = "wilson"
	// IntervalSequence is the beta-binomial mixture confidence sequence,
	// valid at whatever run the eval stops (--runs auto).
	IntervalSequence = "beta-binomial confidence sequence"
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

// Parameters of the confidence sequence.
const (
	// seqAlpha is its error: the sequence misses the true rate at any
	// run at all with probability at most this.
	seqAlpha = 0.05
	// seqPrior is a of the Beta(a, a) mixing prior. A small a puts the
	// weight near 0 and 1, where most trigger rates lie, so a query whose
	// runs all agree is decided after 6 runs (Jeffreys' ½ needs 7, the
	// uniform 8).
	seqPrior = 0.25
)

var seqCache sync.Map // [2]int{k, n} → [2]float64

// Sequence is the 95 % confidence sequence of a Bernoulli rate after k
// successes in n trials: Robbins' beta-binomial mixture martingale (Lai
// 1976; Howard et al. 2021, Ann. Statist. 49(2)). For each rate p the
// mixture M(p) = B(a+k, a+n-k) / B(a, a) / (p^k (1-p)^(n-k)) is a
// non-negative martingale under p, so by Ville's inequality it ever
// reaches 1/α with probability at most α; the interval is the rates
// where it has not. Unlike a fixed-n interval it stays valid when the
// eval looks after every run and stops once it is decided.
func Sequence(k, n int) (lo, hi float64) {
	if n <= 0 || k < 0 || k > n {
		return 0, 1
	}
	if v, ok := seqCache.Load([2]int{k, n}); ok {
		b := v.([2]float64)
		return b[0], b[1]
	}
	a := seqPrior
	kf, mf := float64(k), float64(n-k)
	mix := lbeta(a+kf, a+mf) - lbeta(a, a)
	limit := math.Log(1 / seqAlpha)
	// log M(p) is convex in p with its minimum at k/n, where it is below
	// 0 (a mixture never beats the best fit): bisect each side.
	logM := func(p float64) float64 {
		return mix - xlogy(kf, p) - xlogy(mf, 1-p)
	}
	phat := kf / float64(n)
	lo, hi = 0, 1
	if k > 0 {
		lo = bisect(logM, limit, 0, phat)
	}
	if k < n {
		hi = bisect(logM, limit, 1, phat)
	}
	seqCache.Store([2]int{k, n}, [2]float64{lo, hi})
	return lo, hi
}

// bisect finds the p between out (where f ≥ limit) and in (where f <
// limit) at which f crosses limit, rounded outward so the interval never
// narrows by rounding.
func bisect(f func(float64) float64, limit, out, in float64) float64 {
	for range 60 {
		mid := (out + in) / 2
		if f(mid) >= limit {
			out = mid
		} else {
			in = mid
		}
	}
	return out
}

func lbeta(a, b float64) float64 {
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	return la + lb - lab
}

// xlogy is x·log(y), 0 when x is 0.
func xlogy(x, y float64) float64 {
	if x == 0 {
		return 0
	}
	return x * math.Log(y)
}

// TriggerThreshold is the plan's trigger threshold, skill-creator's 0.5
// unless set.
func (p Plan) TriggerThreshold() float64 {
	if p.Threshold > 0 {
		return p.Threshold
	}
	return Threshold
}

func (p Plan) threshold() float64 { return p.TriggerThreshold() }

// Sequential reports whether the plan looks at its runs as they come
// (--runs auto), so its intervals must be a confidence sequence.
func (p Plan) Sequential() bool { return p.Runs == 0 }

// IntervalMethod names the interval the plan's verdicts use.
func (p Plan) IntervalMethod() string {
	if p.Sequential() {
		return IntervalSequence
	}
	return IntervalWilson
}

// Interval is the plan's 95 % interval of k in n: the confidence
// sequence when the eval stops on it, Wilson for a fixed count.
func (p Plan) Interval(k, n int) (lo, hi float64) {
	if p.Sequential() {
		return Sequence(k, n)
	}
	return Wilson(k, n)
}

// Verdict is pass or fail once the plan's interval of k in n lies on one
// side of its threshold, undetermined while it straddles it.
func (p Plan) Verdict(k, n int, shouldTrigger bool) string {
	if n == 0 {
		return VerdictUndetermined
	}
	lo, hi := p.Interval(k, n)
	return verdictOf(lo, hi, p.threshold(), shouldTrigger)
}

// Pass is skill-creator's rule at the plan's threshold.
func (p Plan) Pass(rate float64, shouldTrigger bool) bool {
	if shouldTrigger {
		return rate >= p.threshold()
	}
	return rate < p.threshold()
}

// CanFail reports whether a query could ever be given fail under the
// plan: at its largest run count, no trigger at all (a should-trigger
// row) or every run triggering (a should-not row) must put the interval
// on the wrong side of the threshold.
func (p Plan) CanFail() bool {
	n := p.Runs
	if p.Sequential() {
		n = p.MaxRuns
	}
	return p.Verdict(0, n, true) == VerdictFail || p.Verdict(n, n, false) == VerdictFail
}

// Pass is skill-creator's rule: rate ≥ 0.5 for a should-trigger query,
// < 0.5 for a should-not one.
func Pass(rate float64, shouldTrigger bool) bool {
	return Plan{}.Pass(rate, shouldTrigger)
}

// Verdict is the fixed-count verdict (Wilson interval, threshold 0.5) of
// k triggers in n runs.
func Verdict(k, n int, shouldTrigger bool) string {
	return Plan{Runs: max(n, 1)}.Verdict(k, n, shouldTrigger)
}

func verdictOf(lo, hi, threshold float64, shouldTrigger bool) string {
	above, below := lo >= threshold, hi < threshold
	switch {
	case above && shouldTrigger, below && !shouldTrigger:
		return VerdictPass
	case above, below:
		return VerdictFail
	}
	return VerdictUndetermined
}

// combine joins the trigger verdict with a row's routing check: error or
// fail if either is, else undetermined if either is.
func combine(a, b string) string {
	for _, v := range []string{VerdictError, VerdictFail, VerdictUndetermined} {
		if a == v || b == v {
			return v
		}
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
