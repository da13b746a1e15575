package skills

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Catalog is the set of discovered skills and tool files, re-read cheaply
// on every Refresh (R17). It is safe for concurrent use. The skills it
// returns are never modified: a changed skill gets a new pointer.
type Catalog struct {
	roots    []Root
	toolDirs []string

	// refreshMu serializes refreshes; the caches belong to it.
	refreshMu  sync.Mutex
	skillCache map[string]*skillEntry // by SKILL.md path
	toolCache  map[string]*loadedTool // by tool file path
	wsSig      string
	wsIndex    *toolIndex
	wsProbs    []FileProblem
	// rootLists and wsLists are the folder listings of the roots (by
	// index) and of the workspace tool folders (by folder), reused while
	// the folders do not change.
	rootLists []*rootListing
	wsLists   map[string]*toolListing
	// order is the SKILL.md entries of the last refresh, in its order: a
	// refresh that finds the same entries, with the same tools, keeps the
	// snapshot and the caches as they are.
	order []*skillEntry
	found []found
	// watch, when set, was watching every folder and file the last scan
	// read before that scan began: while it reports no change, a refresh
	// has nothing to read again. watched is what the last scan read, to
	// watch before the next one (nil when it cannot be watched).
	watch                  *dirWatch
	watched, watchedBefore []string
	// scans counts the refreshes that read the disk.
	scans int

	mu   sync.RWMutex
	snap *snapshot
}

// skillEntry is what the catalog keeps of one SKILL.md between refreshes.
type skillEntry struct {
	mod      time.Time
	size     int64
	parsed   *Skill // from SKILL.md alone
	out      *Skill // parsed plus its own tools: what callers see
	toolsSig string
	ownIndex *toolIndex
	// tools is the listing of the skill's own tools/ folder.
	tools *toolListing
}

// snapshot is one refresh's result; it is replaced whole, never changed.
type snapshot struct {
	all      []*Skill
	byKey    map[string]*Skill
	cands    map[string][]*Skill // winner first, then shadowed, root order
	shadowed []*Skill
	own      map[*Skill]*toolIndex
	ws       *toolIndex
	toolErrs []FileProblem
}

// Changes says which skills a Refresh added, removed or changed, by name
// (the folder name, which is the name of every valid skill).
type Changes struct {
	Added, Removed, Changed []string
	// ToolsChanged is set when the workspace tool files changed.
	ToolsChanged bool
}

// Empty reports whether nothing changed.
func (c Changes) Empty() bool {
	return len(c.Added)+len(c.Removed)+len(c.Changed) == 0 && !c.ToolsChanged
}

// NewCatalog makes a catalog over roots (in precedence order) and extra
// workspace tool folders (the config's tools_dirs). Nothing is read until
// the first Refresh.
func NewCatalog(roots []Root, toolDirs []string) *Catalog {
	c := &Catalog{
		skillCache: map[string]*skillEntry{},
		toolCache:  map[string]*loadedTool{},
		snap:       &snapshot{byKey: map[string]*Skill{}, cands: map[string][]*Skill{}, own: map[*Skill]*toolIndex{}},
	}
	for _, r := range roots {
		if abs, err := filepath.Abs(r.Dir); err == nil {
			r.Dir = abs
		}
		c.roots = append(c.roots, r)
	}
	seen := map[string]bool{}
	for _, d := range toolDirs {
		if abs, err := filepath.Abs(d); err == nil {
			d = abs
		}
		if !seen[d] {
			seen[d] = true
			c.toolDirs = append(c.toolDirs, d)
		}
	}
	return c
}

// Roots returns the catalog's roots.
func (c *Catalog) Roots() []Root { return append([]Root(nil), c.roots...) }

type found struct {
	cand  candidate
	root  Root
	entry *skillEntry
	// tools and toolsErr are the skill's own tools/ files, listed in
	// parallel before the entry is brought up to date; toolsSame says they
	// are those the entry was last brought up to date with.
	tools     []toolFile
	toolsErr  error
	toolsSame bool
}

