package skills

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// ErrMCPTool is returned by Catalog.Tool for a SERVER/TOOL reference: such
// a tool comes from an MCP server of the config, not from a tool file.
var ErrMCPTool = errors.New("is a tool of an MCP server; it is resolved from the config, not from tool files")

// ErrNoMCPTool is wrapped by the error of an MCP tool's lookup when the
// server is up and does not list the tool.
var ErrNoMCPTool = errors.New("MCP server has no such tool")

// toolFile is one tool definition file and its stat.
type toolFile struct {
	path string
	mod  time.Time
	size int64
}

// listToolFiles lists the tool files of a folder, sorted: a ReadDir and,
// for each file, a stat.
func listToolFiles(dir string) ([]toolFile, error) {
	entries, err := readDirUnsorted(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	var files []toolFile
	for _, e := range entries {
		if e.IsDir() || !IsToolFile(e.Name()) {
			continue
		}
		path := dir + string(filepath.Separator) + e.Name()
		var info fs.FileInfo
		if e.Type()&fs.ModeSymlink != 0 {
			info, err = os.Stat(path)
		} else {
			info, err = e.Info()
		}
		if err != nil {
			// Gone since the ReadDir, or a dangling link: still listed so
			// that loading it reports why.
			files = append(files, toolFile{path: path})
			continue
		}
		if !info.Mode().IsRegular() {
			continue
		}
		files = append(files, toolFile{path: path, mod: info.ModTime(), size: info.Size()})
	}
	sort.Slice(files, func(i, j int) bool { return files[i].path < files[j].path })
	return files, nil
}

// loadedTool is the outcome of reading one tool file.
type loadedTool struct {
	toolFile
	def   *ToolDef
	probs []Problem
}

// toolIndex finds tool definitions by name among a set of files that form
// one namespace (a skill's tools/, or all workspace tool folders).
type toolIndex struct {
	where string
	defs  map[string][]*ToolDef // valid and unique, by ascending version
	dups  map[string][]string   // name@version → files defining it
	bad   map[string][]string   // tool name → "FILE (problems)" of invalid files
}

// buildIndex indexes loaded tool files; files that define the same name and
// version are all reported and none of them is used.
func buildIndex(where string, files []loadedTool) (*toolIndex, []FileProblem) {
	ix := &toolIndex{where: where, defs: map[string][]*ToolDef{}, dups: map[string][]string{}, bad: map[string][]string{}}
	var probs []FileProblem
	byKey := map[string][]string{}
	for _, f := range files {
		if len(f.probs) > 0 {
			probs = append(probs, FileProblem{File: f.path, Problems: f.probs})
			if f.def != nil && f.def.Name != "" {
				ix.bad[f.def.Name] = append(ix.bad[f.def.Name], fmt.Sprintf("%s (%s)", f.path, joinProblems(f.probs)))
			}
			continue
		}
		byKey[f.def.Key()] = append(byKey[f.def.Key()], f.path)
	}
	for _, f := range files {
		if len(f.probs) > 0 {
			continue
		}
		key := f.def.Key()
		if others := byKey[key]; len(others) > 1 {
			ix.dups[key] = others
			probs = append(probs, FileProblem{File: f.path, Problems: []Problem{{Field: "version",
				Message: fmt.Sprintf("%s is defined more than once: in %s", key, strings.Join(others, " and "))}}})
			continue
		}
		ix.defs[f.def.Name] = append(ix.defs[f.def.Name], f.def)
	}
	for _, defs := range ix.defs {
		sort.Slice(defs, func(i, j int) bool { return defs[i].Version < defs[j].Version })
	}
	return ix, probs
}

func joinProblems(ps []Problem) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = p.String()
	}
	return strings.Join(parts, "; ")
}

// find returns the named version (0: the highest) or nil.
func (ix *toolIndex) find(name string, version int) (*ToolDef, error) {
	if ix == nil {
		return nil, nil
	}
	defs := ix.defs[name]
	if version == 0 {
		if len(defs) == 0 {
			return nil, nil
		}
		top := defs[len(defs)-1]
		// A duplicated higher version would make "latest" ambiguous.
		for key, files := range ix.dups {
			if n, v := splitKey(key); n == name && v > top.Version {
				return nil, fmt.Errorf("tool %s is defined more than once (%s)", key, strings.Join(files, " and "))
			}
		}
		return top, nil
	}
	for _, d := range defs {
		if d.Version == version {
			return d, nil
		}
	}
	if files, ok := ix.dups[toolKey(name, version)]; ok {
		return nil, fmt.Errorf("tool %s is defined more than once (%s)", toolKey(name, version), strings.Join(files, " and "))
	}
	return nil, nil
}

// describe says which versions of a tool the index holds, for errors.
func (ix *toolIndex) describe(name string) string {
	if ix == nil {
		return ""
	}
	defs := ix.defs[name]
	var s string
	if len(defs) == 0 {
		s = "none in " + ix.where
	} else {
		vs := make([]string, len(defs))
		for i, d := range defs {
			vs[i] = strconv.Itoa(d.Version)
		}
		label := "version"
		if len(vs) > 1 {
			label = "versions"
		}
		s = fmt.Sprintf("%s %s in %s", label, strings.Join(vs, ", "), ix.where)
	}
	if bad := ix.bad[name]; len(bad) > 0 {
		s += "; invalid files: " + strings.Join(bad, ", ")
	}
	return s
}

func splitKey(key string) (string, int) {
	i := strings.LastIndexByte(key, '@')
	if i < 0 {
		return key, 0
	}
	v, _ := strconv.Atoi(key[i+1:])
	return key[:i], v
}

// LoadToolDirs reads every tool file of the given folders as one
// namespace: the valid, unique definitions, and the problems of the other
// files (invalid ones, and every file of a name and version defined twice).
func LoadToolDirs(dirs ...string) ([]*ToolDef, []FileProblem) {
	var files []loadedTool
	var probs []FileProblem
	for _, dir := range dirs {
		list, err := listToolFiles(filepath.Clean(dir))
		if err != nil {
			probs = append(probs, FileProblem{File: dir, Problems: []Problem{*fileProblem(err)}})
			continue
		}
		for _, tf := range list {
			def, ps := LoadToolFile(tf.path)
			files = append(files, loadedTool{toolFile: tf, def: def, probs: ps})
		}
	}
	ix, more := buildIndex(strings.Join(dirs, ", "), files)
	var defs []*ToolDef
	for _, f := range files {
		if len(f.probs) == 0 {
			if _, dup := ix.dups[f.def.Key()]; !dup {
				defs = append(defs, f.def)
			}
		}
	}
	return defs, append(probs, more...)
}
