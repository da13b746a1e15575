package workspace

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// ignoreRules says which entries of a folder being copied are left out.
type ignoreRules interface {
	// inside returns the rules in effect inside the folder abs (rel from
	// the copy's root, nil for the root itself).
	inside(abs string, rel []string) ignoreRules
	// ignored reports whether the entry name of the folder rel is left out.
	ignored(rel []string, name string, isDir bool) bool
}

// gitTimeout bounds the ls-files call; past it the patterns apply.
const gitTimeout = time.Minute

// useGit lets tests force the pattern fallback.
var useGit = true

// ignoreRulesFor picks how ignored files are found. When src is in a git
// work tree and git is installed, git itself says (exact, and it knows
// that a tracked file is never ignored, so the copy's `git status` is as
// clean as the original's). Otherwise the .gitignore files and
// .git/info/exclude are read with go-git's matcher.
func ignoreRulesFor(src string) ignoreRules {
	if useGit {
		if set, ok := gitIgnored(src); ok {
			return set
		}
	}
	return patternRules{}
}

// gitList holds the ignored, untracked paths git listed; a folder that is
// ignored whole is listed once, with a trailing slash.
type gitList map[string]bool

func (g gitList) inside(string, []string) ignoreRules { return g }

func (g gitList) ignored(rel []string, name string, isDir bool) bool {
	p := name
	if len(rel) > 0 {
		p = strings.Join(rel, "/") + "/" + name
	}
	if isDir {
		p += "/"
	}
	return g[p]
}

// gitIgnored asks git for the ignored, untracked entries under src. The
// user's global excludes file is turned off so the copy does not depend on
// whose machine made it; the work tree's .gitignore files and
// .git/info/exclude apply as git applies them.
func gitIgnored(src string) (gitList, bool) {
	git, err := exec.LookPath("git")
	if err != nil {
		return nil, false
	}
	// A repository's own config could name an fsmonitor hook, a program
	// git would run; the copy must not run anything of the source's.
	ctx, cancel := context.WithTimeout(context.Background(), gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, git, "-C", src, "-c", "core.excludesFile="+os.DevNull,
		"-c", "core.fsmonitor=false",
		"ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory")
	// No optional locks: git never refreshes the source's index for us.
	cmd.Env = append(gitEnv(), "GIT_OPTIONAL_LOCKS=0")
	out, err := cmd.Output()
	if err != nil {
		// Not a work tree, an unsafe owner, a broken repository: the
		// patterns still apply.
		return nil, false
	}
	set := gitList{}
	for _, p := range bytes.Split(out, []byte{0}) {
		if len(p) > 0 {
			set[string(p)] = true
		}
	}
	return set, true
}

// gitEnv is the environment without GIT_* variables, which would point
// git at some other repository (as inside a hook).
func gitEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			env = append(env, kv)
		}
	}
	return env
}

// patternRules are the gitignore patterns in effect in one folder, in
// ascending priority: .git/info/exclude, then each level's .gitignore.
type patternRules []gitignore.Pattern

func (r patternRules) inside(abs string, rel []string) ignoreRules {
	ps := r
	if rel == nil {
		ps = append(ps, readPatterns(filepath.Join(abs, ".git", "info", "exclude"), nil)...)
	}
	if more := readPatterns(filepath.Join(abs, ".gitignore"), rel); len(more) > 0 {
		ps = append(ps[:len(ps):len(ps)], more...)
	}
	return ps
}

func (r patternRules) ignored(rel []string, name string, isDir bool) bool {
	if len(r) == 0 {
		return false
	}
	p := append(rel[:len(rel):len(rel)], name)
	return gitignore.NewMatcher(r).Match(p, isDir)
}

// readPatterns reads one ignore file; a missing or unreadable one holds no
// patterns, as for git.
func readPatterns(file string, domain []string) []gitignore.Pattern {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	var ps []gitignore.Pattern
	dom := append([]string(nil), domain...)
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, dom))
	}
	return ps
}
