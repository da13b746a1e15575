package bench_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"skillet/harness/bench"
	"skillet/harness/bench/benchtest"
	"skillet/harness/llm"
)

// grader is a model grader against a scripted endpoint; shown keeps the
// user messages the grader was sent.
func grader(t *testing.T, answer func(benchtest.Request) benchtest.Reply) (*bench.ModelGrader, *[]benchtest.Request) {
	t.Helper()
	var seen []benchtest.Request
	srv := benchtest.New(func(in benchtest.Request) benchtest.Reply {
		seen = append(seen, in)
		return answer(in)
	})
	t.Cleanup(srv.Close)
	client, err := llm.New(llm.Config{BaseURL: srv.URL, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	return &bench.ModelGrader{Model: client, Name: "grader"}, &seen
}

var graded = bench.Outcome{Answer: "I wrote summary.md with the totals.",
	Changed: []bench.Changed{{Path: "summary.md", Op: "create", Content: "# Totals\nRevenue: 1,200 EUR\n"}}}

func TestModelGrader_PassNeedsEvidenceFoundVerbatim(t *testing.T) {
	g, seen := grader(t, func(in benchtest.Request) benchtest.Reply {
		if strings.Contains(in.User, "revenue") {
			return benchtest.Reply{Text: "```json\n{\"passed\": true, \"evidence\": \"Revenue:   1,200 EUR\"}\n```"}
		}
		// cites what the output never said
		return benchtest.Reply{Text: `{"passed": true, "evidence": "Profit: 300 EUR"}`}
	})
	ok := g.Grade(context.Background(), "The summary states the revenue", graded)
	if !ok.Passed || ok.Error != "" || ok.Evidence != "Revenue:   1,200 EUR" || ok.By != "grader" {
		t.Errorf("a quoted pass: %+v", ok)
	}
	bad := g.Grade(context.Background(), "The summary states the profit", graded)
	if bad.Passed || bad.Error != "" || !strings.Contains(bad.Evidence, "not in the output it was shown") {
		t.Errorf("evidence not in the output passed: %+v", bad)
	}
	// the grader saw the expectation, the answer and the file, and nothing
	// of the configuration
	u := (*seen)[0].User
	for _, want := range []string{"The summary states the revenue", "I wrote summary.md", "Revenue: 1,200 EUR", `path="summary.md"`} {
		if !strings.Contains(u, want) {
			t.Errorf("the grader was not shown %q", want)
		}
	}
	for _, never := range []string{"with_skill", "without_skill", "baseline"} {
		if strings.Contains((*seen)[0].Body, never) {
			t.Errorf("the grader was shown %q", never)
		}
	}
	if len((*seen)[0].Tools) != 0 {
		t.Error("the grader was offered tools")
	}
}

func TestModelGrader_AFailNeedsNoQuote(t *testing.T) {
	g, _ := grader(t, func(benchtest.Request) benchtest.Reply {
		return benchtest.Reply{Text: `{"passed": false, "evidence": "No chart was made."}`}
	})
	r := g.Grade(context.Background(), "A chart is made", graded)
	if r.Passed || r.Error != "" || r.Evidence != "No chart was made." {
		t.Errorf("%+v", r)
	}
}

func TestModelGrader_NonsenseAndTimeoutsAreErrorsNotFails(t *testing.T) {
	for _, c := range []struct {
		name  string
		reply benchtest.Reply
		want  string
	}{
		{"prose", benchtest.Reply{Text: "Looks good to me!"}, "nonsense (no JSON object)"},
		{"wrong shape", benchtest.Reply{Text: `{"verdict": "yes"}`}, "nonsense (want"},
		{"passed as a string", benchtest.Reply{Text: `{"passed": "true", "evidence": "x"}`}, "nonsense"},
		{"http error", benchtest.Reply{Status: 500}, "the grader failed"},
		{"hang", benchtest.Reply{Hang: 5 * time.Second}, "did not answer within 200ms"},
	} {
		g, _ := grader(t, func(benchtest.Request) benchtest.Reply { return c.reply })
		g.Timeout = 200 * time.Millisecond
		r := g.Grade(context.Background(), "Anything", graded)
		if r.Error == "" || r.Passed || !strings.Contains(r.Error, c.want) {
			t.Errorf("%s: %+v, want an error saying %q", c.name, r, c.want)
		}
	}
}
