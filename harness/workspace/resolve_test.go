package workspace

import (
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// resolveFixture is a scratch workspace beside a skill folder and an
// outside folder, with the symlinks a command might leave behind.
type resolveFixture struct {
	base, root, skill, inner, outside string
	ws                                *Workspace
}

func newResolveFixture(t testing.TB) resolveFixture {
	t.Helper()
	base := t.TempDir()
	if real, err := filepath.EvalSymlinks(base); err == nil {
		base = real
	}
	f := resolveFixture{base: base, skill: filepath.Join(base, "skills", "pdf"), outside: filepath.Join(base, "outside")}
	mkfile(t, filepath.Join(f.skill, "SKILL.md"), "---\nname: pdf\n---\n")
	mkfile(t, filepath.Join(f.outside, "secret.txt"), "secret")
	ws, err := Scratch(filepath.Join(base, "ws"))
	if err != nil {
		t.Fatal(err)
	}
	f.ws, f.root = ws, ws.Root()
	f.inner = filepath.Join(f.root, ".claude", "skills", "inner")
	mkfile(t, filepath.Join(f.inner, "SKILL.md"), "inner")
	ws.AddReadOnly(f.skill, f.inner)

	mkfile(t, filepath.Join(f.root, "notes.txt"), "notes")
	mkfile(t, filepath.Join(f.root, "sub", "x.txt"), "x")
	// Made the way a shell command in the workspace would make them,
	// after the workspace was started.
	for _, l := range [][2]string{
		{"/etc", "etc"},
		{f.skill, "skilllink"},
		{"sub", "inner"},
		{filepath.Join(f.outside, "new.txt"), "dangling"},
		{"../outside", "relescape"},
		{"loop2", "loop1"},
		{"loop1", "loop2"},
		{"../notes.txt", "sub/up"},
	} {
		if out, err := exec.Command("ln", "-s", l[0], filepath.Join(f.root, l[1])).CombinedOutput(); err != nil {
			t.Fatalf("ln -s %s %s: %v %s", l[0], l[1], err, out)
		}
	}
	if err := os.Symlink(f.root, filepath.Join(base, "wslink")); err != nil {
		t.Fatal(err)
	}
	return f
}

func mkfile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestResolve(t *testing.T) {
	f := newResolveFixture(t)
	root := f.root
	cases := []struct {
		name   string
		path   string
		write  bool
		want   string // resolved path when allowed
		reason Reason // when refused (OutsideError)
		refuse bool
		msg    string // the whole message, when given
	}{
		{name: "relative file", path: "notes.txt", want: root + "/notes.txt"},
		{name: "dot is the root", path: ".", want: root},
		{name: "new nested file for a write", path: "a/b/c.txt", write: true, want: root + "/a/b/c.txt"},
		{name: "dot dot that stays inside", path: "sub/../notes.txt", want: root + "/notes.txt"},
		{name: "absolute inside", path: root + "/sub/x.txt", write: true, want: root + "/sub/x.txt"},
		{name: "absolute through a link to the root", path: f.base + "/wslink/notes.txt", want: root + "/notes.txt"},
		{name: "link inside the workspace", path: "inner/x.txt", write: true, want: root + "/sub/x.txt"},
		{name: "relative link back up", path: "sub/up", want: root + "/notes.txt"},
		{name: "new file below a link inside", path: "inner/new/deep.txt", write: true, want: root + "/sub/new/deep.txt"},
		{name: "skill folder read", path: f.skill + "/SKILL.md", want: f.skill + "/SKILL.md"},
		{name: "symlink into a skill folder, read", path: "skilllink/SKILL.md", want: f.skill + "/SKILL.md"},
		{name: "skill folder inside the workspace, read", path: ".claude/skills/inner/SKILL.md", want: f.inner + "/SKILL.md"},

		{name: "etc passwd", path: "/etc/passwd", refuse: true, reason: Outside,
			msg: "/etc/passwd is outside the workspace (" + root + ") and the skills' folders"},
		{name: "etc passwd write", path: "/etc/passwd", write: true, refuse: true, reason: Outside,
			msg: "/etc/passwd is outside the workspace (" + root + "); only the workspace can be written"},
		{name: "dot dot escape", path: "../outside/secret.txt", refuse: true, reason: DotDot,
			msg: "../outside/secret.txt climbs out of the workspace (" + root + ") with .."},
		{name: "dot dot escape after a folder", path: "sub/../../outside", refuse: true, reason: DotDot},
		{name: "bare dot dot", path: "..", refuse: true, reason: DotDot},
		{name: "absolute with dot dot", path: root + "/../outside/secret.txt", refuse: true, reason: Outside},
		{name: "symlink to etc made by a command", path: "etc/passwd", refuse: true, reason: Symlink,
			msg: "etc/passwd leads through a symlink to /etc/passwd, outside the workspace (" + root + ") and the skills' folders"},
		{name: "the link itself", path: "etc", refuse: true, reason: Symlink},
		{name: "relative link out", path: "relescape/secret.txt", refuse: true, reason: Symlink},
		{name: "dangling link out, write", path: "dangling", write: true, refuse: true, reason: Symlink},
		{name: "skill folder write", path: f.skill + "/SKILL.md", write: true, refuse: true, reason: ReadOnlyFolder,
			msg: f.skill + "/SKILL.md is in the skill folder " + f.skill + ", which is read-only"},
		{name: "symlink into a skill folder, write", path: "skilllink/new.py", write: true, refuse: true, reason: ReadOnlyFolder},
		{name: "skill folder inside the workspace, write", path: ".claude/skills/inner/SKILL.md", write: true, refuse: true, reason: ReadOnlyFolder},
		{name: "home folder", path: "~/.ssh/id_rsa", refuse: true, reason: Outside},
		{name: "a file named with a tilde", path: "~notes", write: true, want: root + "/~notes"},
		{name: "outside folder read", path: f.outside + "/secret.txt", refuse: true, reason: Outside},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := f.ws.Resolve(c.path, c.write)
			if !c.refuse {
				if err != nil {
					t.Fatalf("Resolve(%q, %v): %v", c.path, c.write, err)
				}
				if got != c.want {
					t.Fatalf("Resolve(%q, %v) = %s, want %s", c.path, c.write, got, c.want)
				}
				return
			}
			var oe *OutsideError
			if !errors.As(err, &oe) {
				t.Fatalf("Resolve(%q, %v) = %q, %v; want an *OutsideError", c.path, c.write, got, err)
			}
			if oe.Reason != c.reason {
				t.Errorf("reason %d, want %d (%v)", oe.Reason, c.reason, err)
			}
			if c.msg != "" && err.Error() != c.msg {
				t.Errorf("message\n got %s\nwant %s", err, c.msg)
			}
			if !strings.Contains(err.Error(), c.path) {
				t.Errorf("message %q does not name the path %q", err, c.path)
			}
		})
	}
}

