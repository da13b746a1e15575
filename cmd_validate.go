package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"unicode/utf8"

	"skillet/harness/config"
	"skillet/harness/event"
	"skillet/harness/profile"
	"skillet/harness/rulebook"
	"skillet/skills"
)

const validateUsage = `usage: skillet validate [--json] [--config FILE] [PATH...]

Checks skills against the Agent Skills specification and Skillet's rules.
A PATH is a skill folder, its SKILL.md, a folder of skill folders (with
its tools/ folder) or a tool file. With no PATH the default skills folders
are checked: ./.agents/skills, ./.claude/skills, ~/.agents/skills and
~/.claude/skills.

Validate is strict where loading is lenient: a value holding an unquoted
": " (invalid YAML) and an empty compatibility are errors here, since
other tools will not read them; a session loads such a skill with a
warning.

A valid skill that can never load under the session limits gets a
warning: its text over max_skill_chars (too large), or its estimated
tokens (characters/4) alone over load_token_budget (over budget). The
limits are the defaults unless --config names a skillet.toml, whose
[session] limits are then used; ./skillet.toml is not read on its own.

Tool references resolve against the skill's own tools/ folder and the
tools/ folder of its skills root. The tools_dirs of skillet.toml are not
read, even with --config: a tool defined only there is reported as a
warning, not an error.

Exit status: 0 when everything is valid, 1 when anything is invalid or a
PATH holds no skill and no tool file, 2 on a usage error.

Flags:
`

// validateJSON is the --json document.
type validateJSON struct {
	OK        bool               `json:"ok"`
	Paths     []string           `json:"paths"`
	Limits    validateLimits     `json:"limits"`
	Notes     []string           `json:"notes"`
	Skills    []validateSkill    `json:"skills"`
	ToolFiles []validateToolFile `json:"tool_files"`
	Summary   validateSummary    `json:"summary"`
}

// validateLimits are the session limits a skill's load is checked
// against, and where they came from: "defaults" or the --config file.
type validateLimits struct {
	From            string `json:"from"`
	MaxSkillChars   int    `json:"max_skill_chars"`
	LoadTokenBudget int    `json:"load_token_budget"`
}

type validateSkill struct {
	Name    string `json:"name"`
	Folder  string `json:"folder"`
	File    string `json:"file"`
	Version string `json:"version,omitempty"`
	Valid   bool   `json:"valid"`
	// Load is "ok", or why the skill can never load: "invalid",
	// "too_large" (over max_skill_chars) or "over_budget" (alone over
	// load_token_budget).
	Load string `json:"load"`
	// Chars and TokensEstimate measure what a load delivers; the tokens
	// are characters/4, an estimate.
	Chars          int              `json:"chars"`
	TokensEstimate int              `json:"tokens_estimate"`
	Problems       []skills.Problem `json:"problems"`
	Warnings       []skills.Problem `json:"warnings"`
}

type validateToolFile struct {
	File     string           `json:"file"`
	Tool     string           `json:"tool,omitempty"`
	Valid    bool             `json:"valid"`
	Problems []skills.Problem `json:"problems"`
}

type validateSummary struct {
	Skills           int `json:"skills"`
	Valid            int `json:"valid"`
	Invalid          int `json:"invalid"`
	CannotLoad       int `json:"cannot_load"`
	ToolFiles        int `json:"tool_files"`
	InvalidToolFiles int `json:"invalid_tool_files"`
}

