package store

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
)

// listener holds a dedicated PostgreSQL connection that LISTENs for other replicas' commits
// and signals wake. A pooled connection cannot LISTEN: the pool would hand it to queries.
type listener struct {
	cancel context.CancelFunc
	done   chan struct{}
	// dropped counts other replicas' ephemeral frames let go because the receiving buffer was
	// full (the hub reads it into agentry_chat_broadcast_dropped_total).
	dropped atomic.Uint64
}

// Backoff of reconnection after the connection fails (PostgreSQL restarting, network).
const (
	listenBackoffMin = 100 * time.Millisecond
	listenBackoffMax = 5 * time.Second
)

func startListener(cfg *pgx.ConnConfig, wake chan struct{}, broadcasts chan []byte) *listener {
	ctx, cancel := context.WithCancel(context.Background())
	l := &listener{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(l.done)
		backoff := listenBackoffMin
		for ctx.Err() == nil {
			if err := listen(ctx, cfg, wake, broadcasts, &l.dropped, func() { backoff = listenBackoffMin }); err != nil && ctx.Err() == nil {
				// Notifications sent while disconnected are lost: wake the reader so its poll
				// catches up now rather than at the next tick.
				signal(wake)
				select {
				case <-ctx.Done():
				case <-time.After(backoff):
				}
				backoff = min(backoff*2, listenBackoffMax)
			}
		}
	}()
	return l
}

// listen runs one connection until it fails or ctx ends.
func listen(ctx context.Context, cfg *pgx.ConnConfig, wake chan struct{}, broadcasts chan []byte, dropped *atomic.Uint64, connected func()) error {
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return err
	}
	defer func() {
		closeCtx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = conn.Close(closeCtx)
	}()
	if _, err := conn.Exec(ctx, "LISTEN "+notifyChannel+"; LISTEN "+broadcastChannel); err != nil {
		return err
	}
	connected()
	// Events may have been committed while this connection was being set up.
	signal(wake)
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		if n.Channel != broadcastChannel {
			signal(wake)
			continue
		}
		// Ephemeral frames are best effort: a full buffer drops (counted), never blocks the
		// wake-ups.
		select {
		case broadcasts <- []byte(n.Payload):
		default:
			dropped.Add(1)
		}
	}
}

// signal sends on the buffered(1) channel without blocking: one pending wake-up is enough, as
// the reader reads everything after its position.
func signal(wake chan struct{}) {
	select {
	case wake <- struct{}{}:
	default:
	}
}

func (l *listener) stop() {
	l.cancel()
	<-l.done
}
