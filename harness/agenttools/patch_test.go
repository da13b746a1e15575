package agenttools

import (
	"strings"
	"testing"
)

func patchCall(w *workspace, patch string) Result {
	return w.call("codex", "apply_patch", map[string]any{"input": patch})
}

func TestApplyPatch(t *testing.T) {
	w := newWorkspace(t, map[string]string{
		"src/app.py":  "import os\n\ndef f():\n    pass\n\ndef g():\n    return 1\n",
		"old.txt":     "bye\n",
		"mv/from.txt": "keep\nchange me\n",
	})
	patch := `*** Begin Patch
*** Add File: new/hello.txt
+hello
+world
*** Update File: src/app.py
@@ def f():
-    pass
+    return 123
@@ def g():
-    return 1
+    return 2
*** Delete File: old.txt
*** Update File: mv/from.txt
*** Move to: mv/to.txt
@@
 keep
-change me
+changed
*** End Patch`
	res := patchCall(w, patch)
	wantContains(t, res, false, "Exit code: 0\nWall time: ", "Output:\nSuccess. Updated the following files:\nA new/hello.txt\nM src/app.py\nM mv/to.txt\nD old.txt\n")
	if got := w.read("new/hello.txt"); got != "hello\nworld\n" {
		t.Errorf("added file = %q", got)
	}
	if got := w.read("src/app.py"); got != "import os\n\ndef f():\n    return 123\n\ndef g():\n    return 2\n" {
		t.Errorf("updated file = %q", got)
	}
	if w.exists("old.txt") || w.exists("mv/from.txt") {
		t.Error("deleted or moved file still there")
	}
	if got := w.read("mv/to.txt"); got != "keep\nchanged\n" {
		t.Errorf("moved file = %q", got)
	}
	if len(res.Wrote) != 5 {
		t.Errorf("Wrote = %v, want 5 paths (add, update, move target and source, delete)", res.Wrote)
	}

	// Whitespace-tolerant matching, end-of-file anchoring, a heredoc wrapper.
	w.write("ws.txt", "a  \nb\nlast\n")
	res = patchCall(w, "<<'EOF'\n*** Begin Patch\n*** Update File: ws.txt\n@@\n a\n-b\n+B\n last\n*** End of File\n*** End Patch\nEOF")
	wantContains(t, res, false, "M ws.txt")
	// The context line is written back as the patch gives it (Codex
	// replaces the whole matched span with the chunk's new lines).
	if got := w.read("ws.txt"); got != "a\nB\nlast\n" {
		t.Errorf("ws.txt = %q", got)
	}
	// exec_command with an apply_patch heredoc applies it, as Codex does.
	res = w.call("codex", "exec_command", map[string]any{"cmd": "apply_patch <<'PATCH'\n*** Begin Patch\n*** Add File: via-shell.txt\n+x\n*** End Patch\nPATCH"})
	wantContains(t, res, false, "A via-shell.txt")
	if w.read("via-shell.txt") != "x\n" {
		t.Error("heredoc patch not applied")
	}
	// `cd DIR && apply_patch <<EOF` and exec_command's workdir both
	// take the patch's paths in that folder.
	w.write("pkg/keep.txt", "k\n")
	res = w.call("codex", "exec_command", map[string]any{"cmd": "cd pkg && apply_patch <<EOF\n*** Begin Patch\n*** Add File: in-pkg.txt\n+y\n*** End Patch\nEOF"})
	wantContains(t, res, false, "A in-pkg.txt")
	res = w.call("codex", "exec_command", map[string]any{"workdir": "pkg", "cmd": "apply_patch <<'EOF'\n*** Begin Patch\n*** Delete File: keep.txt\n*** End Patch\nEOF"})
	wantContains(t, res, false, "D keep.txt")
	if !w.exists("pkg/in-pkg.txt") || w.exists("pkg/keep.txt") {
		t.Error("patch paths not taken in the cd folder or workdir")
	}
	res = w.call("codex", "exec_command", map[string]any{"cmd": "cd .. && apply_patch <<EOF\n*** Begin Patch\n*** Add File: out.txt\n+y\n*** End Patch\nEOF"})
	wantContains(t, res, true, "outside the workspace")
}

func TestApplyPatchErrors(t *testing.T) {
	w := newWorkspace(t, map[string]string{"a.txt": "one\ntwo\n"})
	cases := []struct{ name, patch, want string }{
		{"context not found", "*** Begin Patch\n*** Update File: a.txt\n@@\n-three\n+3\n*** End Patch",
			"apply_patch verification failed: Failed to find expected lines in a.txt:\nthree"},
		{"context line not found", "*** Begin Patch\n*** Update File: a.txt\n@@ def nowhere():\n-one\n+1\n*** End Patch",
			"apply_patch verification failed: Failed to find context 'def nowhere():' in a.txt"},
		{"no begin", "*** Update File: a.txt\n*** End Patch",
			"invalid patch: The first line of the patch must be '*** Begin Patch'"},
		{"no end", "*** Begin Patch\n*** Add File: x\n+x",
			"invalid patch: The last line of the patch must be '*** End Patch'"},
		{"bad header", "*** Begin Patch\n*** Frobnicate File: a.txt\n*** End Patch",
			"invalid hunk at line 2, '*** Frobnicate File: a.txt' is not a valid hunk header."},
		{"empty update", "*** Begin Patch\n*** Update File: a.txt\n*** End Patch",
			"invalid hunk at line 2, Update file hunk for path 'a.txt' is empty"},
		{"bad line", "*** Begin Patch\n*** Update File: a.txt\n@@\n?what\n*** End Patch",
			"Unexpected line found in update hunk: '?what'."},
		{"missing file", "*** Begin Patch\n*** Update File: nope.txt\n@@\n-a\n+b\n*** End Patch",
			"Failed to read file to update nope.txt"},
		{"delete missing", "*** Begin Patch\n*** Delete File: nope.txt\n*** End Patch", "Failed to read nope.txt"},
		{"outside", "*** Begin Patch\n*** Add File: ../escape.txt\n+x\n*** End Patch", "outside the workspace"},
		{"no hunks", "*** Begin Patch\n*** End Patch", "No files were modified."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := patchCall(w, c.patch)
			wantContains(t, res, true, c.want)
		})
	}
	// A patch whose second hunk fails changes nothing: all hunks are
	// verified first.
	res := patchCall(w, "*** Begin Patch\n*** Add File: first.txt\n+x\n*** Update File: a.txt\n@@\n-missing\n+y\n*** End Patch")
	wantContains(t, res, true, "Failed to find expected lines")
	if w.exists("first.txt") {
		t.Error("a failed patch wrote its first hunk")
	}
	if got := w.read("a.txt"); got != "one\ntwo\n" {
		t.Errorf("a.txt changed: %q", got)
	}
	if strings.Contains(w.read("a.txt"), "y") {
		t.Error("update applied")
	}
}