// Refresh reads the roots again. Unchanged skills cost a stat of their
// SKILL.md (and of their tools/ folder and files when they list tools);
// an unchanged folder is not listed again; changed files are parsed again;
// new and removed folders are picked up. The catalog is updated even when
// an error is returned: the error names the roots or tool folders that
// could not be read.
//
// A large catalog (minWatched folders and files), refreshed again and
// again, is also watched for changes (inotify, on Linux) from its third
// refresh on: a refresh that the watch says nothing has
// touched since the last one costs no stat at all. Any change, or a watch
// that cannot cover everything (links, folders that cannot be watched),
// means a scan as above.
func (c *Catalog) Refresh() (Changes, error) {
	c.refreshMu.Lock()
	defer c.refreshMu.Unlock()
	if c.watch != nil {
		if !c.watch.changed() {
			return Changes{}, nil
		}
		c.watch.close()
		c.watch = nil
	}
	// The watch starts before the scan reads anything, so a change made
	// while it reads is seen by the next refresh.
	w := c.startWatch()
	ch, err := c.scan()
	c.watch = c.keepWatch(w, err)
	return ch, err
}

// minWatched is the least folders and files a catalog reads for a watch
// to be worth its kernel resources: below it, the stats cost less than
// setting the watch up.
var minWatched = 256

// minScansBeforeWatch is the scans a catalog has made before it is
// watched.
const minScansBeforeWatch = 2

// startWatch watches what the last scan read; nil when it read too little,
// could not be watched, or inotify is not available. A catalog read once
// or twice (a headless run, one run of an eval) is not watched: the
// kernel's watches are for catalogs that refresh turn after turn.
func (c *Catalog) startWatch() *dirWatch {
	if len(c.watched) < minWatched || c.scans < minScansBeforeWatch {
		return nil
	}
	w := newDirWatch()
	if w == nil {
		return nil
	}
	for _, p := range c.watched {
		if err := w.add(p); err != nil && (!errors.Is(err, fs.ErrNotExist) || !w.addAncestor(p)) {
			w.close()
			return nil
		}
	}
	return w
}

// keepWatch keeps w for the next refresh when it watched all that the scan
// just made read: a scan that read new folders waits for the next one.
func (c *Catalog) keepWatch(w *dirWatch, err error) *dirWatch {
	if w == nil {
		return nil
	}
	if err == nil && c.watched != nil {
		// startWatch added the previous scan's paths; the new scan's must be
		// among them
		prev := make(map[string]bool, len(c.watchedBefore))
		for _, p := range c.watchedBefore {
			prev[p] = true
		}
		all := true
		for _, p := range c.watched {
			if !prev[p] {
				all = false
				break
			}
		}
		if all {
			return w
		}
	}
	w.close()
	return nil
}

