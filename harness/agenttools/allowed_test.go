package agenttools

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestParseAllowed(t *testing.T) {
	cases := []struct {
		spec string
		want []string // Raw of each rule
		err  bool
	}{
		{"Read Grep", []string{"Read", "Grep"}, false},
		{"Bash(git diff:*) Bash(npm run test) Read", []string{"Bash(git diff:*)", "Bash(npm run test)", "Read"}, false},
		{"Bash(git log --oneline:*), Edit(src/**)  Write(*.md)", []string{"Bash(git log --oneline:*)", "Edit(src/**)", "Write(*.md)"}, false},
		{"[Read, Bash(python3 scripts/fill.py:*)]", []string{"Read", "Bash(python3 scripts/fill.py:*)"}, false},
		{"  ", nil, false},
		{"Bash(git diff:*", nil, true},
		{"Read)", nil, true},
		{"Bash(ls)x", nil, true},
		{"Re@d", nil, true},
		{"(ls)", nil, true},
		{"Edit([)", nil, true},
	}
	for _, c := range cases {
		rules, err := ParseAllowed(c.spec)
		if (err != nil) != c.err {
			t.Errorf("%q: err = %v, want error %v", c.spec, err, c.err)
			continue
		}
		var raws []string
		for _, r := range rules {
			raws = append(raws, r.Raw)
		}
		if !reflect.DeepEqual(raws, c.want) {
			t.Errorf("%q: rules %v, want %v", c.spec, raws, c.want)
		}
	}
	rules, _ := ParseAllowed("Bash(git log --oneline:*)")
	if rules[0].Tool != "Bash" || rules[0].Specifier != "git log --oneline:*" {
		t.Errorf("rule = %+v", rules[0])
	}
	list, err := ParseAllowedList([]string{"Read", "Bash(git status)"})
	if err != nil || len(list) != 2 || list[1].Specifier != "git status" {
		t.Errorf("list = %+v, %v", list, err)
	}
}

func TestMatchRule(t *testing.T) {
	rules, err := ParseAllowed("Bash(git diff:*) Bash(npm run test) Read Edit(src/**) Write(*.md)")
	if err != nil {
		t.Fatal(err)
	}
	cc := func(name string) Def { return mustDef(t, "claude-code", name) }
	cases := []struct {
		def     Def
		profile string
		args    string
		want    string // "" = not pre-approved
	}{
		{cc("Bash"), "claude-code", `{"command":"git diff HEAD"}`, "Bash(git diff:*)"},
		{cc("Bash"), "claude-code", `{"command":"git diff"}`, "Bash(git diff:*)"},
		{cc("Bash"), "claude-code", `{"command":"git push"}`, ""},
		{cc("Bash"), "claude-code", `{"command":"git diffx"}`, ""},
		{cc("Bash"), "claude-code", `{"command":"git diff && rm -rf /"}`, ""},
		{cc("Bash"), "claude-code", `{"command":"git diff HEAD | head -5"}`, ""},
		{cc("Bash"), "claude-code", `{"command":"git diff $(rm -rf /)"}`, ""},
		{cc("Bash"), "claude-code", `{"command":"git diff 'a && b'"}`, "Bash(git diff:*)"},
		{cc("Bash"), "claude-code", `{"command":"npm run test"}`, "Bash(npm run test)"},
		{cc("Bash"), "claude-code", `{"command":"npm run test -- --watch"}`, ""},
		{cc("Read"), "claude-code", `{"file_path":"/etc/hosts"}`, "Read"},
		{cc("Grep"), "claude-code", `{"pattern":"x"}`, "Read"},
		{cc("Edit"), "claude-code", `{"file_path":"src/a/b.go"}`, "Edit(src/**)"},
		{cc("Edit"), "claude-code", `{"file_path":"docs/x"}`, ""},
		{cc("Write"), "claude-code", `{"file_path":"src/new.go"}`, "Edit(src/**)"},
		{cc("Write"), "claude-code", `{"file_path":"notes/todo.md"}`, "Write(*.md)"},
		{cc("Write"), "claude-code", `{"file_path":"../src/x.go"}`, ""},
		// Other profiles: what Claude Code would pre-approve for the kind.
		{mustDef(t, "codex", "exec_command"), "codex", `{"cmd":"git diff --stat"}`, "Bash(git diff:*)"},
		{mustDef(t, "codex", "apply_patch"), "codex", `{"input":"*** Begin Patch\n*** Update File: src/m.go\n@@\n-a\n+b\n*** End Patch"}`, "Edit(src/**)"},
		{mustDef(t, "codex", "apply_patch"), "codex", `{"input":"*** Begin Patch\n*** Update File: src/m.go\n@@\n-a\n+b\n*** Add File: docs/y\n+z\n*** End Patch"}`, ""},
		{mustDef(t, "skillet", "edit"), "skillet", `{"path":"src/k.go"}`, "Edit(src/**)"},
		{mustDef(t, "skillet", "shell"), "skillet", `{"command":"git push"}`, ""},
		{mustDef(t, "gemini-cli", "read_file"), "gemini-cli", `{"file_path":"a"}`, "Read"},
		{mustDef(t, "crush", "ls"), "crush", `{}`, "Read"},
	}
	for _, c := range cases {
		got, ok := MatchRule(rules, c.def, json.RawMessage(c.args), c.profile)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("%s %s %s: (%q, %v), want %q", c.profile, c.def.Name, c.args, got, ok, c.want)
		}
	}
	// With the workspace root, absolute paths inside it match relative
	// patterns; outside it they do not.
	if got, ok := MatchRuleIn("/ws", rules, cc("Edit"), json.RawMessage(`{"file_path":"/ws/src/a.go"}`), "claude-code"); !ok || got != "Edit(src/**)" {
		t.Errorf("absolute in root: %q %v", got, ok)
	}
	if _, ok := MatchRuleIn("/ws", rules, cc("Edit"), json.RawMessage(`{"file_path":"/other/src/a.go"}`), "claude-code"); ok {
		t.Error("absolute outside root matched")
	}
	abs, _ := ParseAllowed("Edit(//tmp/out/**) Bash(make *)")
	if _, ok := MatchRule(abs, cc("Edit"), json.RawMessage(`{"file_path":"/tmp/out/r.txt"}`), "claude-code"); !ok {
		t.Error("//abs pattern did not match")
	}
	for cmd, want := range map[string]bool{"make test": true, "make": true, "makefoo": false, "make test && curl x": false} {
		raw, _ := json.Marshal(map[string]string{"command": cmd})
		if _, ok := MatchRule(abs, cc("Bash"), raw, "claude-code"); ok != want {
			t.Errorf("Bash(make *) on %q: %v, want %v", cmd, ok, want)
		}
	}
	if _, ok := MatchRule(nil, cc("Read"), json.RawMessage(`{}`), "claude-code"); ok {
		t.Error("no rules matched")
	}
}
