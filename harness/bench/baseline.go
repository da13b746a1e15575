package bench

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// BaselineKind says what --baseline named.
func BaselineKind(arg string) string {
	switch {
	case arg == "" || arg == WithoutSkill:
		return WithoutSkill
	case isDir(arg):
		return "dir"
	}
	return "rev"
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// SkillAtRevision writes the skill folder skillDir as it was at git
// revision rev into root/name (its evals folder left out), read with
// `git archive` from the repository skillDir is in.
func SkillAtRevision(skillDir, rev, root, name string) (string, error) {
	git, err := exec.LookPath("git")
	if err != nil {
		return "", fmt.Errorf("--baseline %s: git is needed to read a revision: %w", rev, err)
	}
	prefix, err := exec.Command(git, "-C", skillDir, "rev-parse", "--show-prefix").Output()
	if err != nil {
		return "", fmt.Errorf("--baseline %s: %s is not in a git repository (and %s is not a folder)", rev, skillDir, rev)
	}
	p := strings.TrimSuffix(strings.TrimSpace(string(prefix)), "/")
	top, err := exec.Command(git, "-C", skillDir, "rev-parse", "--show-toplevel").Output()
	if err != nil {
		return "", fmt.Errorf("--baseline %s: find the top of the git repository of %s: %w", rev, skillDir, err)
	}
	tree := rev + ":" + p
	if p == "" {
		tree = rev + ":"
	}
	var stderr bytes.Buffer
	cmd := exec.Command(git, "-C", strings.TrimSpace(string(top)), "archive", "--format=tar", tree)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if strings.Contains(msg, "not a valid object name") || strings.Contains(msg, "not a tree object") || strings.Contains(msg, "unknown revision") {
			return "", fmt.Errorf("--baseline %s: no such revision of %s in its git history (or the skill folder did not exist then): %s", rev, skillDir, msg)
		}
		return "", fmt.Errorf("--baseline %s: git archive: %v: %s", rev, err, msg)
	}
	dst := filepath.Join(root, name)
	if err := os.RemoveAll(dst); err != nil {
		return "", err
	}
	if err := untar(out, dst); err != nil {
		return "", fmt.Errorf("--baseline %s: %w", rev, err)
	}
	if _, err := os.Stat(filepath.Join(dst, "SKILL.md")); err != nil {
		return "", fmt.Errorf("--baseline %s: %s had no SKILL.md at that revision", rev, skillDir)
	}
	return dst, nil
}

// untar writes a tar archive's regular files and folders under dst,
// leaving out the evals folder and anything that would land outside.
func untar(data []byte, dst string) error {
	tr := tar.NewReader(bytes.NewReader(data))
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read the archive: %w", err)
		}
		name := filepath.FromSlash(strings.TrimPrefix(h.Name, "./"))
		if name == "evals" || strings.HasPrefix(name, "evals"+string(filepath.Separator)) {
			continue
		}
		target, err := workspacePath(dst, name)
		if err != nil {
			continue
		}
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return err
			}
			b, err := io.ReadAll(tr)
			if err != nil {
				return err
			}
			if err := os.WriteFile(target, b, os.FileMode(h.Mode).Perm()|0o200); err != nil {
				return err
			}
		}
	}
}
