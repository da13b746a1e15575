package profile

import (
	"fmt"
	"strings"
)

// bundledSkill is a skill an agent ships with, as its listing shows it:
// the name and the size of the description, measured by running the agent
// (the recorded request) or from its package. The description itself is
// the agent's text and is not reproduced: Placeholder stands in for it, of
// the measured size.
type bundledSkill struct {
	name string
	// desc is the description's length in characters as listed.
	desc int
	// path is the SKILL.md location the listing shows, where it shows one.
	path string
	// late marks Claude Code's built-in commands (init, security-review):
	// listed, and charged to the budget, after the user's skills.
	late bool
}

// placeholder is the stand-in description of a bundled skill: marked as
// such, exactly n characters long (ASCII), so that a listing's length is
// the agent's while its text is not copied.
func placeholder(agent, name string, n int) string {
	if n <= 0 {
		return ""
	}
	s := fmt.Sprintf("[placeholder: %s's bundled skill %s, %d characters]", agent, name, n)
	if len(s) >= n {
		// cut, and closed so that it never ends in a space a listing trims
		return s[:n-1] + "]"
	}
	return s[:len(s)-1] + strings.Repeat(".", n-len(s)) + "]"
}

// Claude Code 2.1.332's bundled skills, from the skill_listing reminder it
// sent a loopback endpoint (no user skills, an unset HOME): the entry is
// "- NAME: DESCRIPTION", and desc is the entry's length less "- NAME: ".
// Listed after the user's skills; their descriptions are charged to the
// budget before the user's, except the built-in commands init and
// security-review, which come last in both (measured with 40 user skills
// at an 8,000-character budget: the 11 kept their descriptions, 12 user
// skills theirs, init and security-review none).
var claudeBundled = []bundledSkill{
	{name: "dataviz", desc: 1436},
	{name: "update-config", desc: 690},
	{name: "keybindings-help", desc: 228},
	{name: "code-review", desc: 835},
	{name: "simplify", desc: 176},
	{name: "fewer-permission-prompts", desc: 163},
	{name: "loop", desc: 336},
	{name: "claude-api", desc: 1157},
	{name: "workflow-authoring", desc: 230},
	{name: "run", desc: 361},
	{name: "plugin-authoring", desc: 255},
	{name: "init", desc: 59, late: true},
	{name: "security-review", desc: 71, late: true},
}

// Codex 0.171.0's system skills, installed under $CODEX_HOME/skills/.system
// on start (codex-rs skills assets); the two whose agents/openai.yaml says
// allow_implicit_invocation: false (create-statusline, review-agent) are
// not listed. Scope "system" sorts them first, and their root is the
// first alias (measured: "- `r0` = `$CODEX_HOME/skills/.system`"). The
// root is written with ~ for CODEX_HOME's default, ~/.codex.
var codexBundled = []bundledSkill{
	{name: "imagegen", desc: 570, path: codexSystemRoot + "/imagegen/SKILL.md"},
	{name: "openai-docs", desc: 624, path: codexSystemRoot + "/openai-docs/SKILL.md"},
	{name: "skill-creator", desc: 106, path: codexSystemRoot + "/skill-creator/SKILL.md"},
	{name: "skill-installer", desc: 225, path: codexSystemRoot + "/skill-installer/SKILL.md"},
}

const codexSystemRoot = "~/.codex/skills/.system"

// Crush 37f36e93's builtin skills, embedded from internal/skills/builtin
// (DiscoverBuiltin): listed first with <type>builtin</type> at
// crush://skills/NAME/SKILL.md. desc is in characters after Crush's
// escaping (the descriptions are 2 to 4 bytes longer in UTF-8).
var crushBundled = []bundledSkill{
	{name: "crush-config", desc: 209, path: "crush://skills/crush-config/SKILL.md"},
	{name: "crush-hooks", desc: 241, path: "crush://skills/crush-hooks/SKILL.md"},
	{name: "jq", desc: 230, path: "crush://skills/jq/SKILL.md"},
}

// Gemini CLI core 0.61.0's built-in skills, from the package's
// dist/src/skills/builtin: listed before the user's, in the order its
// glob returned them from an npm install (measured through its own
// SkillManager and renderAgentSkills). The location is the file in a
// global npm install.
var geminiBundled = []bundledSkill{
	{name: "skill-creator", desc: 230, path: geminiBuiltinDir + "skill-creator/SKILL.md"},
	{name: "antigravity-support", desc: 273, path: geminiBuiltinDir + "antigravity-support/SKILL.md"},
}

// opencode 1.18.33's bundled skill, from the system prompt it sent a
// loopback endpoint: sorted among the user's skills by name, its location
// sent as "&lt;built-in&gt;" (the one escaped text of the listing).
var opencodeBundled = []bundledSkill{
	{name: "customize-opencode", desc: 386, path: "&lt;built-in&gt;"},
}

const geminiBuiltinDir = "/usr/local/lib/node_modules/@google/gemini-cli/node_modules/@google/gemini-cli-core/dist/src/skills/builtin/"

// bundledFor is the agent's bundled skills a listing takes: none with
// NoBundled, and none that a user skill of the same name hides, except
// under Codex, which lists both (measured on 0.171.0 with a user
// skill-creator), and Gemini CLI, whose profile puts the user skill in
// the bundled one's place.
func bundledFor(in Input, all []bundledSkill, agent string) []Skill {
	if in.NoBundled {
		return nil
	}
	user := map[string]bool{}
	for _, s := range in.Skills {
		if agent != codexAgent && agent != geminiAgent {
			user[s.Name] = true
			user[s.folder()] = true
		}
	}
	var out []Skill
	for _, b := range all {
		if user[b.name] {
			continue
		}
		sk := Skill{Name: b.name, Description: placeholder(agent, b.name, b.desc), Path: b.path, Scope: "system", Folder: b.name}
		if strings.HasPrefix(b.path, codexSystemRoot+"/") {
			sk.Root = codexSystemRoot
		}
		out = append(out, sk)
	}
	return out
}

// bundledEntry is the entry of a bundled skill listed whole.
func bundledEntry(s Skill, rank int, reason string) Entry {
	n := runes(s.Description)
	return Entry{Name: s.Name, State: Full, Kept: n, Length: n, Rank: rank, Bundled: true, Reason: reason}
}
