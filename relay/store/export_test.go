package store

import "testing"

// What the external tests (package store_test) use of engines_test.go.

// TestDB is where a test's store lives (see testDB).
type TestDB = testDB

// OpenTest opens a store in a fresh database of the engine under test.
func OpenTest(t testing.TB) (*Store, TestDB) { t.Helper(); return openTest(t) }

// OpenAt opens another store on db, as another process would.
func OpenAt(t testing.TB, db TestDB) *Store { t.Helper(); return openAt(t, db) }

// SQLiteOnly skips the test in the pass on PostgreSQL.
func SQLiteOnly(t testing.TB) { t.Helper(); sqliteOnly(t) }

// StoredBytes returns everything db holds at rest (see storedBytes).
func StoredBytes(t testing.TB, db TestDB) []byte { t.Helper(); return storedBytes(t, db) }
