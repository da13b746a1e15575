package skills

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Limits of the Agent Skills specification and of R18.
const (
	MaxNameLen          = 64
	MaxDescriptionLen   = 1024
	MaxCompatibilityLen = 500
	MaxBodyChars        = 65536
	MaxExamples         = 20
	MaxExampleBytes     = 4096
	// RecommendedBodyLines is the spec's advice, not a rule: a longer body
	// gets a warning.
	RecommendedBodyLines = 500
	// RecommendedBodyTokens is the spec's other advice on the body, checked
	// with EstimateTokens.
	RecommendedBodyTokens = 5000
)

// The file names a skill folder may hold; the second is accepted with a
// warning, as the reference validator does.
const (
	SkillFile      = "SKILL.md"
	SkillFileLower = "skill.md"
)

var (
	nameRE     = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	toolNameRE = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
)

// loadSkill reads the skill in dir: its SKILL.md (or skill.md, with a
// warning). Every failure is a Problem on the returned skill.
func loadSkill(dir string, strict bool) *Skill {
	path := filepath.Join(dir, SkillFile)
	var warn []Problem
	if _, err := os.Stat(path); err != nil {
		lower := filepath.Join(dir, SkillFileLower)
		if _, err2 := os.Stat(lower); err2 == nil {
			path = lower
			warn = append(warn, lowerCaseWarning())
		}
	}
	s := loadSkillFile(path, strict)
	s.Warnings = append(warn, s.Warnings...)
	return s
}

func lowerCaseWarning() Problem {
	return Problem{Field: "file", Message: "named skill.md; the spec names it SKILL.md"}
}

// LoadSkillFile reads and validates one SKILL.md for loading; its folder
// is the skill's folder. See ParseSkill.
func LoadSkillFile(path string) *Skill { return loadSkillFile(path, false) }

// loadSkillFile reads one SKILL.md; strict is validate's reading (see
// parseSkill).
func loadSkillFile(path string, strict bool) *Skill {
	dir := filepath.Dir(path)
	data, info, prob := readTextFile(path)
	var s *Skill
	if prob != nil {
		s = &Skill{Name: filepath.Base(dir), Problems: []Problem{*prob}}
	} else {
		s = parseSkill(data, filepath.Base(dir), strict)
	}
	s.Dir, s.Path = dir, path
	if info != nil {
		s.ModTime, s.Size = info.ModTime(), info.Size()
	}
	return s
}

// ParseSkill parses and validates the content of a SKILL.md whose folder
// is named folder ("" skips the name-matches-folder rule), as loading
// does: what the spec forbids but a reader can still make sense of (a
// value holding an unquoted ": ", an empty compatibility) is a warning.
// All problems are reported at once, each naming its field.
func ParseSkill(data []byte, folder string) *Skill { return parseSkill(data, folder, false) }

// parseSkill is ParseSkill; strict makes every breach of the spec a
// problem, as `skillet validate` reports them: other tools read the same
// file and may not be as lenient.
func parseSkill(data []byte, folder string, strict bool) *Skill {
	s := &Skill{Name: folder}
	p := &parser{s: s, strict: strict}
	if pr := checkText(data); pr != nil {
		s.Problems = append(s.Problems, *pr)
		return s
	}
	if bytes.HasPrefix(data, []byte(bom)) {
		p.warn("file", "starts with a byte-order mark; the spec wants the frontmatter at the very top and some tools (skills-ref) refuse the file (Skillet skips the mark)")
	}
	front, body, frontLine, prob := splitFrontmatter(string(data))
	if prob != nil {
		s.Problems = append(s.Problems, *prob)
		return s
	}
	root, err := parseYAML(front, frontLine)
	if err != nil {
		// The spec's lenient-loading advice: a value holding an unquoted
		// ": " is read again as if quoted.
		if fixed, keys := quoteColonValues(front); len(keys) > 0 {
			if r, err2 := parseYAML(fixed, frontLine); err2 == nil {
				root, err = r, nil
				for _, k := range keys {
					p.lenient(k, `the value holds ": " and is not quoted, which is invalid YAML`,
						"other tools cannot read the file; quote the value (loading reads it as if quoted)",
						"it was read as if quoted (quote it so other tools read it too)")
				}
			}
		}
	}
	if err != nil {
		s.Problems = append(s.Problems, Problem{Field: "frontmatter", Message: err.Error()})
		return s
	}
	s.Body = body
	p.fields(root, folder)
	s.DescriptionAtEnd = descriptionAtEnd(root, front, s.Description)
	p.body(body)
	if len(s.Examples) > 0 {
		// rendered once: every load and preload of the skill keeps it
		s.loadText = s.renderLoadText()
	}
	return s
}

