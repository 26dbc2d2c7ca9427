package store

import (
	"database/sql"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
	"github.com/agentry-dev/agentry/internal/platform/sqldb"
)

// TestSequencerAcrossReplicas: 8 writers on two stores over one PostgreSQL, to one group and
// to one-to-one conversations, while a reader polls EventsAfter. Every event gets exactly one
// pos, seq order is pos order in every conversation, and the reader, reading only after the
// last pos it saw, ends with the whole log: no position ever became visible late.
func TestSequencerAcrossReplicas(t *testing.T) {
	a, b := replicas(t)
	var uids []string
	for i := 0; i < 8; i++ {
		uids = append(uids, fmt.Sprintf("w%d", i))
	}
	users(t, a, uids...)
	group(t, a, "w0", "g", model.GroupPublic, uids[1:]...)
	before := allEvents(t, a)

	var seen []model.Event
	var readErr error
	var stopReading atomic.Bool
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		var last int64
		if len(before) > 0 {
			last = before[len(before)-1].Pos
		}
		seen, readErr = readAfter(b, last, &stopReading)
	}()

	const per = 15
	// Through a and b by turns: to group g, and every third to the next uid.
	for _, err := range sendEach([]Store{a, b}, uids, per, func(i, j int) (string, model.ReceiverType) {
		if j%3 == 2 {
			return uids[(i+1)%len(uids)], model.ReceiverUser
		}
		return "g", model.ReceiverGroup
	})() {
		t.Fatal(err)
	}
	// Every write has returned, so its events have positions.
	db := a.(*pgStore).db
	var unsequenced, total, distinct int
	testutil.Check(t, db.QueryRowContext(ctx, `SELECT COUNT(*) FILTER (WHERE pos IS NULL), COUNT(*), COUNT(DISTINCT pos) FROM chat_events`).Scan(&unsequenced, &total, &distinct))
	if unsequenced != 0 || distinct != total {
		t.Fatalf("%d unsequenced, %d events, %d distinct positions", unsequenced, total, distinct)
	}
	stopReading.Store(true)
	<-readerDone
	if readErr != nil {
		t.Fatal(readErr)
	}

	all := allEvents(t, a)
	if len(all)-len(before) != len(uids)*per {
		t.Fatalf("%d new events, want %d", len(all)-len(before), len(uids)*per)
	}
	if len(seen) != len(all)-len(before) {
		t.Fatalf("the polling reader saw %d events, the log has %d new: a position appeared late", len(seen), len(all)-len(before))
	}
	for i, e := range seen {
		if e.Pos != all[len(before)+i].Pos {
			t.Fatalf("reader's event %d has pos %d, log has %d", i, e.Pos, all[len(before)+i].Pos)
		}
	}
	lastSeq := map[string]int64{}
	for _, e := range all {
		if e.ConversationID == "" {
			continue
		}
		if e.Seq != lastSeq[e.ConversationID]+1 {
			t.Fatalf("conversation %s: seq %d at pos %d follows seq %d", e.ConversationID, e.Seq, e.Pos, lastSeq[e.ConversationID])
		}
		lastSeq[e.ConversationID] = e.Seq
	}
}

// readAfter polls s.EventsAfter from last, checking that positions only grow, until a read
// after stop was set finds nothing; it returns every event it read.
func readAfter(s Store, last int64, stop *atomic.Bool) ([]model.Event, error) {
	var seen []model.Event
	for {
		stopping := stop.Load()
		evs, err := s.EventsAfter(ctx, last, 50)
		if err != nil {
			return seen, err
		}
		for _, e := range evs {
			if e.Pos <= last {
				return seen, fmt.Errorf("pos %d read after %d", e.Pos, last)
			}
			last = e.Pos
		}
		seen = append(seen, evs...)
		if stopping && len(evs) == 0 {
			return seen, nil
		}
	}
}

// TestSequencerTakesOverAfterCrash: events committed by a store whose sequencer never runs
// (its process died after the commit) are sequenced by another replica's poll, which wakes
// that replica.
func TestSequencerTakesOverAfterCrash(t *testing.T) {
	a, b := replicas(t)
	users(t, a, "alice", "bob")
	_, newest := must2(t)(b.Horizon(ctx))
	listening(t, a, b)
	a.(*pgStore).seq.stop()
	m := send(t, a, text("alice", "bob", model.ReceiverUser, "orphan"))
	// A wake-up of B's own from the set-up may still come first: read after each one.
	var evs []model.Event
	for timeout := time.After(10 * time.Second); len(evs) == 0; {
		select {
		case <-b.Wake():
		case <-timeout:
			t.Fatal("B did not sequence A's event")
		}
		evs = must[[]model.Event](t)(b.EventsAfter(ctx, newest, 0))
	}
	if len(evs) != 1 || evs[0].ConversationID != m.ConversationID || evs[0].Pos <= newest {
		t.Errorf("B reads %+v", evs)
	}
}

// TestSequencerMigration: a database created by the first migration (pos assigned at
// insert), with events in it, upgrades: old positions stay, new events follow them.
func TestSequencerMigration(t *testing.T) {
	url := postgresURL(t)
	db, err := sql.Open("pgx", url)
	testutil.Check(t, err)
	defer db.Close()
	old := sqldb.Migrations{Table: "chat_schema_migrations", Lock: postgresDialect.migrationLock, Rebind: postgresDialect.rebind, Steps: postgresDialect.migrations[:1]}
	testutil.Check(t, old.Apply(ctx, db))
	for i := 0; i < 3; i++ {
		if _, err := db.ExecContext(ctx, `INSERT INTO chat_events (target_uid, type, data, at_us) VALUES ('alice', 'old', '{}', 1)`); err != nil {
			t.Fatal(err)
		}
	}
	s := must[Store](t)(Open(ctx, url))
	defer s.Close()
	users(t, s, "alice", "bob")
	send(t, s, text("alice", "bob", model.ReceiverUser, "new"))
	evs := allEvents(t, s)
	if len(evs) < 4 || evs[0].Pos != 1 || evs[2].Pos != 3 || evs[0].Type != "old" || evs[len(evs)-1].Type != model.EventMessageCreated || evs[len(evs)-1].Pos <= 3 {
		t.Errorf("after the upgrade: %+v", evs)
	}
}