// runValidate is `skillet validate`: it returns the exit status.
func runValidate(args []string, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("skillet validate", flag.ContinueOnError)
	asJSON := fset.Bool("json", false, "print one JSON document")
	cfgPath := fset.String("config", "", "`FILE` skillet.toml whose [session] limits are used")
	paths, code, done := parseInterleaved(fset, args, validateUsage, stdout, stderr)
	if done {
		return code
	}

	limits := validateLimits{From: "defaults"}
	set := event.DefaultSettings()
	if *cfgPath != "" {
		cfg, err := config.Load(*cfgPath)
		if err != nil {
			fmt.Fprintf(stderr, "skillet validate: --config: %v\n", err)
			return 2
		}
		set, limits.From = cfg.Session, *cfgPath
	}
	limits.MaxSkillChars, limits.LoadTokenBudget = set.MaxSkillChars, set.LoadTokenBudget

	out := validateJSON{Paths: paths, Limits: limits, Notes: []string{}, Skills: []validateSkill{}, ToolFiles: []validateToolFile{}}
	if len(paths) == 0 {
		cwd, _ := os.Getwd()
		home, _ := os.UserHomeDir()
		roots := skills.DefaultRoots(nil, nil, cwd, home)
		if len(roots) == 0 {
			fmt.Fprintln(stderr, "skillet validate: no PATH given and none of the default skills folders exists (./.agents/skills, ./.claude/skills, ~/.agents/skills, ~/.claude/skills)")
			return 2
		}
		for _, r := range roots {
			paths = append(paths, r.Dir)
		}
		out.Paths = paths
		note := "no PATH given: checking the default skills folders " + strings.Join(paths, ", ")
		out.Notes = append(out.Notes, note)
		if !*asJSON {
			fmt.Fprintln(stderr, note)
		}
	}

	// Every path is checked before anything is printed, so a usage error
	// leaves no half report.
	var reports []*skills.Report
	for _, p := range paths {
		rep, err := skills.Validate(p)
		if err != nil {
			fmt.Fprintf(stderr, "skillet validate: %v\n", err)
			return 2
		}
		reports = append(reports, rep)
	}

	var lines []string
	empty := false
	for _, rep := range reports {
		if len(rep.Skills) == 0 && len(rep.ToolFiles) == 0 {
			// a mistyped but existing folder must not pass a CI check
			note := "no skills found in " + rep.Path + " (no subfolder holds a SKILL.md)"
			out.Notes = append(out.Notes, note)
			lines = append(lines, note)
			empty = true
		}
		for _, s := range rep.Skills {
			vs := validateSkill{Name: s.Name, Folder: s.Dir, File: s.Path, Version: s.Version, Valid: s.Valid(),
				Problems: nonNil(s.Problems)}
			warnings := slices.Concat(agentKeyWarnings(s), checkLoad(&vs, s, limits))
			vs.Warnings = nonNil(warnings)
			out.Skills = append(out.Skills, vs)
			out.Summary.Skills++
			if vs.Valid {
				out.Summary.Valid++
				lines = append(lines, "ok "+s.Name)
			} else {
				out.Summary.Invalid++
			}
			if vs.Load == loadTooLarge || vs.Load == loadOverBudget {
				out.Summary.CannotLoad++
			}
			for _, p := range s.Problems {
				lines = append(lines, fmt.Sprintf("%s: %s: %s", s.Dir, p.Field, p.Message))
			}
			for _, w := range warnings {
				lines = append(lines, fmt.Sprintf("%s: warning: %s: %s", s.Dir, w.Field, w.Message))
			}
		}
		for _, t := range rep.ToolFiles {
			out.ToolFiles = append(out.ToolFiles, validateToolFile{File: t.File, Tool: t.Tool, Valid: t.Valid(), Problems: nonNil(t.Problems)})
			out.Summary.ToolFiles++
			if t.Valid() {
				lines = append(lines, fmt.Sprintf("ok tool %s (%s)", t.Tool, t.File))
				continue
			}
			out.Summary.InvalidToolFiles++
			for _, p := range t.Problems {
				lines = append(lines, fmt.Sprintf("%s: %s: %s", t.File, p.Field, p.Message))
			}
		}
	}
	out.OK = out.Summary.Invalid == 0 && out.Summary.InvalidToolFiles == 0 && !empty

	if *asJSON {
		if code := writeJSON(stdout, stderr, "skillet validate", out); code != 0 {
			return code
		}
	} else {
		for _, l := range lines {
			fmt.Fprintln(stdout, l)
		}
		sum := out.Summary
		line := fmt.Sprintf("%d skills: %d valid, %d invalid", sum.Skills, sum.Valid, sum.Invalid)
		if sum.CannotLoad > 0 {
			under := "the default limits"
			if limits.From != "defaults" {
				under = "the limits of " + limits.From
			}
			line += fmt.Sprintf("; %d can never load under %s", sum.CannotLoad, under)
		}
		if sum.ToolFiles > 0 {
			line += fmt.Sprintf("; %d tool files: %d valid, %d invalid", sum.ToolFiles, sum.ToolFiles-sum.InvalidToolFiles, sum.InvalidToolFiles)
		}
		fmt.Fprintln(stdout, line)
	}
	if !out.OK {
		return 1
	}
	return 0
}

