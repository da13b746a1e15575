package report

import (
	"fmt"
	"strings"

	"skillet/harness/eval"
	"skillet/harness/junit"
)

// JUnit is the report as JUnit XML: a suite per skill (and arm), a test
// case per query. A failed verdict is a failure; a query whose runs kept
// failing before the model decided is an error; an undetermined one is
// skipped, with its interval, so CI shows it without failing on noise.
func JUnit(rep *eval.Report) ([]byte, error) {
	all := junit.Suites{Name: "skillet eval"}
	var total float64
	for _, a := range rep.Arms {
		for _, s := range a.Skills {
			suite := junit.Suite{Name: s.Name}
			if a.Name != "" {
				suite.Name += " [" + a.Name + "]"
			}
			var st float64
			for _, q := range s.Queries {
				c := junit.Case{Name: q.Query, Classname: "skillet.eval." + s.Name, Time: junit.Seconds(q.Seconds)}
				st += q.Seconds
				want := "should trigger"
				if !q.ShouldTrigger {
					want = "should not trigger"
				}
				msg := fmt.Sprintf("%s: %d of %d runs triggered (rate %.2f, 95%% interval [%.2f, %.2f])", want, q.Triggers, q.Runs, q.TriggerRate, q.Low, q.High)
				if q.Errors > 0 {
					msg += fmt.Sprintf("; %d runs errored", q.Errors)
				}
				if q.ExpectFailure != "" {
					msg += "; expect: " + q.ExpectFailure
				}
				var lines []string
				firstErr := ""
				for _, cell := range q.Cells {
					line := fmt.Sprintf("run %d (%s): %s", cell.N, cell.Session, cell.Outcome)
					if cell.Detail != "" {
						line += " — " + cell.Detail
					}
					if cell.Outcome == eval.OutcomeError && firstErr == "" {
						firstErr = cell.Detail
					}
					lines = append(lines, line)
				}
				c.SystemOut = strings.Join(lines, "\n")
				switch q.Verdict {
				case eval.VerdictFail:
					c.Failure = &junit.Message{Type: "verdict", Message: msg, Text: c.SystemOut}
					suite.Failures++
				case eval.VerdictError:
					c.Error = &junit.Message{Type: "run error", Message: fmt.Sprintf("%d runs errored, %d scored: %s", q.Errors, q.Runs, firstErr), Text: c.SystemOut}
					suite.Errors++
				case eval.VerdictUndetermined:
					c.Skipped = &junit.Message{Message: "undetermined: " + msg}
					suite.Skipped++
				}
				suite.Cases = append(suite.Cases, c)
				suite.Tests++
			}
			suite.Time = junit.Seconds(st)
			total += st
			all.Tests += suite.Tests
			all.Failures += suite.Failures
			all.Errors += suite.Errors
			all.Suites = append(all.Suites, suite)
		}
	}
	all.Time = junit.Seconds(total)
	return all.Marshal()
}
