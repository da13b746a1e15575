package report

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"

	"skillet/harness/eval"
)

//go:embed optimize.html.tmpl
var optimizeText string

var optimizePage = template.Must(template.New("optimize").Funcs(template.FuncMap{
	"num": func(f float64) string { return fmt.Sprintf("%.2f", f) },
	"pct": func(f float64) string { return fmt.Sprintf("%.0f%%", 100*f) },
	"find": func(it eval.Iteration, index int) *eval.IterQuery {
		for i := range it.Queries {
			if it.Queries[i].Index == index {
				return &it.Queries[i]
			}
		}
		return nil
	},
}).Parse(optimizeText))

// OptimizeHTML is the optimizer's page: an iteration × query grid with
// train and validation scores, the best description highlighted.
func OptimizeHTML(o *eval.Optimization) ([]byte, error) {
	var buf bytes.Buffer
	if err := optimizePage.Execute(&buf, o); err != nil {
		return nil, fmt.Errorf("render the optimizer's page: %w", err)
	}
	return buf.Bytes(), nil
}
