package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadJSONObject_MissingOrEmptyIsEmptyObject(t *testing.T) {
	dir := t.TempDir()
	got, err := ReadJSONObject(filepath.Join(dir, "missing.json"))
	if err != nil || got == nil || len(got) != 0 {
		t.Fatalf("missing: %v, %v", got, err)
	}
	empty := filepath.Join(dir, "empty.json")
	os.WriteFile(empty, []byte(" \n"), 0o600)
	if got, err := ReadJSONObject(empty); err != nil || len(got) != 0 {
		t.Fatalf("empty: %v, %v", got, err)
	}
}

func TestReadJSONObject_NotAnObject(t *testing.T) {
	dir := t.TempDir()
	for content, want := range map[string]string{
		`[1]`:     "holds an array, want a JSON object",
		`"s"`:     "holds a string",
		`{broken`: "not valid JSON",
	} {
		p := filepath.Join(dir, "f.json")
		os.WriteFile(p, []byte(content), 0o600)
		_, err := ReadJSONObject(p)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: error %v, want %q naming the file", content, err, want)
		}
	}
}

func TestWriteJSONObject_RoundTripAndAtomic(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "session", "skill")
	p := filepath.Join(dir, "store.json")
	v := map[string]any{"n": 2.0, "list": []any{"a", "<b>"}, "nested": map[string]any{"ok": true}}
	if err := WriteJSONObject(p, v); err != nil {
		t.Fatal(err)
	}
	got, err := ReadJSONObject(p)
	if err != nil {
		t.Fatal(err)
	}
	if got["n"] != 2.0 || got["list"].([]any)[1] != "<b>" || got["nested"].(map[string]any)["ok"] != true {
		t.Fatalf("round trip: %v", got)
	}
	for path, want := range map[string]os.FileMode{p: 0o600, dir: 0o700, filepath.Dir(dir): 0o700} {
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v (%v)", path, fi.Mode().Perm(), want, err)
		}
	}
	raw, _ := os.ReadFile(p)
	if !strings.Contains(string(raw), `"<b>"`) {
		t.Errorf("HTML escaped in the file: %s", raw)
	}
	// Overwrite; no temporary files are left behind.
	if err := WriteJSONObject(p, nil); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "store.json" {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Fatalf("folder holds %v", names)
	}
	if got, _ := ReadJSONObject(p); len(got) != 0 {
		t.Fatalf("nil map should write {}: %v", got)
	}
}

func TestWriteJSONObject_Unencodable(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.json")
	if err := WriteJSONObject(p, map[string]any{"f": func() {}}); err == nil {
		t.Fatal("want an error")
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Fatal("a failed write left a file")
	}
}
