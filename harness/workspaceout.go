package harness

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"skillet/harness/journal"
	"slices"

	"skillet/harness/event"
	wspace "skillet/harness/workspace"
)

// WorkspacePoint says when in a session to rebuild its workspace: as model
// call Call went out (0: at the end of the journal), or right after the
// tool call ToolCallID.
type WorkspacePoint struct {
	Call       int
	ToolCallID string
}

// WorkspaceReport says what WriteWorkspace wrote and what it could not.
type WorkspaceReport struct {
	// Mode and Source are the session's workspace; Base what the files no
	// tool changed came from ("" when nothing: a scratch workspace).
	Mode   string   `json:"mode"`
	Source string   `json:"source,omitempty"`
	Base   string   `json:"base,omitempty"`
	Files  int      `json:"files_written"`
	Warned []string `json:"warnings,omitempty"`
}

// WriteWorkspace writes into out (which must not exist or be empty) the
// workspace of the session whose journal is at path, as it was at the
// point. The files tool calls changed come from the journal; the others
// from the folder a copied workspace started from, as it is today.
func WriteWorkspace(path string, at WorkspacePoint, out string) (WorkspaceReport, error) {
	var rep WorkspaceReport
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		path = filepath.Join(path, JournalFile)
	}
	f, err := os.Open(path)
	if err != nil {
		return rep, fmt.Errorf("read session: %w", err)
	}
	events, problems, err := journal.Read(f)
	f.Close()
	if err != nil {
		return rep, fmt.Errorf("read session %s: %w", path, err)
	}
	for _, p := range problems {
		rep.Warned = append(rep.Warned, "journal "+p+" was skipped")
	}
	if len(events) == 0 {
		return rep, fmt.Errorf("read session %s: the journal holds no events", path)
	}
	start, ok := events[0].(*SessionStart)
	if !ok || start.Workspace == nil {
		return rep, fmt.Errorf("session %s has no workspace: it ran without agent tools", path)
	}
	rep.Mode, rep.Source = start.Workspace.Mode, start.Workspace.Source
	if err := emptyOrAbsent(out); err != nil {
		return rep, err
	}
	changes, found := changesUpTo(events, at)
	if !found {
		if at.ToolCallID != "" {
			return rep, fmt.Errorf("session %s has no tool call %q", path, at.ToolCallID)
		}
		return rep, fmt.Errorf("session %s has no model call %d", path, at.Call)
	}
	switch start.Workspace.Mode {
	case WorkspaceCopy, WorkspaceInPlace:
		if _, _, err := wspace.CopyOf(start.Workspace.Source, out); err != nil {
			return rep, fmt.Errorf("start from %s: %w", start.Workspace.Source, err)
		}
		rep.Base = start.Workspace.Source
		if start.Workspace.Mode == WorkspaceInPlace {
			rep.Warned = append(rep.Warned, fmt.Sprintf("the session worked in place on %s: files no tool call changed are as that folder is today, which may include changes made after this point", rep.Base))
		} else {
			rep.Warned = append(rep.Warned, fmt.Sprintf("files no tool call changed are copied from %s as it is today", rep.Base))
		}
	default:
		if err := os.MkdirAll(out, 0o755); err != nil {
			return rep, fmt.Errorf("write workspace: %w", err)
		}
	}
	if err := writeChanges(out, changes, &rep); err != nil {
		return rep, err
	}
	return rep, nil
}

// changesUpTo folds the workspace changes of events up to a point: the
// last change of each path. found is false when the point is not in the
// session.
func changesUpTo(events []Event, at WorkspacePoint) (map[string]FileChange, bool) {
	out := map[string]FileChange{}
	end := at.Call == 0 && at.ToolCallID == ""
	for _, e := range events {
		switch e := e.(type) {
		case *ModelCall:
			if at.Call > 0 && e.Call == at.Call {
				return out, true
			}
		case *WorkspaceChanged:
			for _, c := range e.Changes {
				out[c.Path] = c
			}
		case *ToolResult:
			if at.ToolCallID != "" && e.ToolCallID == at.ToolCallID {
				return out, true
			}
		}
	}
	return out, end
}

// emptyOrAbsent refuses an output folder that holds anything.
func emptyOrAbsent(dir string) error {
	ents, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("output folder: %w", err)
	case len(ents) > 0:
		return fmt.Errorf("output folder %s is not empty: give a new or empty folder", dir)
	}
	return nil
}

// writeChanges makes recorded changes in the folder out with the
// workspace's own Apply: never outside out, never through a link. What
// cannot be written is said in rep.
func writeChanges(out string, changes map[string]FileChange, rep *WorkspaceReport) error {
	ws, err := wspace.InPlace(out)
	if err != nil {
		return fmt.Errorf("write workspace: %w", err)
	}
	blobs := wspace.NewMemBlobs()
	list := make([]wspace.Change, 0, len(changes))
	for _, p := range slices.Sorted(maps.Keys(changes)) {
		c := changes[p]
		ch := wspace.Change{Path: c.Path, Op: c.Op, Omitted: c.Omitted,
			After: wspace.FileState{Hash: c.Hash, Size: c.Size, Mode: fs.FileMode(c.Mode), Link: c.Link}}
		if c.Op != event.FileDelete && !c.Omitted && c.Link == "" && !ch.After.Mode.IsDir() {
			data := []byte(c.Content)
			if c.Base64 {
				if data, err = base64.StdEncoding.DecodeString(c.Content); err != nil {
					rep.Warned = append(rep.Warned, fmt.Sprintf("%s: its recorded content does not decode: not written", p))
					continue
				}
			}
			if ch.After.Hash, err = blobs.Put(data); err != nil {
				return fmt.Errorf("write workspace: %w", err)
			}
		}
		list = append(list, ch)
	}
	err = ws.Apply(list, blobs)
	var inc *wspace.IncompleteError
	if errors.As(err, &inc) {
		rep.Warned = append(rep.Warned, inc.Error()+" (too large to keep in the journal)")
		err = nil
	}
	if err != nil {
		return fmt.Errorf("write workspace: %w", err)
	}
	for _, c := range list {
		if c.Op != event.FileDelete && !c.After.Mode.IsDir() {
			rep.Files++
		}
	}
	return nil
}
