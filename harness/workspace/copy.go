package workspace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// copyWorkers copy file contents while the walk goes on: the work is
// system calls, so a few more than the cores keep the disk busy.
const copyWorkers = 4

// CopyStats says what CopyOf copied and left out.
type CopyStats struct {
	Files   int   // regular files and symlinks copied, .git's included
	Dirs    int   // folders made
	Bytes   int64 // bytes of file content copied
	Ignored int   // entries left out as ignored; a folder ignored whole counts once
	Skipped int   // sockets, pipes and devices, which are not copied
	// GitLeftOut, when set, says why the source's .git was not copied (a
	// .git file pointing elsewhere, as in a git worktree: copying it would
	// let commands in the copy change that other repository).
	GitLeftOut string
	Duration   time.Duration
}

// String reads "copied 1,234 files (5.6 MB), left out 12 ignored".
func (s CopyStats) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "copied %s %s (%s)", thousands(int64(s.Files)), plural(s.Files, "file", "files"), byteSize(s.Bytes))
	if s.Ignored > 0 {
		fmt.Fprintf(&b, ", left out %s ignored", thousands(int64(s.Ignored)))
	}
	if s.Skipped > 0 {
		fmt.Fprintf(&b, ", skipped %s special %s", thousands(int64(s.Skipped)), plural(s.Skipped, "file", "files"))
	}
	if s.GitLeftOut != "" {
		fmt.Fprintf(&b, "; .git left out: %s", s.GitLeftOut)
	}
	return b.String()
}

// CopyOf starts a workspace at dst as a copy of src. src is only read.
// Its .git folder is copied whole, so history and `git status` work in the
// copy; other files git ignores (every level's .gitignore and
// .git/info/exclude) are left out; symlinks are copied as symlinks, never
// followed; permission bits and modification times are kept. dst must not
// exist or be empty, and must not be inside src. A copy that fails part way
// is removed.
func CopyOf(src, dst string) (*Workspace, CopyStats, error) {
	start := time.Now()
	if src == "" || dst == "" {
		return nil, CopyStats{}, errors.New("copy workspace: both a source and a destination folder are needed")
	}
	srcAbs, err := filepath.Abs(src)
	if err != nil {
		return nil, CopyStats{}, fmt.Errorf("copy workspace from %s: %w", src, err)
	}
	srcReal, err := filepath.EvalSymlinks(srcAbs)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, CopyStats{}, fmt.Errorf("copy workspace: %s does not exist", src)
	} else if err != nil {
		return nil, CopyStats{}, fmt.Errorf("copy workspace from %s: %w", src, err)
	}
	if info, err := os.Stat(srcReal); err != nil {
		return nil, CopyStats{}, fmt.Errorf("copy workspace from %s: %w", src, err)
	} else if !info.IsDir() {
		return nil, CopyStats{}, fmt.Errorf("copy workspace: %s is not a folder", src)
	}

	dstAbs, err := filepath.Abs(dst)
	if err != nil {
		return nil, CopyStats{}, fmt.Errorf("copy workspace to %s: %w", dst, err)
	}
	dstReal, err := resolveLinks(dstAbs, nil)
	if err != nil {
		return nil, CopyStats{}, fmt.Errorf("copy workspace to %s: %w", dst, err)
	}
	if within(dstReal, srcReal) {
		return nil, CopyStats{}, fmt.Errorf("copy workspace: %s is inside the folder it would copy (%s)", dst, src)
	}
	if info, err := os.Stat(dstReal); err == nil {
		if !info.IsDir() {
			return nil, CopyStats{}, fmt.Errorf("copy workspace: %s exists and is not a folder", dst)
		}
		if empty, err := isEmptyDir(dstReal); err != nil {
			return nil, CopyStats{}, fmt.Errorf("copy workspace to %s: %w", dst, err)
		} else if !empty {
			return nil, CopyStats{}, fmt.Errorf("copy workspace: %s is not empty", dst)
		}
	}
	if err := os.MkdirAll(dstReal, 0o700); err != nil {
		return nil, CopyStats{}, fmt.Errorf("copy workspace: cannot make %s: %w", dst, unwrapPath(err))
	}
	if err := probeWritable(dstReal); err != nil {
		return nil, CopyStats{}, fmt.Errorf("copy workspace: %s is not writable: %w", dst, err)
	}

	c := newCopier(srcReal)
	walkErr := c.dir(srcReal, dstReal, nil, ignoreRulesFor(srcReal).inside(srcReal, nil), false)
	err = c.finish(walkErr)
	st := c.stats()
	st.Duration = time.Since(start)
	if err != nil {
		clearDir(dstReal)
		return nil, st, fmt.Errorf("copy workspace from %s to %s: %w", src, dst, err)
	}
	return &Workspace{root: dstReal}, st, nil
}

type copyJob struct {
	src, dst string
	info     fs.FileInfo
}

type dirFix struct {
	path  string
	mode  fs.FileMode
	mtime time.Time
}

