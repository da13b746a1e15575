package skills

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Root is a folder searched for skills: each direct subfolder holding a
// SKILL.md is a skill, or the root is itself one skill when it holds a
// SKILL.md. A root's tools/ subfolder that holds no SKILL.md is a
// workspace tool folder.
type Root struct {
	// Dir is the folder, absolute.
	Dir string
	// Label says where the root came from, for people: "--skills",
	// "skillet.toml", "project", "user" or "built-in".
	Label string
	// Builtin marks the materialized sample skills.
	Builtin bool
}

// Labels of DefaultRoots.
const (
	LabelFlag    = "--skills"
	LabelConfig  = "skillet.toml"
	LabelProject = "project"
	LabelUser    = "user"
	LabelBuiltin = "built-in"
)

// DefaultRoots lists the discovery roots that exist, in precedence order:
// each --skills folder, the config's skills_dirs, then ./.agents/skills,
// ./.claude/skills, ~/.agents/skills and ~/.claude/skills. Relative folders
// are taken from cwd and a leading ~/ from home. Folders reached twice
// (through a symlink, or listed twice) appear once, at their first place.
// When none exists the list is empty and the caller falls back to the
// built-in samples (see BuiltinRoot).
func DefaultRoots(flagDirs, configDirs []string, cwd, home string) []Root {
	type cand struct{ dir, label string }
	var cands []cand
	for _, d := range flagDirs {
		cands = append(cands, cand{d, LabelFlag})
	}
	for _, d := range configDirs {
		cands = append(cands, cand{d, LabelConfig})
	}
	if cwd != "" {
		cands = append(cands,
			cand{filepath.Join(cwd, ".agents", "skills"), LabelProject},
			cand{filepath.Join(cwd, ".claude", "skills"), LabelProject})
	}
	if home != "" {
		cands = append(cands,
			cand{filepath.Join(home, ".agents", "skills"), LabelUser},
			cand{filepath.Join(home, ".claude", "skills"), LabelUser})
	}
	var roots []Root
	seen := map[string]bool{}
	for _, c := range cands {
		dir := c.dir
		if dir == "" {
			continue
		}
		if home != "" && (dir == "~" || strings.HasPrefix(dir, "~/")) {
			dir = filepath.Join(home, dir[1:])
		}
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(cwd, dir)
		}
		dir = filepath.Clean(dir)
		info, err := os.Stat(dir)
		if err != nil || !info.IsDir() {
			continue
		}
		real, err := filepath.EvalSymlinks(dir)
		if err != nil {
			continue
		}
		if seen[real] {
			continue
		}
		seen[real] = true
		roots = append(roots, Root{Dir: dir, Label: c.label})
	}
	return roots
}

// candidate is a skill folder found under a root.
type candidate struct {
	dir   string // as found
	real  string // with symlinks resolved, to see one folder reached twice
	file  string // SKILL.md or skill.md
	lower bool
	info  fs.FileInfo
}

// rootScan is what one root holds.
type rootScan struct {
	skills   []candidate
	toolsDir string
	// links is set when a skill folder was reached through a link.
	links bool
}

// skipDir reports folders that are never skills: dot-folders (.git among
// them) and node_modules.
func skipDir(name string) bool {
	return strings.HasPrefix(name, ".") || name == "node_modules"
}

// findSkillFile looks for SKILL.md, then skill.md, in dir: one stat in the
// common case.
func findSkillFile(dir string) (path string, info fs.FileInfo, lower, ok bool) {
	return statSkillFile(dir+string(filepath.Separator)+SkillFile, dir+string(filepath.Separator)+SkillFileLower)
}

// statSkillFile is findSkillFile with the two paths made already.
func statSkillFile(upperPath, lowerPath string) (path string, info fs.FileInfo, lower, ok bool) {
	path = upperPath
	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		path = lowerPath
		info, err = os.Stat(path)
		lower = true
	}
	// a SKILL.md that is a pipe or a device is still a skill folder: its
	// reading says what is wrong, rather than the folder seeming empty
	if err != nil || info.IsDir() {
		return "", nil, false, false
	}
	return path, info, lower, true
}

// scanRoot lists a root's skill folders with one ReadDir and a stat of each
// SKILL.md. A root that is gone scans as empty without error.
func scanRoot(dir string) (rootScan, error) {
	rs, _, err := scanRootCached(dir, nil)
	return rs, err
}

// scanRootCached is scanRoot reusing prev, the listing of an earlier scan,
// while the root folder's modification time says no entry was added,
// removed or renamed: then the scan costs a stat of the root and of each
// SKILL.md. It returns the listing to pass next time (nil for a root that
// is itself a skill, or gone).
func scanRootCached(dir string, prev *rootListing) (rootScan, *rootListing, error) {
	var rs rootScan
	rootReal, err := filepath.EvalSymlinks(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return rs, nil, nil
		}
		return rs, nil, err
	}
	if file, info, lower, ok := findSkillFile(dir); ok {
		rs.skills = append(rs.skills, candidate{dir: dir, real: rootReal, file: file, lower: lower, info: info})
		return rs, nil, nil
	}
	lst, err := listRoot(dir, rootReal, prev)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return rs, nil, nil
		}
		return rs, nil, err
	}
	// The stats are the cost of a refresh; they run on every core.
	found := make([]candidate, len(lst.entries))
	isTools := make([]bool, len(lst.entries))
	parallel(len(lst.entries), func(i int) {
		e := &lst.entries[i]
		real := e.real
		if e.link {
			// A link is followed to a folder; a loop or a dangling link
			// fails the stat and is passed over. Its target may change
			// without the root changing, so it is resolved every time.
			info, err := os.Stat(e.path)
			if err != nil || !info.IsDir() {
				return
			}
			if real, err = filepath.EvalSymlinks(e.path); err != nil {
				return
			}
		}
		file, info, lower, ok := statSkillFile(e.skillFile, e.lowerFile)
		if !ok {
			isTools[i] = e.name == "tools"
			return
		}
		found[i] = candidate{dir: e.path, real: real, file: file, lower: lower, info: info}
	})
	// The entries are sorted by name, so the skills come out sorted; they
	// are gathered in place.
	n := 0
	for i := range lst.entries {
		switch {
		case found[i].file != "":
			found[n] = found[i]
			n++
			rs.links = rs.links || lst.entries[i].link
		case isTools[i]:
			rs.toolsDir = lst.entries[i].path
		}
	}
	rs.skills = found[:n]
	return rs, lst, nil
}

// readDirUnsorted is os.ReadDir without the sort.
func readDirUnsorted(dir string) ([]fs.DirEntry, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}
