package eval

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"unicode/utf8"
)

// MaxIterations is the most improvement rounds --optimize makes.
const MaxIterations = 5

// Splits of the optimizer's queries.
const (
	SplitTrain      = "train"
	SplitValidation = "validation"
	// SplitHeldOut are the queries of the final check, seen neither by
	// the improver nor by the selection.
	SplitHeldOut = "held_out"
)

// HoldOut picks the queries of the final held-out check: a tenth of each
// kind, rounded down, once the kind has ten queries (none before: the
// validation split needs them more), shuffled from seed.
func HoldOut(queries []Query, seed int64) []int {
	var should, shouldNot []int
	for i, q := range queries {
		if q.ShouldTrigger {
			should = append(should, i)
		} else {
			shouldNot = append(shouldNot, i)
		}
	}
	rng := rand.New(rand.NewPCG(uint64(seed), 0x401d))
	var held []int
	for _, group := range [][]int{should, shouldNot} {
		rng.Shuffle(len(group), func(i, j int) { group[i], group[j] = group[j], group[i] })
		held = append(held, group[:len(group)/10]...)
	}
	slices.Sort(held)
	return held
}

// Split divides one skill's queries 60/40 into train and validation,
// stratified by should_trigger and shuffled from seed, with at least one
// query of each kind in train. It returns indices into queries, and an
// error when one kind has no query at all.
func Split(queries []Query, seed int64) (train, validation []int, err error) {
	var should, shouldNot []int
	for i, q := range queries {
		if q.ShouldTrigger {
			should = append(should, i)
		} else {
			shouldNot = append(shouldNot, i)
		}
	}
	if len(should) == 0 || len(shouldNot) == 0 {
		return nil, nil, fmt.Errorf("--optimize needs queries of both kinds: %d should trigger, %d should not; add near-miss should-not rows and should rows", len(should), len(shouldNot))
	}
	rng := rand.New(rand.NewPCG(uint64(seed), 0x5eed))
	for _, group := range [][]int{should, shouldNot} {
		rng.Shuffle(len(group), func(i, j int) { group[i], group[j] = group[j], group[i] })
		// as skill-creator: 40 % (rounded down, at least one) held out,
		// except that a lone query of its kind stays in train
		held := len(group) * 4 / 10
		if len(group) > 1 {
			held = max(1, held)
		}
		n := len(group) - held
		train = append(train, group[:n]...)
		validation = append(validation, group[n:]...)
	}
	slices.Sort(train)
	slices.Sort(validation)
	return train, validation, nil
}

// SplitScore is one description's score on one split: run-level
// accuracy (runs that did what the row wants) with its interval, and the
// query pass count.
type SplitScore struct {
	Correct  int     `json:"correct"`
	Runs     int     `json:"runs"`
	Accuracy float64 `json:"accuracy"`
	Low      float64 `json:"interval_low"`
	High     float64 `json:"interval_high"`
	Passed   int     `json:"passed"`
	Queries  int     `json:"queries"`
}

// IterQuery is one query's result in one iteration.
type IterQuery struct {
	Index    int     `json:"index"`
	Query    string  `json:"query"`
	Should   bool    `json:"should_trigger"`
	Split    string  `json:"split"`
	Rate     float64 `json:"trigger_rate"`
	Triggers int     `json:"triggers"`
	Runs     int     `json:"runs"`
	Pass     bool    `json:"pass"`
	Verdict  string  `json:"verdict"`
}

// Iteration is one description tried.
type Iteration struct {
	N           int         `json:"iteration"`
	Description string      `json:"description"`
	Train       SplitScore  `json:"train"`
	Validation  SplitScore  `json:"validation"`
	HeldOut     SplitScore  `json:"held_out"`
	Queries     []IterQuery `json:"queries"`
	// Dir is the iteration's eval folder.
	Dir string `json:"dir"`
	// Note says why an iteration was not evaluated, or how it was asked.
	Note string `json:"note,omitempty"`
	Best bool   `json:"best"`
	// Paired is its comparison with the best description before it.
	Paired *Paired `json:"paired,omitempty"`
}

