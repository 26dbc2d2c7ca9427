package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/agentry-dev/agentry/internal/platform/sqldb"
)

// migrations are applied in order, each once; append, never edit a released one. Times are
// microseconds since the epoch in BIGINT columns, which both dialects compare the same way.
var migrations = []string{`
CREATE TABLE chat_settings (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE chat_users (
  uid        TEXT PRIMARY KEY,
  name       TEXT NOT NULL,
  avatar     TEXT NOT NULL DEFAULT '',
  role       TEXT NOT NULL DEFAULT '',
  kind       TEXT NOT NULL,
  metadata   TEXT NOT NULL DEFAULT '',
  created_us {{BIGINT}} NOT NULL
);
CREATE TABLE chat_tokens (
  id         TEXT PRIMARY KEY,
  uid        TEXT NOT NULL,
  hash       TEXT NOT NULL UNIQUE,
  expires_us {{BIGINT}} NOT NULL,
  revoked_us {{BIGINT}} NOT NULL DEFAULT 0,
  created_us {{BIGINT}} NOT NULL
);
CREATE INDEX chat_tokens_by_uid ON chat_tokens (uid);
CREATE TABLE chat_groups (
  guid          TEXT PRIMARY KEY,
  name          TEXT NOT NULL,
  type          TEXT NOT NULL,
  description   TEXT NOT NULL DEFAULT '',
  icon          TEXT NOT NULL DEFAULT '',
  tags          TEXT NOT NULL DEFAULT '[]',
  owner         TEXT NOT NULL,
  password_hash TEXT NOT NULL DEFAULT '',
  members_count INTEGER NOT NULL DEFAULT 0,
  created_us    {{BIGINT}} NOT NULL,
  updated_us    {{BIGINT}} NOT NULL
);
CREATE TABLE chat_group_tags (guid TEXT NOT NULL, tag TEXT NOT NULL, PRIMARY KEY (guid, tag));
CREATE INDEX chat_group_tags_by_tag ON chat_group_tags (tag, guid);
CREATE TABLE chat_members (
  guid      TEXT NOT NULL,
  uid       TEXT NOT NULL,
  scope     TEXT NOT NULL,
  joined_us {{BIGINT}} NOT NULL,
  PRIMARY KEY (guid, uid)
);
CREATE INDEX chat_members_by_uid ON chat_members (uid, guid);
CREATE TABLE chat_bans (
  guid      TEXT NOT NULL,
  uid       TEXT NOT NULL,
  scope     TEXT NOT NULL,
  banned_by TEXT NOT NULL,
  banned_us {{BIGINT}} NOT NULL,
  PRIMARY KEY (guid, uid)
);
CREATE TABLE chat_conversations (
  id         TEXT PRIMARY KEY,
  type       TEXT NOT NULL,
  party_a    TEXT NOT NULL,
  party_b    TEXT NOT NULL,
  last_seq   {{BIGINT}} NOT NULL DEFAULT 0,
  updated_us {{BIGINT}} NOT NULL
);
CREATE INDEX chat_conversations_by_a ON chat_conversations (party_a);
CREATE INDEX chat_conversations_by_b ON chat_conversations (party_b);
CREATE TABLE chat_messages (
  id              {{SERIAL}},
  conversation_id TEXT NOT NULL,
  sender          TEXT NOT NULL,
  receiver        TEXT NOT NULL,
  receiver_type   TEXT NOT NULL,
  category        TEXT NOT NULL,
  type            TEXT NOT NULL,
  text            TEXT NOT NULL DEFAULT '',
  data            TEXT NOT NULL DEFAULT '',
  attachment      TEXT NOT NULL DEFAULT '',
  metadata        TEXT NOT NULL DEFAULT '',
  parent_id       {{BIGINT}} NOT NULL DEFAULT 0,
  reply_count     INTEGER NOT NULL DEFAULT 0,
  moderation      TEXT NOT NULL,
  sent_us         {{BIGINT}} NOT NULL,
  edited_us       {{BIGINT}} NOT NULL DEFAULT 0,
  edited_by       TEXT NOT NULL DEFAULT '',
  deleted_us      {{BIGINT}} NOT NULL DEFAULT 0,
  deleted_by      TEXT NOT NULL DEFAULT ''
);
CREATE INDEX chat_messages_by_conversation ON chat_messages (conversation_id, id);
CREATE INDEX chat_messages_by_parent ON chat_messages (parent_id, id);
CREATE TABLE chat_reactions (
  message_id {{BIGINT}} NOT NULL,
  reaction   TEXT NOT NULL,
  uid        TEXT NOT NULL,
  reacted_us {{BIGINT}} NOT NULL,
  PRIMARY KEY (message_id, reaction, uid)
);
CREATE TABLE chat_receipts (
  conversation_id TEXT NOT NULL,
  uid             TEXT NOT NULL,
  delivered_id    {{BIGINT}} NOT NULL DEFAULT 0,
  delivered_us    {{BIGINT}} NOT NULL DEFAULT 0,
  read_id         {{BIGINT}} NOT NULL DEFAULT 0,
  read_us         {{BIGINT}} NOT NULL DEFAULT 0,
  PRIMARY KEY (conversation_id, uid)
);
CREATE TABLE chat_flags (
  message_id {{BIGINT}} NOT NULL,
  uid        TEXT NOT NULL,
  reason     TEXT NOT NULL,
  remark     TEXT NOT NULL DEFAULT '',
  at_us      {{BIGINT}} NOT NULL,
  PRIMARY KEY (message_id, uid)
);
CREATE TABLE chat_rules (
  id       TEXT PRIMARY KEY,
  position INTEGER NOT NULL,
  kind     TEXT NOT NULL,
  pattern  TEXT NOT NULL,
  action   TEXT NOT NULL
);
CREATE TABLE chat_events (
  pos             {{SERIAL}},
  conversation_id TEXT NOT NULL DEFAULT '',
  seq             {{BIGINT}} NOT NULL DEFAULT 0,
  type            TEXT NOT NULL,
  target_uid      TEXT NOT NULL DEFAULT '',
  data            TEXT NOT NULL,
  at_us           {{BIGINT}} NOT NULL
);
CREATE INDEX chat_events_by_conversation ON chat_events (conversation_id, pos);
CREATE INDEX chat_events_by_target ON chat_events (target_uid, pos);`,
	// 2: event positions are assigned by the sequencer (PostgreSQL; see sequencer.go).
	`{{SEQUENCER}}`,
	// 3: a sequencer pass in one round trip (PostgreSQL; see sequencer.go).
	`{{SEQUENCER_PASS}}`,
	// 4: agent configurations and their frontend actions (issue 11). headers is the
	// AES-256-GCM ciphertext of the agent's headers ('' when none); enabled is 0 or 1.
	`
CREATE TABLE chat_agents (
  agent_id       TEXT PRIMARY KEY,
  provider       TEXT NOT NULL,
  name           TEXT NOT NULL,
  icon           TEXT NOT NULL DEFAULT '',
  greeting       TEXT NOT NULL DEFAULT '',
  introductory   TEXT NOT NULL DEFAULT '',
  suggested      TEXT NOT NULL DEFAULT '[]',
  deployment_url TEXT NOT NULL,
  headers        TEXT NOT NULL DEFAULT '',
  enabled        INTEGER NOT NULL DEFAULT 0,
  created_us     {{BIGINT}} NOT NULL,
  updated_us     {{BIGINT}} NOT NULL
);
CREATE TABLE chat_agent_actions (
  agent_id       TEXT NOT NULL,
  name           TEXT NOT NULL,
  display_name   TEXT NOT NULL,
  execution_text TEXT NOT NULL DEFAULT '',
  description    TEXT NOT NULL,
  parameters     TEXT NOT NULL,
  created_us     {{BIGINT}} NOT NULL,
  updated_us     {{BIGINT}} NOT NULL,
  PRIMARY KEY (agent_id, name)
);`,
	// 5: in-cluster agent references and the one agent run a conversation may have. pending is
	// a JSON array of the frontend action call ids waiting for the executor; a run whose
	// expires_us passed (its replica died) no longer blocks the conversation.
	`
ALTER TABLE chat_agents ADD COLUMN agent_ref TEXT NOT NULL DEFAULT '';
CREATE TABLE chat_agent_runs (
  conversation_id TEXT PRIMARY KEY,
  run_id          TEXT NOT NULL UNIQUE,
  agent_id        TEXT NOT NULL,
  started_by      TEXT NOT NULL,
  pending         TEXT NOT NULL DEFAULT '[]',
  expires_us      {{BIGINT}} NOT NULL
);`,
	// 6: the client's message id (muid), unique per sender, so a retried send is stored once.
	`
ALTER TABLE chat_messages ADD COLUMN muid TEXT NOT NULL DEFAULT '';
CREATE UNIQUE INDEX chat_messages_by_muid ON chat_messages (sender, muid) WHERE muid <> '';`,
	// 7: a quote reply's reference to the message it quotes.
	`ALTER TABLE chat_messages ADD COLUMN quoted_id {{BIGINT}} NOT NULL DEFAULT 0;`,
	// 8: presence: whether the user has a socket open, and when it last did.
	`
ALTER TABLE chat_users ADD COLUMN online INTEGER NOT NULL DEFAULT 0;
ALTER TABLE chat_users ADD COLUMN last_active_us {{BIGINT}} NOT NULL DEFAULT 0;`,
	// 9: tool call approvals: an agent's approvers, and each request an agent run stopped for
	// (approvers and message_ids are JSON arrays; status pending, approved, declined, expired).
	`
ALTER TABLE chat_agents ADD COLUMN approvers TEXT NOT NULL DEFAULT '[]';
CREATE TABLE chat_approvals (
  id              TEXT PRIMARY KEY,
  conversation_id TEXT NOT NULL,
  agent_id        TEXT NOT NULL,
  run_id          TEXT NOT NULL,
  interrupt_id    TEXT NOT NULL,
  tool_call_id    TEXT NOT NULL,
  tool_name       TEXT NOT NULL,
  arguments       TEXT NOT NULL,
  requested_by    TEXT NOT NULL,
  approvers       TEXT NOT NULL,
  status          TEXT NOT NULL,
  decided_by      TEXT NOT NULL DEFAULT '',
  reason          TEXT NOT NULL DEFAULT '',
  decided_us      {{BIGINT}} NOT NULL DEFAULT 0,
  created_us      {{BIGINT}} NOT NULL,
  expires_us      {{BIGINT}} NOT NULL,
  message_ids     TEXT NOT NULL DEFAULT '[]',
  UNIQUE (agent_id, interrupt_id)
);
CREATE INDEX chat_approvals_pending ON chat_approvals (status, expires_us);`,
	// Deactivation (an admin's): a deactivated user's tokens are refused and none are minted.
	`ALTER TABLE chat_users ADD COLUMN deactivated_us {{BIGINT}} NOT NULL DEFAULT 0;`,
	// Who may use an agent (JSON list; [] is everyone), and the identity provider's groups of
	// a user at their last sign-in (JSON list), which idp: audience entries match.
	`ALTER TABLE chat_agents ADD COLUMN audience TEXT NOT NULL DEFAULT '[]';
ALTER TABLE chat_users ADD COLUMN provider_groups TEXT NOT NULL DEFAULT '[]';`,
	// A session's idle timeout (0: none) and when it was last used, so a session nobody uses
	// ends before its lifetime does.
	`ALTER TABLE chat_tokens ADD COLUMN idle_us {{BIGINT}} NOT NULL DEFAULT 0;
ALTER TABLE chat_tokens ADD COLUMN used_us {{BIGINT}} NOT NULL DEFAULT 0;`,
	// Invitations (a code's hash, single use) and the passwords people set with them, apart
	// from chat_users so no user read ever carries a hash.
	`CREATE TABLE chat_invitations (
  id         TEXT PRIMARY KEY,
  uid        TEXT NOT NULL,
  hash       TEXT NOT NULL UNIQUE,
  created_by TEXT NOT NULL DEFAULT '',
  expires_us {{BIGINT}} NOT NULL,
  used_us    {{BIGINT}} NOT NULL DEFAULT 0,
  created_us {{BIGINT}} NOT NULL
);
CREATE INDEX chat_invitations_by_uid ON chat_invitations (uid);
CREATE TABLE chat_user_passwords (
  uid        TEXT PRIMARY KEY,
  hash       TEXT NOT NULL,
  updated_us {{BIGINT}} NOT NULL
);`,
	// The keys the chat signs its users' tokens for agents with (private keys sealed with the
	// headers key), and how an agent takes its callers' identity: headers, or chat-jwt.
	`CREATE TABLE chat_signing_keys (
  kid        TEXT PRIMARY KEY,
  private    TEXT NOT NULL,
  created_us {{BIGINT}} NOT NULL
);
ALTER TABLE chat_agents ADD COLUMN auth TEXT NOT NULL DEFAULT '';
ALTER TABLE chat_agents ADD COLUMN token_audience TEXT NOT NULL DEFAULT '';`,
	// The identity provider's account of a user (issuer and subject), for the tokens the chat
	// signs.
	`ALTER TABLE chat_users ADD COLUMN provider_issuer TEXT NOT NULL DEFAULT '';
ALTER TABLE chat_users ADD COLUMN provider_subject TEXT NOT NULL DEFAULT '';`,
	// Which replica is bridging an agent run, its last sign of life, and the agent call in
	// flight (its AG-UI runId), so another replica takes a run over when its own stops.
	`ALTER TABLE chat_agent_runs ADD COLUMN owner TEXT NOT NULL DEFAULT '';
ALTER TABLE chat_agent_runs ADD COLUMN heartbeat_us {{BIGINT}} NOT NULL DEFAULT 0;
ALTER TABLE chat_agent_runs ADD COLUMN call_id TEXT NOT NULL DEFAULT '';`,
	// The tokens of each agent call (its RUN_FINISHED usage), which admins see per agent; an
	// agent's prices per million tokens and what it says it supports (JSON, '' when unset).
	`CREATE TABLE chat_agent_usage (
  agent_id      TEXT NOT NULL,
  call_id       TEXT NOT NULL,
  run_id        TEXT NOT NULL,
  input_tokens  {{BIGINT}} NOT NULL,
  output_tokens {{BIGINT}} NOT NULL,
  at_us         {{BIGINT}} NOT NULL,
  PRIMARY KEY (agent_id, call_id)
);
CREATE INDEX chat_agent_usage_by_time ON chat_agent_usage (at_us);
ALTER TABLE chat_agents ADD COLUMN prices TEXT NOT NULL DEFAULT '';
ALTER TABLE chat_agents ADD COLUMN capabilities TEXT NOT NULL DEFAULT '';`,
}

