package main

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// devSecretKey returns SECRET_KEY for taasky dev: the environment's, else
// one made at random on the first run and kept in the user config directory,
// so that sessions and encrypted limits survive a restart.
func devSecretKey(getenv func(string) string) (key, source string, err error) {
	if k := getenv("SECRET_KEY"); k != "" {
		return k, "SECRET_KEY", nil
	}
	dir, err := userDir(getenv, "XDG_CONFIG_HOME", ".config")
	if err != nil {
		return "", "", fmt.Errorf("keep the dev secret key (or set SECRET_KEY): %w", err)
	}
	path := filepath.Join(dir, "taasky", "dev-secret-key")
	b, err := os.ReadFile(path)
	if err == nil && len(strings.TrimSpace(string(b))) >= 32 {
		return strings.TrimSpace(string(b)), path, nil
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", "", fmt.Errorf("read the dev secret key (or set SECRET_KEY): %w", err)
	}
	secret := make([]byte, 48)
	_, _ = rand.Read(secret) // never fails
	key = base64.RawURLEncoding.EncodeToString(secret)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", "", fmt.Errorf("keep the dev secret key (or set SECRET_KEY): %w", err)
	}
	if err := os.WriteFile(path, []byte(key+"\n"), 0o600); err != nil {
		return "", "", fmt.Errorf("keep the dev secret key (or set SECRET_KEY): %w", err)
	}
	return key, path + " (new)", nil
}