type parser struct {
	s *Skill
	// strict is validate's reading: see parseSkill.
	strict bool
}

func (p *parser) problem(field, format string, args ...any) {
	p.s.Problems = append(p.s.Problems, Problem{Field: field, Message: fmt.Sprintf(format, args...)})
}

// laxProblem is a problem breaking a rule some agents read past.
func (p *parser) laxProblem(rule LaxRule, field, format string, args ...any) {
	p.problem(field, format, args...)
	p.s.Problems[len(p.s.Problems)-1].Lax = rule
}

func (p *parser) warn(field, format string, args ...any) {
	p.s.Warnings = append(p.s.Warnings, Problem{Field: field, Message: fmt.Sprintf(format, args...)})
}

// lenient reports a breach of the spec that loading tolerates: a problem
// ending in strictTail when validating, a warning ending in looseTail when
// loading.
func (p *parser) lenient(field, what, strictTail, looseTail string) {
	if p.strict {
		p.problem(field, "%s: %s", what, strictTail)
		return
	}
	p.warn(field, "%s; %s", what, looseTail)
}

func (p *parser) fields(root *yaml.Node, folder string) {
	seen := map[string]int{}
	var hasName, hasDesc bool
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], deref(root.Content[i+1])
		if k.Kind != yaml.ScalarNode {
			p.problem("frontmatter", "line %d: a key must be a plain name, not a %s", k.Line, kindName(k))
			continue
		}
		key := k.Value
		if key == "" {
			p.problem("frontmatter", "line %d: a key is empty", k.Line)
			continue
		}
		if line, dup := seen[key]; dup {
			p.problem(key, "defined twice (lines %d and %d of the frontmatter)", line, k.Line)
			continue
		}
		seen[key] = k.Line
		switch key {
		case "name":
			hasName = true
			p.name(v, folder)
		case "description":
			hasDesc = true
			if d, ok := p.str(key, v); ok {
				p.s.Description = d
				if strings.TrimSpace(d) == "" {
					p.problem(key, "must not be empty: say what the skill does and when to use it")
				} else if n := utf8.RuneCountInString(d); n > MaxDescriptionLen {
					p.laxProblem(LaxDescriptionLength, key, "is %d characters, over the %d limit", n, MaxDescriptionLen)
				}
			}
		case "license":
			if l, ok := p.str(key, v); ok {
				p.s.License = l
			}
		case "compatibility":
			p.compatibility(v)
		case "metadata":
			p.metadata(v)
		case "allowed-tools":
			p.allowedTools(v)
		case "tools":
			p.tools(v)
		case "examples":
			p.examples(v)
		default:
			p.foreign(key, v, "is not a key of the Agent Skills spec or of Skillet; kept and ignored")
		}
	}
	if !hasName {
		p.laxProblem(LaxNameMissing, "name", "missing required field")
	}
	if !hasDesc {
		p.problem("description", "missing required field")
	}
}

// foreign keeps a key neither the spec nor Skillet defines (or a value of
// Skillet's key in another tool's form) as its YAML text, with a warning.
func (p *parser) foreign(key string, v *yaml.Node, why string) {
	if p.s.Extra == nil {
		p.s.Extra = map[string]string{}
	}
	p.s.Extra[key] = nodeText(v)
	p.warn(key, "%s", why)
}

