package cassette

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"

	"skillet/skills"
)

// maxHashedFiles bounds the files hashed per skill, so a skill folder that
// holds a data dump does not stall the start of a recording.
const maxHashedFiles = 500

// Version is this build's Skillet version: the module version and, when
// the build knows them, the VCS revision and whether the tree was modified.
func Version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := info.Main.Version
	if v == "" {
		v = "unknown"
	}
	var rev, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev != "" {
		v += " " + rev + dirty
	}
	return v
}

// Endpoint is raw without what may hold a secret: user and password, the
// query (some providers take ?key=) and the fragment. Text that is no URL
// (such as "replay of FILE") is kept.
func Endpoint(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return raw
	}
	u.User, u.RawQuery, u.Fragment, u.RawFragment = nil, "", "", ""
	return u.String()
}

// HashSkills hashes every file of every skill of the catalog, skills in
// name order. Files that cannot be read are hashed as "unreadable: why".
func HashSkills(all []*skills.Skill) []SkillHash {
	out := make([]SkillHash, 0, len(all))
	for _, s := range all {
		out = append(out, SkillHash{Name: s.Name, Files: hashDir(s.Dir)})
	}
	slices.SortFunc(out, func(a, b SkillHash) int { return strings.Compare(a.Name, b.Name) })
	return out
}

func hashDir(dir string) map[string]string {
	files := map[string]string{}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // an unreadable folder is left out, the rest hashed
		}
		if d.IsDir() {
			if p != dir && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || len(files) >= maxHashedFiles {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = hashFile(p)
		return nil
	})
	return files
}

func hashFile(p string) string {
	f, err := os.Open(p)
	if err != nil {
		return "unreadable: " + err.Error()
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "unreadable: " + err.Error()
	}
	return hex.EncodeToString(h.Sum(nil))
}

// SkillChanges compares the skills a cassette was recorded with to today's:
// the skills gone, the skills new, and per changed skill the files added,
// removed or edited. Nil when nothing changed.
func SkillChanges(recorded, now []SkillHash) []string {
	was := map[string]SkillHash{}
	for _, s := range recorded {
		was[s.Name] = s
	}
	is := map[string]SkillHash{}
	for _, s := range now {
		is[s.Name] = s
	}
	var missing, added, out []string
	for _, s := range recorded {
		n, ok := is[s.Name]
		if !ok {
			missing = append(missing, s.Name)
			continue
		}
		if d := fileChanges(s.Files, n.Files); d != "" {
			out = append(out, fmt.Sprintf("skill %s changed since the recording: %s", s.Name, d))
		}
	}
	for _, s := range now {
		if _, ok := was[s.Name]; !ok {
			added = append(added, s.Name)
		}
	}
	if len(missing) > 0 {
		out = append([]string{fmt.Sprintf("skills missing (the cassette was recorded with them): %s", strings.Join(missing, ", "))}, out...)
	}
	if len(added) > 0 {
		out = append(out, fmt.Sprintf("skills new since the recording: %s", strings.Join(added, ", ")))
	}
	return out
}

func fileChanges(was, is map[string]string) string {
	var parts []string
	for _, p := range slices.Sorted(maps.Keys(was)) {
		switch h, ok := is[p]; {
		case !ok:
			parts = append(parts, p+" removed")
		case h != was[p]:
			parts = append(parts, p+" edited")
		}
	}
	for _, p := range slices.Sorted(maps.Keys(is)) {
		if _, ok := was[p]; !ok {
			parts = append(parts, p+" added")
		}
	}
	return strings.Join(parts, ", ")
}
