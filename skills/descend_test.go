package skills

import "testing"

// TestDescriptionAtEnd: a block description is marked when it ends the
// frontmatter (its text on the last line, or kept blank lines), not when
// a key or a blank line follows it, nor when it is not a block.
func TestDescriptionAtEnd(t *testing.T) {
	for front, want := range map[string]bool{
		"name: s\ndescription: |\n  One.\n  Two.\n":     true,
		"name: s\ndescription: >\n  Folded.\n":          true,
		"name: s\ndescription: |+\n  Kept.\n\n":         true,
		"name: s\ndescription: |\n  One.\n\n":           false,
		"name: s\ndescription: |\n  One.\nlicense: x\n": false,
		"description: |\n  One.\nname: s\n":             false,
		"name: s\ndescription: Plain text.\n":           false,
		"name: s\ndescription: \"Quoted.\"\n":           false,
	} {
		sk := ParseSkill([]byte("---\n"+front+"---\nBody.\n"), "s")
		if sk.DescriptionAtEnd != want {
			t.Errorf("%q: DescriptionAtEnd %v, want %v (description %q)", front, sk.DescriptionAtEnd, want, sk.Description)
		}
	}
}
