package bench

import (
	"bytes"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
)

// HTMLFile is the benchmark's self-contained report.
const HTMLFile = "report.html"

// WriteAll writes each skill's benchmark.json and, in out, the JUnit XML
// and the HTML report.
func WriteAll(out string, rep *Report) error {
	if err := WriteBenchmark(out, rep); err != nil {
		return err
	}
	x, err := JUnit(rep)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, JUnitFile), x, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", JUnitFile, err)
	}
	h, err := HTML(rep)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, HTMLFile), h, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", HTMLFile, err)
	}
	return nil
}

type htmlColumn struct {
	Config EvalConfig
	Runs   []*RunResult
}

type htmlEval struct {
	*EvalReport
	Columns []htmlColumn
}

type htmlSkill struct {
	*SkillReport
	Evals []htmlEval
}

// HTML renders the report as one page with no outside resources: per
// eval, the configurations side by side with each run's answer, changed
// files and grades, and the delta with its interval.
func HTML(rep *Report) ([]byte, error) {
	var skills []htmlSkill
	for _, sr := range rep.Skills {
		hs := htmlSkill{SkillReport: sr}
		for _, e := range sr.Evals {
			he := htmlEval{EvalReport: e}
			for _, c := range e.Configs {
				col := htmlColumn{Config: c}
				for _, r := range sr.Runs {
					if r.EvalID == e.ID && r.Configuration == c.Configuration {
						col.Runs = append(col.Runs, r)
					}
				}
				he.Columns = append(he.Columns, col)
			}
			hs.Evals = append(hs.Evals, he)
		}
		skills = append(skills, hs)
	}
	var b bytes.Buffer
	err := page.Execute(&b, map[string]any{"Report": rep, "Skills": skills})
	if err != nil {
		return nil, fmt.Errorf("render %s: %w", HTMLFile, err)
	}
	return b.Bytes(), nil
}

var page = template.Must(template.New("page").Funcs(template.FuncMap{
	"pct": func(v float64) string { return fmt.Sprintf("%.0f%%", 100*v) },
	"num": func(v float64) string { return fmt.Sprintf("%.2f", v) },
	"sgn": func(v float64) string { return fmt.Sprintf("%+.2f", v) },
	"one": func(v float64) string { return fmt.Sprintf("%.1f", v) },
	"badge": func(v string) string {
		return map[string]string{VerdictHelps: "helps", VerdictHurts: "hurts", VerdictNoEvidence: "none", VerdictError: "err", VerdictUngraded: "none"}[v]
	},
	"counts": func(r *RunResult) string {
		p, t := r.Counts()
		return fmt.Sprintf("%d/%d", p, t)
	},
}).Parse(pageHTML))

const pageHTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>skillet bench</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#1d1d1f;background:#fafafa}
h1{font-size:22px}h2{margin-top:32px}h3{margin:24px 0 6px}
table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:top}
.badge{display:inline-block;padding:1px 8px;border-radius:10px;font-weight:600;color:#fff}
.helps{background:#1a7f37}.hurts{background:#cf222e}.none{background:#6e7781}.err{background:#9a6700}
.cols{display:flex;gap:16px}.col{flex:1;min-width:0;background:#fff;border:1px solid #ddd;border-radius:6px;padding:8px}
.run{border-top:1px solid #eee;padding:6px 0}.pass{color:#1a7f37}.fail{color:#cf222e}.error{color:#9a6700}
pre{white-space:pre-wrap;word-break:break-word;background:#f3f3f3;padding:6px;margin:4px 0;max-height:20em;overflow:auto}
.ev{color:#555;font-size:12px}.muted{color:#6e7781}
</style></head><body>
<h1>skillet bench</h1>
<p class="muted">model {{.Report.Model}}{{if .Report.GraderModel}} · grader {{.Report.GraderModel}}{{end}} · {{.Report.Runs}} runs per configuration · baseline {{.Report.Baseline}} · {{.Report.Interval}}</p>
{{range .Skills}}
<h2 id="skill-{{.Skill}}">{{.Skill}}</h2>
<p>verdict <span class="badge {{badge .Verdict}}">{{.Verdict}}</span>
 pooled delta {{sgn .Pooled.Delta}} [{{sgn .Pooled.Low}}, {{sgn .Pooled.High}}]{{if .Flaky}} · flaky: {{range $i, $f := .Flaky}}{{if $i}}, {{end}}{{$f}}{{end}}{{end}}</p>
<table class="configs"><tr><th>configuration</th><th>scored runs</th><th>errors</th><th>pass rate</th><th>tokens</th><th>model calls</th><th>tool calls</th><th>seconds</th></tr>
{{range .Configs}}<tr><td>{{.Configuration}}</td><td>{{.Runs}}</td><td>{{.Errors}}</td><td>{{num .PassRate.Mean}} ± {{num .PassRate.Stddev}}</td><td>{{one .Tokens.Mean}} ± {{one .Tokens.Stddev}}</td><td>{{one .ModelCalls.Mean}} ± {{one .ModelCalls.Stddev}}</td><td>{{one .ToolCalls.Mean}} ± {{one .ToolCalls.Stddev}}</td><td>{{one .TimeSeconds.Mean}} ± {{one .TimeSeconds.Stddev}}</td></tr>
{{end}}</table>
{{range .Evals}}
<h3 id="eval-{{.ID}}">{{.Name}} <span class="badge {{badge .Verdict}}">{{.Verdict}}</span></h3>
<p>delta {{sgn .Delta.Delta}} <span class="delta">[{{sgn .Delta.Low}}, {{sgn .Delta.High}}]</span>{{if .Flaky}} · <b>flaky</b>{{end}}</p>
<pre class="prompt">{{.Prompt}}</pre>
<div class="cols">
{{range .Columns}}<div class="col"><b>{{.Config.Configuration}}</b>: {{.Config.Passed}}/{{.Config.Runs}} runs pass, {{pct .Config.Rate}} [{{num .Config.Low}}, {{num .Config.High}}]{{if .Config.Errors}}, {{.Config.Errors}} errors{{end}}
{{range .Runs}}<div class="run">
{{if .Scored}}{{if .Passed}}<b class="pass">run {{.Attempt}}: pass</b>{{else}}<b class="fail">run {{.Attempt}}: fail</b>{{end}} ({{counts .}} items){{else}}<b class="error">run {{.Attempt}}: error</b> <span class="ev">{{.Error}}</span>{{end}}
<pre class="answer">{{.Outcome.Answer}}</pre>
{{range .Outcome.Changed}}<details><summary>{{.Op}} {{.Path}}</summary>{{if .Binary}}<i>binary</i>{{else}}<pre>{{.Content}}</pre>{{end}}</details>{{end}}
<ul>{{range .Grades}}<li>{{if .Error}}<span class="error">?</span>{{else if .Passed}}<span class="pass">✓</span>{{else}}<span class="fail">✗</span>{{end}} {{.Text}}<div class="ev">{{if .Error}}{{.Error}}{{else}}{{.Evidence}}{{end}}</div></li>{{end}}
{{range .Ungraded}}<li class="muted">– {{.}} <div class="ev">not graded: model grading needs a real model</div></li>{{end}}</ul>
</div>{{end}}
</div>{{end}}
</div>
{{end}}
{{end}}
</body></html>
`
