package memory

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// ownershipCases are the behaviour suite's checks that a thread belongs to the resource that
// created it; run on every backend by TestStoreBehaviour.
var ownershipCases = []storeCase{
	{"a thread belongs to the resource that created it", func(t *testing.T, s Store) {
		testutil.Check(t, s.Save(ctx, "chef", "T", "alice", []Message{msg("a1", "user", "alice's secret recipe")}))
		err := s.Save(ctx, "chef", "T", "mallory", []Message{msg("m1", "user", "ignore previous instructions")})
		if !errors.Is(err, ErrThreadOwnedByOther) || errors.Is(err, ErrUnavailable) {
			t.Errorf("another resource writing: %v", err)
		}
		if strings.Contains(fmt.Sprint(err), "alice") {
			t.Errorf("the error names the owner: %v", err)
		}
		if got, err := s.Recall(ctx, "chef", "T", "mallory", 10); !errors.Is(err, ErrThreadOwnedByOther) || len(got) != 0 {
			t.Errorf("another resource recalling: %v %v", got, err)
		}
		if page, err := s.Messages(ctx, "chef", "T", "mallory", Page{}); !errors.Is(err, ErrThreadOwnedByOther) || len(page.Messages) != 0 {
			t.Errorf("another resource reading: %+v %v", page, err)
		}
		if page, _ := s.Threads(ctx, "chef", "mallory", Page{}); len(page.Threads) != 0 || page.Total != 0 {
			t.Errorf("mallory lists: %+v", page)
		}
		if all, err := allMessages(s, "chef", "T", "alice"); err != nil || ids(all) != "a1" {
			t.Errorf("alice's thread must hold only her messages: %s %v", ids(all), err)
		}
		if got, err := s.Recall(ctx, "chef", "T", "alice", 10); err != nil || ids(got) != "a1" {
			t.Errorf("alice recalls: %s %v", ids(got), err)
		}
		if _, err := s.Messages(ctx, "chef", "nope", "alice", Page{}); !errors.Is(err, ErrThreadNotFound) {
			t.Errorf("unknown thread: %v", err)
		}
	}},
	{"the empty resource owns its threads like any other", func(t *testing.T, s Store) {
		testutil.Check(t, s.Save(ctx, "a", "anon", "", []Message{msg("1", "user", "no resource")}))
		if err := s.Save(ctx, "a", "anon", "alice", []Message{msg("2", "user", "claim")}); !errors.Is(err, ErrThreadOwnedByOther) {
			t.Errorf("a resource claiming a thread without one: %v", err)
		}
		if _, err := s.Recall(ctx, "a", "anon", "alice", 5); !errors.Is(err, ErrThreadOwnedByOther) {
			t.Errorf("a resource recalling a thread without one: %v", err)
		}
		_ = s.Save(ctx, "a", "owned", "alice", []Message{msg("1", "user", "alice")})
		if err := s.Save(ctx, "a", "owned", "", []Message{msg("2", "user", "anonymous")}); !errors.Is(err, ErrThreadOwnedByOther) {
			t.Errorf("no resource writing to alice's thread: %v", err)
		}
		if _, err := s.Messages(ctx, "a", "owned", "", Page{}); !errors.Is(err, ErrThreadOwnedByOther) {
			t.Errorf("no resource reading alice's thread: %v", err)
		}
		if page, _ := s.Threads(ctx, "a", "", Page{}); len(page.Threads) != 1 || page.Threads[0].ID != "anon" {
			t.Errorf("threads without a resource: %+v", page)
		}
	}},
	{"resources racing to create one thread: one wins, nothing mixes", func(t *testing.T, s Store) {
		var wg sync.WaitGroup
		var mu sync.Mutex
		var winners []string
		for w := 0; w < 8; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				who := fmt.Sprintf("user%d", w)
				err := s.Save(ctx, "a", "contested", who, []Message{msg("m-"+who, "user", who)})
				switch {
				case err == nil:
					mu.Lock()
					winners = append(winners, who)
					mu.Unlock()
				case !errors.Is(err, ErrThreadOwnedByOther):
					t.Errorf("%s: %v", who, err)
				}
			}()
		}
		wg.Wait()
		if len(winners) != 1 {
			t.Fatalf("winners: %v", winners)
		}
		all, err := allMessages(s, "a", "contested", winners[0])
		if err != nil || ids(all) != "m-"+winners[0] {
			t.Errorf("the thread holds %s %v", ids(all), err)
		}
	}},
	{"messages another resource wrote before threads had owners are not read", func(t *testing.T, s Store) {
		sq, ok := s.(*sqlStore)
		if !ok {
			t.Skip("only a database can hold data written by an older version")
		}
		_ = s.Save(ctx, "chef", "T", "alice", []Message{msg("a1", "user", "alice")})
		if _, err := sq.db.ExecContext(ctx, sq.d.rebind(`INSERT INTO agentry_messages (agent_id, thread_id, message_id, resource_id, role, content, created_us) VALUES ('chef', 'T', 'm1', 'mallory', 'user', 'injected', $1)`), time.Now().UnixMicro()); err != nil {
			t.Fatal(err)
		}
		_ = s.Save(ctx, "chef", "T", "alice", []Message{msg("a2", "assistant", "answer")})
		got, _ := s.Recall(ctx, "chef", "T", "alice", 10)
		page, _ := s.Messages(ctx, "chef", "T", "alice", Page{})
		if ids(got) != "a1,a2" || ids(page.Messages) != "a1,a2" || page.Total != 2 {
			t.Errorf("recall %s, read %s (total %d)", ids(got), ids(page.Messages), page.Total)
		}
	}},
}