// scan is a refresh by reading: the roots listed (or their listings
// reused) and every SKILL.md stat'd.
func (c *Catalog) scan() (Changes, error) {
	c.scans++
	c.watchedBefore = c.watched
	var errs []error
	links := false
	// The list is only needed during the refresh: its memory is reused.
	list := c.found[:0]
	defer func() { clear(list); c.found = list[:0] }()
	// Only several roots, or a link, can reach one folder twice: plain
	// folders of one root are all different.
	var seenReal map[string]bool
	var wsDirs []string
	if c.rootLists == nil {
		c.rootLists = make([]*rootListing, len(c.roots))
	}
	for i, r := range c.roots {
		rs, lst, err := scanRootCached(r.Dir, c.rootLists[i])
		c.rootLists[i] = lst
		if err != nil {
			errs = append(errs, fmt.Errorf("read skills root %s: %w", r.Dir, err))
			continue
		}
		links = links || rs.links
		if seenReal == nil && (len(c.roots) > 1 || rs.links) {
			seenReal = make(map[string]bool, len(c.order))
			for _, f := range list {
				seenReal[f.cand.real] = true
			}
		}
		for _, cd := range rs.skills {
			if seenReal != nil {
				if seenReal[cd.real] {
					continue
				}
				seenReal[cd.real] = true
			}
			list = append(list, found{cand: cd, root: r})
		}
		if rs.toolsDir != "" {
			wsDirs = append(wsDirs, rs.toolsDir)
		}
	}
	for _, d := range c.toolDirs {
		if !containsString(wsDirs, d) {
			wsDirs = append(wsDirs, d)
		}
	}

	// Parse what is new or changed, in parallel: YAML parsing dominates a
	// cold load.
	var todo []int
	for i := range list {
		cd := list[i].cand
		if e := c.skillCache[cd.file]; e != nil && e.mod.Equal(cd.info.ModTime()) && e.size == cd.info.Size() {
			list[i].entry = e
			continue
		}
		todo = append(todo, i)
	}
	parallel(len(todo), func(j int) {
		f := &list[todo[j]]
		f.entry = &skillEntry{mod: f.cand.info.ModTime(), size: f.cand.info.Size(), parsed: loadCandidate(f.cand, f.root)}
	})

	parallel(len(list), func(i int) {
		f := &list[i]
		if !hasFileTools(f.entry.parsed) {
			f.toolsSame = true
			return
		}
		f.tools, f.entry.tools, f.toolsSame, f.toolsErr = listToolFilesCached(f.entry.parsed.Dir+string(filepath.Separator)+"tools", f.entry.tools)
		f.toolsSame = f.toolsSame && f.entry.out != nil
	})
	wsFiles, wsErr := c.listWorkspaceTools(wsDirs)
	c.watched = nil
	if !links { // a link's target can change where no watch sees it
		c.watched = c.readSet(list, wsDirs, wsFiles)
	}
	if c.unchanged(list, wsDirs, wsFiles) && len(errs) == 0 && wsErr == nil {
		return Changes{}, nil
	}
	newTools := make(map[string]*loadedTool, len(c.toolCache))
	newSkills := make(map[string]*skillEntry, len(list))
	for i := range list {
		f := &list[i]
		c.ownTools(f.entry, f.tools, newTools)
		if f.toolsErr != nil {
			errs = append(errs, fmt.Errorf("read tools of skill %q: %w", f.entry.parsed.Folder(), f.toolsErr))
		}
		newSkills[f.cand.file] = f.entry
	}
	toolsChanged := c.workspaceTools(wsDirs, wsFiles, newTools)
	if wsErr != nil {
		errs = append(errs, wsErr)
	}
	c.skillCache, c.toolCache = newSkills, newTools
	c.order = c.order[:0]
	for i := range list {
		c.order = append(c.order, list[i].entry)
	}

	snap := &snapshot{
		byKey: make(map[string]*Skill, len(list)),
		cands: make(map[string][]*Skill, len(list)),
		own:   make(map[*Skill]*toolIndex, len(list)),
		ws:    c.wsIndex,
	}
	snap.toolErrs = append(snap.toolErrs, c.wsProbs...)
	keys := make([]string, 0, len(list))
	for _, f := range list {
		s := f.entry.out
		key := s.Folder()
		if _, ok := snap.cands[key]; !ok {
			keys = append(keys, key)
		} else {
			snap.shadowed = append(snap.shadowed, s)
		}
		snap.cands[key] = append(snap.cands[key], s)
		snap.own[s] = f.entry.ownIndex
		snap.toolErrs = append(snap.toolErrs, s.ToolProblems...)
	}
	sort.Strings(keys)
	for _, k := range keys {
		s := snap.cands[k][0]
		snap.byKey[k] = s
		snap.all = append(snap.all, s)
	}
	sort.SliceStable(snap.shadowed, func(i, j int) bool { return snap.shadowed[i].Folder() < snap.shadowed[j].Folder() })

	c.mu.Lock()
	old := c.snap
	c.snap = snap
	c.mu.Unlock()

	ch := Changes{ToolsChanged: toolsChanged}
	for _, k := range keys {
		switch prev, ok := old.byKey[k]; {
		case !ok:
			ch.Added = append(ch.Added, k)
		case prev != snap.byKey[k]:
			ch.Changed = append(ch.Changed, k)
		}
	}
	for _, s := range old.all {
		if _, ok := snap.byKey[s.Folder()]; !ok {
			ch.Removed = append(ch.Removed, s.Folder())
		}
	}
	sort.Strings(ch.Removed)
	return ch, errors.Join(errs...)
}

