package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"strconv"
	"time"
)

// One process, one clock: the agent stamps each text delta with now() and the clients
// subtract it from the arrival time (monotonic nanoseconds since the start).
var epoch = time.Now()

func now() int64 { return int64(time.Since(epoch)) }

// ---------------------------------------------------------------------------------------------
// The synthetic AG-UI agent: POST a RunAgentInput to /ag-ui?events=N&interval=D and it streams
// RUN_STARTED (with benchReceivedNs, when the request arrived), TEXT_MESSAGE_START, N TEXT_MESSAGE_CONTENT deltas (the i-th due at start + i·D,
// each carrying benchSentNs, its send time), TEXT_MESSAGE_END and RUN_FINISHED, flushing after
// every event. No model, no work: what it costs is the floor of any agent.

func startAgent() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /ag-ui", serveAGUI)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	cleanups.Add(func() { _ = srv.Close() })
	return "http://" + ln.Addr().String() + "/ag-ui", nil
}

// words are the deltas' text: token-sized, so the persisted answer looks like a real one.
var words = []string{"The ", "quick ", "brown ", "fox ", "jumps ", "over ", "the ", "lazy ", "dog. "}

func serveAGUI(w http.ResponseWriter, r *http.Request) {
	received := now()
	var in struct {
		ThreadID string            `json:"threadId"`
		RunID    string            `json:"runId"`
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 16<<20)).Decode(&in); err != nil || in.RunID == "" || len(in.Messages) == 0 {
		http.Error(w, "not a RunAgentInput", http.StatusBadRequest)
		return
	}
	n, _ := strconv.Atoi(r.URL.Query().Get("events"))
	interval, _ := time.ParseDuration(r.URL.Query().Get("interval"))
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	send := func(b []byte) bool {
		if _, err := w.Write(b); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	event := func(v map[string]any) bool {
		b, _ := json.Marshal(v)
		return send(append(append([]byte("data: "), b...), '\n', '\n'))
	}
	thread, run := in.ThreadID, in.RunID
	msgID := "msg_" + in.RunID
	quoted, _ := json.Marshal(msgID)
	if !event(map[string]any{"type": "RUN_STARTED", "threadId": thread, "runId": run, "benchReceivedNs": received}) ||
		!event(map[string]any{"type": "TEXT_MESSAGE_START", "messageId": msgID, "role": "assistant"}) {
		return
	}
	start := time.Now()
	buf := make([]byte, 0, 256)
	for i := 0; i < n; i++ {
		if interval > 0 && i > 0 {
			time.Sleep(time.Until(start.Add(time.Duration(i) * interval)))
		}
		buf = append(buf[:0], `data: {"type":"TEXT_MESSAGE_CONTENT","messageId":`...)
		buf = append(buf, quoted...)
		buf = append(buf, `,"delta":"`...)
		buf = append(buf, words[i%len(words)]...)
		buf = append(buf, `","benchSentNs":`...)
		buf = strconv.AppendInt(buf, now(), 10)
		buf = append(buf, "}\n\n"...)
		if !send(buf) {
			return
		}
	}
	_ = event(map[string]any{"type": "TEXT_MESSAGE_END", "messageId": msgID}) &&
		event(map[string]any{"type": "RUN_FINISHED", "threadId": thread, "runId": run})
}

// ---------------------------------------------------------------------------------------------
// Calling the agent directly, as the bridge does: POST, read the event stream.

// sample is one run as a client saw it.
type sample struct {
	ttfd  time.Duration   // request sent → first text delta received
	call  time.Duration   // request sent → the agent got its request
	first time.Duration   // the first text delta: received − sent by the agent
	last  time.Duration   // request sent → last text delta received
	total time.Duration   // request sent → run over (direct: RUN_FINISHED; via chat: the stored answer)
	lat   []time.Duration // each text delta: received − sent by the agent
	busy  int             // ERR_AGENT_BUSY answers before the message was taken (via chat)
}

// contentEvent is the part of an AG-UI event the clients read.
type contentEvent struct {
	Type            string `json:"type"`
	BenchSentNs     int64  `json:"benchSentNs"`
	BenchReceivedNs int64  `json:"benchReceivedNs"`
}

// sampler turns received text deltas into a sample.
type sampler struct {
	t0 int64
	s  sample
	n  int
}

// event takes one received AG-UI event.
func (sp *sampler) event(at int64, ev contentEvent) {
	switch ev.Type {
	case "RUN_STARTED":
		sp.s.call = time.Duration(ev.BenchReceivedNs - sp.t0)
	case "TEXT_MESSAGE_CONTENT":
		sp.delta(at, ev.BenchSentNs)
	}
}

func (sp *sampler) delta(at, sent int64) {
	if sp.n == 0 {
		sp.s.ttfd = time.Duration(at - sp.t0)
		sp.s.first = time.Duration(at - sent)
	}
	sp.n++
	sp.s.last = time.Duration(at - sp.t0)
	sp.s.lat = append(sp.s.lat, time.Duration(at-sent))
}

func (sp *sampler) done(at int64, want int) (sample, error) {
	sp.s.total = time.Duration(at - sp.t0)
	if sp.n != want {
		return sp.s, fmt.Errorf("got %d text deltas, want %d", sp.n, want)
	}
	return sp.s, nil
}

var directClient = newClient()

// newClient is an HTTP client like the bridge's: keep-alive, up to 64 idle connections per host.
func newClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 64
	return &http.Client{Transport: t, Timeout: 60 * time.Second}
}

// runDirect posts a one-message conversation to url and reads the stream to its end.
func runDirect(url, thread string, want int) (sample, error) {
	body, _ := json.Marshal(map[string]any{
		"threadId": thread, "runId": fmt.Sprintf("run_%d", now()), "state": map[string]any{},
		"messages": []map[string]string{{"id": "m1", "role": "user", "content": "hello"}},
		"tools":    []any{}, "context": []any{}, "forwardedProps": map[string]any{},
	})
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return sample{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	sp := sampler{t0: now()}
	res, err := directClient.Do(req)
	if err != nil {
		return sample{}, err
	}
	defer res.Body.Close()
	if mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type")); res.StatusCode != http.StatusOK || mt != "text/event-stream" {
		return sample{}, fmt.Errorf("agent answered %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	// Stamp each line as it is read; decode after the stream ended, off the timed path.
	type line struct {
		at   int64
		data []byte
	}
	var lines []line
	br := bufio.NewReaderSize(res.Body, 64<<10)
	finished := int64(0)
	for {
		l, err := br.ReadBytes('\n')
		at := now()
		if d, ok := bytes.CutPrefix(l, []byte("data: ")); ok {
			lines = append(lines, line{at, d})
			if bytes.Contains(d, []byte(`"RUN_FINISHED"`)) {
				finished = at
			}
		}
		if err != nil {
			break
		}
	}
	if finished == 0 {
		return sample{}, fmt.Errorf("stream ended without RUN_FINISHED")
	}
	for _, l := range lines {
		var ev contentEvent
		if json.Unmarshal(l.data, &ev) == nil {
			sp.event(l.at, ev)
		}
	}
	return sp.done(finished, want)
}
