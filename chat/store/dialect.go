package store

import (
	"regexp"
	"strings"
)

// dialect holds what differs between SQLite and PostgreSQL; everything else is one SQL text.
type dialect struct {
	name       string
	migrations []string
	// migrationLock serialises migrations of several processes (replicas starting at once).
	migrationLock string
	// eventLock is taken right before event positions are assigned, so pos order is commit
	// order (PostgreSQL allocates sequence values before commit; SQLite has one writer anyway).
	eventLock string
	// forUpdate and forShare lock the rows a rule reads until the writing transaction ends.
	// SQLite needs neither: its immediate transactions already exclude every other writer.
	forUpdate, forShare string
	// notify wakes the other replicas when the transaction commits.
	notify string
	// rebind turns $1-style placeholders into the dialect's own.
	rebind func(string) string
}

var numbered = regexp.MustCompile(`\$(\d+)`)

// Lock ids of pg_advisory_xact_lock; distinct from conversation memory's 7425001.
const (
	migrationLockID = 7425101
	eventLockID     = 7425102
)

// notifyChannel is the LISTEN/NOTIFY channel replicas wake each other on.
const notifyChannel = "agentry_chat_events"

func schemaFor(bigint, serial string) []string {
	r := strings.NewReplacer("{{BIGINT}}", bigint, "{{SERIAL}}", serial)
	out := make([]string, len(migrations))
	for i, m := range migrations {
		out[i] = r.Replace(m)
	}
	return out
}

var sqliteDialect = dialect{
	name:       "sqlite",
	rebind:     func(q string) string { return numbered.ReplaceAllString(q, "?$1") },
	migrations: schemaFor("INTEGER", "INTEGER PRIMARY KEY AUTOINCREMENT"),
}

var postgresDialect = dialect{
	name:          "postgres",
	rebind:        func(q string) string { return q },
	migrationLock: `SELECT pg_advisory_xact_lock(7425101)`,
	eventLock:     `SELECT pg_advisory_xact_lock(7425102)`,
	forUpdate:     " FOR UPDATE",
	forShare:      " FOR SHARE",
	notify:        `NOTIFY ` + notifyChannel,
	migrations:    schemaFor("BIGINT", "BIGSERIAL PRIMARY KEY"),
}
