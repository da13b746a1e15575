package profile

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
)

// Harness is how an agent's harness treats what the model and the user
// do, beyond what it shows them: how a call of its activation tool names a
// skill, whether reading a skill's SKILL.md with its own file or shell
// tools activates it, whether the user's $name mentions inject a skill,
// which shell commands it runs without asking, whether a loaded skill's
// allowed-tools approve calls, and whether a repeated activation delivers
// the skill's text again. The engine reads these values; it never asks a
// profile's name.
type Harness struct {
	// Args reads a call of the activation tool.
	Args func(raw json.RawMessage) (ActivationArgs, error)
	// ByPath: with the profile's own tools offered, reading a skill's
	// SKILL.md activates it and takes the activation tool's place.
	ByPath bool
	// Mention finds the skills a user message names (the first group is
	// the name); nil when mentions inject nothing.
	Mention *regexp.Regexp
	// KnownSafe names the rule by which the harness runs a shell command
	// without asking; "" asks. Nil asks always.
	KnownSafe func(command string) string
	// SkillsGrant: a loaded skill's allowed-tools approve calls of the
	// profile's tools; elsewhere they are noted only.
	SkillsGrant bool
	// RepeatSilent: activating a skill already active delivers no text
	// again.
	RepeatSilent bool
	// RuleBook: the profile is Skillet's own rule book: load_skill and
	// <available_skills>, the loaded skills' <current_context>, preloads
	// in the instructions, paste mode and the frozen prompt, and its
	// lifecycle rules always on.
	RuleBook bool
}

// ActivationArgs is what a call of an activation tool asks for: a skill by
// name, with Claude Code's Args, or a file by path.
type ActivationArgs struct {
	Name, Args, Path string
}

// harnessed is a profile whose harness differs from the default: an
// activation tool that takes {"name": ...}, nothing else.
type harnessed interface{ Harness() Harness }

// HarnessOf is the profile's harness.
func HarnessOf(p Profile) Harness {
	if h, ok := p.(harnessed); ok {
		return h.Harness()
	}
	return Harness{Args: argsByName}
}

// Harness: Skillet's own rule book.
func (skillet) Harness() Harness { return Harness{Args: argsByName, RuleBook: true} }

// argsByName reads {"name": "..."}.
func argsByName(raw json.RawMessage) (ActivationArgs, error) {
	var v struct{ Name string }
	_ = json.Unmarshal(raw, &v)
	return ActivationArgs{Name: strings.TrimSpace(v.Name)}, nil
}

// PathInCommand finds the file a read command names: the last word that
// looks like a path (cat, sed -n, head and the like put it last).
func PathInCommand(cmd []string, workdir string) string {
	var words []string
	for _, c := range cmd {
		words = append(words, strings.Fields(c)...)
	}
	for i := len(words) - 1; i >= 0; i-- {
		w := strings.Trim(words[i], `'"`)
		if !strings.Contains(w, "/") && !strings.HasSuffix(w, ".md") {
			continue
		}
		if !filepath.IsAbs(w) && workdir != "" {
			w = filepath.Join(workdir, w)
		}
		return w
	}
	return ""
}

// Harness: the Skill tool names a skill as "skill" (a leading slash, as
// in /name, is the user's spelling), with "args"; a loaded skill's
// allowed-tools approve calls; invoking the active skill again adds no
// text.
func (claudeCode) Harness() Harness {
	return Harness{Args: func(raw json.RawMessage) (ActivationArgs, error) {
		var v struct{ Skill, Args string }
		_ = json.Unmarshal(raw, &v)
		return ActivationArgs{Name: strings.TrimPrefix(strings.TrimSpace(v.Skill), "/"), Args: v.Args}, nil
	}, SkillsGrant: true, RepeatSilent: true}
}

// Harness: the view tool activates a skill by reading its SKILL.md
// ("file_path"), and so does the agent's own view tool when offered.
func (crush) Harness() Harness {
	return Harness{Args: func(raw json.RawMessage) (ActivationArgs, error) {
		var v struct {
			FilePath string `json:"file_path"`
		}
		_ = json.Unmarshal(raw, &v)
		return ActivationArgs{Path: strings.TrimSpace(v.FilePath)}, nil
	}, ByPath: true}
}

// codexMention finds $name in a user message (Codex's explicit skill
// mention).
var codexMention = regexp.MustCompile(`\$([A-Za-z0-9][A-Za-z0-9_.-]*)`)

// Harness: the shell activates a skill by reading its SKILL.md (the last
// path of "command", relative to "workdir"); $name injects the skill; a
// known-safe read runs without asking.
func (codex) Harness() Harness {
	return Harness{Args: func(raw json.RawMessage) (ActivationArgs, error) {
		var v struct {
			Command []string `json:"command"`
			Workdir string   `json:"workdir"`
		}
		_ = json.Unmarshal(raw, &v)
		a := ActivationArgs{Path: PathInCommand(v.Command, v.Workdir)}
		if a.Path == "" {
			return a, fmt.Errorf("this harness runs no commands: its shell only reads a listed skill's files, as in [\"cat\", \"/path/to/skill/SKILL.md\"]")
		}
		return a, nil
	}, ByPath: true, Mention: codexMention, KnownSafe: codexKnownSafe}
}

// codexSafe are the programs Codex runs without asking when they only
// read: codex-rs/core/src/command_safety/is_safe_command.rs
// (is_known_safe_command). Options that write or run something else make a
// command unsafe there too (find -exec, -delete; sed without -n).
var codexSafe = map[string]bool{"cat": true, "cd": true, "echo": true, "false": true, "grep": true, "head": true, "ls": true, "nl": true,
	"pwd": true, "rg": true, "tail": true, "true": true, "wc": true, "which": true, "sed": true, "find": true}

// codexKnownSafe names Codex's rule when it would run command without
// asking: one known-safe program with no shell operators. "" asks.
func codexKnownSafe(command string) string {
	if strings.ContainsAny(command, "|&;<>`$()\n") {
		return ""
	}
	words := strings.Fields(command)
	if len(words) == 0 || !codexSafe[words[0]] {
		return ""
	}
	for _, w := range words[1:] {
		switch {
		case words[0] == "find" && (w == "-exec" || w == "-execdir" || w == "-delete" || w == "-ok" || strings.HasPrefix(w, "-fprint")):
			return ""
		case words[0] == "rg" && (w == "--pre" || strings.HasPrefix(w, "--search-zip")):
			return ""
		}
	}
	if words[0] == "sed" && (len(words) < 2 || words[1] != "-n") {
		return ""
	}
	return "Codex's known-safe command rule (" + words[0] + ")"
}
