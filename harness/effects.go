package harness

import (
	"encoding/json"
	"os"
	"path/filepath"

	"skillet/harness/rulebook"
)

// effects are the file changes an event implies: per-load state files made
// fresh or removed (R26). The rule book only records; the shell writes,
// after the lock is released.
type effects struct {
	write  map[string][]byte
	remove []string
}

// effectsOf works out an event's file effects from the state before it is
// applied.
func (f *frame) effectsOf(e Event) effects {
	var fx effects
	fresh := func(path string) {
		if fx.write == nil {
			fx.write = map[string][]byte{}
		}
		fx.write[path] = []byte("{}")
	}
	switch e := e.(type) {
	case *TurnStart:
		for _, ls := range f.st.Preloads {
			fx.remove = append(fx.remove, stateFile(f.dir, ls.Name, ls.LoadExec)) // last turn's preloads end with it
		}
	case *SkillPreload:
		fresh(stateFile(f.dir, e.Skill, e.ExecutionID))
	case *SkillLoaded:
		// each load starts from a fresh, empty state (R26)
		fresh(stateFile(f.dir, e.Skill, e.ExecutionID))
	case *SkillUnloaded:
		if ls := f.st.FindLoaded(e.Skill); ls != nil {
			fx.remove = append(fx.remove, stateFile(f.dir, ls.Name, ls.LoadExec))
		}
	}
	return fx
}

func (fx effects) run() {
	for _, p := range fx.remove {
		_ = os.Remove(p)
	}
	for p, b := range fx.write {
		_ = os.WriteFile(p, b, 0o600)
	}
}

// materialize writes the state and store files of a folded state, so the
// tools of a reopened session find what they left (R26).
func (s *Session) materialize() {
	files := read(s, (*frame).stateFiles)
	for p, b := range files {
		_ = os.MkdirAll(filepath.Dir(p), 0o700)
		_ = os.WriteFile(p, b, 0o600)
	}
}

// stateFile is where a load's state lives in a session's folder (R26).
// stateFiles are the state and store files a folded state implies.
func (f *frame) stateFiles() map[string]json.RawMessage {
	files := map[string]json.RawMessage{}
	for name, store := range f.st.Stores {
		files[storeFile(f.dir, name)] = store
	}
	for _, ls := range append(append([]*rulebook.Loaded{}, f.st.Loaded...), f.st.Preloads...) {
		st := ls.State
		if st == nil {
			st = json.RawMessage("{}")
		}
		files[stateFile(f.dir, ls.Name, ls.LoadExec)] = st
	}
	return files
}

func stateFile(dir, skill, execID string) string {
	return filepath.Join(dir, "state", skill+"."+execID+".json")
}

// storeFile is where a skill's store lives in a session's folder (R26).
func storeFile(dir, skill string) string {
	return filepath.Join(dir, "store", skill+".json")
}
