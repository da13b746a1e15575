package skills

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// A folder's listing is reused while the folder's modification time is
// unchanged: adding, removing or renaming an entry changes it. File systems
// keep that time coarsely (a clock tick, up to seconds), so a listing is
// only trusted when the time it holds is older than the listing by more
// than racyWindow; otherwise a change in the same tick could go unseen.
const racyWindow = 2 * time.Second

// rootListing is a skills root's folder listing: its subfolders (and links
// to them) that may be skills, sorted by name, with their paths made.
type rootListing struct {
	real    string
	mod     time.Time
	trusted bool
	entries []rootEntry
}

type rootEntry struct {
	name, path, real     string
	skillFile, lowerFile string
	link                 bool
}

// listRoot lists dir (whose real path is real), or returns prev when it
// still holds.
func listRoot(dir, real string, prev *rootListing) (*rootListing, error) {
	info, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	if prev != nil && prev.trusted && prev.real == real && prev.mod.Equal(info.ModTime()) {
		return prev, nil
	}
	listedAt := time.Now()
	entries, err := readDirUnsorted(dir)
	if err != nil {
		return nil, err
	}
	lst := &rootListing{real: real, mod: info.ModTime(), trusted: info.ModTime().Before(listedAt.Add(-racyWindow))}
	sep := string(filepath.Separator)
	for _, e := range entries {
		name := e.Name()
		link := e.Type()&fs.ModeSymlink != 0
		if skipDir(name) || (!e.IsDir() && !link) {
			continue
		}
		// Names from ReadDir are clean: plain concatenation spares a Clean
		// per entry.
		path := dir + sep + name
		lst.entries = append(lst.entries, rootEntry{name: name, path: path, real: real + sep + name,
			skillFile: path + sep + SkillFile, lowerFile: path + sep + SkillFileLower, link: link})
	}
	sort.Slice(lst.entries, func(i, j int) bool { return lst.entries[i].name < lst.entries[j].name })
	return lst, nil
}

// toolListing is a tools/ folder's listing with each file's stat.
type toolListing struct {
	dir     string
	mod     time.Time
	trusted bool
	files   []toolFile
}

// listToolFilesCached is listToolFiles reusing prev while the folder's
// modification time holds; each file is still stat'd, since an edit in
// place changes the file and not the folder. same reports that the files
// and their stats are those of prev.
func listToolFilesCached(dir string, prev *toolListing) (files []toolFile, lst *toolListing, same bool, err error) {
	info, err := os.Stat(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, prev == nil, nil
		}
		return nil, nil, false, err
	}
	if prev != nil && prev.trusted && prev.dir == dir && prev.mod.Equal(info.ModTime()) {
		if files, same, ok := restat(prev.files); ok {
			if same {
				return prev.files, prev, true, nil
			}
			return files, &toolListing{dir: dir, mod: prev.mod, trusted: true, files: files}, false, nil
		}
	}
	listedAt := time.Now()
	files, err = listToolFiles(dir)
	if err != nil {
		return nil, nil, false, err
	}
	lst = &toolListing{dir: dir, mod: info.ModTime(), trusted: info.ModTime().Before(listedAt.Add(-racyWindow)), files: files}
	return files, lst, false, nil
}

// restat stats files again; ok is false when one is gone or no longer a
// regular file, and the folder must be listed again.
func restat(files []toolFile) (out []toolFile, same, ok bool) {
	same = true
	for i, f := range files {
		info, err := os.Stat(f.path)
		if err != nil || !info.Mode().IsRegular() {
			return nil, false, false
		}
		if f.mod.Equal(info.ModTime()) && f.size == info.Size() {
			continue
		}
		if same {
			out = append([]toolFile(nil), files...)
			same = false
		}
		out[i].mod, out[i].size = info.ModTime(), info.Size()
	}
	return out, same, true
}
