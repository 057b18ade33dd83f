package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// sqliteSuffixes name the files SQLite keeps beside a database in WAL mode.
var sqliteSuffixes = []string{"", "-wal", "-shm"}

// tightenFiles makes the database at path and its WAL and shared memory
// files, where they exist, private to the relay's user: a data directory
// written by an older relay, or copied with a wide umask, may hold them
// readable by others, and SQLite keeps an existing file's mode.
func tightenFiles(path string) error {
	for _, suffix := range sqliteSuffixes {
		name := path + suffix
		info, err := os.Stat(name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("store file %s: %w", name, err)
		}
		if info.Mode().Perm()&^fileMode != 0 {
			if err := os.Chmod(name, fileMode); err != nil {
				return fmt.Errorf("make %s private: %w", name, err)
			}
		}
	}
	return nil
}
