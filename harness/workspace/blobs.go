package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"skillet/harness/atomicfile"
)

// ErrNoBlob is returned (wrapped) by Blobs.Get for content it does not hold.
var ErrNoBlob = errors.New("no such content")

// Blobs is a content store: content goes in once and is named by its
// sha256 (hex). The session journal's store implements it.
type Blobs interface {
	Put(data []byte) (hash string, err error)
	Get(hash string) ([]byte, error)
}

// HashBytes is the name Blobs give data: its sha256, hex.
func HashBytes(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// MemBlobs keeps content in memory.
type MemBlobs struct {
	mu sync.RWMutex
	m  map[string][]byte
}

// NewMemBlobs returns an empty in-memory store.
func NewMemBlobs() *MemBlobs { return &MemBlobs{m: map[string][]byte{}} }

// Put stores a copy of data.
func (b *MemBlobs) Put(data []byte) (string, error) {
	h := HashBytes(data)
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.m[h]; !ok {
		b.m[h] = append([]byte{}, data...)
	}
	return h, nil
}

// Get returns the content named hash.
func (b *MemBlobs) Get(hash string) ([]byte, error) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	data, ok := b.m[hash]
	if !ok {
		return nil, fmt.Errorf("blob %s: %w", hash, ErrNoBlob)
	}
	return append([]byte{}, data...), nil
}

// Len is how many distinct contents are held.
func (b *MemBlobs) Len() int {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return len(b.m)
}

// DirBlobs keeps content in a folder, one file per content named by its
// hash, readable by the owner only (workspace files may hold anything).
type DirBlobs struct{ dir string }

// NewDirBlobs opens (making it if needed) a folder-backed store.
func NewDirBlobs(dir string) (*DirBlobs, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("content store %s: %w", dir, err)
	}
	return &DirBlobs{dir: dir}, nil
}

// Dir is the store's folder.
func (b *DirBlobs) Dir() string { return b.dir }

// Put writes data under its hash, unless that content is already there.
// The write is atomic, so a crash never leaves a blob that lies about its
// name.
func (b *DirBlobs) Put(data []byte) (string, error) {
	h := HashBytes(data)
	p := filepath.Join(b.dir, h)
	if _, err := os.Lstat(p); err == nil {
		return h, nil
	}
	if err := atomicfile.Write(p, data, 0o600); err != nil {
		return "", fmt.Errorf("store blob %s: %w", h, err)
	}
	return h, nil
}

// Get reads the content named hash. A name that is not a sha256 is
// refused before it comes near the file system.
func (b *DirBlobs) Get(hash string) ([]byte, error) {
	if !validHash(hash) {
		return nil, fmt.Errorf("blob %q: not a sha256 hash", hash)
	}
	data, err := os.ReadFile(filepath.Join(b.dir, hash))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("blob %s: %w", hash, ErrNoBlob)
	} else if err != nil {
		return nil, fmt.Errorf("blob %s: %w", hash, err)
	}
	return data, nil
}

func validHash(h string) bool {
	if len(h) != 2*sha256.Size {
		return false
	}
	for _, c := range h {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
