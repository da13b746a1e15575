package agenttools

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Claude Code's permission rules, the syntax of a skill's allowed-tools.
// Source: code.claude.com/docs/en/iam ("Tool-specific permission rules":
// Bash(npm run test) exact, Bash(npm run test:*) prefix, Read/Edit rules
// with gitignore-style paths where //path is absolute, ~/ the home
// folder and other paths relative to the current folder; Edit rules cover
// every file-editing tool, Read rules the file-reading ones) and
// code.claude.com/docs/en/skills (allowed-tools: a space-separated
// string or a YAML list).

// Rule is one allowed-tools entry.
type Rule struct {
	// Tool is Claude Code's tool name (Bash, Read, Edit, Write, …).
	Tool string `json:"tool"`
	// Specifier is the text in parentheses, "" for the whole tool.
	Specifier string `json:"specifier,omitempty"`
	// Raw is the entry as written.
	Raw string `json:"raw"`
}

// ParseAllowed reads an allowed-tools value: entries separated by spaces
// or commas outside parentheses (parentheses may contain spaces), or a
// YAML flow list ("[Read, Bash(git:*)]").
func ParseAllowed(spec string) ([]Rule, error) {
	s := strings.TrimSpace(spec)
	if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
		s = s[1 : len(s)-1]
	}
	var rules []Rule
	var cur strings.Builder
	depth := 0
	flush := func() error {
		t := strings.Trim(strings.TrimSpace(cur.String()), `"'`)
		cur.Reset()
		if t == "" {
			return nil
		}
		r, err := parseRule(t)
		if err != nil {
			return err
		}
		rules = append(rules, r)
		return nil
	}
	for _, ch := range s {
		switch {
		case ch == '(':
			depth++
		case ch == ')':
			depth--
			if depth < 0 {
				return nil, fmt.Errorf("allowed-tools %q: a ')' has no matching '('", spec)
			}
		case depth == 0 && (ch == ' ' || ch == '\t' || ch == '\n' || ch == ','):
			if err := flush(); err != nil {
				return nil, err
			}
			continue
		}
		cur.WriteRune(ch)
	}
	if depth != 0 {
		return nil, fmt.Errorf("allowed-tools %q: a '(' is not closed", spec)
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return rules, nil
}

// ParseAllowedList reads allowed-tools given as a YAML list: each item is
// one entry (or several, space-separated).
func ParseAllowedList(items []string) ([]Rule, error) {
	var out []Rule
	for _, it := range items {
		rs, err := ParseAllowed(it)
		if err != nil {
			return nil, err
		}
		out = append(out, rs...)
	}
	return out, nil
}

func parseRule(t string) (Rule, error) {
	name, spec := t, ""
	if i := strings.IndexByte(t, '('); i >= 0 {
		if !strings.HasSuffix(t, ")") {
			return Rule{}, fmt.Errorf("allowed-tools entry %q: text follows the closing ')'", t)
		}
		name, spec = t[:i], strings.TrimSpace(t[i+1:len(t)-1])
	}
	if name == "" {
		return Rule{}, fmt.Errorf("allowed-tools entry %q has no tool name", t)
	}
	for _, r := range name {
		if !(r == '_' || r == '-' || r == '*' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return Rule{}, fmt.Errorf("allowed-tools entry %q: %q is not a tool name", t, name)
		}
	}
	if spec != "" && (name == "Read" || name == "Edit" || name == "Write" || name == "MultiEdit" || name == "Glob" || name == "Grep") {
		if !doublestar.ValidatePattern(strings.TrimPrefix(spec, "/")) {
			return Rule{}, fmt.Errorf("allowed-tools entry %q: %q is not a valid path pattern", t, spec)
		}
	}
	return Rule{Tool: name, Specifier: spec, Raw: t}, nil
}

// claudeEquivalent maps a kind to the Claude Code tool whose rules cover
// it, for profiles other than claude-code.
var claudeEquivalent = map[Kind]string{
	KindShell: "Bash", KindRead: "Read", KindWrite: "Write", KindEdit: "Edit",
	KindPatch: "Edit", KindGlob: "Glob", KindGrep: "Grep", KindList: "LS",
}

// ruleCovers: which rule tool names apply to a tool. An Edit rule covers
// every file-editing tool; a Read rule the file-reading ones.
func ruleCovers(ruleTool, tool string) bool {
	if ruleTool == tool || ruleTool == "*" {
		return true
	}
	switch ruleTool {
	case "Edit":
		return tool == "Write" || tool == "MultiEdit" || tool == "NotebookEdit"
	case "Read":
		return tool == "Glob" || tool == "Grep" || tool == "LS"
	}
	return false
}

// MatchRule reports the first rule that pre-approves a call, as Claude
// Code would. Under claude-code the def's own name is the tool; under any
// other profile the call is matched as the Claude Code tool of the same
// kind, so the answer is what Claude Code would have pre-approved.
// Relative paths in the call are taken as written; MatchRuleIn also
// resolves absolute paths against the workspace.
func MatchRule(rules []Rule, def Def, args json.RawMessage, profileName string) (matched string, ok bool) {
	return MatchRuleIn("", rules, def, args, profileName)
}

