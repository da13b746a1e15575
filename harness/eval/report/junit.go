package report

import (
	"encoding/xml"
	"fmt"
	"strings"

	"skillet/harness/eval"
)

// The JUnit shape follows the common junit-10.xsd (Jenkins xUnit): errors
// and failures on every testsuite, skipped on testsuites only inside a
// suite, times in seconds with at most three decimals.
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

// seconds is a JUnit time attribute.
func seconds(s float64) string { return fmt.Sprintf("%.3f", max(s, 0)) }

// JUnit is the report as JUnit XML: a suite per skill (and arm), a test
// case per query. A failed verdict is a failure; a query whose runs kept
// failing before the model decided is an error; an undetermined one is
// skipped, with its interval, so CI shows it without failing on noise.
func JUnit(rep *eval.Report) ([]byte, error) {
	all := junitSuites{Name: "skillet eval"}
	var total float64
	for _, a := range rep.Arms {
		for _, s := range a.Skills {
			suite := junitSuite{Name: s.Name}
			if a.Name != "" {
				suite.Name += " [" + a.Name + "]"
			}
			var st float64
			for _, q := range s.Queries {
				c := junitCase{Name: q.Query, Classname: "skillet.eval." + s.Name, Time: seconds(q.Seconds)}
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
					c.Failure = &junitMessage{Type: "verdict", Message: msg, Text: c.SystemOut}
					suite.Failures++
				case eval.VerdictError:
					c.Error = &junitMessage{Type: "run error", Message: fmt.Sprintf("%d runs errored, %d scored: %s", q.Errors, q.Runs, firstErr), Text: c.SystemOut}
					suite.Errors++
				case eval.VerdictUndetermined:
					c.Skipped = &junitMessage{Message: "undetermined: " + msg}
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
	}
	all.Time = seconds(total)
	b, err := xml.MarshalIndent(all, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", JUnitFile, err)
	}
	return append([]byte(xml.Header), append(b, '\n')...), nil
}
