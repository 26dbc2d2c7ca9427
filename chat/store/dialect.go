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
	// forUpdate and forShare lock the rows a rule reads until the writing transaction ends.
	// SQLite needs neither: its immediate transactions already exclude every other writer.
	forUpdate, forShare string
	// rebind turns $1-style placeholders into the dialect's own.
	rebind func(string) string
}

var numbered = regexp.MustCompile(`\$(\d+)`)

// Lock ids of pg_advisory_xact_lock; distinct from conversation memory's 7425001.
// sequencerLockID once was the lock every event writer took; now only sequencers take it.
const (
	migrationLockID = 7425101
	sequencerLockID = 7425102
)

// notifyChannel is the LISTEN/NOTIFY channel replicas wake each other on: a sequencer
// notifies it when it commits new positions.
const notifyChannel = "agentry_chat_events"

// broadcastChannel carries ephemeral frames (typing, agent run events) between replicas.
const broadcastChannel = "agentry_chat_ephemeral"

// schemaFor renders the migrations for a dialect: its column types, and its form of the
// steps that differ (sequencer: the event log's conversion to sequenced positions).
func schemaFor(bigint, serial, sequencer, sequencerPass string) []string {
	r := strings.NewReplacer("{{BIGINT}}", bigint, "{{SERIAL}}", serial, "{{SEQUENCER}}", sequencer, "{{SEQUENCER_PASS}}", sequencerPass)
	out := make([]string, len(migrations))
	for i, m := range migrations {
		out[i] = r.Replace(m)
	}
	return out
}

var sqliteDialect = dialect{
	name:       "sqlite",
	rebind:     func(q string) string { return numbered.ReplaceAllString(q, "?$1") },
	migrations: schemaFor("INTEGER", "INTEGER PRIMARY KEY AUTOINCREMENT", sqliteSequencerStep, sqliteSequencerPassStep),
}

var postgresDialect = dialect{
	name:          "postgres",
	rebind:        func(q string) string { return q },
	migrationLock: `SELECT pg_advisory_xact_lock(7425101)`,
	forUpdate:     " FOR UPDATE",
	forShare:      " FOR SHARE",
	migrations:    schemaFor("BIGINT", "BIGSERIAL PRIMARY KEY", postgresSequencerStep, postgresSequencerPassStep),
}