// Paired is a candidate's paired comparison with the incumbent on the
// validation queries: each query is compared with itself, so a query
// that is easy for both does not hide a loss on another.
type Paired struct {
	// Against is the incumbent's iteration.
	Against int `json:"against"`
	// Z is the one-sided Cochran–Mantel–Haenszel statistic over the
	// queries, Needed the value it must reach: the 95 % normal quantile
	// with the error split over every candidate the run may try.
	Z      float64 `json:"z"`
	Needed float64 `json:"needed"`
	// Queries counts the queries that tell the two apart at all (runs of
	// both outcomes).
	Queries int  `json:"queries"`
	Wins    bool `json:"wins"`
}

// Optimization is the outcome of --optimize: Skillet's fields, then
// skill-creator's run_loop.py output beside them (original_description,
// best_description, history, …), so its generate_report.py reads it.
type Optimization struct {
	Skill      string `json:"skill"`
	Original   string `json:"original"`
	Best       string `json:"best"`
	BestIter   int    `json:"best_iteration"`
	Improved   bool   `json:"improved"`
	Train      []int  `json:"train"`
	Validation []int  `json:"validation"`
	// HeldOut are the queries of the final check, and HeldOutCheck how
	// the original and the best did on them.
	HeldOut      []int         `json:"held_out"`
	HeldOutCheck *HeldOutCheck `json:"held_out_check,omitempty"`
	Iterations   []Iteration   `json:"iterations"`
	Stopped      string        `json:"stopped,omitempty"`

	ExitReason          string    `json:"exit_reason"`
	OriginalDescription string    `json:"original_description"`
	BestDescription     string    `json:"best_description"`
	BestScore           string    `json:"best_score"`
	BestTrainScore      string    `json:"best_train_score"`
	BestTestScore       *string   `json:"best_test_score"`
	FinalDescription    string    `json:"final_description"`
	IterationsRun       int       `json:"iterations_run"`
	Holdout             float64   `json:"holdout"`
	TrainSize           int       `json:"train_size"`
	TestSize            int       `json:"test_size"`
	History             []History `json:"history"`
}

// HeldOutCheck is the final check on queries neither the improver nor
// the selection saw: whether the winner's gain holds beyond them.
type HeldOutCheck struct {
	Original SplitScore `json:"original"`
	Best     SplitScore `json:"best"`
}

// History is one scored iteration as skill-creator's run_loop.py records
// it: validation is its "test" split.
type History struct {
	Iteration    int          `json:"iteration"`
	Description  string       `json:"description"`
	TrainPassed  int          `json:"train_passed"`
	TrainFailed  int          `json:"train_failed"`
	TrainTotal   int          `json:"train_total"`
	TrainResults []HistoryRow `json:"train_results"`
	TestPassed   *int         `json:"test_passed"`
	TestFailed   *int         `json:"test_failed"`
	TestTotal    *int         `json:"test_total"`
	TestResults  []HistoryRow `json:"test_results"`
	// Passed, Failed, Total and Results repeat the train split, as
	// run_loop.py does for its report generator.
	Passed  int          `json:"passed"`
	Failed  int          `json:"failed"`
	Total   int          `json:"total"`
	Results []HistoryRow `json:"results"`
}

// HistoryRow is one query of a History split: run_eval.py's row.
type HistoryRow struct {
	Query         string  `json:"query"`
	ShouldTrigger bool    `json:"should_trigger"`
	TriggerRate   float64 `json:"trigger_rate"`
	Triggers      int     `json:"triggers"`
	Runs          int     `json:"runs"`
	Pass          bool    `json:"pass"`
}

