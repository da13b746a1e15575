package rulebook

import (
	"reflect"
	"testing"
)

// Every field of State is stored by a snapshot: a field added to State
// but not to stateWire or restWire would be lost, silently, by every
// reopening from a snapshot (the layout hash only refuses snapshots of
// another build).
func TestSnapshotStoresEveryStateField(t *testing.T) {
	stored := map[string]bool{}
	for _, w := range []any{stateWire{}, restWire{}} {
		rt := reflect.TypeOf(w)
		for i := range rt.NumField() {
			stored[rt.Field(i).Name] = true
		}
	}
	// the paged lists are stored as pages and unsealed items
	for _, f := range []string{"Entries", "Msgs", "Ends", "Marks"} {
		if !stored[f] {
			t.Fatalf("stateWire has no %s", f)
		}
	}
	st := reflect.TypeOf(State{})
	for i := range st.NumField() {
		if name := st.Field(i).Name; !stored[name] {
			t.Errorf("State.%s is not stored by a snapshot: add it to stateWire or restWire (and to EncodeState and DecodeState)", name)
		}
	}
}
