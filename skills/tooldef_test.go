package skills

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseToolDef_Response(t *testing.T) {
	src := `name: get_account_activity
version: 1
description: Fetch one page of an account's activity.
parameters:
  type: object
  properties:
    account_id: {type: string, description: The account to read.}
    page: {type: integer, minimum: 1}
  required: [account_id]
response: |
  {"account": {{json .account_id}}}
`
	def, probs := ParseToolDef([]byte(src), "")
	if len(probs) != 0 {
		t.Fatalf("problems: %v", probs)
	}
	if def.Key() != "get_account_activity@1" || def.Kind != KindResponse || !strings.Contains(def.Response, "json .account_id") {
		t.Errorf("def = %+v", def)
	}
	var schema map[string]any
	if err := json.Unmarshal(def.Parameters, &schema); err != nil {
		t.Fatalf("parameters are not JSON: %v", err)
	}
	if schema["type"] != "object" || !slices.Equal(schema["required"].([]any), []any{"account_id"}) {
		t.Errorf("parameters = %s", def.Parameters)
	}
}

func TestParseToolDef_DefaultsAndOptions(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "bin", "check.sh"), "#!/bin/sh\necho ok\n")
	if err := os.Chmod(filepath.Join(dir, "bin", "check.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	src := "name: check\nversion: 2\ndescription: d\ncommand: [./bin/check.sh, --quick]\ntimeout: 10s\nenv: [GITHUB_TOKEN]\nmax_output: 1024\n"
	def, probs := ParseToolDef([]byte(src), dir)
	if len(probs) != 0 {
		t.Fatalf("problems: %v", probs)
	}
	if def.Kind != KindCommand || !slices.Equal(def.Command, []string{"./bin/check.sh", "--quick"}) ||
		def.Timeout != 10*time.Second || !slices.Equal(def.Env, []string{"GITHUB_TOKEN"}) || def.MaxOutput != 1024 {
		t.Errorf("def = %+v", def)
	}
	if string(def.Parameters) != string(EmptyParameters) {
		t.Errorf("omitted parameters = %s", def.Parameters)
	}
	// A string command is the program alone, spaces and all; a bare name
	// is looked up on PATH when run, so it is not checked here.
	def, probs = ParseToolDef([]byte("name: c\nversion: 1\ndescription: d\ncommand: my tool\n"), dir)
	if len(probs) != 0 || !slices.Equal(def.Command, []string{"my tool"}) {
		t.Errorf("string command: %q %v", def.Command, probs)
	}
	def, probs = ParseToolDef([]byte("name: m\nversion: 1\ndescription: d\nmcp: {server: files, tool: read_file}\n"), dir)
	if len(probs) != 0 || def.Kind != KindMCP || def.Server != "files" || def.RemoteTool != "read_file" {
		t.Errorf("mcp: %+v %v", def, probs)
	}
}

func TestParseToolDef_Problems(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "plain.txt"), "not executable")
	cases := map[string]struct {
		src    string
		fields []string
	}{
		"missing everything": {"timeout: 5s\n", []string{"name", "version", "description", "response"}},
		"bad name and version": {"name: bad name\nversion: 0\ndescription: d\nresponse: x\n",
			[]string{"name", "version"}},
		"version as string":   {"name: t\nversion: \"1\"\ndescription: d\nresponse: x\n", []string{"version"}},
		"two implementations": {"name: t\nversion: 1\ndescription: d\nresponse: x\ncommand: echo\n", []string{"command"}},
		"parameters not object": {"name: t\nversion: 1\ndescription: d\nresponse: x\nparameters: {type: string}\n",
			[]string{"parameters"}},
		"parameters no type":   {"name: t\nversion: 1\ndescription: d\nresponse: x\nparameters: {properties: {}}\n", []string{"parameters"}},
		"misspelt nested type": {"name: t\nversion: 1\ndescription: d\nresponse: x\nparameters: {type: object, properties: {a: {type: strng}}}\n", []string{"parameters"}},
		"bad pattern":          {"name: t\nversion: 1\ndescription: d\nresponse: x\nparameters: {type: object, properties: {a: {type: string, pattern: \"(\"}}}\n", []string{"parameters"}},
		"missing program":      {"name: t\nversion: 1\ndescription: d\ncommand: [./nope.sh]\n", []string{"command"}},
		"not executable":       {"name: t\nversion: 1\ndescription: d\ncommand: ./plain.txt\n", []string{"command"}},
		"empty command":        {"name: t\nversion: 1\ndescription: d\ncommand: []\n", []string{"command"}},
		"bad timeout":          {"name: t\nversion: 1\ndescription: d\ncommand: echo\ntimeout: 10\n", []string{"timeout"}},
		"mcp missing tool":     {"name: t\nversion: 1\ndescription: d\nmcp: {server: files}\n", []string{"mcp"}},
		"unknown key":          {"name: t\nversion: 1\ndescription: d\nrespones: x\nresponse: x\n", []string{"respones"}},
		"not a map":            {"- a\n", []string{"file"}},
		"bad yaml":             {"name: [\n", []string{"file"}},
		"binary":               {"name: t\x00\n", []string{"file"}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, probs := ParseToolDef([]byte(c.src), dir)
			if got := fields(probs); !slices.Equal(got, c.fields) {
				t.Errorf("problem fields = %q, want %q (%v)", got, c.fields, probs)
			}
		})
	}
}