// fillSkillCreator sets skill-creator's fields from Skillet's.
func (o *Optimization) fillSkillCreator() {
	o.OriginalDescription, o.BestDescription = o.Original, o.Best
	o.Holdout = 0.4
	o.TrainSize, o.TestSize = len(o.Train), len(o.Validation)
	o.History = []History{}
	for _, it := range o.Iterations {
		if it.Note != "" && it.Train.Runs == 0 {
			continue // never scored
		}
		h := History{Iteration: it.N, Description: it.Description, TrainResults: []HistoryRow{}}
		var test []HistoryRow
		var tp, tt int
		for _, q := range it.Queries {
			row := HistoryRow{Query: q.Query, ShouldTrigger: q.Should, TriggerRate: q.Rate, Triggers: q.Triggers, Runs: q.Runs, Pass: q.Pass}
			if q.Split == SplitTrain {
				h.TrainResults = append(h.TrainResults, row)
				h.TrainTotal++
				if q.Pass {
					h.TrainPassed++
				}
				continue
			}
			if q.Split != SplitValidation {
				continue // run_loop.py has no held-out split
			}
			test = append(test, row)
			tt++
			if q.Pass {
				tp++
			}
		}
		h.TrainFailed = h.TrainTotal - h.TrainPassed
		h.Passed, h.Failed, h.Total, h.Results = h.TrainPassed, h.TrainFailed, h.TrainTotal, h.TrainResults
		if tt > 0 {
			tf := tt - tp
			h.TestPassed, h.TestFailed, h.TestTotal, h.TestResults = &tp, &tf, &tt, test
		}
		o.History = append(o.History, h)
		o.FinalDescription = it.Description
		if it.N == o.BestIter {
			o.BestTrainScore = fmt.Sprintf("%d/%d", h.TrainPassed, h.TrainTotal)
			o.BestScore = o.BestTrainScore
			if tt > 0 {
				s := fmt.Sprintf("%d/%d", tp, tt)
				o.BestScore, o.BestTestScore = s, &s
			}
		}
	}
	o.IterationsRun = len(o.History)
	switch {
	case o.Stopped != "":
		o.ExitReason = "stopped: " + o.Stopped
	case o.ExitReason == "":
		o.ExitReason = fmt.Sprintf("max_iterations (%d)", len(o.Iterations)-1)
	}
}

// Optimizer runs the description loop: score the original, then up to
// Iterations times ask the improver for a new description from the train
// failures alone, score it, and keep the best by validation.
type Optimizer struct {
	Skill      string
	Original   string
	Body       string
	Queries    []Query
	Seed       int64
	Iterations int
	// Evaluate scores a description over all the queries (the caller runs
	// an eval); dir is where its runs went.
	Evaluate func(ctx context.Context, iter int, desc string) (rep *Report, dir string, stopped string, err error)
	// Improve asks the improver model; it returns the model's answer.
	Improve func(ctx context.Context, prompt string) (string, error)
	// Log tells the user what happens.
	Log func(format string, args ...any)
}

// Run runs the loop.
func (o *Optimizer) Run(ctx context.Context) (*Optimization, error) {
	held := HoldOut(o.Queries, o.Seed)
	var rest []Query
	var restIdx []int
	for i, q := range o.Queries {
		if !slices.Contains(held, i) {
			rest, restIdx = append(rest, q), append(restIdx, i)
		}
	}
	tr, va, err := Split(rest, o.Seed)
	if err != nil {
		return nil, err
	}
	var train, val []int
	for _, i := range tr {
		train = append(train, restIdx[i])
	}
	for _, i := range va {
		val = append(val, restIdx[i])
	}
	out := &Optimization{Skill: o.Skill, Original: o.Original, Best: o.Original, Train: train, Validation: val, HeldOut: append([]int{}, held...)}
	iters := min(max(o.Iterations, 1), MaxIterations)
	first, err := o.score(ctx, 0, o.Original, train, val, held)
	if err != nil {
		return nil, err
	}
	out.Iterations = append(out.Iterations, first)
	if first.Note != "" {
		out.Stopped = first.Note
		out.Iterations[0].Best = true
		out.fillSkillCreator()
		return out, nil
	}
	best := 0
	stuck := false
	for n := 1; n <= iters && ctx.Err() == nil; n++ {
		prompt := o.prompt(out.Iterations, stuck)
		desc, note, err := o.ask(ctx, prompt)
		if err != nil {
			out.Stopped = "improver: " + err.Error()
			break
		}
		if note == "" {
			// the same text scored again would only add noise: one of two
			// equal descriptions could win by luck
			for _, prev := range out.Iterations {
				if prev.Description == desc {
					note = fmt.Sprintf("the same description as iteration %d: not scored again", prev.N)
					break
				}
			}
		}
		if note != "" {
			out.Iterations = append(out.Iterations, Iteration{N: n, Description: desc, Note: note})
			o.Log("iteration %d: %s", n, note)
			stuck = true
			continue
		}
		it, err := o.score(ctx, n, desc, train, val, held)
		if err != nil {
			return nil, err
		}
		out.Iterations = append(out.Iterations, it)
		if it.Note != "" {
			out.Stopped = it.Note
			break
		}
		o.Log("iteration %d: train %d/%d runs, validation %d/%d runs", n, it.Train.Correct, it.Train.Runs, it.Validation.Correct, it.Validation.Runs)
		inc := out.Iterations[best]
		stuck = it.Train.Accuracy <= bestTrain(out.Iterations[:len(out.Iterations)-1])
		pt := compare(out.Iterations[len(out.Iterations)-1], inc, iters)
		out.Iterations[len(out.Iterations)-1].Paired = &pt
		if pt.Wins {
			best = len(out.Iterations) - 1
		}
		if it.Train.Correct == it.Train.Runs && it.Validation.Correct == it.Validation.Runs {
			out.ExitReason = fmt.Sprintf("all_passed (iteration %d)", n)
			break // nothing left to fix
		}
	}
	out.Iterations[best].Best = true
	out.Best, out.BestIter = out.Iterations[best].Description, out.Iterations[best].N
	out.Improved = best != 0
	if len(held) > 0 {
		out.HeldOutCheck = &HeldOutCheck{Original: out.Iterations[0].HeldOut, Best: out.Iterations[best].HeldOut}
	}
	out.fillSkillCreator()
	return out, nil
}

