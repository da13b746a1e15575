package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
)

func scratch(t testing.TB) *Workspace {
	t.Helper()
	ws, err := Scratch(filepath.Join(t.TempDir(), "ws"))
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

func ops(changes []Change) string {
	var b []string
	for _, c := range changes {
		b = append(b, c.Op+" "+c.Path)
	}
	return strings.Join(b, "\n")
}

// same compares two trees as Materialize promises to reproduce them.
func same(t *testing.T, got, want Tree) {
	t.Helper()
	for p, w := range want {
		g, ok := got[p]
		switch {
		case !ok:
			t.Errorf("%s missing", p)
		case g.Mode != w.Mode || g.Hash != w.Hash || g.Link != w.Link || (w.IsFile() && g.Size != w.Size):
			t.Errorf("%s: got %+v, want %+v", p, g, w)
		case !w.IsLink() && !g.ModTime.Equal(w.ModTime):
			t.Errorf("%s: mtime %v, want %v", p, g.ModTime, w.ModTime)
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("%s is extra", p)
		}
	}
}

func TestJournalRoundTrip(t *testing.T) {
	dirBlobs, err := NewDirBlobs(filepath.Join(t.TempDir(), "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	for name, blobs := range map[string]Blobs{"memory": NewMemBlobs(), "folder": dirBlobs} {
		t.Run(name, func(t *testing.T) {
			ws := scratch(t)
			r := ws.Root()
			mkfile(t, filepath.Join(r, "a.txt"), "one\ntwo\n")
			mkfile(t, filepath.Join(r, "dir/b.txt"), "bee\n")
			mkfile(t, filepath.Join(r, "script.sh"), "#!/bin/sh\n")
			mkfile(t, filepath.Join(r, ".git/HEAD"), "ref: refs/heads/main\n")
			t0, err := ws.Scan(nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := t0[".git"]; ok {
				t.Error(".git scanned")
			}
			first := Diff(nil, t0)
			if got := ops(first); got != "create a.txt\ncreate dir\ncreate dir/b.txt\ncreate script.sh" {
				t.Fatalf("first diff:\n%s", got)
			}
			if err := ws.Record(first, blobs); err != nil {
				t.Fatal(err)
			}

			// What a tool call and a shell command might do.
			mkfile(t, filepath.Join(r, "a.txt"), "one\n2\n")
			if err := os.Remove(filepath.Join(r, "dir/b.txt")); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(filepath.Join(r, "script.sh"), 0o755); err != nil {
				t.Fatal(err)
			}
			if out, err := exec.Command("sh", "-c", "cd "+r+" && ln -s a.txt link && mkdir -p empty && printf 'new' > dir/c.txt").CombinedOutput(); err != nil {
				t.Fatalf("%v %s", err, out)
			}
			mkfile(t, filepath.Join(r, ".git/HEAD"), "ref: refs/heads/other\n")
			t1, err := ws.Scan(t0)
			if err != nil {
				t.Fatal(err)
			}
			changes := Diff(t0, t1)
			want := "modify a.txt\ndelete dir/b.txt\ncreate dir/c.txt\ncreate empty\ncreate link\nmodify script.sh"
			if got := ops(changes); got != want {
				t.Fatalf("diff:\n%s\nwant:\n%s", got, want)
			}
			for _, c := range changes {
				switch c.Path {
				case "link":
					if c.After.Link != "a.txt" || !c.After.IsLink() {
						t.Errorf("link: %+v", c.After)
					}
				case "script.sh":
					if c.Before.Mode.Perm() != 0o644 || c.After.Mode.Perm() != 0o755 || c.Before.Hash != c.After.Hash {
						t.Errorf("mode change: %+v", c)
					}
				case "a.txt":
					if c.Before.Hash == c.After.Hash {
						t.Error("content change kept the hash")
					}
				}
			}
			if err := ws.Record(changes, blobs); err != nil {
				t.Fatal(err)
			}

			for i, tree := range []Tree{t0, t1} {
				out := filepath.Join(t.TempDir(), fmt.Sprint("at", i))
				if err := Materialize(tree, blobs, out); err != nil {
					t.Fatal(err)
				}
				back, err := InPlace(out)
				if err != nil {
					t.Fatal(err)
				}
				got, err := back.Scan(nil)
				if err != nil {
					t.Fatal(err)
				}
				same(t, got, tree)
			}
			b, err := blobs.Get(t0["dir/b.txt"].Hash)
			if err != nil || string(b) != "bee\n" {
				t.Errorf("deleted file's content: %q %v", b, err)
			}
		})
	}
	entries, err := os.ReadDir(dirBlobs.Dir())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		info, _ := e.Info()
		if !validHash(e.Name()) || info.Mode().Perm() != 0o600 {
			t.Errorf("blob file %s %v", e.Name(), info.Mode())
		}
		data, _ := os.ReadFile(filepath.Join(dirBlobs.Dir(), e.Name()))
		if HashBytes(data) != e.Name() {
			t.Errorf("blob %s holds content hashing to %s", e.Name(), HashBytes(data))
		}
	}
	if len(entries) != 5 { // a.txt before and after, b.txt, script.sh, c.txt; nothing for links or folders
		t.Errorf("%d blobs", len(entries))
	}
}

// Scan trusts size, mode and mtime: rewriting a file with the same size and
// putting its mtime back is not seen against prev, and is without it.
func TestScanReusesHashes(t *testing.T) {
	ws := scratch(t)
	p := filepath.Join(ws.Root(), "f.txt")
	mkfile(t, p, "aaaa")
	t0, err := ws.Scan(nil)
	if err != nil {
		t.Fatal(err)
	}
	mtime := t0["f.txt"].ModTime
	mkfile(t, p, "bbbb")
	if err := os.Chtimes(p, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	reused, _ := ws.Scan(t0)
	fresh, _ := ws.Scan(nil)
	if reused["f.txt"].Hash != t0["f.txt"].Hash {
		t.Error("an unchanged size+mtime+mode did not reuse the hash")
	}
	if fresh["f.txt"].Hash != HashBytes([]byte("bbbb")) {
		t.Error("a scan without prev did not read the file")
	}
	if len(Diff(t0, reused)) != 0 || len(Diff(t0, fresh)) != 1 {
		t.Errorf("diffs %v / %v", Diff(t0, reused), Diff(t0, fresh))
	}
}

func TestRecordCapsBigFiles(t *testing.T) {
	ws := scratch(t)
	ws.MaxBlob = 16
	mkfile(t, filepath.Join(ws.Root(), "small.txt"), "small")
	mkfile(t, filepath.Join(ws.Root(), "big.bin"), strings.Repeat("z", 17))
	tree, err := ws.Scan(nil)
	if err != nil {
		t.Fatal(err)
	}
	changes := Diff(nil, tree)
	blobs := NewMemBlobs()
	if err := ws.Record(changes, blobs); err != nil {
		t.Fatal(err)
	}
	for _, c := range changes {
		if c.Omitted != (c.Path == "big.bin") {
			t.Errorf("%s omitted=%v", c.Path, c.Omitted)
		}
	}
	if c := changes[0]; c.After.Hash != HashBytes([]byte(strings.Repeat("z", 17))) || c.After.Size != 17 {
		t.Errorf("the big file's hash and size are not kept: %+v", c.After)
	}
	if blobs.Len() != 1 {
		t.Errorf("%d blobs", blobs.Len())
	}
	out := filepath.Join(t.TempDir(), "out")
	err = Materialize(tree, blobs, out)
	var ie *IncompleteError
	if !errors.As(err, &ie) || !reflect.DeepEqual(ie.Missing, []string{"big.bin"}) {
		t.Fatalf("got %v", err)
	}
	if err.Error() != "1 file not written, their content was not kept: big.bin" {
		t.Errorf("message %q", err)
	}
	if b, err := os.ReadFile(filepath.Join(out, "small.txt")); err != nil || string(b) != "small" {
		t.Errorf("the rest was not written: %q %v", b, err)
	}
}

func TestRecordNoticesChangeAfterScan(t *testing.T) {
	ws := scratch(t)
	mkfile(t, filepath.Join(ws.Root(), "a.txt"), "before")
	mkfile(t, filepath.Join(ws.Root(), "b.txt"), "steady")
	tree, _ := ws.Scan(nil)
	mkfile(t, filepath.Join(ws.Root(), "a.txt"), "after!")
	blobs := NewMemBlobs()
	err := ws.Record(Diff(nil, tree), blobs)
	if err == nil || err.Error() != "record a.txt: the file changed after the scan; scan again" {
		t.Fatalf("got %v", err)
	}
	if _, err := blobs.Get(tree["b.txt"].Hash); err != nil {
		t.Errorf("the other file was not recorded: %v", err)
	}
	// A folder swapped for a link to outside is not read through.
	mkfile(t, filepath.Join(ws.Root(), "d/secret.txt"), "s")
	tree, _ = ws.Scan(nil)
	outside := t.TempDir()
	mkfile(t, filepath.Join(outside, "secret.txt"), "s")
	os.RemoveAll(filepath.Join(ws.Root(), "d"))
	os.Symlink(outside, filepath.Join(ws.Root(), "d"))
	err = ws.Record([]Change{{Path: "d/secret.txt", Op: OpCreate, After: tree["d/secret.txt"]}}, blobs)
	if err == nil || !strings.Contains(err.Error(), "leads through a symlink") {
		t.Fatalf("got %v", err)
	}
}

func TestMaterializeBadInput(t *testing.T) {
	blobs := NewMemBlobs()
	h, _ := blobs.Put([]byte("x"))
	file := FileState{Hash: h, Size: 1, Mode: 0o644}
	base := t.TempDir()
	mkfile(t, filepath.Join(base, "full/x"), "x")
	for _, c := range []struct {
		name string
		tree Tree
		out  string
		want string
	}{
		{"non-empty out", Tree{"a": file}, filepath.Join(base, "full"), "is not empty; give a new or empty folder"},
		{"dot dot", Tree{"../a": file}, filepath.Join(base, "o1"), `bad path "../a" in the tree`},
		{"absolute", Tree{"/etc/passwd": file}, filepath.Join(base, "o2"), `bad path "/etc/passwd" in the tree`},
		{"below a link", Tree{"l": {Mode: fs.ModeSymlink | 0o777, Link: "/etc"}, "l/passwd": file}, filepath.Join(base, "o3"),
			"l/passwd is inside l, which is not a folder"},
		{"corrupt store", Tree{"a": {Hash: HashBytes([]byte("y")), Size: 1, Mode: 0o644}}, filepath.Join(base, "o4"), ""},
		{"no out", Tree{}, "", "no output folder given"},
	} {
		t.Run(c.name, func(t *testing.T) {
			store := Blobs(blobs)
			if c.name == "corrupt store" {
				d, _ := NewDirBlobs(t.TempDir())
				os.WriteFile(filepath.Join(d.Dir(), HashBytes([]byte("y"))), []byte("tampered"), 0o600)
				store, c.want = d, "stored content does not match its hash"
			}
			err := Materialize(c.tree, store, c.out)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want %q", err, c.want)
			}
		})
	}
	d, _ := NewDirBlobs(t.TempDir())
	if _, err := d.Get("../../etc/passwd"); err == nil || !strings.Contains(err.Error(), "not a sha256 hash") {
		t.Errorf("DirBlobs.Get with a path: %v", err)
	}
	if _, err := d.Get(HashBytes([]byte("never stored"))); !errors.Is(err, ErrNoBlob) {
		t.Errorf("missing blob: %v", err)
	}
}

// A 1 GB file (sparse, so the test costs no disk) is hashed as a stream and
// Record keeps only its hash and size.
func TestScanOneGigabyteFile(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 1 GB")
	}
	ws := scratch(t)
	p := filepath.Join(ws.Root(), "huge.bin")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	tree, err := ws.Scan(nil)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 32<<20 {
		t.Errorf("Scan allocated %d MB for a 1 GB file; it should stream", grew>>20)
	}
	if st := tree["huge.bin"]; st.Size != 1<<30 || !validHash(st.Hash) {
		t.Fatalf("%+v", st)
	}
	changes := Diff(nil, tree)
	runtime.ReadMemStats(&before)
	if err := ws.Record(changes, NewMemBlobs()); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if !changes[0].Omitted {
		t.Error("a 1 GB file was not capped")
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Errorf("Record allocated %d bytes for a capped file", grew)
	}
}

func TestScan100kFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("makes 100,000 files")
	}
	ws := scratch(t)
	for d := range 100 {
		dir := filepath.Join(ws.Root(), fmt.Sprintf("d%03d", d))
		os.Mkdir(dir, 0o755)
		for f := range 1000 {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%04d", f)), []byte{byte(f)}, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	start := time.Now()
	t0, err := ws.Scan(nil)
	if err != nil {
		t.Fatal(err)
	}
	first := time.Since(start)
	start = time.Now()
	t1, err := ws.Scan(t0)
	if err != nil {
		t.Fatal(err)
	}
	again := time.Since(start)
	if len(t0) != 100_100 || len(Diff(t0, t1)) != 0 {
		t.Fatalf("%d entries, %d changes", len(t0), len(Diff(t0, t1)))
	}
	os.Remove(filepath.Join(ws.Root(), "d050", "f0500"))
	t2, _ := ws.Scan(t1)
	if got := ops(Diff(t1, t2)); got != "delete d050/f0500" {
		t.Errorf("diff %q", got)
	}
	t.Logf("100,000 files: first scan %v, unchanged rescan %v", first, again)
}

func TestScanSkipsSpecialFiles(t *testing.T) {
	ws := scratch(t)
	if out, err := exec.Command("mkfifo", filepath.Join(ws.Root(), "pipe")).CombinedOutput(); err != nil {
		t.Skipf("mkfifo: %v %s", err, out)
	}
	tree, err := ws.Scan(nil) // would block if it opened the pipe
	if err != nil || len(tree) != 0 {
		t.Fatalf("%v %v", tree, err)
	}
}

func BenchmarkScan10kUnchanged(b *testing.B) {
	ws := scratch(b)
	fixture10k(b, ws.Root())
	prev, err := ws.Scan(nil)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		t, err := ws.Scan(prev)
		if err != nil || len(t) != 10_100 {
			b.Fatal(len(t), err)
		}
	}
}

// What journaling a freshly copied 10,000-file workspace costs: every
// file's content into a folder store.
func BenchmarkRecord10kIntoDirBlobs(b *testing.B) {
	ws := scratch(b)
	fill := strings.Repeat("x", 1000)
	for d := range 100 {
		for f := range 100 {
			mkfile(b, filepath.Join(ws.Root(), fmt.Sprintf("pkg%03d/file%03d.txt", d, f)), fmt.Sprint(d, f, fill))
		}
	}
	tree, err := ws.Scan(nil)
	if err != nil {
		b.Fatal(err)
	}
	changes := Diff(nil, tree)
	i := 0
	for b.Loop() {
		i++
		blobs, _ := NewDirBlobs(filepath.Join(b.TempDir(), fmt.Sprint(i)))
		if err := ws.Record(changes, blobs); err != nil {
			b.Fatal(err)
		}
	}
}
