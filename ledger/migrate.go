package ledger

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"
)

// migrations holds the numbered schema files per backend:
// migrations/<backend>/NNNN_name.sql, applied in order, each once, recorded
// in schema_migrations. Reopening an up-to-date database applies nothing.
//
//go:embed migrations
var migrations embed.FS

type migration struct {
	version int
	name    string
	sql     string
}

func loadMigrations(backend string) ([]migration, error) {
	dir := path.Join("migrations", backend)
	entries, err := fs.ReadDir(migrations, dir)
	if err != nil {
		return nil, fmt.Errorf("ledger: migrations: %w", err)
	}
	var out []migration
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".sql") {
			continue
		}
		num, _, _ := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if err != nil {
			return nil, fmt.Errorf("ledger: migration %s: name must start with a number", e.Name())
		}
		b, err := fs.ReadFile(migrations, path.Join(dir, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("ledger: migration %s: %w", e.Name(), err)
		}
		out = append(out, migration{version: v, name: e.Name(), sql: string(b)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	for i := 1; i < len(out); i++ {
		if out[i].version == out[i-1].version {
			return nil, fmt.Errorf("ledger: migrations %s and %s share a version", out[i-1].name, out[i].name)
		}
	}
	return out, nil
}

// SchemaVersion is the newest migration version embedded for backend.
func SchemaVersion(backend string) int {
	ms, err := loadMigrations(backend)
	if err != nil || len(ms) == 0 {
		return 0
	}
	return ms[len(ms)-1].version
}

// migrate applies the missing migrations inside one transaction t. The
// caller holds whatever lock serialises migrators (SQLite: BEGIN
// IMMEDIATE; PostgreSQL: an advisory transaction lock).
func migrate(ctx context.Context, t *sqlTx, backend string, now time.Time) error {
	ms, err := loadMigrations(backend)
	if err != nil {
		return err
	}
	if _, err := t.exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`); err != nil {
		return fmt.Errorf("ledger: schema_migrations: %w", err)
	}
	r, err := t.query(ctx, `SELECT version FROM schema_migrations`)
	if err != nil {
		return fmt.Errorf("ledger: schema_migrations: %w", err)
	}
	applied := map[int]bool{}
	for r.Next() {
		var v int
		if err := r.Scan(&v); err != nil {
			r.Close()
			return err
		}
		applied[v] = true
	}
	r.Close()
	for _, m := range ms {
		if applied[m.version] {
			continue
		}
		if _, err := t.exec(ctx, m.sql); err != nil {
			return fmt.Errorf("ledger: migration %s: %w", m.name, err)
		}
		if _, err := t.exec(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (?,?,?)`,
			m.version, m.name, now.UTC().Format(time.RFC3339Nano)); err != nil {
			return fmt.Errorf("ledger: migration %s: %w", m.name, err)
		}
	}
	return nil
}