// compare tests whether a candidate does better than the incumbent on
// the validation queries, query by query: the Cochran–Mantel–Haenszel
// test with each query a stratum (its runs are independent given the
// query and the description; the queries are not alike). It wins when
// the statistic clears the one-sided 95 % quantile with the error split
// over the candidates (Bonferroni), so trying five descriptions does not
// give five chances for noise to win.
func compare(cand, inc Iteration, candidates int) Paired {
	pt := Paired{Against: inc.N, Needed: normalQuantile(1 - 0.05/float64(max(candidates, 1)))}
	var num, variance float64
	for _, c := range cand.Queries {
		if c.Split != SplitValidation {
			continue
		}
		i := slices.IndexFunc(inc.Queries, func(q IterQuery) bool { return q.Index == c.Index })
		if i < 0 {
			continue
		}
		a, n := correct(c), float64(c.Runs)
		b, m := correct(inc.Queries[i]), float64(inc.Queries[i].Runs)
		t, k := n+m, a+b
		if n == 0 || m == 0 || t < 2 || k == 0 || k == t {
			continue // this query cannot tell them apart
		}
		pt.Queries++
		num += a - n*k/t
		variance += n * m * k * (t - k) / (t * t * (t - 1))
	}
	if variance > 0 {
		pt.Z = num / math.Sqrt(variance)
	}
	pt.Wins = pt.Z >= pt.Needed
	return pt
}

// correct is how many of a query's runs did what its row wants.
func correct(q IterQuery) float64 {
	if q.Should {
		return float64(q.Triggers)
	}
	return float64(q.Runs - q.Triggers)
}

