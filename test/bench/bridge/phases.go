package main

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// env is what the phases share: the agent's URLs, the chat service and the users' sockets.
type env struct {
	c           config
	paced, fast string // the agent's URL: deltas -interval apart, or back to back
	chat        *chatService
	lat         *socket   // the latency user's socket
	workers     []*socket // one user per concurrent worker
}

// latency alternates direct and via-chat runs against the paced agent: time to first delta and
// each delta's latency, the goals' measures.
func latency(e *env) error {
	c := e.c
	progress("latency: %d runs each direct and via chat, %d deltas %s apart", c.runs, c.events, c.interval)
	for i := 0; i < 3; i++ { // warm up: connections, membership cache, statements
		if _, err := runDirect(e.paced, "warm-up", c.events); err != nil {
			return fmt.Errorf("direct: %w", err)
		}
		if _, err := e.lat.run(e.chat, "paced", "warm up", c.events); err != nil {
			return fmt.Errorf("via chat: %w", err)
		}
	}
	var d, v struct{ ttfd, call, agent, first, lat []time.Duration }
	for i := 0; i < c.runs; i++ {
		s, err := runDirect(e.paced, "latency", c.events)
		if err != nil {
			return fmt.Errorf("direct: %w", err)
		}
		d.ttfd, d.call, d.first, d.lat = append(d.ttfd, s.ttfd), append(d.call, s.call), append(d.first, s.first), append(d.lat, s.lat...)
		d.agent = append(d.agent, s.ttfd-s.call-s.first)
		if s, err = e.lat.run(e.chat, "paced", fmt.Sprintf("question %d", i), c.events); err != nil {
			return fmt.Errorf("via chat: %w", err)
		}
		v.ttfd, v.call, v.first, v.lat = append(v.ttfd, s.ttfd), append(v.call, s.call), append(v.first, s.first), append(v.lat, s.lat...)
		v.agent = append(v.agent, s.ttfd-s.call-s.first)
	}
	for _, p := range []int{50, 95, 99} {
		dp, vp := testutil.Percentile(d.ttfd, p), testutil.Percentile(v.ttfd, p)
		goal, ok := "—", (*bool)(nil)
		if p == 50 {
			goal, ok = "≤ 5 ms added", b(vp-dp <= 5*time.Millisecond)
		}
		report(fmt.Sprintf("time to first text delta p%d (%d runs)", p, c.runs), ms(dp), ms(vp), added(vp-dp), goal, ok)
	}
	// Where the time to first delta goes: until the agent has the request (via chat: the REST
	// call, the run's claim, storing the message, reading the history), the agent's own time
	// (via chat it decodes the conversation's history), then the first delta's way back.
	for _, part := range []struct {
		what string
		d, v []time.Duration
	}{
		{"request sent → agent has it", d.call, v.call},
		{"agent has the request → sends the first delta", d.agent, v.agent},
		{"first delta sent by the agent → received", d.first, v.first},
	} {
		dp, vp := testutil.Percentile(part.d, 50), testutil.Percentile(part.v, 50)
		report("… of which "+part.what+", p50", ms(dp), ms(vp), added(vp-dp), "—", nil)
	}
	for _, p := range []int{50, 95, 99} {
		dp, vp := testutil.Percentile(d.lat, p), testutil.Percentile(v.lat, p)
		goal, ok := "—", (*bool)(nil)
		if p == 50 {
			goal, ok = "≤ 1 ms added", b(vp-dp <= time.Millisecond)
		}
		report(fmt.Sprintf("per-event latency p%d (%d deltas %s apart × %d runs)", p, c.events, c.interval, c.runs), ms(dp), ms(vp), added(vp-dp), goal, ok)
	}
	return nil
}

