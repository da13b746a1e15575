package skills

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// genSkills writes n skill folders with a SKILL.md of about 2.7 KB each;
// one in twenty lists a tool defined in its own tools/ folder.
func genSkills(b *testing.B, n int) string {
	b.Helper()
	root := b.TempDir()
	para := "Read the request, find the files involved and check each one against the rules below. " +
		"Report what you found as a short list, most important first, and say what you did not check.\n"
	for i := range n {
		name := fmt.Sprintf("skill-%04d", i)
		var fm strings.Builder
		fmt.Fprintf(&fm, "---\nname: %s\n", name)
		fmt.Fprintf(&fm, "description: Review %s changes for correctness, style and security problems, and suggest fixes. Use when the user asks for a review of %s code, a pull request or a diff touching it.\n", name, name)
		fm.WriteString("license: MIT\ncompatibility: Needs git and a POSIX shell.\nallowed-tools: Read Grep Bash(git diff:*)\n")
		fmt.Fprintf(&fm, "metadata:\n  version: \"%d\"\n  author: team-%d\n  short-description: Review %s changes\n", i%5+1, i%7, name)
		if i%20 == 0 {
			fm.WriteString("tools:\n  - name: lint\n    version: 1\n")
			writeFile(b, filepath.Join(root, name, "tools", "lint.yaml"),
				"name: lint\nversion: 1\ndescription: Lint files.\nparameters:\n  type: object\n  properties:\n    path: {type: string}\nresponse: '{\"ok\": true}'\n")
		}
		fm.WriteString("examples:\n  - situation: The diff is empty.\n    resolution: Say there is nothing to review.\n---\n\n")
		fmt.Fprintf(&fm, "# %s\n\n", name)
		for fm.Len() < 2700 {
			fm.WriteString(para)
		}
		writeFile(b, filepath.Join(root, name, SkillFile), fm.String())
	}
	// A workspace at rest: nothing changed in the last hour.
	old := time.Now().Add(-time.Hour)
	err := filepath.WalkDir(root, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Chtimes(p, old, old)
	})
	if err != nil {
		b.Fatal(err)
	}
	return root
}

func BenchmarkRefreshUnchanged(b *testing.B) {
	root := genSkills(b, 1000)
	c := NewCatalog([]Root{{Dir: root}}, nil)
	if _, err := c.Refresh(); err != nil {
		b.Fatal(err)
	}
	if n := len(c.All()); n != 1000 {
		b.Fatalf("loaded %d skills", n)
	}
	b.ReportAllocs()
	for b.Loop() {
		ch, err := c.Refresh()
		if err != nil || !ch.Empty() {
			b.Fatalf("%+v %v", ch, err)
		}
	}
}

func BenchmarkColdLoad(b *testing.B) {
	root := genSkills(b, 1000)
	info, err := os.Stat(filepath.Join(root, "skill-0001", SkillFile))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(info.Size()), "bytes/SKILL.md")
	b.ReportAllocs()
	for b.Loop() {
		c := NewCatalog([]Root{{Dir: root}}, nil)
		if _, err := c.Refresh(); err != nil {
			b.Fatal(err)
		}
		if s := c.Get("skill-0999"); s == nil || !s.Valid() {
			b.Fatalf("skill-0999: %+v", s)
		}
	}
}

// BenchmarkRefreshVsStatFloor measures a refresh of 1,000 unchanged skills
// against its floor, 1,000 os.Stat calls of the same SKILL.md files, run
// alternately in the same loop. It reports the ratios of wall time and of
// process CPU time (all threads: the refresh stats on every core).
func BenchmarkRefreshVsStatFloor(b *testing.B) {
	root := genSkills(b, 1000)
	c := NewCatalog([]Root{{Dir: root}}, nil)
	if _, err := c.Refresh(); err != nil {
		b.Fatal(err)
	}
	var paths []string
	for _, s := range c.All() {
		paths = append(paths, s.Path)
	}
	if len(paths) != 1000 {
		b.Fatalf("loaded %d skills", len(paths))
	}
	var wall, cpu [2]time.Duration // floor, refresh
	b.ReportAllocs()
	for b.Loop() {
		w0, c0 := time.Now(), processCPU(b)
		for _, p := range paths {
			if _, err := os.Stat(p); err != nil {
				b.Fatal(err)
			}
		}
		w1, c1 := time.Now(), processCPU(b)
		ch, err := c.Refresh()
		if err != nil || !ch.Empty() {
			b.Fatalf("%+v %v", ch, err)
		}
		w2, c2 := time.Now(), processCPU(b)
		wall[0] += w1.Sub(w0)
		wall[1] += w2.Sub(w1)
		cpu[0] += c1 - c0
		cpu[1] += c2 - c1
	}
	n := float64(b.N)
	b.ReportMetric(float64(wall[0].Nanoseconds())/n, "floor-ns/op")
	b.ReportMetric(float64(wall[1].Nanoseconds())/n, "refresh-ns/op")
	b.ReportMetric(float64(wall[1])/float64(wall[0]), "wall-ratio")
	b.ReportMetric(float64(cpu[1])/float64(cpu[0]), "cpu-ratio")
}

// processCPU is the CPU time (user and system) this process has used.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
