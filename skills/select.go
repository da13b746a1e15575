package skills

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// MaxPreload is the most skills an agent may preload (R16).
const MaxPreload = 8

// Ref is a skill the config names (a [[skills]] entry).
type Ref struct {
	// Name is the skill's name.
	Name string
	// Version pins the skill: it must equal the skill's metadata.version.
	Version string
	// Preload loads the skill at the start of every turn (R16).
	Preload bool
}

// Selection is the outcome of R19.
type Selection struct {
	// Enabled are the skills of the session: in config order when the
	// config names skills (preloaded ones among them), else every valid
	// skill by name.
	Enabled []*Skill
	// Preload are the enabled skills to preload, in config order.
	Preload []*Skill
	// Unnamed are discovered skills the config does not name; the caller
	// shows them once in a notice.
	Unnamed []string
}

// Select applies R19. With no refs every valid skill is enabled, sorted by
// name, none preloaded. With refs, exactly those are enabled in their
// order; a ref that is missing, named twice, invalid or pinned to a version
// no candidate has is an error naming it, all such errors joined. A pin
// chooses among the winner and the shadowed skills of that name. On error
// the selection still holds what could be selected.
//
// A session selects at its start and again at each turn's refresh; with
// the same refs over an unchanged catalog the answer is the last one, not
// worked out again (an eval names every skill of a large library).
func (c *Catalog) Select(refs []Ref) (*Selection, error) {
	snap := c.current()
	if sel, err, ok := c.selected.get(snap, refs); ok {
		return sel, err
	}
	sel, err := c.selectIn(snap, refs)
	c.selected.put(snap, refs, sel, err)
	return sel.clone(), err
}

func (c *Catalog) selectIn(snap *snapshot, refs []Ref) (*Selection, error) {
	sel := &Selection{}
	if len(refs) == 0 {
		for _, s := range snap.all {
			if s.Valid() {
				sel.Enabled = append(sel.Enabled, s)
			}
		}
		return sel, nil
	}
	var errs []error
	// how often each ref names a skill: by its place in the snapshot, and
	// by name for names the catalog does not have
	counts := make([]int32, len(snap.all))
	var unknown map[string]int32
	for i, r := range refs {
		name := strings.TrimSpace(r.Name)
		if name == "" {
			errs = append(errs, fmt.Errorf("skills entry %d has no name", i+1))
			continue
		}
		at, found := snap.slot[name]
		var n int32
		if found {
			counts[at]++
			n = counts[at]
		} else {
			if unknown == nil {
				unknown = map[string]int32{}
			}
			unknown[name]++
			n = unknown[name]
		}
		if n == 2 {
			errs = append(errs, fmt.Errorf("skill %q is named more than once in the config", name))
		}
		if n > 1 {
			continue
		}
		if !found {
			errs = append(errs, fmt.Errorf("skill %q is named in the config but was not found in %s", name, c.rootList()))
			continue
		}
		s := snap.all[at] // the winner
		if r.Version != "" {
			cands := snap.cands[name]
			s = nil
			for _, cand := range cands {
				if cand.Version == r.Version {
					s = cand
					break
				}
			}
			if s == nil {
				errs = append(errs, fmt.Errorf("skill %q is pinned to version %q, which was not found: %s", name, r.Version, versionsWhere(cands)))
				continue
			}
		}
		if !s.Valid() {
			errs = append(errs, fmt.Errorf("skill %q (%s) is invalid: %s", name, s.Path, joinProblems(s.Problems)))
			continue
		}
		sel.Enabled = append(sel.Enabled, s)
		if r.Preload {
			sel.Preload = append(sel.Preload, s)
		}
	}
	if len(sel.Preload) > MaxPreload {
		names := make([]string, len(sel.Preload))
		for i, s := range sel.Preload {
			names[i] = s.Name
		}
		errs = append(errs, fmt.Errorf("%d skills are preloaded (%s); at most %d may be", len(names), strings.Join(names, ", "), MaxPreload))
	}
	for i, s := range snap.all {
		if counts[i] == 0 {
			sel.Unnamed = append(sel.Unnamed, s.Folder())
		}
	}
	return sel, errors.Join(errs...)
}

func (s *Selection) clone() *Selection {
	return &Selection{Enabled: slices.Clone(s.Enabled), Preload: slices.Clone(s.Preload), Unnamed: slices.Clone(s.Unnamed)}
}

// selectMemo keeps the last few selections, by snapshot and refs: the
// sessions of an eval's workers each select twice with their own refs.
type selectMemo struct {
	mu      sync.Mutex
	entries [4]selectEntry
	next    int
}

type selectEntry struct {
	snap *snapshot
	refs []Ref
	sel  *Selection
	err  error
}

func (m *selectMemo) get(snap *snapshot, refs []Ref) (*Selection, error, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, e := range m.entries {
		if e.snap == snap && e.sel != nil && slices.Equal(e.refs, refs) {
			return e.sel.clone(), e.err, true
		}
	}
	return nil, nil, false
}

func (m *selectMemo) put(snap *snapshot, refs []Ref, sel *Selection, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.entries[m.next] = selectEntry{snap: snap, refs: slices.Clone(refs), sel: sel, err: err}
	m.next = (m.next + 1) % len(m.entries)
}

func versionsWhere(cands []*Skill) string {
	parts := make([]string, len(cands))
	for i, s := range cands {
		v := fmt.Sprintf("version %q", s.Version)
		if s.Version == "" {
			v = "no version"
		}
		parts[i] = fmt.Sprintf("%s in %s", v, s.Dir)
	}
	return strings.Join(parts, ", ")
}

func (c *Catalog) rootList() string {
	if len(c.roots) == 0 {
		return "any skills root (there are none)"
	}
	dirs := make([]string, len(c.roots))
	for i, r := range c.roots {
		dirs[i] = r.Dir
	}
	return strings.Join(dirs, ", ")
}
