package glancestack

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/c5c3/glance-hooks/test/services"
)

// Schema is what a database holds, as far as schema Jobs change it: every
// table's columns and indexes, its row count, and the alembic revision.
type Schema struct {
	// Tables maps a table to its columns and indexes, one line each.
	Tables map[string][]string
	// Rows maps a table to its row count.
	Rows map[string]int
	// Revision is alembic_version.version_num ("" without the table).
	Revision string
}

// ReadSchema reads a database's Schema as root.
func ReadSchema(t testing.TB, db *services.MariaDB, database string) Schema {
	t.Helper()
	q := quote(database)
	s := Schema{Tables: map[string][]string{}, Rows: map[string]int{}}
	for _, r := range db.Query(t, "SELECT table_name, column_name, column_type, is_nullable, column_key, IFNULL(column_default, 'NULL'), extra "+
		"FROM information_schema.columns WHERE table_schema = "+q+" ORDER BY table_name, ordinal_position") {
		s.Tables[r[0]] = append(s.Tables[r[0]], "column "+strings.Join(r[1:], " "))
	}
	for _, r := range db.Query(t, "SELECT table_name, index_name, non_unique, seq_in_index, column_name "+
		"FROM information_schema.statistics WHERE table_schema = "+q+" ORDER BY table_name, index_name, seq_in_index") {
		s.Tables[r[0]] = append(s.Tables[r[0]], "index "+strings.Join(r[1:], " "))
	}
	tables := make([]string, 0, len(s.Tables))
	for name := range s.Tables {
		tables = append(tables, name)
	}
	sort.Strings(tables)
	if len(tables) > 0 {
		var counts []string
		for _, name := range tables {
			counts = append(counts, fmt.Sprintf("SELECT %s, COUNT(*) FROM `%s`.`%s`", quote(name), database, name))
		}
		for _, r := range db.Query(t, strings.Join(counts, " UNION ALL ")) {
			var n int
			if _, err := fmt.Sscan(r[1], &n); err != nil {
				t.Fatalf("row count of %s: %q", r[0], r[1])
			}
			s.Rows[r[0]] = n
		}
	}
	if _, ok := s.Tables["alembic_version"]; ok {
		if rows := db.Query(t, fmt.Sprintf("SELECT version_num FROM `%s`.alembic_version", database)); len(rows) == 1 {
			s.Revision = rows[0][0]
		}
	}
	return s
}

// quote is a SQL string literal of a name the stack chose (letters,
// digits and _).
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