// postgresSequencerStep: writers insert events with pos NULL and an insertion id; the
// sequencer sets pos from chat_events_pos_seq (the sequence the BIGSERIAL pos created, no
// longer its default). The partial index finds the unsequenced events; the unique index
// serves readers.
const postgresSequencerStep = `
ALTER TABLE chat_events DROP CONSTRAINT chat_events_pkey;
ALTER TABLE chat_events ALTER COLUMN pos DROP DEFAULT, ALTER COLUMN pos DROP NOT NULL;
ALTER TABLE chat_events ADD COLUMN id BIGSERIAL PRIMARY KEY;
CREATE UNIQUE INDEX chat_events_by_pos ON chat_events (pos);
CREATE INDEX chat_events_unsequenced ON chat_events (id) WHERE pos IS NULL;`

// postgresSequencerPassStep is one sequencer batch as a function, so that it costs one round
// trip (its own implicit transaction): under the try-lock (-1 when another replica's
// sequencer holds it), it reserves a block of positions and hands them out in id order, and
// notifies the replicas at commit. Each statement of a volatile PL/pgSQL function takes its
// own snapshot, so the events read were committed before the lock was taken.
const postgresSequencerPassStep = `
CREATE FUNCTION chat_sequence_events(batch INTEGER) RETURNS INTEGER LANGUAGE plpgsql AS $fn$
DECLARE
  ids  BIGINT[];
  n    INTEGER;
  last BIGINT;
BEGIN
  IF NOT pg_try_advisory_xact_lock(7425102) THEN
    RETURN -1;
  END IF;
  SELECT array_agg(id ORDER BY id) INTO ids
    FROM (SELECT id FROM chat_events WHERE pos IS NULL ORDER BY id LIMIT batch) AS u;
  n := COALESCE(array_length(ids, 1), 0);
  IF n = 0 THEN
    RETURN 0;
  END IF;
  last := setval('chat_events_pos_seq', nextval('chat_events_pos_seq') + n - 1);
  UPDATE chat_events AS e SET pos = last - n + u.ord
    FROM unnest(ids) WITH ORDINALITY AS u(id, ord) WHERE e.id = u.id;
  PERFORM pg_notify('agentry_chat_events', '');
  RETURN n;
END
$fn$;`