// readSet is every folder and file a scan read: the roots and their
// folders, the tools/ folders and files of skills with file tools, the
// workspace tool folders and files.
func (c *Catalog) readSet(list []found, wsDirs []string, wsFiles []toolFile) []string {
	out := c.watchedBefore[:0:0]
	for i, r := range c.roots {
		out = append(out, r.Dir)
		if lst := c.rootLists[i]; lst != nil {
			for _, e := range lst.entries {
				out = append(out, e.path)
			}
		}
	}
	for i := range list {
		f := &list[i]
		if hasFileTools(f.entry.parsed) {
			out = append(out, f.entry.parsed.Dir+string(filepath.Separator)+"tools")
			for _, t := range f.tools {
				out = append(out, t.path)
			}
		}
	}
	out = append(out, wsDirs...)
	for _, t := range wsFiles {
		out = append(out, t.path)
	}
	return out
}

// loadCandidate parses one found SKILL.md.
func loadCandidate(cd candidate, root Root) *Skill {
	s := LoadSkillFile(cd.file)
	if cd.lower {
		s.Warnings = append([]Problem{lowerCaseWarning()}, s.Warnings...)
	}
	s.Dir, s.Root = cd.dir, root.Dir
	return s
}

// parallel runs fn(0..n-1) on up to GOMAXPROCS goroutines; small jobs
// run inline, where goroutines would cost more than they save.
func parallel(n int, fn func(int)) {
	workers := min(runtime.GOMAXPROCS(0), n/32+1)
	if workers <= 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				fn(i)
			}
		})
	}
	wg.Wait()
}

// hasFileTools reports whether a skill refers to tools that tool files
// define (not only MCP server tools). Only such skills have their tools/
// folder read: it costs a ReadDir per refresh.
func hasFileTools(s *Skill) bool {
	for _, r := range s.Tools {
		if _, _, mcp := r.MCP(); !mcp {
			return true
		}
	}
	return false
}

// ownTools brings e.out up to date with the files of the skill's own
// tools/ folder.
func (c *Catalog) ownTools(e *skillEntry, files []toolFile, newTools map[string]*loadedTool) {
	sig := toolsSignature(files)
	if e.out != nil && sig == e.toolsSig {
		c.keepTools(files, newTools)
		return
	}
	dir := filepath.Join(e.parsed.Dir, "tools")
	out := *e.parsed
	loaded := c.loadTools(files, newTools)
	ix, probs := buildIndex(e.parsed.Folder()+"'s tools/ ("+dir+")", loaded)
	out.ToolDefs, out.ToolProblems = nil, probs
	for _, f := range loaded {
		if len(f.probs) == 0 {
			if _, dup := ix.dups[f.def.Key()]; !dup {
				out.ToolDefs = append(out.ToolDefs, f.def)
			}
		}
	}
	e.out, e.toolsSig, e.ownIndex = &out, sig, ix
}

// unchanged reports whether a refresh found what the last one did: the
// same SKILL.md entries in the same order, each with the same tool files,
// and the same workspace tool files. Then nothing needs rebuilding.
func (c *Catalog) unchanged(list []found, wsDirs []string, wsFiles []toolFile) bool {
	if len(list) != len(c.order) || c.wsIndex == nil {
		return false
	}
	for i := range list {
		if list[i].entry != c.order[i] || !list[i].toolsSame {
			return false
		}
	}
	return workspaceSignature(wsDirs, wsFiles) == c.wsSig
}

// listWorkspaceTools lists the workspace tool folders, reusing the
// listings of those that did not change.
func (c *Catalog) listWorkspaceTools(dirs []string) ([]toolFile, error) {
	var files []toolFile
	var errs []error
	lists := make(map[string]*toolListing, len(dirs))
	for _, d := range dirs {
		list, lst, _, err := listToolFilesCached(d, c.wsLists[d])
		if err != nil {
			errs = append(errs, fmt.Errorf("read tool folder %s: %w", d, err))
		}
		if lst != nil {
			lists[d] = lst
		}
		files = append(files, list...)
	}
	c.wsLists = lists
	return files, errors.Join(errs...)
}

func workspaceSignature(dirs []string, files []toolFile) string {
	return strings.Join(dirs, "\x00") + "\x01" + toolsSignature(files)
}

// workspaceTools brings the workspace tool index up to date with files,
// and reports whether it changed.
func (c *Catalog) workspaceTools(dirs []string, files []toolFile, newTools map[string]*loadedTool) bool {
	sig := workspaceSignature(dirs, files)
	if c.wsIndex != nil && sig == c.wsSig {
		c.keepTools(files, newTools)
		return false
	}
	loaded := c.loadTools(files, newTools)
	c.wsIndex, c.wsProbs = buildIndex("the workspace tool folders ("+strings.Join(dirs, ", ")+")", loaded)
	c.wsSig = sig
	return true
}

