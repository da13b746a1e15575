package bench

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// writeInputs makes the folder every run's workspace of an eval starts
// as a copy of: each of the eval's files (or folders) under its own name.
// It is made again each time, so an edited input file is picked up.
func writeInputs(ev *Evals, e Eval, dir string) error {
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("clear %s: %w", dir, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("make %s: %w", dir, err)
	}
	for _, f := range e.Files {
		src, err := ev.FilePath(f)
		if err != nil {
			return fmt.Errorf("eval %d: files: %v", e.ID, err)
		}
		dst := filepath.Join(dir, filepath.Base(src))
		fi, err := os.Stat(src)
		if err != nil {
			return fmt.Errorf("eval %d: file %s is missing: %w", e.ID, f, err)
		}
		if fi.IsDir() {
			err = os.CopyFS(dst, os.DirFS(src))
		} else {
			err = copyFile(src, dst, fi.Mode())
		}
		if err != nil {
			return fmt.Errorf("eval %d: copy %s: %w", e.ID, f, err)
		}
	}
	return nil
}

func copyFile(src, dst string, mode fs.FileMode) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, data, mode.Perm()|0o200)
}

// EvalMetadataFile is each eval's record in the benchmark's folder,
// skill-creator's eval_metadata.json with Skillet's checks.
const EvalMetadataFile = "eval_metadata.json"

// writeEvalMetadata writes skill-creator's eval_metadata.json beside the
// configurations' folders.
func writeEvalMetadata(dir string, e Eval) error {
	// checks: Skillet's own, kept so `skillet bench report` can rescore
	// the folder from it alone
	meta := map[string]any{"eval_id": e.ID, "eval_name": e.Title(), "prompt": e.Prompt, "assertions": e.Expectations}
	if len(e.Checks) > 0 {
		meta["checks"] = e.Checks
	}
	return writeJSON(filepath.Join(dir, EvalMetadataFile), meta)
}

// CopySkill copies a skill folder into root/name without its evals
// folder: runs read the skill from there, and must not read the
// expectations they are graded by.
func CopySkill(src, root, name string) (string, error) {
	dst := filepath.Join(root, name)
	if err := os.RemoveAll(dst); err != nil {
		return "", err
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", err
	}
	sub := os.DirFS(src)
	err := fs.WalkDir(sub, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == "evals" && d.IsDir() {
			return fs.SkipDir
		}
		if d.Name() == ".git" && d.IsDir() {
			return fs.SkipDir
		}
		target := filepath.Join(dst, filepath.FromSlash(p))
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			return nil // a link may point anywhere: not copied
		default:
			info, err := d.Info()
			if err != nil {
				return err
			}
			return copyFile(filepath.Join(src, filepath.FromSlash(p)), target, info.Mode())
		}
	})
	if err != nil {
		return "", fmt.Errorf("copy skill %s: %w", src, err)
	}
	return dst, nil
}

// writeOutputs gives the run folder what skill-creator's review viewer
// looks for: outputs/ with the files the run created or changed, and the
// eval's eval_metadata.json beside it.
func writeOutputs(dir string, e Eval, o Outcome) error {
	outs := filepath.Join(dir, "outputs")
	if err := os.MkdirAll(outs, 0o755); err != nil {
		return fmt.Errorf("make %s: %w", outs, err)
	}
	for _, c := range o.Changed {
		if c.Op == "delete" || c.Omitted {
			continue
		}
		p, err := workspacePath(outs, c.Path)
		if err != nil {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(c.Content), 0o644); err != nil {
			return fmt.Errorf("write %s: %w", p, err)
		}
	}
	return writeEvalMetadata(dir, e)
}
