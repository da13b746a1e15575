package agenttools

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestDefsGolden pins every profile's tool definitions: names, schemas,
// kinds, policies and sources. Run with -update after a deliberate change.
func TestDefsGolden(t *testing.T) {
	for _, p := range Profiles {
		t.Run(p, func(t *testing.T) {
			defs, err := For(p)
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.MarshalIndent(defs, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			var pretty bytes.Buffer
			// Schemas are raw JSON; indent them too so the golden file reads.
			if err := json.Indent(&pretty, got, "", "  "); err != nil {
				t.Fatal(err)
			}
			got = append(pretty.Bytes(), '\n')
			path := filepath.Join("testdata", p+".json")
			if *update {
				if err := os.MkdirAll("testdata", 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("definitions of %s differ from %s (run go test -update if intended):\n%s", p, path, got)
			}
		})
	}
}

// TestDefsWellFormed checks what the engine and the model rely on: unique
// names, valid schemas whose required properties exist, a description and
// a source, read-only exactly for the kinds that change nothing.
func TestDefsWellFormed(t *testing.T) {
	wantTools := map[string][]string{
		"skillet":     {"shell", "read", "write", "edit", "glob", "grep"},
		"claude-code": {"Bash", "Read", "Write", "Edit", "Glob", "Grep"},
		"codex":       {"exec_command", "apply_patch"},
		"crush":       {"bash", "view", "write", "edit", "glob", "grep", "ls"},
		"opencode":    {"bash", "read", "write", "edit", "glob", "grep", "list"},
		"gemini-cli":  {"run_shell_command", "read_file", "write_file", "replace", "glob", "grep_search", "list_directory"},
	}
	for _, p := range Profiles {
		defs, err := For(p)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, d := range defs {
			names = append(names, d.Name)
			if d.Description == "" || d.Source == "" {
				t.Errorf("%s/%s: description or source missing", p, d.Name)
			}
			if d.Profile() != p {
				t.Errorf("%s/%s: Profile() = %q", p, d.Name, d.Profile())
			}
			var s jsonschema.Schema
			if err := json.Unmarshal(d.Parameters, &s); err != nil {
				t.Errorf("%s/%s: schema does not parse: %v", p, d.Name, err)
				continue
			}
			if _, err := s.Resolve(nil); err != nil {
				t.Errorf("%s/%s: schema does not resolve: %v", p, d.Name, err)
			}
			for _, r := range s.Required {
				if _, ok := s.Properties[r]; !ok {
					t.Errorf("%s/%s: required %q is not a property", p, d.Name, r)
				}
			}
			ro := d.Kind == KindRead || d.Kind == KindGlob || d.Kind == KindGrep || d.Kind == KindList
			if d.ReadOnly != ro {
				t.Errorf("%s/%s: ReadOnly = %v for kind %s", p, d.Name, d.ReadOnly, d.Kind)
			}
		}
		if !slices.Equal(names, wantTools[p]) {
			t.Errorf("%s tools = %v, want %v", p, names, wantTools[p])
		}
	}
	if _, err := For("cursor"); err == nil {
		t.Error("For(cursor) should fail")
	}
}
