package agenttools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
)

// vcsDirs are skipped by every search, as ripgrep-based agents skip them
// (Claude Code passes --glob !.git and the other VCS folders to rg; cli.js
// nr5 in @anthropic-ai/claude-code@2.0.77).
var vcsDirs = map[string]bool{".git": true, ".svn": true, ".hg": true, ".bzr": true, ".jj": true, ".sl": true}

// maxGrepFileBytes: larger files are not searched (a 1 GB log would stall
// every search).
const maxGrepFileBytes = 16 << 20

var errStop = errors.New("stop")

// globHit is one matching file.
type globHit struct {
	Path    string // absolute
	ModTime time.Time
}

// globOpts are the agents' differences in globbing.
type globOpts struct {
	// keepVCS: VCS folders are searched too (Claude Code's rg --files
	// --hidden --no-ignore has no exclusion for them).
	keepVCS bool
	// oldestFirst: Claude Code sorts with rg --sort=modified, oldest
	// first; the others list the newest first.
	oldestFirst bool
}

// globFiles finds files matching pattern under dir (absolute), at most
// limit of them; truncated reports that more matched. Hits are sorted by
// modification time. The walk stops at limit+1, so a pattern matching
// 100,000 files costs about as much as one matching 101 (the agents
// collect every match first; the hits kept are the first in walk order).
func globFiles(ctx context.Context, dir, pattern string, limit int, opts ...globOpts) ([]globHit, bool, error) {
	var o globOpts
	if len(opts) > 0 {
		o = opts[0]
	}
	pattern = filepath.ToSlash(pattern)
	if filepath.IsAbs(pattern) {
		rel, err := filepath.Rel(dir, filepath.FromSlash(pattern))
		if err != nil || strings.HasPrefix(rel, "..") {
			return nil, false, fmt.Errorf("the pattern %q points outside %s", pattern, dir)
		}
		pattern = filepath.ToSlash(rel)
	}
	pattern = strings.TrimPrefix(pattern, "./")
	if !doublestar.ValidatePattern(pattern) {
		return nil, false, fmt.Errorf("the glob pattern %q is not valid", pattern)
	}
	var hits []globHit
	truncated := false
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return err
			}
			return nil // unreadable entries are skipped, as rg skips them
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if d.IsDir() {
			if p != dir && vcsDirs[d.Name()] && !o.keepVCS {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		ok, _ := doublestar.Match(pattern, rel)
		if !ok && !strings.Contains(pattern, "/") {
			// A pattern without a slash matches a file's name at any
			// depth, as rg --glob does.
			ok, _ = doublestar.Match(pattern, path.Base(rel))
		}
		if !ok {
			return nil
		}
		if len(hits) >= limit {
			truncated = true
			return errStop
		}
		var mt time.Time
		if info, err := d.Info(); err == nil {
			mt = info.ModTime()
		}
		hits = append(hits, globHit{Path: p, ModTime: mt})
		return nil
	})
	if err != nil && err != errStop {
		return nil, false, err
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if !hits[i].ModTime.Equal(hits[j].ModTime) {
			return hits[i].ModTime.After(hits[j].ModTime) != o.oldestFirst
		}
		return hits[i].Path < hits[j].Path
	})
	return hits, truncated, nil
}

// grepOpts say what to search for and where.
type grepOpts struct {
	pattern    string
	literal    bool
	ignoreCase bool
	multiline  bool
	include    string // glob on the file's name or relative path
	exclude    string
	before     int
	after      int
	// limit caps matched lines (content) or files (filesOnly).
	limit     int
	filesOnly bool
	maxLine   int // cut matched lines longer than this (runes)
}

// compile builds the search's regular expression.
func (o grepOpts) compile() (*regexp.Regexp, error) {
	expr := o.pattern
	if o.literal {
		expr = regexp.QuoteMeta(expr)
	}
	flags := ""
	if o.ignoreCase {
		flags += "i"
	}
	if o.multiline {
		flags += "s"
	}
	if flags != "" {
		expr = "(?" + flags + ")" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("the regular expression %q is not valid: %v", o.pattern, err)
	}
	return re, nil
}

