package eval

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"skillet/skills"
)

// MaxDescription is the spec's limit on a description, in characters.
const MaxDescription = 1024

// SetDescription returns SKILL.md text with its description replaced and
// every other byte of the frontmatter's meaning, and the body, kept.
func SetDescription(text []byte, desc string) ([]byte, error) {
	s := strings.ReplaceAll(string(text), "\r\n", "\n")
	rest, ok := strings.CutPrefix(s, "---\n")
	if !ok {
		return nil, errors.New("SKILL.md has no frontmatter (it must start with ---)")
	}
	end := strings.Index(rest, "\n---")
	if end < 0 {
		return nil, errors.New("SKILL.md's frontmatter has no closing ---")
	}
	front, body := rest[:end+1], rest[end+1:]
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(front), &doc); err != nil {
		return nil, fmt.Errorf("SKILL.md frontmatter: %w", err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, errors.New("SKILL.md frontmatter is not a mapping")
	}
	m := doc.Content[0]
	val := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: desc}
	found := false
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == "description" {
			m.Content[i+1] = val
			found = true
		}
	}
	if !found {
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "description"}, val)
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, fmt.Errorf("encode frontmatter: %w", err)
	}
	out := []byte("---\n" + buf.String() + body)
	if got := skills.ParseSkill(out, "").Description; got != desc {
		return nil, fmt.Errorf("the new description did not survive a round trip (read back %q)", clip(got, 60))
	}
	return out, nil
}

// CandidateRoot copies a skill's folder under dir with a new description,
// so a catalog that reads dir first offers the candidate in place of the
// original — one skill of that name, never a near-duplicate.
func CandidateRoot(dir string, sk *skills.Skill, desc string) (string, error) {
	dst := filepath.Join(dir, sk.Name)
	if err := os.RemoveAll(dst); err != nil {
		return "", fmt.Errorf("candidate folder: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("candidate folder: %w", err)
	}
	if err := os.CopyFS(dst, os.DirFS(sk.Dir)); err != nil {
		return "", fmt.Errorf("copy skill %s: %w", sk.Name, err)
	}
	p := filepath.Join(dst, filepath.Base(sk.Path))
	text, err := os.ReadFile(p)
	if err != nil {
		return "", fmt.Errorf("candidate SKILL.md: %w", err)
	}
	out, err := SetDescription(text, desc)
	if err != nil {
		return "", fmt.Errorf("skill %s: %w", sk.Name, err)
	}
	if err := os.WriteFile(p, out, 0o600); err != nil {
		return "", fmt.Errorf("candidate SKILL.md: %w", err)
	}
	return dir, nil
}