// MatchRuleIn is MatchRule with the workspace root, so an absolute path
// inside it matches a relative pattern (Edit(src/**) matches
// /ws/src/a.go when root is /ws).
func MatchRuleIn(root string, rules []Rule, def Def, args json.RawMessage, profileName string) (string, bool) {
	tool := def.Name
	if profileName != "claude-code" {
		tool = claudeEquivalent[def.Kind]
	}
	var paths []string
	command := ""
	switch def.Kind {
	case KindShell:
		command = TargetOf(def, args).Command
	case KindPatch:
		a, _ := decodeArgs(args)
		paths = patchPaths(a.str("input"))
		if len(paths) == 0 {
			return "", false
		}
	default:
		paths = []string{TargetOf(def, args).Path}
	}
	for _, r := range rules {
		if !ruleCovers(r.Tool, tool) {
			continue
		}
		if r.Specifier == "" || r.Specifier == "*" {
			return r.Raw, true
		}
		if def.Kind == KindShell {
			if bashMatches(r.Specifier, command) {
				return r.Raw, true
			}
			continue
		}
		all := true
		for _, p := range paths {
			if !pathMatches(root, r.Specifier, p) {
				all = false
				break
			}
		}
		if all {
			return r.Raw, true
		}
	}
	return "", false
}

// bashMatches: "cmd:*" matches cmd alone or followed by a space; a
// specifier with * elsewhere is a wildcard; anything else matches the
// command exactly. A compound command (&&, ||, ;, |, newlines) matches
// only when every part does, so `git diff && rm -rf x` is not approved by
// Bash(git diff:*).
func bashMatches(spec, command string) bool {
	// Command substitution runs commands a prefix rule never saw.
	if strings.Contains(command, "$(") || strings.Contains(command, "`") {
		return false
	}
	parts := splitCompound(command)
	if len(parts) == 0 {
		return false
	}
	for _, p := range parts {
		if !bashPartMatches(spec, p) {
			return false
		}
	}
	return true
}

func bashPartMatches(spec, cmd string) bool {
	cmd = strings.Join(strings.Fields(cmd), " ")
	if prefix, ok := strings.CutSuffix(spec, ":*"); ok {
		prefix = strings.TrimSpace(prefix)
		return cmd == prefix || strings.HasPrefix(cmd, prefix+" ")
	}
	if strings.Contains(spec, "*") {
		spec = strings.Join(strings.Fields(spec), " ")
		// "ls *": the word boundary before * also admits "ls" alone.
		if prefix, ok := strings.CutSuffix(spec, " *"); ok && cmd == prefix {
			return true
		}
		return wildcard(spec, cmd)
	}
	return cmd == strings.Join(strings.Fields(spec), " ")
}

// wildcard matches * against any run of characters.
func wildcard(pattern, s string) bool {
	parts := strings.Split(pattern, "*")
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	for i, p := range parts[1:] {
		if i == len(parts)-2 {
			return strings.HasSuffix(s, p)
		}
		j := strings.Index(s, p)
		if j < 0 {
			return false
		}
		s = s[j+len(p):]
	}
	return true
}

// splitCompound splits a command at &&, ||, ;, | and newlines outside
// quotes.
func splitCompound(cmd string) []string {
	var parts []string
	var cur strings.Builder
	quote := rune(0)
	rs := []rune(cmd)
	for i := 0; i < len(rs); i++ {
		ch := rs[i]
		if quote != 0 {
			cur.WriteRune(ch)
			if ch == quote {
				quote = 0
			} else if ch == '\\' && quote == '"' && i+1 < len(rs) {
				i++
				cur.WriteRune(rs[i])
			}
			continue
		}
		switch ch {
		case '\'', '"':
			quote = ch
			cur.WriteRune(ch)
			continue
		case ';', '\n', '|', '&':
			if ch == '&' && !(i+1 < len(rs) && rs[i+1] == '&') {
				cur.WriteRune(ch) // a lone & (background, 2>&1) stays
				continue
			}
			if (ch == '|' || ch == '&') && i+1 < len(rs) && rs[i+1] == ch {
				i++
			}
			if t := strings.TrimSpace(cur.String()); t != "" {
				parts = append(parts, t)
			}
			cur.Reset()
			continue
		}
		cur.WriteRune(ch)
	}
	if t := strings.TrimSpace(cur.String()); t != "" {
		parts = append(parts, t)
	}
	return parts
}

// pathMatches matches a path against a gitignore-style rule pattern:
// //abs is absolute, ~/ is the home folder (never inside a workspace, so
// it matches only absolute paths under it), /x and x are relative to the
// workspace. A pattern without a slash matches a name at any depth.
func pathMatches(root, pattern, p string) bool {
	if p == "" {
		return false
	}
	p = filepath.ToSlash(filepath.Clean(p))
	switch {
	case strings.HasPrefix(pattern, "//"):
		ok, _ := doublestar.Match(pattern[1:], p)
		return ok
	case strings.HasPrefix(pattern, "~/"):
		return false
	}
	pattern = strings.TrimPrefix(strings.TrimPrefix(pattern, "./"), "/")
	rel := p
	if filepath.IsAbs(filepath.FromSlash(p)) {
		if root == "" {
			return false
		}
		r, err := filepath.Rel(root, filepath.FromSlash(p))
		if err != nil || r == ".." || strings.HasPrefix(r, "../") {
			return false
		}
		rel = filepath.ToSlash(r)
	}
	if strings.HasPrefix(rel, "../") {
		return false
	}
	rel = strings.TrimPrefix(rel, "./")
	if ok, _ := doublestar.Match(pattern, rel); ok {
		return true
	}
	// A folder pattern covers what is inside it (gitignore: "src/").
	if ok, _ := doublestar.Match(strings.TrimSuffix(pattern, "/")+"/**", rel); ok && strings.HasSuffix(pattern, "/") {
		return true
	}
	if !strings.Contains(strings.TrimSuffix(pattern, "/"), "/") {
		ok, _ := doublestar.Match("**/"+pattern, rel)
		return ok
	}
	return false
}
