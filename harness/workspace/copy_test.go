package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(gitEnv(), "GIT_AUTHOR_NAME=Ada", "GIT_AUTHOR_EMAIL=ada@example.com",
		"GIT_COMMITTER_NAME=Ada", "GIT_COMMITTER_EMAIL=ada@example.com", "GIT_CONFIG_GLOBAL="+os.DevNull)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// snapshot is every entry under dir, .git's included, with what a copy
// could disturb: content, mode, link target and modification time.
func snapshot(t testing.TB, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		desc := fmt.Sprintf("%v %d", info.Mode(), info.ModTime().UnixNano())
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			desc += " -> " + l
		case info.Mode().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(data)
			desc += " " + hex.EncodeToString(sum[:])
		case info.IsDir():
			desc = fmt.Sprintf("%v", info.Mode()) // read by the walk: atime only
		}
		m[rel] = desc
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// gitProject is a committed repository with ignored files at several
// levels, a tracked file that matches an ignore pattern, an executable,
// links and an untracked file.
func gitProject(t testing.TB) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	src := filepath.Join(t.TempDir(), "project")
	files := map[string]string{
		"README.md":                      "# project\n",
		"src/main.go":                    "package main\n",
		".gitignore":                     "node_modules/\n*.log\n",
		"sub/.gitignore":                 "*.tmp\n!keep.tmp\n",
		"sub/keep.txt":                   "kept\n",
		"sub/keep.tmp":                   "re-included\n",
		"sub/deep/more.txt":              "more\n",
		"forced.log":                     "tracked although ignored\n",
		"scripts/run.sh":                 "#!/bin/sh\necho hi\n",
		"node_modules/left/index.js":     "module.exports = 1\n",
		"node_modules/left/package.json": "{}\n",
		"app.log":                        "noise\n",
		"sub/a.tmp":                      "scratch\n",
		"sub/deep/b.tmp":                 "scratch\n",
		"secret.env":                     "TOKEN=x\n",
	}
	for p, c := range files {
		mkfile(t, filepath.Join(src, p), c)
	}
	if err := os.Chmod(filepath.Join(src, "scripts/run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("README.md", filepath.Join(src, "readme-link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(src, "passwd-link")); err != nil {
		t.Fatal(err)
	}
	git(t, src, "init", "-q", "-b", "main")
	mkfile(t, filepath.Join(src, ".git/info/exclude"), "secret.env\n")
	git(t, src, "add", ".")
	git(t, src, "add", "-f", "forced.log")
	git(t, src, "commit", "-q", "-m", "first")
	mkfile(t, filepath.Join(src, "untracked.txt"), "not yet added\n")
	return src
}

func TestCopyOfGitRepo(t *testing.T) {
	for _, mode := range []string{"git", "patterns"} {
		t.Run(mode, func(t *testing.T) {
			src := gitProject(t)
			if mode == "patterns" {
				useGit = false
				t.Cleanup(func() { useGit = true })
			}
			before := snapshot(t, src)
			dst := filepath.Join(t.TempDir(), "ws")
			ws, st, err := CopyOf(src, dst)
			if err != nil {
				t.Fatal(err)
			}
			if got := snapshot(t, src); !reflect.DeepEqual(got, before) {
				t.Fatalf("the source changed:\nbefore %v\nafter  %v", before, got)
			}
			if ws.IsInPlace() || ws.Root() != dst {
				t.Fatalf("root %s in place %v", ws.Root(), ws.IsInPlace())
			}

			left := []string{"node_modules", "app.log", "sub/a.tmp", "sub/deep/b.tmp", "secret.env"}
			kept := []string{"README.md", "src/main.go", "sub/keep.txt", "sub/keep.tmp", "sub/deep/more.txt",
				".gitignore", "sub/.gitignore", "untracked.txt", ".git/HEAD", ".git/info/exclude"}
			if mode == "git" {
				// git knows forced.log is tracked; the patterns alone do not.
				kept = append(kept, "forced.log")
			} else {
				left = append(left, "forced.log")
			}
			for _, p := range left {
				if _, err := os.Lstat(filepath.Join(dst, p)); err == nil {
					t.Errorf("%s was copied; it is ignored", p)
				}
			}
			for _, p := range kept {
				if _, err := os.Lstat(filepath.Join(dst, p)); err != nil {
					t.Errorf("%s was not copied: %v", p, err)
				}
			}
			if l, err := os.Readlink(filepath.Join(dst, "passwd-link")); err != nil || l != "/etc/passwd" {
				t.Errorf("passwd-link: %q %v; want the link itself, not its target", l, err)
			}
			if l, _ := os.Readlink(filepath.Join(dst, "readme-link")); l != "README.md" {
				t.Errorf("readme-link -> %q", l)
			}
			info, err := os.Stat(filepath.Join(dst, "scripts/run.sh"))
			if err != nil || info.Mode().Perm() != 0o755 {
				t.Errorf("run.sh mode %v %v", info.Mode(), err)
			}
			srcInfo, _ := os.Stat(filepath.Join(src, "src/main.go"))
			dstInfo, _ := os.Stat(filepath.Join(dst, "src/main.go"))
			if !srcInfo.ModTime().Equal(dstInfo.ModTime()) {
				t.Errorf("mtime %v, source %v", dstInfo.ModTime(), srcInfo.ModTime())
			}

			if log := git(t, dst, "log", "--format=%s"); log != "first\n" {
				t.Errorf("git log in the copy: %q", log)
			}
			if mode == "git" {
				if s, d := git(t, src, "status", "--porcelain"), git(t, dst, "status", "--porcelain"); s != d {
					t.Errorf("git status differs:\nsource %q\ncopy   %q", s, d)
				}
			}

			// The stats against an independent count of what is in dst.
			var files, dirs int
			var size int64
			filepath.WalkDir(dst, func(p string, d fs.DirEntry, err error) error {
				if p == dst {
					return nil
				}
				if d.IsDir() {
					dirs++
					return nil
				}
				files++
				if d.Type().IsRegular() {
					info, _ := d.Info()
					size += info.Size()
				}
				return nil
			})
			if st.Files != files || st.Dirs != dirs || st.Bytes != size {
				t.Errorf("stats %+v; the copy has %d files, %d folders, %d bytes", st, files, dirs, size)
			}
			if st.Ignored != len(left) {
				t.Errorf("ignored %d, want %d (node_modules counted once)", st.Ignored, len(left))
			}
			want := fmt.Sprintf("copied %s files (%s), left out %d ignored", thousands(int64(files)), byteSize(size), len(left))
			if st.String() != want {
				t.Errorf("String() = %q, want %q", st, want)
			}
			if st.Duration <= 0 {
				t.Errorf("duration %v", st.Duration)
			}
		})
	}
}