func toolsSignature(files []toolFile) string {
	var b strings.Builder
	for _, f := range files {
		b.WriteString(f.path)
		b.WriteByte(0)
		b.WriteString(strconv.FormatInt(f.mod.UnixNano(), 10))
		b.WriteByte(0)
		b.WriteString(strconv.FormatInt(f.size, 10))
		b.WriteByte(1)
	}
	return b.String()
}

func (c *Catalog) keepTools(files []toolFile, newTools map[string]*loadedTool) {
	for _, f := range files {
		if lt := c.toolCache[f.path]; lt != nil {
			newTools[f.path] = lt
		}
	}
}

// loadTools reads tool files, reusing those whose stat did not change.
func (c *Catalog) loadTools(files []toolFile, newTools map[string]*loadedTool) []loadedTool {
	out := make([]loadedTool, 0, len(files))
	for _, f := range files {
		lt := c.toolCache[f.path]
		if lt == nil || lt.size != f.size || !lt.mod.Equal(f.mod) || f.mod.IsZero() {
			def, probs := LoadToolFile(f.path)
			lt = &loadedTool{toolFile: f, def: def, probs: probs}
		}
		newTools[f.path] = lt
		out = append(out, *lt)
	}
	return out
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (c *Catalog) current() *snapshot {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.snap
}

// All returns the winning skill of each name, valid or not, sorted by
// name. Callers leave invalid ones out of a session and show their
// problems.
func (c *Catalog) All() []*Skill { return append([]*Skill(nil), c.current().all...) }

// Get returns the winning skill of that name, or nil. An invalid skill
// whose frontmatter name differs from its folder is found by the folder's
// name.
func (c *Catalog) Get(name string) *Skill { return c.current().byKey[name] }

// Shadowed returns the skills hidden by a skill of the same name in an
// earlier root, sorted by name and then root order.
func (c *Catalog) Shadowed() []*Skill { return append([]*Skill(nil), c.current().shadowed...) }

// ToolProblems returns the tool files that are invalid or define a name
// and version twice: the workspace folders' first, then each skill's own.
func (c *Catalog) ToolProblems() []FileProblem {
	return append([]FileProblem(nil), c.current().toolErrs...)
}

// Tool resolves a tool reference of owner (nil for the agent's own
// references): owner's own tools/ first, then the workspace tool folders.
// Version 0 means the highest version found there. The error names the
// tool and says which versions exist where.
func (c *Catalog) Tool(owner *Skill, ref ToolRef) (*ToolDef, error) {
	if _, _, mcp := ref.MCP(); mcp {
		return nil, fmt.Errorf("tool %q %w", ref.Name, ErrMCPTool)
	}
	snap := c.current()
	var own *toolIndex
	if owner != nil {
		var ok bool
		if own, ok = snap.own[owner]; !ok || own == nil {
			own, _ = buildIndex(owner.Folder()+"'s tools/", toolsAsLoaded(owner.ToolDefs))
		}
	}
	for _, ix := range []*toolIndex{own, snap.ws} {
		def, err := ix.find(ref.Name, ref.Version)
		if err != nil {
			return nil, err
		}
		if def != nil {
			return def, nil
		}
	}
	var where []string
	if own != nil {
		where = append(where, own.describe(ref.Name))
	}
	if snap.ws != nil {
		where = append(where, snap.ws.describe(ref.Name))
	} else {
		where = append(where, "no workspace tool folders")
	}
	by := ""
	if owner != nil {
		by = fmt.Sprintf(" (listed by skill %q)", owner.Folder())
	}
	if ref.Pinned() {
		return nil, fmt.Errorf("tool %q version %d not found%s: %s", ref.Name, ref.Version, by, strings.Join(where, "; "))
	}
	return nil, fmt.Errorf("tool %q not found%s: %s", ref.Name, by, strings.Join(where, "; "))
}

func toolsAsLoaded(defs []*ToolDef) []loadedTool {
	out := make([]loadedTool, len(defs))
	for i, d := range defs {
		out[i] = loadedTool{toolFile: toolFile{path: d.File}, def: d}
	}
	return out
}
