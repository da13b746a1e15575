package rulebook

import (
	"reflect"
	"strings"
	"testing"

	"skillet/harness/event"
)

// R12 for every way a skill reaches the model: which limits each path
// answers to, most telling first, and the words of each.
func TestLoadLimitsDecidesR12ForEveryPath(t *testing.T) {
	set := event.DefaultSettings()
	set.MaxSkillChars, set.MaxLoadsPerTurn, set.LoadTokenBudget = 100, 2, 50
	fresh, spent := Usage{}, Usage{Loads: 2, LoadTokens: 40}
	all := []LoadPath{PathModel, PathPaste, PathUser, PathPreload, PathEdit, PathEver}
	for _, tc := range []struct {
		name          string
		used          Usage
		chars, tokens int
		// want is the limits broken, by path (absent: none)
		want map[LoadPath][]string
	}{
		{"within every limit", fresh, 100, 50, nil},
		{"one character too many", fresh, 101, 10, map[LoadPath][]string{
			PathModel: {LimitChars}, PathPaste: {LimitChars}, PathUser: {LimitChars}, PathPreload: {LimitChars}, PathEdit: {LimitChars}, PathEver: {LimitChars}}},
		{"over what the turn has left of the budget", Usage{Loads: 1, LoadTokens: 40}, 10, 11, map[LoadPath][]string{
			PathModel: {LimitTokens}, PathPaste: {LimitTokens}}},
		{"alone over the budget", fresh, 10, 51, map[LoadPath][]string{
			PathModel: {LimitTokens}, PathPaste: {LimitTokens}, PathEver: {LimitTokens}}},
		{"the turn's loads are spent", spent, 10, 1, map[LoadPath][]string{
			PathModel: {LimitLoads}, PathPaste: {LimitLoads}}},
		{"everything at once", spent, 101, 51, map[LoadPath][]string{
			PathModel: {LimitChars, LimitLoads, LimitTokens}, PathPaste: {LimitChars, LimitLoads, LimitTokens},
			PathUser: {LimitChars}, PathPreload: {LimitChars}, PathEdit: {LimitChars}, PathEver: {LimitChars, LimitTokens}}},
	} {
		for _, path := range all {
			var got []string
			for _, r := range LoadLimits(set, tc.used, path, "x", tc.chars, tc.tokens) {
				got = append(got, r.Limit)
				if !strings.Contains(r.Why, r.Limit) {
					t.Errorf("%s, path %d: %q does not name %s", tc.name, path, r.Why, r.Limit)
				}
			}
			if want := tc.want[path]; !reflect.DeepEqual(got, want) {
				t.Errorf("%s, path %d: %v, want %v", tc.name, path, got, want)
			}
		}
	}
	words := map[string]string{}
	for _, r := range LoadLimits(set, spent, PathModel, "x", 101, 51) {
		words[r.Limit] = r.Why
	}
	for limit, want := range map[string]string{
		LimitChars:  "x is 101 characters, over max_skill_chars (100); a skill arrives whole or not at all",
		LimitLoads:  "this turn already made 2 loads, the max_loads_per_turn limit",
		LimitTokens: "x is 51 tokens and this turn has delivered 40 of its load_token_budget of 50",
	} {
		if words[limit] != want {
			t.Errorf("%s: %q, want %q", limit, words[limit], want)
		}
	}
	if r := LoadLimits(set, fresh, PathEver, "x", 10, 51); len(r) != 1 || r[0].Why != "x is 51 tokens, alone over load_token_budget (50)" {
		t.Errorf("ever: %+v", r)
	}
	if !Breaks(LoadLimits(set, spent, PathModel, "x", 10, 1), LimitLoads) || Breaks(nil, LimitLoads) {
		t.Error("Breaks does not find the limit")
	}
}