func TestCopyOfPlainFolder(t *testing.T) {
	src := filepath.Join(t.TempDir(), "plain")
	mkfile(t, filepath.Join(src, "a.txt"), "a")
	mkfile(t, filepath.Join(src, ".gitignore"), "build/\n")
	mkfile(t, filepath.Join(src, "build/out.bin"), "x")
	if err := os.MkdirAll(filepath.Join(src, "empty"), 0o750); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "ws")
	_, st, err := CopyOf(src, dst)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dst, "build")); err == nil {
		t.Error("build/ copied from a folder that is no git work tree; .gitignore still applies")
	}
	if info, err := os.Stat(filepath.Join(dst, "empty")); err != nil || info.Mode().Perm() != 0o750 {
		t.Errorf("empty folder: %v %v", info, err)
	}
	if st.Files != 2 || st.Dirs != 1 || st.Ignored != 1 || st.String() != "copied 2 files (8 B), left out 1 ignored" {
		t.Errorf("stats %+v %q", st, st)
	}
}

// A git worktree's .git is a file naming another repository: copying it
// would let commits in the copy land there, so it is left out and said.
func TestCopyOfLeavesOutForeignGitFile(t *testing.T) {
	src := filepath.Join(t.TempDir(), "wt")
	mkfile(t, filepath.Join(src, "a.txt"), "a")
	mkfile(t, filepath.Join(src, ".git"), "gitdir: /somewhere/else/.git/worktrees/wt\n")
	mkfile(t, filepath.Join(src, "mod/.git"), "gitdir: ../.git/modules/mod\n")
	dst := filepath.Join(t.TempDir(), "ws")
	_, st, err := CopyOf(src, dst)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(dst, ".git")); err == nil {
		t.Error(".git file pointing outside was copied")
	}
	if _, err := os.Lstat(filepath.Join(dst, "mod/.git")); err != nil {
		t.Error("a submodule's relative .git file was not copied")
	}
	if !strings.Contains(st.String(), ".git left out: it points to a repository outside the folder (/somewhere/else/.git/worktrees/wt)") {
		t.Errorf("stats say %q", st)
	}
}

func TestCopyOfBadInput(t *testing.T) {
	base := t.TempDir()
	src := filepath.Join(base, "src")
	mkfile(t, filepath.Join(src, "a.txt"), "a")
	mkfile(t, filepath.Join(base, "afile"), "x")
	mkfile(t, filepath.Join(base, "full/x"), "x")
	cases := []struct{ name, src, dst, want string }{
		{"missing source", filepath.Join(base, "nope"), filepath.Join(base, "d1"), "copy workspace: " + filepath.Join(base, "nope") + " does not exist"},
		{"source is a file", filepath.Join(base, "afile"), filepath.Join(base, "d2"), "is not a folder"},
		{"destination not empty", src, filepath.Join(base, "full"), "copy workspace: " + filepath.Join(base, "full") + " is not empty"},
		{"destination inside source", src, filepath.Join(src, "ws"), "is inside the folder it would copy"},
		{"destination below a file", src, filepath.Join(base, "afile", "ws"), "cannot make " + filepath.Join(base, "afile", "ws") + ": not a directory"},
		{"no source", "", "x", "both a source and a destination folder are needed"},
	}
	// sysfs refuses new folders even to root, the user tests run as here.
	if _, err := os.Stat("/sys/kernel"); err == nil && runtime.GOOS == "linux" {
		cases = append(cases, struct{ name, src, dst, want string }{"unwritable destination", src, "/sys/skillet-ws", "cannot make /sys/skillet-ws: "})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := CopyOf(c.src, c.dst)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want %q", err, c.want)
			}
		})
	}
	if os.Getuid() != 0 {
		ro := filepath.Join(base, "ro")
		os.Mkdir(ro, 0o500)
		if _, _, err := CopyOf(src, filepath.Join(ro, "ws")); err == nil || !strings.Contains(err.Error(), "permission denied") {
			t.Errorf("read-only parent: %v", err)
		}
	}
}