// burst sends the deltas back to back, faster than any model: the last delta's latency is
// how far the relay lags behind the agent after the burst, so the added lag over the deltas is
// an upper bound of what relaying costs per event once events queue behind each other.
func burst(e *env) error {
	c := e.c
	progress("burst: %d runs each direct and via chat, %d deltas back to back", c.burstRuns, c.events)
	var d, v []time.Duration
	for i := 0; i < c.burstRuns+2; i++ {
		s, err := runDirect(e.fast, "burst", c.events)
		if err != nil {
			return fmt.Errorf("direct: %w", err)
		}
		t, err := e.lat.run(e.chat, "fast", fmt.Sprintf("burst %d", i), c.events)
		if err != nil {
			return fmt.Errorf("via chat: %w", err)
		}
		if i >= 2 { // the first two warm up
			d, v = append(d, s.lat[len(s.lat)-1]), append(v, t.lat[len(t.lat)-1])
		}
	}
	dp, vp := testutil.Percentile(d, 50), testutil.Percentile(v, 50)
	per := max(0, vp-dp) / time.Duration(c.events)
	report(fmt.Sprintf("last of %d back-to-back deltas, sent → received p50 (%d runs); added lag per event", c.events, c.burstRuns),
		ms(dp), ms(vp), fmt.Sprintf("%s (≤ %s/event)", added(vp-dp), us(per)), "≤ 1 ms per event", b(per <= time.Millisecond))
	return nil
}

// concurrency runs c.concurrency users back to back, each in its own conversation with the
// fast agent (so a run is all relay, no agent think time), for c.duration; direct for
// c.directDuration with as many workers as the floor.
func concurrency(e *env) error {
	c := e.c
	n := len(e.workers)
	progress("concurrency %d: direct for %s", n, c.directDuration)
	dRuns, dEl, dDur, dErrs := concurrent(n, c.directDuration, func(w, i int) (sample, error) {
		return runDirect(e.fast, fmt.Sprintf("thread-%d", w), c.events)
	})
	progress("  %d runs, %.0f/s, %d errors", dRuns, float64(dRuns)/dEl.Seconds(), dErrs)
	progress("concurrency %d: via chat for %s", n, c.duration)
	_, _, _, _ = concurrent(n, 0, func(w, i int) (sample, error) { // one warm-up run each
		return e.workers[w].run(e.chat, "fast", "warm up", c.events)
	})
	busyBefore := busyRetries.Load()
	vRuns, vEl, vDur, vErrs := concurrent(n, c.duration, func(w, i int) (sample, error) {
		return e.workers[w].run(e.chat, "fast", fmt.Sprintf("question %d", i), c.events)
	})
	progress("  %d runs, %.0f/s, %d errors, %d busy retries", vRuns, float64(vRuns)/vEl.Seconds(), vErrs, busyRetries.Load()-busyBefore)
	dr, vr := float64(dRuns)/dEl.Seconds(), float64(vRuns)/vEl.Seconds()
	report(fmt.Sprintf("runs/s at concurrency %d (%d back-to-back deltas each; errors direct %d, via chat %d)", n, c.events, dErrs, vErrs),
		fmt.Sprintf("%.0f", dr), fmt.Sprintf("%.0f", vr), fmt.Sprintf("%.0f%% of direct", 100*vr/dr), "—", nil)
	for _, p := range []int{50, 99} {
		dp, vp := testutil.Percentile(dDur, p), testutil.Percentile(vDur, p)
		report(fmt.Sprintf("run duration p%d at concurrency %d (direct: to RUN_FINISHED; via chat: to the stored answer)", p, n),
			ms(dp), ms(vp), added(vp-dp), "—", nil)
	}
	return nil
}

// concurrent runs one(w, i) back to back on each of n workers until d passed (d = 0: once
// each); it returns the runs completed, the time until the last ended, their durations and the
// error count.
func concurrent(n int, d time.Duration, one func(w, i int) (sample, error)) (runs int, elapsed time.Duration, durs []time.Duration, errs int) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	start := time.Now()
	for w := 0; w < n; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i == 0 || time.Since(start) < d; i++ {
				s, err := one(w, i)
				mu.Lock()
				if err != nil {
					errs++
					if errs <= 3 {
						progress("  worker %d: %v", w, err)
					}
				} else {
					runs++
					durs = append(durs, s.total)
				}
				mu.Unlock()
				if errors.Is(err, errBusyTooLong) || errors.Is(err, errSocketClosed) {
					return
				}
			}
		}()
	}
	wg.Wait()
	return runs, time.Since(start), durs, errs
}
