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
// applied. Called with s.mu held.
func (s *Session) effectsOf(e Event) effects {
	var fx effects
	fresh := func(path string) {
		if fx.write == nil {
			fx.write = map[string][]byte{}
		}
		fx.write[path] = []byte("{}")
	}
	switch e := e.(type) {
	case *TurnStart:
		for _, ls := range s.st.Preloads {
			fx.remove = append(fx.remove, s.stateFile(ls.Name, ls.LoadExec)) // last turn's preloads end with it
		}
	case *SkillPreload:
		fresh(s.stateFile(e.Skill, e.ExecutionID))
	case *SkillLoaded:
		// each load starts from a fresh, empty state (R26)
		fresh(s.stateFile(e.Skill, e.ExecutionID))
	case *SkillUnloaded:
		if ls := s.st.FindLoaded(e.Skill); ls != nil {
			fx.remove = append(fx.remove, s.stateFile(ls.Name, ls.LoadExec))
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
	s.mu.Lock()
	files := map[string]json.RawMessage{}
	for name, store := range s.st.Stores {
		files[s.storeFile(name)] = store
	}
	for _, ls := range append(append([]*rulebook.Loaded{}, s.st.Loaded...), s.st.Preloads...) {
		st := ls.State
		if st == nil {
			st = json.RawMessage("{}")
		}
		files[s.stateFile(ls.Name, ls.LoadExec)] = st
	}
	s.mu.Unlock()
	for p, b := range files {
		_ = os.MkdirAll(filepath.Dir(p), 0o700)
		_ = os.WriteFile(p, b, 0o600)
	}
}

func (s *Session) stateFile(skill, execID string) string {
	return filepath.Join(s.dir, "state", skill+"."+execID+".json")
}

func (s *Session) storeFile(skill string) string {
	return filepath.Join(s.dir, "store", skill+".json")
}