func TestResolveBadPaths(t *testing.T) {
	f := newResolveFixture(t)
	for _, p := range []string{"", "a\x00b", "/etc/passwd\x00.txt"} {
		_, err := f.ws.Resolve(p, false)
		var ie *InvalidPathError
		if !errors.As(err, &ie) {
			t.Fatalf("Resolve(%q): %v, want an *InvalidPathError", p, err)
		}
		if p != "" && !strings.Contains(err.Error(), "NUL") {
			t.Errorf("Resolve(%q): %q does not say NUL", p, err)
		}
	}
	_, err := f.ws.Resolve("loop1/x", false)
	if err == nil || !strings.Contains(err.Error(), "too many levels of symbolic links") {
		t.Fatalf("symlink loop: %v", err)
	}
}

func TestResolveWithoutSkillFolders(t *testing.T) {
	ws, err := Scratch(filepath.Join(t.TempDir(), "ws"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = ws.Resolve("/etc/passwd", false)
	if want := "/etc/passwd is outside the workspace (" + ws.Root() + ")"; err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
}

// A folder swapped for a link after a first, allowed answer is caught on
// the next call: nothing is cached.
func TestResolveSeesLinksMadeLater(t *testing.T) {
	f := newResolveFixture(t)
	if _, err := f.ws.Resolve("later/file.txt", true); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(f.outside, filepath.Join(f.root, "later")); err != nil {
		t.Fatal(err)
	}
	_, err := f.ws.Resolve("later/file.txt", true)
	var oe *OutsideError
	if !errors.As(err, &oe) || oe.Reason != Symlink || oe.Resolved != f.outside+"/file.txt" {
		t.Fatalf("got %v", err)
	}
}

func BenchmarkResolve(b *testing.B) {
	f := newResolveFixture(b)
	mkfile(b, filepath.Join(f.root, "src", "pkg", "deep", "file.go"), "package deep")
	for _, p := range []string{"src/pkg/deep/file.go", "skilllink/SKILL.md", "new/dir/file.txt"} {
		b.Run(strings.ReplaceAll(p, "/", "_"), func(b *testing.B) {
			for b.Loop() {
				if _, err := f.ws.Resolve(p, false); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Whatever the path, an allowed answer lies in the workspace (or, for a
// read, a skill's folder) once every link in it is followed by the kernel.
func TestResolveNeverEscapes(t *testing.T) {
	f := newResolveFixture(t)
	parts := []string{"..", ".", "etc", "sub", "inner", "skilllink", "relescape", "dangling", "up",
		"x.txt", "new", ".claude", "skills", "notes.txt", "passwd", "outside"}
	rng := rand.New(rand.NewPCG(1, 2))
	allowed := 0
	for i := range 20000 {
		var b strings.Builder
		switch rng.IntN(4) {
		case 0:
			b.WriteString(f.root)
		case 1:
			b.WriteString(f.base)
		}
		for range 1 + rng.IntN(5) {
			b.WriteString("/")
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		p := b.String()
		if !filepath.IsAbs(p) || rng.IntN(2) == 0 {
			p = strings.TrimPrefix(p, "/")
		}
		write := i%2 == 0
		got, err := f.ws.Resolve(p, write)
		if err != nil {
			continue
		}
		allowed++
		// The kernel's view of the existing part of the answer.
		existing := got
		for {
			if _, err := os.Lstat(existing); err == nil {
				break
			}
			existing = filepath.Dir(existing)
		}
		real, err := filepath.EvalSymlinks(existing)
		if err != nil {
			t.Fatalf("%q -> %s: %v", p, got, err)
		}
		ok := within(real, f.root) && !(write && within(real, f.inner))
		if !write {
			ok = ok || within(real, f.skill) || within(real, f.inner)
		} else if within(real, f.skill) {
			ok = false
		}
		if !ok {
			t.Fatalf("Resolve(%q, write=%v) = %s, which the kernel takes to %s", p, write, got, real)
		}
	}
	if allowed < 2000 || allowed > 18000 {
		t.Fatalf("%d of 20,000 paths allowed: the sample does not test both sides", allowed)
	}
}