func (p *parser) name(v *yaml.Node, folder string) {
	name, ok := p.str("name", v)
	if !ok {
		return
	}
	if name = strings.TrimSpace(name); name == "" {
		p.problem("name", "must not be empty")
		return
	}
	p.s.Name = name
	n := utf8.RuneCountInString(name)
	if n > MaxNameLen {
		p.laxProblem(LaxNameFormat, "name", "%q is %d characters, over the %d limit", name, n, MaxNameLen)
	}
	// Each rule the name breaks is its own problem, as the spec lists them.
	if !nameRE.MatchString(name) {
		if strings.ToLower(name) != name {
			p.laxProblem(LaxNameFormat, "name", "%q must be lowercase", name)
		}
		if strings.HasPrefix(name, "-") || strings.HasSuffix(name, "-") {
			p.laxProblem(LaxNameFormat, "name", "%q must not start or end with a hyphen", name)
		}
		if strings.Contains(name, "--") {
			p.laxProblem(LaxNameFormat, "name", "%q must not hold consecutive hyphens", name)
		}
		if strings.IndexFunc(strings.ToLower(name), func(r rune) bool { return (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '-' }) >= 0 {
			p.laxProblem(LaxNameFormat, "name", "%q holds characters other than lowercase letters a-z, digits and hyphens", name)
		}
	}
	if folder != "" && name != folder {
		p.laxProblem(LaxNameFolder, "name", "%q does not match the folder name %q (the spec requires them to be equal)", name, folder)
	}
}

// compatibility reads the spec's 1-500 character environment note.
func (p *parser) compatibility(v *yaml.Node) {
	if v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null" {
		p.lenient("compatibility", "is empty", "the spec wants 1-500 characters when the key is present (leave it out instead)", "leave the key out instead")
		return
	}
	c, ok := p.str("compatibility", v)
	if !ok {
		return
	}
	p.s.Compatibility = c
	if n := utf8.RuneCountInString(c); n > MaxCompatibilityLen {
		p.problem("compatibility", "is %d characters, over the %d limit", n, MaxCompatibilityLen)
	} else if strings.TrimSpace(c) == "" {
		p.lenient("compatibility", "is empty", "the spec wants 1-500 characters when the key is present (leave it out instead)", "leave the key out instead")
	}
}

// str reads a string scalar. Other scalars are refused with a hint to quote
// them, since YAML would otherwise silently turn `1.10` into a number.
func (p *parser) str(field string, v *yaml.Node) (string, bool) {
	switch {
	case isText(v):
		return v.Value, true
	case v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null":
		p.problem(field, "has no value; want a string")
	case v.Kind == yaml.ScalarNode:
		p.problem(field, "must be a string, not %s %q (quote it)", tagName(v), v.Value)
	default:
		p.problem(field, "must be a string, not a %s", kindName(v))
	}
	return "", false
}

// metadata reads the spec's string-to-string map. A scalar value keeps
// its source text, as the reference validator reads it: `version: 1.10`
// is "1.10", not the number 1.1.
func (p *parser) metadata(v *yaml.Node) {
	if v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null" {
		return
	}
	if v.Kind != yaml.MappingNode {
		p.problem("metadata", "must be a map of string keys to string values, not a %s", kindName(v))
		return
	}
	md := map[string]string{}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], deref(v.Content[i+1])
		if k.Kind != yaml.ScalarNode {
			p.problem("metadata", "line %d: a key must be a string, not a %s", k.Line, kindName(k))
			continue
		}
		field := "metadata." + k.Value
		if _, dup := md[k.Value]; dup {
			p.problem(field, "defined twice")
			continue
		}
		if val.Kind != yaml.ScalarNode {
			p.laxProblem(LaxMetadataValue, field, "must be a string, not a %s (metadata maps strings to strings)", kindName(val))
			continue
		}
		md[k.Value] = val.Value
		switch {
		case isText(val):
		case val.ShortTag() == "!!null":
			p.warn(field, "has no value; read as the empty string")
		default:
			p.warn(field, "is %s %q to YAML, not a string; kept as the text %q (quote it so that every reader gets a string)", tagName(val), val.Value, val.Value)
		}
	}
	if len(md) > 0 {
		p.s.Metadata = md
		p.s.Version = md["version"]
	}
}

