package report

import (
	"encoding/xml"
	"fmt"
	"strings"

	"skillet/harness/eval"
)

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

// JUnit is the report as JUnit XML: a suite per skill (and arm), a test
// case per query. A failed verdict is a failure; an undetermined one is
// skipped, with its interval, so CI shows it without failing on noise.
func JUnit(rep *eval.Report) ([]byte, error) {
	all := junitSuites{Name: "skillet eval"}
	for _, a := range rep.Arms {
		for _, s := range a.Skills {
			suite := junitSuite{Name: s.Name}
			if a.Name != "" {
				suite.Name += " [" + a.Name + "]"
			}
			for _, q := range s.Queries {
				c := junitCase{Name: q.Query, Classname: "skillet.eval." + s.Name}
				want := "should trigger"
				if !q.ShouldTrigger {
					want = "should not trigger"
				}
				msg := fmt.Sprintf("%s: %d of %d runs triggered (rate %.2f, 95%% interval [%.2f, %.2f])", want, q.Triggers, q.Runs, q.TriggerRate, q.Low, q.High)
				var lines []string
				for _, cell := range q.Cells {
					line := fmt.Sprintf("run %d (%s): %s", cell.N, cell.Session, cell.Outcome)
					if cell.Detail != "" {
						line += " — " + cell.Detail
					}
					lines = append(lines, line)
				}
				c.SystemOut = strings.Join(lines, "\n")
				switch q.Verdict {
				case eval.VerdictFail:
					c.Failure = &junitMessage{Message: msg, Text: c.SystemOut}
					suite.Failures++
				case eval.VerdictUndetermined:
					c.Skipped = &junitMessage{Message: "undetermined: " + msg}
					suite.Skipped++
				}
				suite.Cases = append(suite.Cases, c)
				suite.Tests++
			}
			all.Tests += suite.Tests
			all.Failures += suite.Failures
			all.Skipped += suite.Skipped
			all.Suites = append(all.Suites, suite)
		}
	}
	b, err := xml.MarshalIndent(all, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", JUnitFile, err)
	}
	return append([]byte(xml.Header), append(b, '\n')...), nil
}
