package skills

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Report is what Validate found under one path.
type Report struct {
	// Path is the path validated, as given.
	Path string `json:"path"`
	// Skills are the skills found, in folder order.
	Skills []*Skill `json:"skills"`
	// ToolFiles are every tool file of the root's tools/ folder and of
	// each skill's tools/, valid or not.
	ToolFiles []ToolFileReport `json:"tool_files"`
}

// ToolFileReport is the verdict on one tool file.
type ToolFileReport struct {
	File string `json:"file"`
	// Tool is name@version when the file defines a valid tool.
	Tool     string    `json:"tool,omitempty"`
	Problems []Problem `json:"problems,omitempty"`
}

// Valid reports whether the tool file has no problems.
func (t ToolFileReport) Valid() bool { return len(t.Problems) == 0 }

// ErrNotSkillPath is returned by Validate for a path that is neither a
// folder, a SKILL.md nor a tool file.
var ErrNotSkillPath = errors.New("not a skill folder, a skills root, a SKILL.md or a tool file")

// Validate checks one path: a skill folder (or its SKILL.md), a root of
// skill folders with its tools/ folder, or a single tool file. Skills get
// a warning for each tool reference that neither their tools/ nor the
// root's tools/ defines, since it may still come from the config's
// tools_dirs. Skills are read strictly: what loading tolerates with a
// warning but the spec forbids is a problem here (see ParseSkill). The error is for a path that does not exist or cannot be
// validated at all; everything wrong inside is in the report.
func Validate(path string) (*Report, error) {
	info, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("validate %s: no such file or folder", path)
		}
		return nil, fmt.Errorf("validate %s: %w", path, err)
	}
	rep := &Report{Path: path}
	path = filepath.Clean(path)
	if !info.IsDir() {
		base := filepath.Base(path)
		switch {
		case base == SkillFile || base == SkillFileLower:
			s := loadSkillFile(path, true)
			if base == SkillFileLower {
				s.Warnings = append([]Problem{lowerCaseWarning()}, s.Warnings...)
			}
			rep.addSkills([]*Skill{s}, siblingTools(filepath.Dir(path)))
		case IsToolFile(base):
			rep.addTools([]string{filepath.Dir(path)}, path)
		default:
			return nil, fmt.Errorf("validate %s: %w", path, ErrNotSkillPath)
		}
		return rep, nil
	}
	if _, _, _, ok := findSkillFile(path); ok {
		rep.addSkills([]*Skill{loadSkill(path, true)}, siblingTools(path))
		return rep, nil
	}
	rs, err := scanRoot(path)
	if err != nil {
		return nil, fmt.Errorf("validate %s: %w", path, err)
	}
	var ws *toolIndex
	if rs.toolsDir != "" {
		ws = rep.addTools([]string{rs.toolsDir}, "")
	}
	var list []*Skill
	for _, cd := range rs.skills {
		s := loadSkillFile(cd.file, true)
		if cd.lower {
			s.Warnings = append([]Problem{lowerCaseWarning()}, s.Warnings...)
		}
		s.Dir, s.Root = cd.dir, path
		list = append(list, s)
	}
	rep.addSkills(list, ws)
	return rep, nil
}

// siblingTools indexes the tools/ folder beside a lone skill folder, when
// that folder is a root's workspace tools (it holds no SKILL.md), so that
// the skill's references to them resolve. Its files are not reported.
func siblingTools(skillDir string) *toolIndex {
	dir := filepath.Join(filepath.Dir(skillDir), "tools")
	if filepath.Clean(dir) == filepath.Clean(skillDir) {
		return nil
	}
	if _, _, _, ok := findSkillFile(dir); ok {
		return nil
	}
	files, err := listToolFiles(dir)
	if err != nil || len(files) == 0 {
		return nil
	}
	ix, _ := buildIndex(dir, loadAll(files))
	return ix
}

func loadAll(files []toolFile) []loadedTool {
	out := make([]loadedTool, len(files))
	for i, f := range files {
		def, probs := LoadToolFile(f.path)
		out[i] = loadedTool{toolFile: f, def: def, probs: probs}
	}
	return out
}

// addTools reports the tool files of dirs (or the one file only) as one
// namespace and returns their index.
func (r *Report) addTools(dirs []string, only string) *toolIndex {
	var files []toolFile
	for _, d := range dirs {
		list, err := listToolFiles(filepath.Clean(d))
		if err != nil {
			r.ToolFiles = append(r.ToolFiles, ToolFileReport{File: d, Problems: []Problem{*fileProblem(err)}})
			continue
		}
		for _, f := range list {
			if only == "" || f.path == only {
				files = append(files, f)
			}
		}
	}
	loaded := loadAll(files)
	ix, probs := buildIndex(filepath.Join(dirs...), loaded)
	dupProbs := map[string][]Problem{}
	for _, p := range probs {
		dupProbs[p.File] = p.Problems
	}
	for _, f := range loaded {
		tr := ToolFileReport{File: f.path, Problems: dupProbs[f.path]}
		if len(tr.Problems) == 0 && f.def != nil {
			tr.Tool = f.def.Key()
		}
		r.ToolFiles = append(r.ToolFiles, tr)
	}
	return ix
}

// addSkills adds skills with their own tool files, warning about tool
// references nothing here defines.
func (r *Report) addSkills(list []*Skill, ws *toolIndex) {
	for _, s := range list {
		toolsDir := filepath.Join(s.Dir, "tools")
		var own *toolIndex
		if info, err := os.Stat(toolsDir); err == nil && info.IsDir() {
			own = r.addTools([]string{toolsDir}, "")
		}
		for i, ref := range s.Tools {
			if _, _, mcp := ref.MCP(); mcp {
				continue
			}
			if def, err := own.find(ref.Name, ref.Version); def != nil || err != nil {
				continue
			}
			if def, err := ws.find(ref.Name, ref.Version); def != nil || err != nil {
				continue
			}
			what := fmt.Sprintf("tool %q", ref.Name)
			if ref.Pinned() {
				what = fmt.Sprintf("tool %q version %d", ref.Name, ref.Version)
			}
			s.Warnings = append(s.Warnings, Problem{Field: fmt.Sprintf("tools[%d]", i),
				Message: what + " is defined neither in the skill's tools/ nor in the root's tools/; it must come from tools_dirs of skillet.toml"})
		}
		r.Skills = append(r.Skills, s)
	}
}

// Valid reports whether every skill and tool file is valid.
func (r *Report) Valid() bool {
	for _, s := range r.Skills {
		if !s.Valid() {
			return false
		}
	}
	for _, t := range r.ToolFiles {
		if !t.Valid() {
			return false
		}
	}
	return true
}
