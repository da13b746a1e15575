package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// ManifestFile records how a benchmark was started, for --resume.
const ManifestFile = "bench.json"

// Manifest is what a benchmark was started with.
type Manifest struct {
	Created time.Time `json:"created"`
	Skills  []string  `json:"skills"`
	// SkillDirs are the benched skills' folders, by name.
	SkillDirs map[string]string `json:"skill_dirs,omitempty"`
	// Evals is the --evals file, "" for each skill's own.
	Evals    string   `json:"evals,omitempty"`
	Baseline string   `json:"baseline"`
	Runs     int      `json:"runs"`
	Model    string   `json:"model"`
	BaseURL  string   `json:"base_url,omitempty"`
	Demo     bool     `json:"demo,omitempty"`
	Roots    []string `json:"roots,omitempty"`
	Config   string   `json:"config,omitempty"`
	Sets     []string `json:"sets,omitempty"`
	Profile  string   `json:"profile,omitempty"`
	// GraderModel and GraderBaseURL are the grader's, "" for the run's.
	GraderModel   string `json:"grader_model,omitempty"`
	GraderBaseURL string `json:"grader_base_url,omitempty"`
}

// WriteManifest writes dir's manifest.
func WriteManifest(dir string, m *Manifest) error {
	return writeJSON(filepath.Join(dir, ManifestFile), m)
}

// ReadManifest reads dir's manifest.
func ReadManifest(dir string) (*Manifest, error) {
	data, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s holds no benchmark (no %s)", dir, ManifestFile)
	}
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, ManifestFile), err)
	}
	return &m, nil
}