func TestLoadToolDirs_DuplicateNamesBothFiles(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(a, "x.yaml"), "name: x\nversion: 1\ndescription: d\nresponse: one\n")
	writeFile(t, filepath.Join(b, "x-copy.yml"), "name: x\nversion: 1\ndescription: d\nresponse: two\n")
	writeFile(t, filepath.Join(b, "x2.yaml"), "name: x\nversion: 2\ndescription: d\nresponse: three\n")
	writeFile(t, filepath.Join(b, "broken.yaml"), "name: y\nversion: one\n")
	writeFile(t, filepath.Join(b, "notes.md"), "not a tool file")
	defs, probs := LoadToolDirs(a, b)
	if len(defs) != 1 || defs[0].Key() != "x@2" {
		t.Errorf("defs = %v", defs)
	}
	byFile := map[string]string{}
	for _, p := range probs {
		byFile[filepath.Base(p.File)] = joinProblems(p.Problems)
	}
	for _, f := range []string{"x.yaml", "x-copy.yml"} {
		msg := byFile[f]
		if !strings.Contains(msg, filepath.Join(a, "x.yaml")) || !strings.Contains(msg, filepath.Join(b, "x-copy.yml")) {
			t.Errorf("%s: the duplicate problem should name both files, got %q", f, msg)
		}
	}
	if !strings.Contains(byFile["broken.yaml"], "version:") {
		t.Errorf("broken.yaml: %q", byFile["broken.yaml"])
	}
	if len(probs) != 3 {
		t.Errorf("problems = %v", probs)
	}
}

// The schema reaches the model in the author's order, not sorted.
func TestToolSchemaKeepsTheAuthorsOrder(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "order.yaml")
	src := "name: order\nversion: 1\ndescription: Keeps order.\nparameters:\n  type: object\n  properties:\n    zeta: {type: string, description: first}\n    alpha: {type: integer}\n    mid:\n      type: object\n      properties:\n        y: {type: boolean}\n        b: {type: string, enum: [x, a]}\n  required: [zeta]\n  additionalProperties: false\nresponse: ok\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	def, problems := LoadToolFile(path)
	if len(problems) > 0 {
		t.Fatalf("problems: %v", problems)
	}
	want := `{"type":"object","properties":{"zeta":{"type":"string","description":"first"},"alpha":{"type":"integer"},"mid":{"type":"object","properties":{"y":{"type":"boolean"},"b":{"type":"string","enum":["x","a"]}}}},"required":["zeta"],"additionalProperties":false}`
	if string(def.Parameters) != want {
		t.Fatalf("parameters\n got %s\nwant %s", def.Parameters, want)
	}
}
