package scriptedmodel

import (
	"bufio"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// streamGaps streams one reply of six words and returns the time from the first content
// chunk to the last.
func streamGaps(t *testing.T, opts Options, reply Reply) time.Duration {
	t.Helper()
	s, err := Start("127.0.0.1:0", ResponderFunc(func(*Request) Reply { return reply }), opts)
	testutil.Check(t, err)
	defer s.Close()
	body := `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`
	res, err := http.Post(s.URL()+"/chat/completions", "application/json", strings.NewReader(body))
	testutil.Check(t, err)
	defer res.Body.Close()
	var first, last time.Time
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		if strings.Contains(sc.Text(), `"content":"`) && !strings.Contains(sc.Text(), `"content":""`) {
			if first.IsZero() {
				first = time.Now()
			}
			last = time.Now()
		}
	}
	if first.IsZero() {
		t.Fatal("no content chunk")
	}
	return last.Sub(first)
}

// fastestGaps is the least of three streamGaps: an upper bound on it fails when every stream
// was slow, not when a loaded machine stalled one.
func fastestGaps(t *testing.T, opts Options, reply Reply) time.Duration {
	return min(streamGaps(t, opts, reply), streamGaps(t, opts, reply), streamGaps(t, opts, reply))
}

// The dev model's pace spaces the words of a reply that sets none; a reply's own
// chunkDelayMs wins; no pace streams at once.
func TestPaceSpacesTheWords(t *testing.T) {
	text := Reply{Text: "one two three four five six"}
	if d := streamGaps(t, Options{Pace: 40 * time.Millisecond}, text); d < 5*40*time.Millisecond {
		t.Errorf("paced: the words came within %v, want at least 200ms", d)
	}
	if d := fastestGaps(t, Options{}, text); d >= 150*time.Millisecond {
		t.Errorf("unpaced: %v between the first and last word", d)
	}
	own := Reply{Text: text.Text, ChunkDelayMs: 1}
	if d := fastestGaps(t, Options{Pace: 200 * time.Millisecond}, own); d >= time.Second {
		t.Errorf("a reply's own chunkDelayMs should win over the pace: %v", d)
	}
}