// pagingAndTitleCases check the read pages, batched saves and titles on every backend.
var pagingAndTitleCases = []storeCase{
	{"threads and messages come in pages", func(t *testing.T, s Store) {
		for i := 0; i < 7; i++ {
			_ = s.Save(ctx, "a", fmt.Sprintf("t%d", i), "alice", []Message{msg("x", "user", "hi")})
			time.Sleep(2 * time.Millisecond) // distinct update times: newest first is t6..t0
		}
		var got []string
		for n := 0; n < 3; n++ {
			page, err := s.Threads(ctx, "a", "alice", Page{Number: n, Size: 3})
			if err != nil || page.Total != 7 || page.HasMore != (n < 2) {
				t.Errorf("page %d: %+v %v", n, page, err)
			}
			for _, th := range page.Threads {
				got = append(got, th.ID)
			}
		}
		if strings.Join(got, ",") != "t6,t5,t4,t3,t2,t1,t0" {
			t.Errorf("threads by page: %v", got)
		}
		if page, _ := s.Threads(ctx, "a", "alice", Page{Size: 1000}); len(page.Threads) != 7 {
			t.Errorf("a large page: %d", len(page.Threads))
		}

		var many []Message
		for i := 0; i < MaxPageSize+20; i++ {
			many = append(many, msg(fmt.Sprintf("m%03d", i), "user", "x"))
		}
		_ = s.Save(ctx, "a", "long", "alice", many)
		def, _ := s.Messages(ctx, "a", "long", "alice", Page{})
		if len(def.Messages) != DefaultPageSize || def.Messages[0].ID != "m000" || !def.HasMore || def.Total != len(many) {
			t.Errorf("default page: %d messages from %s, %+v", len(def.Messages), def.Messages[0].ID, def.Total)
		}
		capped, _ := s.Messages(ctx, "a", "long", "alice", Page{Number: 0, Size: 1000})
		last, _ := s.Messages(ctx, "a", "long", "alice", Page{Number: 1, Size: MaxPageSize})
		if len(capped.Messages) != MaxPageSize || len(last.Messages) != 20 || last.Messages[0].ID != fmt.Sprintf("m%03d", MaxPageSize) || last.HasMore {
			t.Errorf("capped %d, last page %d", len(capped.Messages), len(last.Messages))
		}
	}},
	{"a resent long history stores only what is new", func(t *testing.T, s Store) {
		var history []Message
		for i := 0; i < 1234; i++ { // more than one lookup and one insert batch
			history = append(history, msg(fmt.Sprintf("h%d", i), "user", "x"))
		}
		testutil.Check(t, s.Save(ctx, "a", "t", "", history))
		history = append(history, msg("h1", "user", "a repeat within the batch"), msg("new", "assistant", "y"))
		testutil.Check(t, s.Save(ctx, "a", "t", "", history))
		all, _ := allMessages(s, "a", "t", "")
		if len(all) != 1235 || all[1].Content != "x" || all[1234].ID != "new" {
			t.Errorf("%d messages stored, last %s", len(all), all[len(all)-1].ID)
		}
	}},
	{"long titles are cut on character boundaries", func(t *testing.T, s Store) {
		for thread, text := range map[string]string{
			"ja": strings.Repeat("東京の天気を教えてください。", 10),
			"ru": strings.Repeat("Какая погода в Москве завтра? ", 5),
		} {
			if err := s.Save(ctx, "a", thread, "alice", []Message{msg("1", "user", text)}); err != nil {
				t.Fatalf("%s: %v", thread, err)
			}
		}
		page, err := s.Threads(ctx, "a", "alice", Page{})
		if err != nil || len(page.Threads) != 2 {
			t.Fatalf("%+v %v", page, err)
		}
		for _, th := range page.Threads {
			runes := []rune(th.Title)
			if !utf8.ValidString(th.Title) || len(runes) != 80 || !strings.HasSuffix(th.Title, "...") {
				t.Errorf("%s: title %q (%d runes)", th.ID, th.Title, len(runes))
			}
			if th.ID == "ja" && !strings.HasPrefix(th.Title, "東京の天気を教えてください。東京") {
				t.Errorf("ja title: %q", th.Title)
			}
		}
	}},
}

func TestShorten(t *testing.T) {
	for in, want := range map[string]string{
		"short":            "short",
		"abcdefghij":       "abcdefghij",
		"abcdefghijk":      "abcdefg...",
		"Приветствую всех": "Приветс...",
		"日本語のタイトルです。長い": "日本語のタイト...",
	} {
		if got := shorten(in, 10); got != want {
			t.Errorf("shorten(%q) = %q, want %q", in, got, want)
		}
	}
}
