package bench

import (
	"encoding/xml"
	"fmt"
	"strings"
)

// JUnitFile is the benchmark's JUnit XML, in the benchmark's folder.
const JUnitFile = "junit.xml"

// The shape follows junit-10.xsd (Jenkins xUnit), as `skillet eval`'s does.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Time     string       `xml:"time,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Error     *junitMessage `xml:"error,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Type    string `xml:"type,attr,omitempty"`
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

func seconds(s float64) string { return fmt.Sprintf("%.3f", max(s, 0)) }

// JUnit is the benchmark as JUnit XML: a suite per skill, a test per eval.
// An eval the skill helps passes; hurts is a failure; no evidence (or not
// graded) is skipped with its interval, so CI shows it without failing on
// noise; an eval without scored runs in a configuration is an error.
func JUnit(rep *Report) ([]byte, error) {
	all := junitSuites{Name: "skillet bench"}
	var total float64
	for _, sr := range rep.Skills {
		suite := junitSuite{Name: sr.Skill}
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
			c := junitCase{Name: e.Name, Classname: "skillet.bench." + sr.Skill, Time: seconds(secs), SystemOut: strings.Join(lines, "\n")}
			msg := evalLine(rep.Configurations, e)
			switch e.Verdict {
			case VerdictHurts:
				c.Failure = &junitMessage{Type: "verdict", Message: msg, Text: c.SystemOut}
				suite.Failures++
			case VerdictError:
				c.Error = &junitMessage{Type: "run error", Message: msg, Text: c.SystemOut}
				suite.Errors++
			case VerdictNoEvidence, VerdictUngraded:
				c.Skipped = &junitMessage{Message: msg}
				suite.Skipped++
			}
			suite.Cases = append(suite.Cases, c)
			suite.Tests++
		}
		suite.Time = seconds(st)
		total += st
		all.Tests += suite.Tests
		all.Failures += suite.Failures
		all.Errors += suite.Errors
		all.Suites = append(all.Suites, suite)
	}
	all.Time = seconds(total)
	b, err := xml.MarshalIndent(all, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", JUnitFile, err)
	}
	return append([]byte(xml.Header), append(b, '\n')...), nil
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