// normalQuantile is the standard normal's p quantile, by bisection.
func normalQuantile(p float64) float64 {
	lo, hi := -10.0, 10.0
	for range 100 {
		mid := (lo + hi) / 2
		if 0.5*math.Erfc(-mid/math.Sqrt2) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

func bestTrain(its []Iteration) float64 {
	b := -1.0
	for _, it := range its {
		if it.Note == "" && it.Train.Accuracy > b {
			b = it.Train.Accuracy
		}
	}
	return b
}

func (o *Optimizer) score(ctx context.Context, n int, desc string, train, val, held []int) (Iteration, error) {
	rep, dir, stopped, err := o.Evaluate(ctx, n, desc)
	if err != nil {
		return Iteration{}, err
	}
	it := Iteration{N: n, Description: desc, Dir: dir, Note: stopped}
	var tr, va, ho SplitScore
	for _, s := range rep.Arms[0].Skills {
		if s.Name != o.Skill {
			continue
		}
		for _, q := range s.Queries {
			split, sc := SplitTrain, &tr
			switch {
			case slices.Contains(val, q.Index):
				split, sc = SplitValidation, &va
			case slices.Contains(held, q.Index):
				split, sc = SplitHeldOut, &ho
			}
			correct := q.Triggers
			if !q.ShouldTrigger {
				correct = q.Runs - q.Triggers
			}
			sc.Correct += correct
			sc.Runs += q.Runs
			sc.Queries++
			if q.Pass {
				sc.Passed++
			}
			it.Queries = append(it.Queries, IterQuery{Index: q.Index, Query: q.Query, Should: q.ShouldTrigger, Split: split, Rate: q.TriggerRate,
				Triggers: q.Triggers, Runs: q.Runs, Pass: q.Pass, Verdict: q.Verdict})
		}
	}
	for _, sc := range []*SplitScore{&tr, &va, &ho} {
		sc.Accuracy = ratio(float64(sc.Correct), float64(sc.Runs))
		sc.Low, sc.High = Wilson(sc.Correct, sc.Runs)
	}
	it.Train, it.Validation, it.HeldOut = tr, va, ho
	return it, nil
}

// ImproverMarker begins the improver's system message.
const ImproverMarker = "You improve the description of an agent skill."

// prompt is the improver's request: the skill, the descriptions tried
// with their train results only, and the train failures of the latest.
func (o *Optimizer) prompt(its []Iteration, stuck bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Skill: %s\n\nWhat the skill does (its instructions, abridged):\n%s\n\n", o.Skill, clipText(o.Body, 2000))
	last := its[len(its)-1]
	for i := len(its) - 1; i >= 0; i-- {
		if its[i].Note == "" {
			last = its[i]
			break
		}
	}
	fmt.Fprintf(&b, "Current description:\n%s\n\nHow it did on the training queries (each run is a fresh conversation over all the skills):\n", last.Description)
	for _, q := range last.Queries {
		if q.Split != SplitTrain {
			continue
		}
		status := "ok"
		if !q.Pass {
			status = "FAILED"
		}
		want := "should load the skill"
		if !q.Should {
			want = "should NOT load the skill"
		}
		fmt.Fprintf(&b, "- [%s] %s; loaded in %.0f%% of runs: %q\n", status, want, 100*q.Rate, q.Query)
	}
	if len(its) > 1 {
		b.WriteString("\nDescriptions tried so far, with their training accuracy:\n")
		for _, it := range its {
			if it.Note != "" {
				fmt.Fprintf(&b, "- (rejected: %s) %q\n", it.Note, clipText(it.Description, 300))
				continue
			}
			fmt.Fprintf(&b, "- %.0f%%: %q\n", 100*it.Train.Accuracy, it.Description)
		}
	}
	if stuck {
		b.WriteString("\nThe last attempt did not do better. Write a structurally different description: another opening, another order, other words for when to use it and when not to — not a rewording of the ones above.\n")
	}
	fmt.Fprintf(&b, "\nWrite a new description that makes the skill load for requests like the ones it should load for, and not for the near misses. At most %d characters, plain text, no angle brackets. Answer with the description alone between <new_description> and </new_description>.", MaxDescription)
	return b.String()
}

// ImproverSystem is the improver's system message.
const ImproverSystem = ImproverMarker + " The description is all a model sees of the skill when it decides whether to load it; it should say what the skill does and when to use it, in the user's own terms, and when not to."

// ask gets one description from the improver, asking once more when the
// answer is over the limit; note says why it is rejected.
func (o *Optimizer) ask(ctx context.Context, prompt string) (desc, note string, err error) {
	for attempt := range 2 {
		answer, err := o.Improve(ctx, prompt)
		if err != nil {
			return "", "", err
		}
		desc = parseDescription(answer)
		n := utf8.RuneCountInString(desc)
		switch {
		case desc == "":
			note = "the improver gave no description"
		case strings.ContainsAny(desc, "<>"):
			note = "the description holds angle brackets"
		case n > MaxDescription:
			note = fmt.Sprintf("the description is %d characters, over %d", n, MaxDescription)
		default:
			return desc, "", nil
		}
		if attempt == 0 {
			prompt += "\n\nYour answer was rejected: " + note + ". Answer again."
		}
	}
	return desc, note, nil
}

func parseDescription(answer string) string {
	if _, after, ok := strings.Cut(answer, "<new_description>"); ok {
		answer, _, _ = strings.Cut(after, "</new_description>")
	}
	return strings.Join(strings.Fields(answer), " ")
}

func clipText(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "\n…"
	}
	return s
}
