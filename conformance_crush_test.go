package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"skillet/harness"
	"skillet/harness/profile"
	"skillet/skills"
)

// crushCommit is the Crush commit the crush profile reproduces, and
// crushPseudo its module version (the commit's time and hash).
const (
	crushCommit = "37f36e93824e5c4f892e4a817f7f628e2682fe14"
	crushPseudo = "v0.0.0-20260821190835-37f36e93824e"
)

// crushSource is a source tree of github.com/charmbracelet/crush at
// crushCommit: $SKILLET_CRUSH_SRC when it is a git repository holding the
// commit (its tree is exported) or a source tree of the module, else the
// module from the Go module proxy. The test skips, saying why, when none
// can be had.
func crushSource(t *testing.T) string {
	t.Helper()
	if src := os.Getenv("SKILLET_CRUSH_SRC"); src != "" {
		if _, err := exec.Command("git", "--git-dir", src, "cat-file", "-e", crushCommit+"^{commit}").CombinedOutput(); err == nil {
			return exportCommit(t, src)
		}
		if _, err := exec.Command("git", "-C", src, "cat-file", "-e", crushCommit+"^{commit}").CombinedOutput(); err == nil {
			return exportCommit(t, filepath.Join(src, ".git"))
		}
		b, err := os.ReadFile(filepath.Join(src, "go.mod"))
		if err != nil || !strings.HasPrefix(string(b), "module github.com/charmbracelet/crush\n") {
			t.Fatalf("SKILLET_CRUSH_SRC=%s is neither a git repository holding Crush %s nor Crush's source tree (%v)", src, crushCommit[:8], err)
		}
		return src
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "mod", "download", "-json", "github.com/charmbracelet/crush@"+crushPseudo)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	out, err := cmd.Output()
	var mod struct{ Dir, Error string }
	_ = json.Unmarshal(out, &mod)
	if err != nil || mod.Dir == "" {
		why := mod.Error
		if why == "" && err != nil {
			why = err.Error()
		}
		t.Skipf("Crush %s cannot be fetched as a module (%s); set SKILLET_CRUSH_SRC to a git clone of github.com/charmbracelet/crush", crushCommit[:8], why)
	}
	return mod.Dir
}

// exportCommit writes crushCommit's tree of a git directory to a
// temporary folder.
func exportCommit(t *testing.T, gitDir string) string {
	t.Helper()
	dst := t.TempDir()
	archive := exec.Command("git", "--git-dir", gitDir, "archive", crushCommit)
	untar := exec.Command("tar", "-x", "-C", dst)
	pipe, err := archive.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	untar.Stdin = pipe
	var stderr bytes.Buffer
	archive.Stderr, untar.Stderr = &stderr, &stderr
	if err := untar.Start(); err != nil {
		t.Fatal(err)
	}
	if err := archive.Run(); err != nil {
		t.Fatalf("git archive %s: %v: %s", crushCommit[:8], err, stderr.String())
	}
	if err := untar.Wait(); err != nil {
		t.Fatalf("tar: %v: %s", err, stderr.String())
	}
	return dst
}

// crushListing is what Crush's own functions list for a skills folder
// (testdata/crushlist, built against src with `go run`, so that Crush's
// dependencies stay out of Skillet's go.mod): the <available_skills>
// XML and the SKILL.md files discovery refused.
type crushListing struct {
	XML     string `json:"xml"`
	Refused []struct {
		Name  string `json:"name"`
		Path  string `json:"path"`
		Error string `json:"error"`
	} `json:"refused"`
}

