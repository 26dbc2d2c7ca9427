package main

import (
	"fmt"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// openLoop calls f n times at rate per second, each in its own goroutine at its scheduled
// time (open loop: a slow answer does not delay the next send); it returns the error count.
func openLoop(n int, rate float64, f func(scheduled time.Time) error) int {
	interval := time.Duration(float64(time.Second) / rate)
	start := time.Now()
	var errs atomic.Int64
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		at := start.Add(time.Duration(i) * interval)
		time.Sleep(time.Until(at))
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := f(at); err != nil {
				if errs.Add(1) <= 3 {
					progress("  send: %v", err)
				}
			}
		}()
	}
	wg.Wait()
	return int(errs.Load())
}

// sendLatency sends one-to-one messages between the senders at c.rate for c.duration.
func sendLatency(kind, base string, senders []*user, socks []*sock, c config, goal time.Duration) error {
	progress("send latency on %s: %.0f/s for %s", kind, c.rate, c.duration)
	n := int(c.rate * c.duration.Seconds())
	// Warm up: a few sends on each connection of the pool.
	_ = openLoop(50, 100, func(at time.Time) error {
		_, err := send(base, senders[0].token, senders[1].uid, "user", nil, at)
		return err
	})
	lo := int(nextN.Load()) + 1
	var mu sync.Mutex
	var lat []time.Duration
	var i atomic.Int64
	errs := openLoop(n, c.rate, func(at time.Time) error {
		k := int(i.Add(1)) % len(senders)
		to := senders[(k+1)%len(senders)]
		d, err := send(base, senders[k].token, to.uid, "user", to.socks, at)
		if err == nil {
			mu.Lock()
			lat = append(lat, d)
			mu.Unlock()
		}
		return err
	})
	lost := waitDelivered(since(lo), 10*time.Second)
	p50, p99 := testutil.Percentile(lat, 50), testutil.Percentile(lat, 99)
	report(fmt.Sprintf("send p50 / p99, %s, %.0f msgs/s open loop for %s (%d sent, %d errors, %d not delivered)", kind, c.rate, c.duration, n, errs, lost),
		ms(p50)+" / "+ms(p99), "p99 ≤ "+ms(goal), b(p99 <= goal && errs == 0))
	return nil
}

// storm drops every socket at once while messages keep arriving and measures until every
// socket is ready again and has every message acked before its ready; then it checks that no
// socket missed a message of its conversations.
func storm(base string, owner *user, all, memberSocks []*sock, idleGroups map[string][]*user, c config) error {
	progress("reconnect storm: %d sockets drop at once, %.0f msgs/s arriving", len(all), c.stormRate)
	var guids []string
	for g := range idleGroups {
		guids = append(guids, g)
	}
	sort.Strings(guids)
	groupSocks := map[string][]*sock{"fanout": memberSocks}
	for g, us := range idleGroups {
		for _, u := range us {
			groupSocks[g] = append(groupSocks[g], u.socks...)
		}
	}
	for g, ss := range groupSocks {
		for _, s := range ss {
			s.convs["group:"+g] = true
		}
	}
	before4008, before1013 := closes4008.Load(), closes1013.Load()
	lo := int(nextN.Load()) + 1
	stopSending := sendStorm(base, owner, guids, groupSocks, c.stormRate)
	time.Sleep(1500 * time.Millisecond)
	t0 := time.Now()
	dropAt.Store(t0.UnixNano())
	for _, s := range all {
		s.drop()
	}
	// Every socket ready again and holding every message acked before its ready.
	deadline := time.Now().Add(120 * time.Second)
	var allReady, allResumed time.Duration
	for {
		time.Sleep(50 * time.Millisecond)
		readyN, resumedN, lastReady, lastResumed := resumedSockets(all, since(lo))
		if readyN == len(all) && resumedN == len(all) {
			allReady = time.Duration(lastReady - t0.UnixNano())
			allResumed = time.Duration(lastResumed - t0.UnixNano())
			break
		}
		if time.Now().After(deadline) {
			stopSending()
			return fmt.Errorf("storm: after 120 s only %d of %d sockets are ready and %d caught up", readyN, len(all), resumedN)
		}
	}
	time.Sleep(time.Second) // traffic continues after the storm
	errs := stopSending()
	msgs := since(lo)
	lost := waitDelivered(msgs, 30*time.Second)
	deliveries := 0
	for _, m := range msgs {
		deliveries += len(m.to)
	}
	report(fmt.Sprintf("reconnect storm: %d sockets dropped at once, all ready again after", len(all)), allReady.Round(time.Millisecond).String(), "—", nil)
	report("reconnect storm: all resumed (ready + caught up) after", allResumed.Round(time.Millisecond).String(), "—", nil)
	report(fmt.Sprintf("reconnect storm: messages lost (%d msgs, %d deliveries expected; %d send errors, %d 4008 and %d 1013 closes)",
		len(msgs), deliveries, errs, closes4008.Load()-before4008, closes1013.Load()-before1013),
		strconv.Itoa(lost), "0", b(lost == 0))
	return nil
}

// sendStorm sends rate messages a second from owner, to the fan-out group and the idle groups
// by turns, until stop, which returns the count of failed sends once the last has returned.
func sendStorm(base string, owner *user, guids []string, groupSocks map[string][]*sock, rate float64) (stop func() int) {
	quit := make(chan struct{})
	senderDone := make(chan int)
	go func() {
		interval := time.Duration(float64(time.Second) / rate)
		start := time.Now()
		var wg sync.WaitGroup
		var errs atomic.Int64
		for i := 0; ; i++ {
			at := start.Add(time.Duration(i) * interval)
			select {
			case <-quit:
				wg.Wait()
				senderDone <- int(errs.Load())
				return
			case <-time.After(time.Until(at)):
			}
			g := "fanout"
			if i%2 == 1 && len(guids) > 0 {
				g = guids[(i/2)%len(guids)]
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := send(base, owner.token, g, "group", groupSocks[g], at); err != nil {
					if errs.Add(1) <= 3 {
						progress("  send: %v", err)
					}
				}
			}()
		}
	}()
	return func() int { close(quit); return <-senderDone }
}

// resumedSockets counts the sockets ready again after the storm, and those of them holding
// every message of msgs acked before their ready; it returns when the last got ready and when
// the last caught up (Unix ns).
func resumedSockets(all []*sock, msgs []*message) (readyN, resumedN int, lastReady, lastResumed int64) {
	for _, s := range all {
		s.mu.Lock()
		ra := s.readyAfter
		s.mu.Unlock()
		if ra == 0 {
			continue
		}
		readyN++
		lastReady = max(lastReady, ra)
		caught := ra
		ok := true
		for _, m := range msgs {
			if m.ackAt >= ra || !s.convs[m.conv] {
				continue
			}
			s.mu.Lock()
			at, got := s.got[m.id]
			s.mu.Unlock()
			if !got {
				ok = false
				break
			}
			caught = max(caught, at)
		}
		if ok {
			resumedN++
			lastResumed = max(lastResumed, caught)
		}
	}
	return readyN, resumedN, lastReady, lastResumed
}