func (p *parser) allowedTools(v *yaml.Node) {
	switch {
	case v.Kind == yaml.ScalarNode && v.ShortTag() == "!!str":
		if strings.Contains(v.Value, ",") {
			p.warn("allowed-tools", "is comma-separated; the spec says space-separated (read as a list anyway)")
		}
		p.s.AllowedTools = splitTools(v.Value)
	case v.Kind == yaml.SequenceNode:
		p.warn("allowed-tools", "is a YAML list; the spec says a space-separated string (read as a list anyway)")
		for i, item := range v.Content {
			if s, ok := p.str(fmt.Sprintf("allowed-tools[%d]", i), deref(item)); ok && strings.TrimSpace(s) != "" {
				p.s.AllowedTools = append(p.s.AllowedTools, strings.TrimSpace(s))
			}
		}
	default:
		p.str("allowed-tools", v)
	}
}

// splitTools splits on spaces and commas outside parentheses, so that
// `Bash(git add:*)` stays one entry.
func splitTools(s string) []string {
	var out []string
	depth, start := 0, -1
	flush := func(end int) {
		if start >= 0 {
			out = append(out, s[start:end])
			start = -1
		}
	}
	for i, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case depth == 0 && (r == ',' || unicode.IsSpace(r)):
			flush(i)
			continue
		}
		if start < 0 {
			start = i
		}
	}
	flush(len(s))
	return out
}

func (p *parser) body(body string) {
	chars := utf8.RuneCountInString(body)
	if chars > MaxBodyChars {
		p.laxProblem(LaxBodyLength, "body", "the instructions are %d characters, over the %d limit", chars, MaxBodyChars)
	}
	lines := strings.Count(body, "\n") + 1
	tokens := EstimateTokens(chars)
	var over []string
	if body != "" && lines > RecommendedBodyLines {
		over = append(over, fmt.Sprintf("%d lines", lines))
	}
	if tokens > RecommendedBodyTokens {
		over = append(over, fmt.Sprintf("about %d tokens (estimated as characters/4)", tokens))
	}
	if len(over) > 0 {
		p.warn("body", "is %s; the spec recommends under %d lines and %d tokens (move detail into references/)",
			strings.Join(over, " and "), RecommendedBodyLines, RecommendedBodyTokens)
	}
}

// EstimateTokens is a cheap token count of text of that many characters:
// one token per four characters, rounded up. It is labelled an estimate
// wherever it is shown; a session counts exactly.
func EstimateTokens(chars int) int { return (chars + 3) / 4 }

// descriptionAtEnd reports whether the description is a block scalar
// whose end is the frontmatter's: its last line holds the block's text,
// or the block keeps its trailing blank lines (|+). Parsed without the
// frontmatter's final newline, such a block loses one line break.
func descriptionAtEnd(root *yaml.Node, front, desc string) bool {
	n := len(root.Content)
	if n < 2 || root.Content[n-2].Value != "description" {
		return false
	}
	v := root.Content[n-1]
	if v.Kind != yaml.ScalarNode || v.Style&(yaml.LiteralStyle|yaml.FoldedStyle) == 0 {
		return false
	}
	lines := strings.Split(strings.TrimSuffix(front, "\n"), "\n")
	return strings.TrimSpace(lines[len(lines)-1]) != "" || strings.HasSuffix(desc, "\n\n")
}
