package bench

import (
	"fmt"
	"strings"

	"skillet/harness/junit"
)

// JUnitFile is the benchmark's JUnit XML, in the benchmark's folder.
const JUnitFile = "junit.xml"

// JUnit is the benchmark as JUnit XML: a suite per skill, a test per eval.
// An eval the skill helps passes; hurts is a failure; no evidence (or not
// graded) is skipped with its interval, so CI shows it without failing on
// noise; an eval without scored runs in a configuration is an error.
func JUnit(rep *Report) ([]byte, error) {
	all := junit.Suites{Name: "skillet bench"}
	var total float64
	for _, sr := range rep.Skills {
		suite := junit.Suite{Name: sr.Skill}
		var st float64
		for _, e := range sr.Evals {
			var secs float64
			var lines []string
			for _, r := range sr.Runs {
				if r.EvalID != e.ID {
					continue
				}
				secs += r.Seconds
				line := fmt.Sprintf("%s run %d: ", r.Configuration, r.Attempt)
				switch {
				case !r.Scored():
					line += "error — " + r.Error
				case r.Passed():
					line += "pass"
				default:
					p, t := r.Counts()
					line += fmt.Sprintf("fail (%d/%d items)", p, t)
				}
				lines = append(lines, line)
			}
			st += secs
			c := junit.Case{Name: e.Name, Classname: "skillet.bench." + sr.Skill, Time: junit.Seconds(secs), SystemOut: strings.Join(lines, "\n")}
			msg := evalLine(rep.Configurations, e)
			switch e.Verdict {
			case VerdictHurts:
				c.Failure = &junit.Message{Type: "verdict", Message: msg, Text: c.SystemOut}
				suite.Failures++
			case VerdictError:
				c.Error = &junit.Message{Type: "run error", Message: msg, Text: c.SystemOut}
				suite.Errors++
			case VerdictNoEvidence, VerdictUngraded:
				c.Skipped = &junit.Message{Message: msg}
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
	all.Time = junit.Seconds(total)
	return all.Marshal()
}

// evalLine is one eval's result in words.
func evalLine(configs []string, e *EvalReport) string {
	var parts []string
	for _, c := range e.Configs {
		s := fmt.Sprintf("%s %d/%d [%.2f, %.2f]", c.Configuration, c.Passed, c.Runs, c.Low, c.High)
		if c.Errors > 0 {
			s += fmt.Sprintf(" (%d errors)", c.Errors)
		}
		parts = append(parts, s)
	}
	line := e.Verdict + ": " + strings.Join(parts, " vs ")
	if e.Verdict != VerdictError && e.Verdict != VerdictUngraded {
		line += fmt.Sprintf("; delta %+.2f [%+.2f, %+.2f]", e.Delta.Delta, e.Delta.Low, e.Delta.High)
	}
	return line
}
