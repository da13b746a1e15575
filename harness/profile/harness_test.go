package profile

import (
	"encoding/json"
	"fmt"
	"testing"
)

// Each profile's harness is a value the engine reads: how its activation
// tool's call names a skill, and what else it decides.
func TestHarnessOfEveryProfile(t *testing.T) {
	for _, tc := range []struct {
		profile, call string
		want          string // the activation args read, or the error
		byPath, grant bool
		mention       bool
		silent        bool
	}{
		{"skillet", `{"name":" alpha "}`, "name=alpha args= path=", false, false, false, false},
		{"claude-code", `{"skill":"/alpha","args":"--fast"}`, "name=alpha args=--fast path=", false, true, false, true},
		{"crush", `{"file_path":" /s/alpha/SKILL.md "}`, "name= args= path=/s/alpha/SKILL.md", true, false, false, false},
		{"codex", `{"command":["sed","-n","1,200p","alpha/SKILL.md"],"workdir":"/s"}`, "name= args= path=/s/alpha/SKILL.md", true, false, true, false},
		{"codex", `{"command":["make","all"]}`, "error: this harness runs no commands", true, false, true, false},
		{"opencode", `{"name":"alpha"}`, "name=alpha args= path=", false, false, false, false},
		{"gemini-cli", `{"name":"alpha"}`, "name=alpha args= path=", false, false, false, false},
	} {
		t.Run(tc.profile+" "+tc.call, func(t *testing.T) {
			p, err := Get(tc.profile)
			if err != nil {
				t.Fatal(err)
			}
			h := HarnessOf(p)
			a, err := h.Args(json.RawMessage(tc.call))
			got := fmt.Sprintf("name=%s args=%s path=%s", a.Name, a.Args, a.Path)
			if err != nil {
				got = "error: " + err.Error()[:len("this harness runs no commands")]
			}
			if got != tc.want {
				t.Errorf("args %q, want %q", got, tc.want)
			}
			if h.ByPath != tc.byPath || h.SkillsGrant != tc.grant || (h.Mention != nil) != tc.mention || h.RepeatSilent != tc.silent {
				t.Errorf("harness %+v", h)
			}
		})
	}
}

func TestCodexHarness_MentionsAndKnownSafe(t *testing.T) {
	p, _ := Get("codex")
	h := HarnessOf(p)
	if m := h.Mention.FindAllStringSubmatch("use $alpha-notes, then $beta.", -1); len(m) != 2 || m[0][1] != "alpha-notes" || m[1][1] != "beta." {
		t.Fatalf("mentions %q", m)
	}
	for cmd, safe := range map[string]bool{"cat a.md": true, "sed -n 1,5p a": true, "sed -i s/a/b/ a": false, "rm -rf x": false,
		"cat a | sh": false, "find . -delete": false, "rg --pre x y": false, "": false} {
		if got := h.KnownSafe(cmd) != ""; got != safe {
			t.Errorf("KnownSafe(%q) = %v, want %v", cmd, got, safe)
		}
	}
	if HarnessOf(claudeCode{}).KnownSafe != nil {
		t.Fatal("Claude Code runs nothing unasked by Codex's rule")
	}
}
