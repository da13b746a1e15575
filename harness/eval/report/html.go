package report

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"strings"

	"skillet/harness/eval"
)

//go:embed report.html.tmpl
var pageText string

var page = template.Must(template.New("report").Funcs(template.FuncMap{
	"pct":   func(f float64) string { return fmt.Sprintf("%.0f%%", 100*f) },
	"num":   func(f float64) string { return fmt.Sprintf("%.2f", f) },
	"width": func(lo, hi float64) string { return fmt.Sprintf("%.1f%%", 100*(hi-lo)) },
	"left":  func(f float64) string { return fmt.Sprintf("%.1f%%", 100*f) },
	"short": shortOutcome,
	"good":  func(should, triggered bool) bool { return should == triggered },
	"cols":  maxRuns,
	"seq": func(n int) []int {
		s := make([]int, n)
		for i := range s {
			s[i] = i + 1
		}
		return s
	},
	"cell":   cellAt,
	"heat":   heat,
	"title":  cellTitle,
	"runsOf": runsMode,
	"join":   strings.Join,
	"interval": func(p eval.Plan) string {
		if p.Sequential() {
			return "confidence-sequence (valid wherever auto stops)"
		}
		return "Wilson"
	},
}).Parse(pageText))

// HTML is the report as one self-contained page: no script, no external
// file; per skill a query × run grid, rates with their intervals, and the
// confusion matrix.
func HTML(rep *eval.Report) ([]byte, error) {
	var buf bytes.Buffer
	if err := page.Execute(&buf, rep); err != nil {
		return nil, fmt.Errorf("render %s: %w", HTMLFile, err)
	}
	return buf.Bytes(), nil
}

func shortOutcome(o string) string {
	return map[string]string{
		eval.OutcomeTriggered:  "loaded",
		eval.OutcomeToolFirst:  "tool first",
		eval.OutcomeOtherSkill: "other skill",
		eval.OutcomeRefused:    "refused",
		eval.OutcomeAnswered:   "answered",
		eval.OutcomeError:      "error",
	}[o]
}

func maxRuns(s eval.SkillScore) int {
	n := 0
	for _, q := range s.Queries {
		for _, c := range q.Cells {
			n = max(n, c.N)
		}
	}
	return n
}

func cellAt(q eval.QueryScore, n int) *eval.RunResult {
	for i := range q.Cells {
		if q.Cells[i].N == n {
			return &q.Cells[i]
		}
	}
	return nil
}

func cellTitle(c *eval.RunResult) string {
	t := fmt.Sprintf("run %d · %s · %s", c.N, c.Session, c.Outcome)
	if c.Detail != "" {
		t += ": " + c.Detail
	}
	if c.Rank > 0 {
		t += fmt.Sprintf(" · offered at #%d", c.Rank)
	} else {
		t += " · not offered"
	}
	if len(c.Loaded) > 0 {
		t += " · loaded " + strings.Join(c.Loaded, ", ")
	}
	return t
}

// heat shades a confusion cell by its share of the row.
func heat(row []int, v int) template.CSS {
	total := 0
	for _, x := range row {
		total += x
	}
	if total == 0 || v == 0 {
		return ""
	}
	return template.CSS(fmt.Sprintf("background: rgba(37, 99, 235, %.2f)", 0.12+0.7*float64(v)/float64(total)))
}

func runsMode(p eval.Plan) string {
	if p.Runs > 0 {
		return fmt.Sprintf("%d runs per query", p.Runs)
	}
	return fmt.Sprintf("auto (%d to %d runs per query)", p.MinRuns, p.MaxRuns)
}
