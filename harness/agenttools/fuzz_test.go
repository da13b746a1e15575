package agenttools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// FuzzRun feeds arbitrary arguments to every file tool of every profile:
// a result comes back (the recover in Run would turn a panic into an
// "internal error" result, which the fuzzer reports as a failure), and
// nothing escapes the workspace.
func FuzzRun(f *testing.F) {
	for _, s := range []string{`{}`, `{"file_path":"a.txt","offset":-5,"limit":1e9}`, `{"path":"../x"}`,
		`{"input":"*** Begin Patch\n*** Update File: a.txt\n@@\n-\n+\n*** End of File\n*** End Patch"}`,
		`{"pattern":"**/[","path":"."}`, `{"filePath":"a.txt","oldString":"","newString":"x"}`,
		`{"file_path":"a.txt","start_line":3,"end_line":1}`, `{"pattern":"(?i)a+","output_mode":"count","-C":-3}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if !json.Valid([]byte(raw)) {
			return
		}
		w := newWorkspace(t, map[string]string{"a.txt": "one\ntwo\n", "d/b.md": "# b\n"})
		w.env.Shell = nil
		for _, p := range Profiles {
			defs, _ := For(p)
			for _, d := range defs {
				res := Run(context.Background(), w.env, d, json.RawMessage(raw))
				if strings.HasPrefix(res.Content, "internal error") {
					t.Fatalf("%s/%s panicked on %s: %s", p, d.Name, raw, res.Content)
				}
				for _, path := range res.Wrote {
					if !within(w.root, path) {
						t.Fatalf("%s/%s wrote outside the workspace: %s", p, d.Name, path)
					}
				}
			}
		}
	})
}
