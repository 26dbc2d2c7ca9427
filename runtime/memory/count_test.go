package memory

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"

	"modernc.org/sqlite"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// countingDriver wraps the SQLite driver and counts the statements that reach it. Its
// connections implement neither ExecerContext nor QueryerContext, so database/sql prepares
// every statement and each one is counted once, whatever the caller did.
type countingDriver struct {
	dsn        string
	statements atomic.Int64
}

func (d *countingDriver) Open(string) (driver.Conn, error) {
	c, err := (&sqlite.Driver{}).Open(d.dsn)
	if err != nil {
		return nil, err
	}
	return &countingConn{Conn: c, d: d}, nil
}

type countingConn struct {
	driver.Conn
	d *countingDriver
}

func (c *countingConn) Prepare(q string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), q)
}

func (c *countingConn) PrepareContext(ctx context.Context, q string) (driver.Stmt, error) {
	st, err := c.Conn.(driver.ConnPrepareContext).PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	return &countingStmt{Stmt: st, d: c.d}, nil
}

func (c *countingConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	return c.Conn.(driver.ConnBeginTx).BeginTx(ctx, opts)
}

type countingStmt struct {
	driver.Stmt
	d *countingDriver
}

func (s *countingStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	s.d.statements.Add(1)
	return s.Stmt.(driver.StmtExecContext).ExecContext(ctx, args)
}

func (s *countingStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	s.d.statements.Add(1)
	return s.Stmt.(driver.StmtQueryContext).QueryContext(ctx, args)
}

// TestResentHistoryCostsFewStatements: an AG-UI client resends its whole history every run;
// storing it must not cost one statement per message.
func TestResentHistoryCostsFewStatements(t *testing.T) {
	path := filepath.Join(t.TempDir(), "count.db")
	d := &countingDriver{dsn: "file:" + path + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_txlock=immediate"}
	s, err := newSQLStore(ctx, sql.OpenDB(connector{d}), sqliteDialect)
	testutil.Check(t, err)
	defer s.Close()
	var history []Message
	for i := 0; i < 300; i++ {
		history = append(history, msg(fmt.Sprintf("m%d", i), "user", "x"))
	}
	testutil.Check(t, s.Save(ctx, "a", "t", "", history))
	history = append(history, msg("new-1", "user", "next"), msg("new-2", "assistant", "answer"))
	before := d.statements.Load()
	testutil.Check(t, s.Save(ctx, "a", "t", "", history))
	// The thread upsert, one lookup of the 302 ids and one insert of the two new messages.
	if n := d.statements.Load() - before; n > 5 {
		t.Errorf("resending a history of %d messages took %d statements", len(history), n)
	}
	all, _ := allMessages(s, "a", "t", "")
	if len(all) != 302 || all[301].ID != "new-2" {
		t.Errorf("stored %d messages", len(all))
	}
}

type connector struct{ d *countingDriver }

func (c connector) Connect(context.Context) (driver.Conn, error) { return c.d.Open("") }
func (c connector) Driver() driver.Driver                        { return c.d }