type copier struct {
	srcRoot string
	jobs    chan copyJob
	wg      sync.WaitGroup
	failed  atomic.Pointer[error]

	files, dirs, ignored, skipped int
	bytes                         int64
	gitLeftOut                    string
	dirFixes                      []dirFix
}

func newCopier(srcRoot string) *copier {
	c := &copier{srcRoot: srcRoot, jobs: make(chan copyJob, 256)}
	for range copyWorkers {
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			for j := range c.jobs {
				if c.failed.Load() != nil {
					continue
				}
				if err := copyFile(j.src, j.dst, j.info); err != nil {
					c.failed.CompareAndSwap(nil, &err)
				}
			}
		}()
	}
	return c
}

// dir copies the entries of srcDir into the existing dstDir.
func (c *copier) dir(srcDir, dstDir string, rel []string, rules ignoreRules, inGit bool) error {
	entries, err := os.ReadDir(srcDir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if c.failed.Load() != nil {
			return nil
		}
		name := e.Name()
		s, d := filepath.Join(srcDir, name), filepath.Join(dstDir, name)
		info, err := e.Info()
		if errors.Is(err, fs.ErrNotExist) {
			continue
		} else if err != nil {
			return err
		}
		isDir := info.IsDir()
		git := inGit || name == ".git"
		if !git && rules.ignored(rel, name, isDir) {
			c.ignored++
			continue
		}
		if name == ".git" && !inGit && info.Mode().IsRegular() {
			if why := c.foreignGitFile(s); why != "" {
				c.gitLeftOut = why
				continue
			}
		}
		switch {
		case isDir:
			if err := os.Mkdir(d, 0o700); err != nil {
				return err
			}
			c.dirs++
			c.dirFixes = append(c.dirFixes, dirFix{d, info.Mode().Perm(), info.ModTime()})
			sub := append(rel[:len(rel):len(rel)], name)
			subRules := rules
			if !git {
				subRules = rules.inside(s, sub)
			}
			if err := c.dir(s, d, sub, subRules, git); err != nil {
				return err
			}
		case info.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(s)
			if err != nil {
				return err
			}
			if err := os.Symlink(target, d); err != nil {
				return err
			}
			c.files++
		case info.Mode().IsRegular():
			c.files++
			c.bytes += info.Size()
			c.jobs <- copyJob{s, d, info}
		default:
			c.skipped++
		}
	}
	return nil
}

// foreignGitFile reads a .git file ("gitdir: PATH") and says why it must
// be left out when PATH is outside the source; "" when it can be copied
// (a submodule's relative link into the copied .git/modules).
func (c *copier) foreignGitFile(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return "unreadable .git file"
	}
	target, ok := strings.CutPrefix(string(bytes.TrimSpace(data)), "gitdir:")
	target = strings.TrimSpace(target)
	if !ok || target == "" {
		return ""
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(path), target)
	}
	if within(filepath.Clean(target), c.srcRoot) {
		return ""
	}
	return fmt.Sprintf("it points to a repository outside the folder (%s), which commands in the copy could change", target)
}

// finish waits for the copies in flight and then sets the folders' modes
// and times, deepest first, now that nothing more is written into them.
func (c *copier) finish(walkErr error) error {
	close(c.jobs)
	c.wg.Wait()
	if walkErr != nil {
		return walkErr
	}
	if p := c.failed.Load(); p != nil {
		return *p
	}
	for i := len(c.dirFixes) - 1; i >= 0; i-- {
		f := c.dirFixes[i]
		if err := os.Chmod(f.path, f.mode); err != nil {
			return err
		}
		if err := os.Chtimes(f.path, f.mtime, f.mtime); err != nil {
			return err
		}
	}
	return nil
}

func (c *copier) stats() CopyStats {
	return CopyStats{Files: c.files, Dirs: c.dirs, Bytes: c.bytes, Ignored: c.ignored,
		Skipped: c.skipped, GitLeftOut: c.gitLeftOut}
}

// copyFile copies one regular file's content, permission bits and
// modification time. io.Copy between two files uses copy_file_range where
// the kernel has it, which shares extents on file systems that can.
func copyFile(src, dst string, info fs.FileInfo) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if err == nil {
		err = out.Chmod(info.Mode().Perm())
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chtimes(dst, info.ModTime(), info.ModTime())
	}
	if err != nil {
		return fmt.Errorf("copy %s: %w", src, err)
	}
	return nil
}

// clearDir empties dir after a failed copy, making what it can writable
// first so read-only folders copied from the source do not stay behind.
func clearDir(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				os.Chmod(path, 0o700)
			}
			return nil
		})
		os.RemoveAll(p)
	}
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// thousands writes n with comma separators: 1,234,567.
func thousands(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// byteSize writes n in decimal units with one decimal: 5.6 MB.
func byteSize(n int64) string {
	const unit = 1000
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %cB", float64(n)/float64(div), "kMGTPE"[exp])
}