// compiled is compile for an expression already known to be valid.
func (o grepOpts) compiled() *regexp.Regexp {
	re, _ := o.compile()
	return re
}

// grepLine is one matched (or context) line.
type grepLine struct {
	Num     int
	Text    string
	Context bool
}

// grepFile is one file with matches.
type grepFile struct {
	Path    string // absolute
	ModTime time.Time
	Lines   []grepLine
	Count   int // matching lines
}

// grepResult is what a search found.
type grepResult struct {
	Files     []grepFile
	Matches   int // matching lines kept
	Truncated bool
}

// grepFiles searches files under root (a file or a folder) with a Go
// regular expression (RE2 syntax, close to the Rust regex ripgrep uses).
// Binary files, VCS folders and files over 16 MB are skipped.
func grepFiles(ctx context.Context, root string, o grepOpts) (grepResult, error) {
	re, err := o.compile()
	if err != nil {
		return grepResult{}, err
	}
	for _, g := range []string{o.include, o.exclude} {
		if g != "" && !doublestar.ValidatePattern(filepath.ToSlash(g)) {
			return grepResult{}, fmt.Errorf("the file pattern %q is not valid", g)
		}
	}
	var res grepResult
	st, err := os.Stat(root)
	if err != nil {
		return res, err
	}
	base := root
	if !st.IsDir() {
		base = filepath.Dir(root)
	}
	buf := make([]byte, 0, 64<<10)
	visit := func(p string, info fs.FileInfo) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		rel, _ := filepath.Rel(base, p)
		rel = filepath.ToSlash(rel)
		if o.include != "" && !globMatch(o.include, rel) {
			return nil
		}
		if o.exclude != "" && globMatch(o.exclude, rel) {
			return nil
		}
		if info.Size() > maxGrepFileBytes {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return nil
		}
		buf = buf[:0]
		data, err := readAllInto(f, buf)
		f.Close()
		if err != nil {
			return nil
		}
		buf = data
		head := data
		if len(head) > sniffLen {
			head = head[:sniffLen]
		}
		if bytes.IndexByte(head, 0) >= 0 {
			return nil
		}
		if !re.Match(data) {
			return nil
		}
		gf := grepFile{Path: p, ModTime: info.ModTime()}
		if o.filesOnly {
			if len(res.Files) >= o.limit {
				res.Truncated = true
				return errStop
			}
			gf.Count = 1
			res.Files = append(res.Files, gf)
			return nil
		}
		stop := collectLines(re, data, o, &gf, &res)
		if gf.Count > 0 {
			res.Files = append(res.Files, gf)
		}
		if stop {
			res.Truncated = true
			return errStop
		}
		return nil
	}
	if !st.IsDir() {
		err = visit(root, st)
	} else {
		err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() {
				if p != root && vcsDirs[d.Name()] {
					return filepath.SkipDir
				}
				return nil
			}
			if !d.Type().IsRegular() {
				return nil
			}
			info, err := d.Info()
			if err != nil {
				return nil
			}
			return visit(p, info)
		})
	}
	if err != nil && err != errStop {
		return res, err
	}
	return res, nil
}

func globMatch(pattern, rel string) bool {
	pattern = filepath.ToSlash(pattern)
	if ok, _ := doublestar.Match(pattern, rel); ok {
		return true
	}
	if !strings.Contains(pattern, "/") {
		ok, _ := doublestar.Match(pattern, path.Base(rel))
		return ok
	}
	return false
}

