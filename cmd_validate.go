package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"skillet/skills"
)

const validateUsage = `usage: skillet validate [--json] [PATH...]

Checks skills against the Agent Skills specification and Skillet's rules.
A PATH is a skill folder, its SKILL.md, a folder of skill folders (with
its tools/ folder) or a tool file. With no PATH the default skills folders
are checked: ./.agents/skills, ./.claude/skills, ~/.agents/skills and
~/.claude/skills.

Tool references resolve against the skill's own tools/ folder and the
tools/ folder of its skills root. The tools_dirs of skillet.toml are not
read: a tool defined only there is reported as a warning, not an error.

Exit status: 0 when everything is valid, 1 when anything is invalid or a
PATH holds no skill and no tool file, 2 on a usage error.
`

// validateJSON is the --json document.
type validateJSON struct {
	OK        bool               `json:"ok"`
	Paths     []string           `json:"paths"`
	Notes     []string           `json:"notes"`
	Skills    []validateSkill    `json:"skills"`
	ToolFiles []validateToolFile `json:"tool_files"`
	Summary   validateSummary    `json:"summary"`
}

type validateSkill struct {
	Name     string           `json:"name"`
	Folder   string           `json:"folder"`
	File     string           `json:"file"`
	Version  string           `json:"version,omitempty"`
	Valid    bool             `json:"valid"`
	Problems []skills.Problem `json:"problems"`
	Warnings []skills.Problem `json:"warnings"`
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
	ToolFiles        int `json:"tool_files"`
	InvalidToolFiles int `json:"invalid_tool_files"`
}

// runValidate is `skillet validate`: it returns the exit status.
func runValidate(args []string, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("validate", flag.ContinueOnError)
	fset.SetOutput(io.Discard)
	asJSON := fset.Bool("json", false, "print one JSON document")
	var paths []string
	// Flags may come after paths too: parse, take one path, go on.
	for {
		if err := fset.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprint(stdout, validateUsage)
				return 0
			}
			fmt.Fprintf(stderr, "skillet validate: %v\n\n%s", err, validateUsage)
			return 2
		}
		if fset.NArg() == 0 {
			break
		}
		paths = append(paths, fset.Arg(0))
		args = fset.Args()[1:]
	}

	out := validateJSON{Paths: paths, Notes: []string{}, Skills: []validateSkill{}, ToolFiles: []validateToolFile{}}
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
				Problems: nonNil(s.Problems), Warnings: nonNil(s.Warnings)}
			out.Skills = append(out.Skills, vs)
			out.Summary.Skills++
			if vs.Valid {
				out.Summary.Valid++
				lines = append(lines, "ok "+s.Name)
			} else {
				out.Summary.Invalid++
			}
			for _, p := range s.Problems {
				lines = append(lines, fmt.Sprintf("%s: %s: %s", s.Dir, p.Field, p.Message))
			}
			for _, w := range s.Warnings {
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
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(out); err != nil {
			fmt.Fprintf(stderr, "skillet validate: write JSON: %v\n", err)
			return 1
		}
	} else {
		for _, l := range lines {
			fmt.Fprintln(stdout, l)
		}
		sum := out.Summary
		line := fmt.Sprintf("%d skills: %d valid, %d invalid", sum.Skills, sum.Valid, sum.Invalid)
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

func nonNil(ps []skills.Problem) []skills.Problem {
	if ps == nil {
		return []skills.Problem{}
	}
	return ps
}