func TestScratchAndInPlaceBadInput(t *testing.T) {
	base := t.TempDir()
	mkfile(t, filepath.Join(base, "file"), "x")
	mkfile(t, filepath.Join(base, "used/x"), "x")
	for _, c := range []struct {
		name string
		err  func() error
		want string
	}{
		{"in place, missing", func() error { _, err := InPlace(filepath.Join(base, "nope")); return err },
			"in-place workspace: " + filepath.Join(base, "nope") + " does not exist"},
		{"in place, a file", func() error { _, err := InPlace(filepath.Join(base, "file")); return err }, "is not a folder"},
		{"scratch, not empty", func() error { _, err := Scratch(filepath.Join(base, "used")); return err }, "the folder is not empty"},
		{"scratch, below a file", func() error { _, err := Scratch(filepath.Join(base, "file", "ws")); return err }, "not a directory"},
		{"scratch, empty name", func() error { _, err := Scratch(""); return err }, "no folder given"},
	} {
		if err := c.err(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
	if _, err := os.Stat("/sys/kernel"); err == nil {
		if _, err := InPlace("/sys/kernel"); err == nil || !strings.Contains(err.Error(), "in-place workspace: /sys/kernel is not writable: ") {
			t.Errorf("unwritable in-place folder: %v", err)
		}
	}
	ws, err := InPlace(filepath.Join(base, "used"))
	if err != nil || !ws.IsInPlace() {
		t.Fatalf("in place: %v", err)
	}
	if entries, _ := os.ReadDir(ws.Root()); len(entries) != 1 {
		t.Errorf("the writability probe left %d entries", len(entries))
	}
}

// fixture10k makes 10,000 files of 1 kB in 100 folders.
func fixture10k(b testing.TB, dir string) {
	b.Helper()
	data := []byte(strings.Repeat("x", 1000))
	for d := range 100 {
		sub := filepath.Join(dir, fmt.Sprintf("pkg%03d", d))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			b.Fatal(err)
		}
		for f := range 100 {
			if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("file%03d.txt", f)), data, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkCopyOf10k(b *testing.B) {
	src := filepath.Join(b.TempDir(), "src")
	fixture10k(b, src)
	out := b.TempDir()
	i := 0
	for b.Loop() {
		i++
		_, st, err := CopyOf(src, filepath.Join(out, fmt.Sprint(i)))
		if err != nil || st.Files != 10000 {
			b.Fatal(st, err)
		}
	}
}

// A folder inside a repository (a skill kept in a project) obeys the
// ignore files above it too, as git does; it has no .git of its own.
func TestCopyOfFolderInsideARepo(t *testing.T) {
	src := gitProject(t)
	mkfile(t, filepath.Join(src, "sub/deep/debug.log"), "noise\n")
	dst := filepath.Join(t.TempDir(), "ws")
	_, st, err := CopyOf(filepath.Join(src, "sub"), dst)
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]bool{"keep.txt": true, "keep.tmp": true, "deep/more.txt": true,
		"a.tmp": false, "deep/b.tmp": false, "deep/debug.log": false, ".git": false} {
		if _, err := os.Lstat(filepath.Join(dst, p)); (err == nil) != want {
			t.Errorf("%s copied=%v, want %v", p, err == nil, want)
		}
	}
	if st.Ignored != 3 {
		t.Errorf("ignored %d, want 3", st.Ignored)
	}
}

// The source's own git config must not make the copy run a program: an
// fsmonitor hook is one git would run for ls-files.
func TestCopyOfRunsNoHookOfTheSource(t *testing.T) {
	src := gitProject(t)
	marker := filepath.Join(t.TempDir(), "ran")
	hook := filepath.Join(t.TempDir(), "hook")
	mkfile(t, hook, "#!/bin/sh\ntouch "+marker+"\n")
	os.Chmod(hook, 0o755)
	git(t, src, "config", "core.fsmonitor", hook)
	if _, _, err := CopyOf(src, filepath.Join(t.TempDir(), "ws")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("copying ran the source's fsmonitor hook")
	}
}