func readAllInto(r io.Reader, buf []byte) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// collectLines adds a file's matching lines (with context) to gf; it
// reports true when the match limit was reached.
func collectLines(re *regexp.Regexp, data []byte, o grepOpts, gf *grepFile, res *grepResult) bool {
	lines := bytes.Split(data, []byte{'\n'})
	if len(lines) > 0 && len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	matched := make([]bool, len(lines))
	if o.multiline {
		// A match spanning lines marks each line it covers.
		starts := make([]int, len(lines)+1)
		off := 0
		for i, l := range lines {
			starts[i] = off
			off += len(l) + 1
		}
		starts[len(lines)] = off
		for _, m := range re.FindAllIndex(data, -1) {
			i := sort.SearchInts(starts, m[0]+1) - 1
			for ; i < len(lines) && starts[i] < max(m[1], m[0]+1); i++ {
				matched[i] = true
			}
		}
	} else {
		for i, l := range lines {
			matched[i] = re.Match(l)
		}
	}
	shown := make(map[int]bool)
	for i := range lines {
		if !matched[i] {
			continue
		}
		if res.Matches >= o.limit {
			return true
		}
		res.Matches++
		gf.Count++
		for j := max(0, i-o.before); j <= min(len(lines)-1, i+o.after); j++ {
			if shown[j] {
				continue
			}
			shown[j] = true
			text := strings.TrimSuffix(string(lines[j]), "\r")
			if !utf8.ValidString(text) {
				text = validText(text)
			}
			if o.maxLine > 0 {
				text = cutRunes(text, o.maxLine, "...")
			}
			gf.Lines = append(gf.Lines, grepLine{Num: j + 1, Text: text, Context: !matched[j]})
		}
	}
	sort.Slice(gf.Lines, func(a, b int) bool { return gf.Lines[a].Num < gf.Lines[b].Num })
	return false
}

// listEntry is one entry of a directory listing.
type listEntry struct {
	Rel   string // relative to the listed folder, slash-separated
	Name  string
	Dir   bool
	Depth int // 1 for direct children
}

// listTree lists dir up to depth levels (0 = one level), skipping VCS
// folders and names matching an ignore pattern, at most limit entries.
func listTree(ctx context.Context, dir string, depth int, ignore []string, limit int) ([]listEntry, bool, error) {
	for _, g := range ignore {
		if !doublestar.ValidatePattern(filepath.ToSlash(g)) {
			return nil, false, fmt.Errorf("the ignore pattern %q is not valid", g)
		}
	}
	if depth < 1 {
		depth = 1
	}
	var out []listEntry
	truncated := false
	var walk func(abs, rel string, level int) error
	walk = func(abs, rel string, level int) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		ents, err := os.ReadDir(abs)
		if err != nil {
			if level == 1 {
				return err
			}
			return nil
		}
		for _, e := range ents {
			name := e.Name()
			r := name
			if rel != "" {
				r = rel + "/" + name
			}
			if vcsDirs[name] && e.IsDir() {
				continue
			}
			skip := false
			for _, g := range ignore {
				if globMatch(g, r) {
					skip = true
					break
				}
			}
			if skip {
				continue
			}
			if len(out) >= limit {
				truncated = true
				return errStop
			}
			isDir := e.IsDir()
			if e.Type()&fs.ModeSymlink != 0 {
				if st, err := os.Stat(filepath.Join(abs, name)); err == nil && st.IsDir() {
					isDir = true
				}
			}
			out = append(out, listEntry{Rel: r, Name: name, Dir: isDir, Depth: level})
			if e.IsDir() && level < depth {
				if err := walk(filepath.Join(abs, name), r, level+1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	err := walk(dir, "", 1)
	if err != nil && err != errStop {
		return nil, false, err
	}
	return out, truncated, nil
}

// dirOf resolves a folder argument (empty: the workspace root) and
// checks that it is a folder.
func dirOf(env Env, p string) (string, error) {
	if p == "" {
		p = env.Files.Root()
	}
	abs, err := resolve(env, p, false)
	if err != nil {
		return "", err
	}
	st, err := os.Stat(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("path does not exist: %s", p)
		}
		return "", err
	}
	if !st.IsDir() {
		return "", fmt.Errorf("path is not a directory: %s", p)
	}
	return abs, nil
}

// cutRunes cuts s to n runes, adding suffix when it cut.
func cutRunes(s string, n int, suffix string) string {
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos] + suffix
		}
		i++
	}
	return s
}