// The load verdicts of validateSkill.Load.
const (
	loadOK         = "ok"
	loadInvalid    = "invalid"
	loadTooLarge   = "too_large"
	loadOverBudget = "over_budget"
)

// checkLoad measures what a load of s delivers against the limits, sets
// vs.Load and returns a warning for each limit that stops every load. It
// is a warning, not a problem: the skill is valid per the spec, and other
// settings may let it load.
func checkLoad(vs *validateSkill, s *skills.Skill, lim validateLimits) []skills.Problem {
	text := s.LoadText()
	vs.Chars = utf8.RuneCountInString(text)
	vs.TokensEstimate = skills.EstimateTokens(vs.Chars)
	if !s.Valid() {
		vs.Load = loadInvalid
		return nil
	}
	vs.Load = loadOK
	var warn []skills.Problem
	// the rule book's R12, asked whether any load could take the text
	ever := rulebook.LoadLimits(event.Settings{MaxSkillChars: lim.MaxSkillChars, LoadTokenBudget: lim.LoadTokenBudget}, rulebook.Usage{}, rulebook.PathEver, s.Name, vs.Chars, vs.TokensEstimate)
	if rulebook.Breaks(ever, rulebook.LimitChars) {
		vs.Load = loadTooLarge
		warn = append(warn, skills.Problem{Field: "load", Message: fmt.Sprintf(
			"its text is %d characters, over max_skill_chars (%d): too large, can never load", vs.Chars, lim.MaxSkillChars)})
	}
	if rulebook.Breaks(ever, rulebook.LimitTokens) {
		if vs.Load == loadOK {
			vs.Load = loadOverBudget
		}
		warn = append(warn, skills.Problem{Field: "load", Message: fmt.Sprintf(
			"its text is about %d tokens (estimated as characters/4), alone over load_token_budget (%d): over budget, can never load", vs.TokensEstimate, lim.LoadTokenBudget)})
	}
	return warn
}

func nonNil(ps []skills.Problem) []skills.Problem {
	if ps == nil {
		return []skills.Problem{}
	}
	return ps
}

// agentKeyWarnings are the skill's warnings, the one of
// `disable-model-invocation` saying what each agent's profile does with
// the skill rather than that Skillet ignores the key.
func agentKeyWarnings(s *skills.Skill) []skills.Problem {
	out := slices.Clone(s.Warnings)
	for i, w := range out {
		if w.Field == "disable-model-invocation" {
			out[i].Message = invocationNote(s)
		}
	}
	return out
}

// invocationNote asks each profile what its agent does with a skill that
// sets disable-model-invocation, so the note stays true to the profiles.
func invocationNote(s *skills.Skill) string {
	const head = "Claude Code's key, not the spec's"
	if strings.TrimSpace(s.Extra["disable-model-invocation"]) != "true" {
		return fmt.Sprintf("%s; only true changes anything (here it is %s): every agent lists the skill", head, strings.TrimSpace(s.Extra["disable-model-invocation"]))
	}
	ps := profile.Skill{Name: s.Name, Description: s.Description, Dir: s.Dir, Path: s.Path, DisableModelInvocation: true}
	var out, in []string
	for _, p := range profile.All() {
		if p.Name() == rulebook.DefaultProfile {
			continue // Skillet's own list is the engine's, which lists every skill
		}
		cat := p.Catalogue(profile.Input{Skills: []profile.Skill{ps}, NoBundled: true})
		left := false
		for _, e := range cat.Entries {
			if e.Name == s.Name && e.State == profile.Omitted && strings.Contains(e.Reason, "disable-model-invocation") {
				left = true
			}
		}
		if left {
			out = append(out, p.Name())
		} else {
			in = append(in, p.Name())
		}
	}
	in = append(in, "Skillet's own profile")
	msg := head + ": only the user may invoke the skill"
	if len(out) > 0 {
		msg += "; " + strings.Join(out, ", ") + " leave it out of the model's list"
	}
	return msg + "; " + strings.Join(in, ", ") + " list it as usual (skillet offered shows each list)"
}
