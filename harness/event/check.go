package event

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
)

// BadValueError is a value read from a journal, a cassette or a config
// that Skillet refuses to act on: a name that would reach outside the
// session's folder, a setting out of range. It is no damage to skip past
// but a file to refuse.
type BadValueError struct {
	// What names the field, such as "skill" or "limits.list_size".
	What  string
	Value string
	Why   string
}

func (e *BadValueError) Error() string {
	return fmt.Sprintf("%s %q %s", e.What, e.Value, e.Why)
}

// IsBadValue reports whether err is, or wraps, a *BadValueError.
func IsBadValue(err error) bool {
	var bv *BadValueError
	return errors.As(err, &bv)
}

// maxName bounds a name that becomes part of a file name.
const maxName = 200

// CheckName refuses a name that cannot be one component of a file name in
// a session's folder: empty, "." or "..", holding a path separator, a NUL
// or another control character, or longer than 200 bytes. Skill names and
// execution ids become such file names (state/SKILL.ID.json).
func CheckName(what, v string) error {
	bad := func(why string) error { return &BadValueError{What: what, Value: v, Why: why} }
	switch {
	case v == "":
		return bad("is empty")
	case v == "." || v == "..":
		return bad("is not a name")
	case len(v) > maxName:
		return bad(fmt.Sprintf("is longer than %d bytes", maxName))
	case strings.ContainsAny(v, `/\`):
		return bad("holds a path separator")
	case strings.IndexFunc(v, unicode.IsControl) >= 0:
		return bad("holds a control character")
	}
	return nil
}

// Check refuses what in a decoded event Skillet would act on unsafely: the
// skill names and execution ids that name files, the recorded settings a
// reopened session runs with. Decoding an event checks it.
func Check(e Event) error {
	name := func(what, v string, required bool) error {
		if v == "" && !required {
			return nil
		}
		return CheckName(what, v)
	}
	switch e := e.(type) {
	case *SessionStart:
		if err := name("session_id", e.SessionID, false); err != nil {
			return err
		}
		return e.Limits.Check("limits.")
	case *SkillPreload:
		return errors.Join(name("skill", e.Skill, true), name("execution_id", e.ExecutionID, true))
	case *SkillLoaded:
		return errors.Join(name("skill", e.Skill, true), name("execution_id", e.ExecutionID, true))
	case *SkillActivated:
		return errors.Join(name("skill", e.Skill, true), name("execution_id", e.ExecutionID, false))
	case *SkillChanged:
		return name("skill", e.Skill, true)
	case *SkillUnloaded:
		return name("skill", e.Skill, true)
	case *StateChanged:
		return name("skill", e.Skill, true)
	case *ToolResult:
		return name("skill", e.Skill, false)
	case *SettingChanged:
		if e.Key == "model" {
			return nil
		}
		s := DefaultSettings()
		if _, known := settingsTable[e.Key]; !known {
			return nil // a setting of another build: applying it does nothing
		}
		if err := s.Set(e.Key, e.Value); err != nil {
			return &BadValueError{What: "setting " + e.Key, Value: e.Value, Why: "is refused: " + err.Error()}
		}
	}
	return nil
}

// Check refuses settings no `--set` could have made, such as a negative
// list size: each is given back to Set as text. A zero value is what a
// journal written before the setting existed holds, and passes. prefix
// goes before each key in the error, as the field is named where it was
// read.
func (s Settings) Check(prefix string) error {
	for _, k := range SettingKeys() {
		v, err := s.Get(k)
		if err != nil {
			return err
		}
		if v == "0" || v == "" || v == "false" {
			continue
		}
		cp := s
		if err := cp.Set(k, v); err != nil {
			return &BadValueError{What: prefix + k, Value: v, Why: "is out of range: " + strings.TrimPrefix(err.Error(), k+": ")}
		}
	}
	return nil
}
