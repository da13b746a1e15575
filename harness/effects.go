package harness

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"skillet/harness/event"
	"skillet/harness/rulebook"
)

// effects are the file changes an event implies: per-load state files made
// fresh or removed (R26). The rule book only records; the shell writes,
// after the lock is released.
type effects struct {
	write   map[string][]byte
	remove  []string
	refused []string
}

// effectsOf works out an event's file effects from the state before it is
// applied. A path that would leave the session's folder is never written:
// it is named in refused instead.
func (f *frame) effectsOf(e event.Event) effects {
	var fx effects
	state := func(skill, exec string) (string, bool) {
		p, err := stateFile(f.dir, skill, exec)
		if err != nil {
			fx.refused = append(fx.refused, err.Error())
			return "", false
		}
		return p, true
	}
	fresh := func(skill, exec string) {
		p, ok := state(skill, exec)
		if !ok {
			return
		}
		if fx.write == nil {
			fx.write = map[string][]byte{}
		}
		fx.write[p] = []byte("{}")
	}
	gone := func(skill, exec string) {
		if p, ok := state(skill, exec); ok {
			fx.remove = append(fx.remove, p)
		}
	}
	switch e := e.(type) {
	case *event.TurnStart:
		for _, ls := range f.st.Preloads {
			gone(ls.Name, ls.LoadExec) // last turn's preloads end with it
		}
	case *event.SkillPreload:
		fresh(e.Skill, e.ExecutionID)
	case *event.SkillLoaded:
		// each load starts from a fresh, empty state (R26)
		fresh(e.Skill, e.ExecutionID)
	case *event.SkillUnloaded:
		if ls := f.st.FindLoaded(e.Skill); ls != nil {
			gone(ls.Name, ls.LoadExec)
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
// tools of a reopened session find what they left (R26). It returns why
// any file was not written.
func (s *Session) materialize() []string {
	var refused []string
	files := read(s, func(f *frame) map[string]json.RawMessage {
		m, r := f.stateFiles()
		refused = r
		return m
	})
	for p, b := range files {
		_ = os.MkdirAll(filepath.Dir(p), 0o700)
		_ = os.WriteFile(p, b, 0o600)
	}
	return refused
}

// stateFiles are the state and store files a folded state implies, and why
// any other was refused.
func (f *frame) stateFiles() (map[string]json.RawMessage, []string) {
	files := map[string]json.RawMessage{}
	var refused []string
	for name, store := range f.st.Stores {
		p, err := storeFile(f.dir, name)
		if err != nil {
			refused = append(refused, err.Error())
			continue
		}
		files[p] = store
	}
	for _, ls := range append(append([]*rulebook.Loaded{}, f.st.Loaded...), f.st.Preloads...) {
		st := ls.State
		if st == nil {
			st = json.RawMessage("{}")
		}
		p, err := stateFile(f.dir, ls.Name, ls.LoadExec)
		if err != nil {
			refused = append(refused, err.Error())
			continue
		}
		files[p] = st
	}
	return files, refused
}

// stateFile is where a load's state lives in a session's folder (R26).
func stateFile(dir, skill, execID string) (string, error) {
	if err := errors.Join(event.CheckName("skill", skill), event.CheckName("execution_id", execID)); err != nil {
		return "", fmt.Errorf("state file: %w", err)
	}
	return within(filepath.Join(dir, "state"), skill+"."+execID+".json")
}

// storeFile is where a skill's store lives in a session's folder (R26).
func storeFile(dir, skill string) (string, error) {
	if err := event.CheckName("skill", skill); err != nil {
		return "", fmt.Errorf("store file: %w", err)
	}
	return within(filepath.Join(dir, "store"), skill+".json")
}

// within joins base and name, refusing a result that is not a file
// directly inside base: the last guard before a write.
func within(base, name string) (string, error) {
	p := filepath.Join(base, name)
	rel, err := filepath.Rel(filepath.Clean(base), p)
	if err != nil || rel != filepath.Base(p) || rel == ".." || rel == "." {
		return "", fmt.Errorf("%q would be written outside %s: refused", name, base)
	}
	return p, nil
}
