package profile

import (
	"strings"
	"testing"
)

// TestGetVersions: NAME@VERSION names a profile when VERSION is the one it
// reproduces; any other version, a version for skillet or an unknown name
// is an error that says which ones exist.
func TestGetVersions(t *testing.T) {
	for _, spec := range []string{"claude-code@2.1.332", "codex@0.171.0", "crush@37f36e93", "opencode@1.18.33", "gemini-cli@0.61.0", "gemini-cli"} {
		p, err := Get(spec)
		if err != nil || p.Name() != strings.Split(spec, "@")[0] {
			t.Errorf("%s: %v, %v", spec, p, err)
		}
	}
	for spec, want := range map[string]string{
		"claude-code@2.1.300": `unknown Claude Code version "2.1.300": the claude-code profile reproduces Claude Code 2.1.332 only (known versions: 2.1.332)`,
		"crush@90bc466d":      `unknown Crush version "90bc466d": the crush profile reproduces Crush 37f36e93 only (known versions: 37f36e93)`,
		"gemini-cli@":         `unknown Gemini CLI core version "": the gemini-cli profile reproduces Gemini CLI core 0.61.0 only`,
		"skillet@2":           `profile skillet reproduces no other agent, so it takes no version ("2")`,
		"cursor@1.0":          `unknown profile "cursor": known profiles are skillet, claude-code`,
	} {
		if _, err := Get(spec); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", spec, err, want)
		}
	}
	for _, p := range All() {
		if v := Version(p); (v == "") != (p.Name() == "skillet") {
			t.Errorf("%s: version %q", p.Name(), v)
		}
	}
}

// TestNotices: a model Claude Code does not know, a window a known model's
// own replaces and a window for a profile without a budget are said in
// words; what the agent takes as given says nothing.
func TestNotices(t *testing.T) {
	get := func(name string) Profile { p, _ := Get(name); return p }
	for _, c := range []struct {
		prof, model string
		window      int
		want        string
	}{
		{"claude-code", "gpt-4o-mini", 0, `Claude Code 2.1.332 does not know the model "gpt-4o-mini": like the agent, the profile assumes a window of 200000 tokens and counts 4 bytes a token`},
		{"claude-code", "llama3", 32000, `does not know the model "llama3"; its listing budget here rests on the 32000-token window given`},
		{"claude-code", "claude-sonnet-4-6", 32000, "Claude Code 2.1.332 gives claude-sonnet-4-6 a window of 200000 tokens; the 32000 given is what it uses only with CLAUDE_CODE_MAX_CONTEXT_TOKENS and DISABLE_COMPACT set"},
		{"crush", "", 128000, "Crush 37f36e93 lists every skill whatever the window: the context window of 128000 tokens changes nothing in the crush profile"},
		{"claude-code", "claude-sonnet-4-6", 0, ""},
		{"claude-code", "claude-opus-4-7", 1000000, ""},
		{"claude-code", "sonnet[1m]", 0, ""},
		{"claude-code", "", 0, ""},
		{"codex", "gpt-4o-mini", 32000, ""},
		{"opencode", "", 0, ""},
		{"skillet", "x", 5000, ""},
	} {
		got := strings.Join(Notices(get(c.prof), c.model, c.window), "\n")
		if c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("%s %q %d: %q, want %q", c.prof, c.model, c.window, got, c.want)
		}
	}
}