// sqliteSequencerStep changes nothing: SQLite's single writer assigns pos (the rowid) at
// insert, which is commit order already; sqliteSequencerPassStep likewise.
const (
	sqliteSequencerStep     = `SELECT 1`
	sqliteSequencerPassStep = `SELECT 1`
)

// migrate applies the schema migrations not yet recorded in chat_schema_migrations, then
// loads the cursor key.
func (s *sqlStore) migrate(ctx context.Context) error {
	m := sqldb.Migrations{Table: "chat_schema_migrations", Lock: s.d.migrationLock, Rebind: s.d.rebind, Steps: s.d.migrations}
	if err := m.Apply(ctx, s.db); err != nil {
		return err
	}
	return s.loadCursorKey(ctx)
}

// loadCursorKey reads the key that signs paging cursors, creating it once. It lives in the
// database so every replica accepts the cursors any of them issued.
func (s *sqlStore) loadCursorKey(ctx context.Context) error {
	fresh := make([]byte, 32)
	_, _ = rand.Read(fresh)
	if _, err := s.db.ExecContext(ctx, s.d.rebind(`INSERT INTO chat_settings (name, value) VALUES ('cursor_key', $1) ON CONFLICT (name) DO NOTHING`), hex.EncodeToString(fresh)); err != nil {
		return fmt.Errorf("failed to store the cursor key: %w", err)
	}
	var key string
	if err := s.db.QueryRowContext(ctx, `SELECT value FROM chat_settings WHERE name = 'cursor_key'`).Scan(&key); err != nil {
		return fmt.Errorf("failed to read the cursor key: %w", err)
	}
	b, err := hex.DecodeString(key)
	if err != nil || len(b) == 0 {
		return errors.New("failed to read the cursor key: malformed")
	}
	s.cursorKey = b
	return nil
}
