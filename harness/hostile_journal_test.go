package harness

import (
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// hostileCopy writes the journal lines, with edit applied, to a fresh
// session folder two levels below a root, and returns the root and the
// folder.
func hostileCopy(t *testing.T, lines []string, edit func([]string) []string) (root, dir string) {
	t.Helper()
	root = t.TempDir()
	dir = filepath.Join(root, "sessions", "s1")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	out := edit(append([]string(nil), lines...))
	if err := os.WriteFile(filepath.Join(dir, JournalFile), []byte(strings.Join(out, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return root, dir
}

// outside lists the files under root that are not inside dir.
func outside(t *testing.T, root, dir string) []string {
	var out []string
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasPrefix(p, dir+string(filepath.Separator)) {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// A journal edited so that a skill name, an execution id or a store's
// name climbs out of the session folder is refused when it is read,
// naming the line and the value, and nothing is written outside the folder.
func TestHostileJournalNamesAreRefused(t *testing.T) {
	w := newWorkspace(t)
	basicSkills(w)
	f := w.open("", nil)
	f.turn("one", load("alpha"), call("alpha_tool", `{"q":"1"}`), say("ok"))
	src := f.s.Dir()
	f.s.Close()
	raw, err := os.ReadFile(filepath.Join(src, JournalFile))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	loadedAt := -1
	for i, l := range lines {
		if strings.HasPrefix(l, `{"type":"skill_loaded"`) {
			loadedAt = i
		}
	}
	if loadedAt < 0 {
		t.Fatal("no skill_loaded line in the journal")
	}
	cases := map[string]struct {
		edit func([]string) []string
		want string
	}{
		"skill name": {func(l []string) []string {
			l[loadedAt] = strings.Replace(l[loadedAt], `"skill":"alpha"`, `"skill":"../../../evil"`, 1)
			return l
		}, `skill "../../../evil" holds a path separator`},
		"execution id": {func(l []string) []string {
			l[loadedAt] = strings.Replace(l[loadedAt], `"execution_id":"`, `"execution_id":"../../../evil`, 1)
			return l
		}, `execution_id "../../../evil`},
		"store name": {func(l []string) []string {
			return append(l, `{"type":"state_changed","turn":1,"skill":"../../evil","store":{"pwned":true}}`)
		}, `skill "../../evil" holds a path separator`},
		"backslash": {func(l []string) []string {
			return append(l, `{"type":"state_changed","turn":1,"skill":"..\\..\\evil","store":{"pwned":true}}`)
		}, `holds a path separator`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			root, dir := hostileCopy(t, lines, c.edit)
			bad := len(lines)
			if name == "skill name" || name == "execution id" {
				bad = loadedAt
			}
			s, err := Open(dir, Options{Catalog: w.catalog(), Model: &scripted{}})
			if err == nil {
				s.Close()
				t.Fatal("a journal with a climbing name reopened")
			}
			for _, want := range []string{c.want, "line " + strconv.Itoa(bad+1)} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
			if out := outside(t, root, dir); len(out) > 0 {
				t.Errorf("files written outside the session folder: %v", out)
			}
			if _, _, err := Inspect(dir, Options{Catalog: w.catalog(), Model: &scripted{}}); err == nil {
				t.Error("show folded the hostile journal")
			}
		})
	}
}

// A setting out of range in session_start (list_size -1 once panicked
// the ranking) is refused when the journal is reopened, naming the
// setting and the line.
func TestJournalBadRecordedSettingIsRefused(t *testing.T) {
	w := newWorkspace(t)
	basicSkills(w)
	f := w.open("", nil)
	f.turn("one", say("ok"))
	src := f.s.Dir()
	f.s.Close()
	raw, _ := os.ReadFile(filepath.Join(src, JournalFile))
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	for _, c := range []struct{ edit, want string }{
		{`"list_size":-1`, `limits.list_size "-1" is out of range`},
		{`"delivery":"teleport"`, `limits.delivery "teleport"`},
	} {
		_, dir := hostileCopy(t, lines, func(l []string) []string {
			l[0] = strings.Replace(strings.Replace(l[0], `"list_size":30`, c.edit, 1), `"delivery":"context"`, c.edit, 1)
			return l
		})
		for _, readOnly := range []bool{false, true} {
			s, _, err := reopen(filepath.Join(dir, JournalFile), Options{Catalog: w.catalog(), Model: &scripted{}}, readOnly)
			if err == nil {
				s.Close()
				t.Fatalf("%s: reopened", c.edit)
			}
			if !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "line 1") {
				t.Errorf("%s: error %q should name the setting and line 1", c.edit, err)
			}
		}
	}
	// and a later /set line out of range the same way
	_, dir := hostileCopy(t, lines, func(l []string) []string {
		return append(l, `{"type":"setting_changed","turn":1,"key":"max_tool_calls","value":"-5"}`)
	})
	if _, err := Open(dir, Options{Catalog: w.catalog(), Model: &scripted{}}); err == nil || !strings.Contains(err.Error(), "setting max_tool_calls") {
		t.Errorf("a setting_changed out of range: %v", err)
	}
}

// The last guard: a path built from a name that climbs is never inside
// the folder it is meant for.
func TestSessionFilesStayInside(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ skill, exec string }{{"../x", "1"}, {"x", "../../y"}, {"..", "x"}, {"a/b", "c"}, {"", "x"}, {"x\x00", "1"}} {
		if p, err := stateFile(dir, c.skill, c.exec); err == nil {
			t.Errorf("stateFile(%q, %q) = %s", c.skill, c.exec, p)
		}
		if p, err := storeFile(dir, c.skill); err == nil && c.skill != "x" {
			t.Errorf("storeFile(%q) = %s", c.skill, p)
		}
	}
	p, err := stateFile(dir, "notes", "x-1")
	if err != nil || filepath.Dir(p) != filepath.Join(dir, "state") {
		t.Errorf("a plain name: %s, %v", p, err)
	}
}