// crushLister prepares testdata/crushlist against src and returns a
// function that runs it on a skills folder.
func crushLister(t *testing.T, src string) func(dir string) crushListing {
	t.Helper()
	mod := t.TempDir()
	for _, f := range []string{"go.mod", "main.go"} {
		b, err := os.ReadFile(filepath.Join("testdata", "crushlist", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(mod, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	run := func(timeout time.Duration, args ...string) ([]byte, error) {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, "go", args...)
		cmd.Dir, cmd.Env = mod, env
		return cmd.CombinedOutput()
	}
	if out, err := run(time.Minute, "mod", "edit", "-replace", "github.com/charmbracelet/crush="+src); err != nil {
		t.Fatalf("go mod edit: %v: %s", err, out)
	}
	// Crush's dependencies come from the module proxy
	if out, err := run(5*time.Minute, "mod", "download", "github.com/charlievieth/fastwalk", "gopkg.in/yaml.v3"); err != nil {
		t.Skipf("Crush's dependencies cannot be fetched: %v: %s", err, out)
	}
	bin := filepath.Join(mod, "crushlist")
	if out, err := run(5*time.Minute, "build", "-o", bin, "."); err != nil {
		t.Fatalf("building testdata/crushlist against Crush %s: %v: %s", crushCommit[:8], err, out)
	}
	return func(dir string) crushListing {
		out, err := exec.Command(bin, dir).Output()
		if err != nil {
			t.Fatalf("crushlist %s: %v: %s", dir, err, out)
		}
		var l crushListing
		if err := json.Unmarshal(out, &l); err != nil {
			t.Fatalf("crushlist output: %v: %s", err, out)
		}
		return l
	}
}

// writeSkillFile writes a skill folder's SKILL.md as given.
func writeSkillFile(t *testing.T, root, folder, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(root, folder), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, folder, "SKILL.md"), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// crushSkills splits an <available_skills> block into its <skill>
// elements.
func crushSkills(xml string) []string {
	start, end := strings.Index(xml, "<available_skills>\n"), strings.Index(xml, "</available_skills>")
	if start < 0 || end < start {
		return nil
	}
	var out []string
	for _, el := range strings.SplitAfter(xml[start+len("<available_skills>\n"):end], "  </skill>\n") {
		if el != "" {
			out = append(out, el)
		}
	}
	return out
}

// crushElementName is a <skill> element's name.
func crushElementName(el string) string {
	_, rest, _ := strings.Cut(el, "<name>")
	name, _, _ := strings.Cut(rest, "</name>")
	return name
}

// TestCrushConformance lists fixed skill sets through Crush's own
// discovery and prompt functions (DiscoverBuiltin, DiscoverWithStates,
// Deduplicate, ToPromptXML, as its prompt builder calls them) and
// compares them with the crush profile's catalogue: the user skills'
// <skill> elements byte for byte and in order, the builtin ones by name,
// place and length, and the skills Crush refuses with the ones the
// profile omits.
func TestCrushConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("builds Crush's skills package")
	}
	list := crushLister(t, crushSource(t))
	sets := map[string]func(root string){
		"mixed": func(root string) {
			// the block ends the frontmatter, so Crush drops its final newline
			writeSkillFile(t, root, "multi-line", "---\nname: multi-line\ndescription: |\n  First   line.\n  Second\tline with a <tag> & \"quotes\" 'too'.\n---\nThe instructions.\n")
			conformSkill(t, root, "cjk", "name: cjk\ndescription: 漢字の説明。")
			conformSkill(t, root, "emoji", "name: emoji\ndescription: Ships 🚀 fast.")
			conformSkill(t, root, "Upper-Case", "name: Upper-Case\ndescription: An upper-case name matching its folder.")
			conformSkill(t, root, "case-folder", "name: Case-Folder\ndescription: The name matches its folder but for case.")
			conformSkill(t, root, "bytes-1024", "name: bytes-1024\ndescription: "+strings.Repeat("b", 1024))
			conformSkill(t, root, "hidden", "name: hidden\ndescription: Only the user invokes it.\ndisable-model-invocation: true")
			conformSkill(t, root, "jq", "name: jq\ndescription: Mine replaces the builtin jq.")
			conformSkill(t, root, "zz-last", "name: zz-last\ndescription: Sorted by folder, case aside.")
			conformSkill(t, root, "Alpha-First", "name: Alpha-First\ndescription: Sorted by folder, case aside.")
		},
		// what follows a block decides whether Crush keeps its final newline
		"blocks": func(root string) {
			writeSkillFile(t, root, "then-key", "---\nname: then-key\ndescription: |\n  Ends in a newline.\nlicense: MIT\n---\nThe instructions.\n")
			writeSkillFile(t, root, "then-blank", "---\nname: then-blank\ndescription: |\n  A blank line follows.\n\n---\nThe instructions.\n")
			writeSkillFile(t, root, "keep", "---\nname: keep\ndescription: |+\n  Keeps blank lines.\n\n---\nThe instructions.\n")
			writeSkillFile(t, root, "folded", "---\nname: folded\ndescription: >\n  Folded\n  text.\n---\nThe instructions.\n")
			writeSkillFile(t, root, "strip", "---\nname: strip\ndescription: |-\n  Stripped.\n---\nThe instructions.\n")
		},
		"refused": func(root string) {
			conformSkill(t, root, "ok", "name: ok\ndescription: Listed.")
			conformSkill(t, root, "folder-name", "name: other-name\ndescription: Its name is not its folder's.")
			conformSkill(t, root, "no-name", "description: A skill without a name.")
			conformSkill(t, root, "meta", "name: meta\ndescription: A metadata list.\nmetadata:\n  tags: [a, b]")
			conformSkill(t, root, "cjk-bytes", "name: cjk-bytes\ndescription: "+strings.Repeat("漢", 400))
			conformSkill(t, root, "double--hyphen", "name: double--hyphen\ndescription: Two hyphens in a row.")
		},
	}
	if corpus, err := filepath.Abs(*corpusFlag); err == nil {
		if _, err := os.Stat(corpus); err == nil {
			sets["corpus"] = nil // the real corpus, as it is
		}
	}
	for name, build := range sets {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			if build == nil {
				root, _ = filepath.Abs(*corpusFlag)
			} else {
				build(root)
			}
			agent := list(root)
			c := skills.NewCatalog([]skills.Root{{Dir: root}}, nil)
			if _, err := c.Refresh(); err != nil {
				t.Fatal(err)
			}
			var in []profile.Skill
			for _, sk := range c.All() {
				if sk.Readable() {
					in = append(in, harness.ProfileSkill(sk))
				}
			}
			p, _ := profile.Get("crush")
			cat := p.Catalogue(profile.Input{Skills: in})
			if len(cat.Blocks) == 0 {
				t.Fatalf("the crush profile lists nothing; Crush lists:\n%s", agent.XML)
			}
			a, o := crushSkills(agent.XML), crushSkills(cat.Blocks[0].Text)
			if len(a) != len(o) {
				t.Fatalf("Crush lists %d skills, the profile %d:\ncrush:\n%s\nprofile:\n%s", len(a), len(o), agent.XML, cat.Blocks[0].Text)
			}
			builtin := map[string]bool{}
			for _, e := range cat.Bundled {
				builtin[e.Name] = true
			}
			for i := range a {
				an := crushElementName(a[i])
				if strings.Contains(a[i], "<type>builtin</type>") {
					if crushElementName(o[i]) != an || !builtin[an] || len([]rune(a[i])) != len([]rune(o[i])) {
						t.Errorf("skill %d: Crush's builtin %s is %d characters, the profile's %q %d", i+1, an, len([]rune(a[i])), crushElementName(o[i]), len([]rune(o[i])))
					}
					continue
				}
				if a[i] != o[i] {
					t.Errorf("skill %d differs:\ncrush:   %q\nprofile: %q", i+1, a[i], o[i])
				}
			}
			t.Logf("%d skills listed, %d refused by Crush", len(a), len(agent.Refused))
			refused := map[string]string{}
			for _, r := range agent.Refused {
				refused[filepath.Base(filepath.Dir(r.Path))] = r.Error
			}
			for i, e := range cat.Entries {
				folder := in[i].Folder
				why, crushRefused := refused[folder]
				switch {
				case crushRefused && e.State != profile.Omitted:
					t.Errorf("Crush refuses %s (%s); the profile lists it (%s)", folder, why, e.State)
				case !crushRefused && e.State == profile.Omitted && !in[i].DisableModelInvocation:
					t.Errorf("the profile omits %s (%s); Crush lists it", folder, e.Reason)
				case crushRefused && !strings.Contains(e.Reason, "Crush"):
					t.Errorf("%s: the reason %q does not say Crush refuses it (%s)", folder, e.Reason, why)
				}
				delete(refused, folder)
			}
			for folder, why := range refused {
				t.Errorf("Crush refuses %s (%s), which Skillet does not read at all", folder, why)
			}
		})
	}
}
