package store

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/chat/model"
)

// TestAgentRuns: one run per conversation (racers: one wins), an expired claim is taken over,
// a frontend action is answered once and only by the run's starter, and finishing stores the
// answer and releases the conversation together. On SQLite and PostgreSQL.
func TestAgentRuns(t *testing.T) {
	eachKeyed(t, func(t *testing.T, s Store) {
		users(t, s, "alice", "bob")
		cfg := chef()
		cfg.Enabled = true
		must[model.AgentConfig](t)(func() (model.AgentConfig, error) { a, _, err := s.PutAgent(ctx, cfg, nil); return a, err }())
		conv := model.ConversationID(model.ReceiverUser, "alice", "chef")
		run := func(id string, expires time.Time) model.AgentRun {
			return model.AgentRun{ConversationID: conv, RunID: id, AgentID: "chef", StartedBy: "alice", ExpiresAt: expires}
		}

		// Eight racers for one conversation: exactly one claim.
		oneWins(t, 8, model.ErrAgentBusy, func(i int) error {
			return s.BeginAgentRun(ctx, run("race-"+string(rune('a'+i)), time.Now().Add(time.Minute)))
		})
		current := must[model.AgentRun](t)(s.GetAgentRun(ctx, conv))

		// An expired claim (its replica died) is taken over.
		wantCode(t, s.UpdateAgentRun(ctx, model.AgentRun{RunID: current.RunID, ExpiresAt: time.Now().Add(-time.Second)}), "")
		wantCode(t, s.BeginAgentRun(ctx, run("r1", time.Now().Add(time.Minute))), "")
		if got := must[model.AgentRun](t)(s.GetAgentRun(ctx, conv)); got.RunID != "r1" {
			t.Fatalf("run after takeover = %q", got.RunID)
		}

		// Pending actions: only alice answers, once; an unknown call is not pending.
		r := run("r1", time.Now().Add(time.Minute))
		r.Pending = []model.PendingAction{{ID: "call_1", Name: "show-recipe-card"}, {ID: "call_2", Name: "show-recipe-card"}}
		wantCode(t, s.UpdateAgentRun(ctx, r), "")
		_, err := s.SubmitActionResult(ctx, "bob", "r1", "call_1", model.ToolResultData{Result: "{}"}, false)
		wantCode(t, err, model.ErrPermissionDenied)
		m := must[model.Message](t)(s.SubmitActionResult(ctx, "alice", "r1", "call_1", model.ToolResultData{Result: `{"shown":true}`}, false))
		if m.Sender != "alice" || m.ReceiverID != "chef" || m.Type != model.TypeToolResult || m.Category != model.CategoryAgentic {
			t.Fatalf("result message = %+v", m)
		}
		_, err = s.SubmitActionResult(ctx, "alice", "r1", "call_1", model.ToolResultData{Result: "again"}, false)
		wantCode(t, err, model.ErrActionNotPending)
		_, err = s.SubmitActionResult(ctx, "alice", "r1", "call_9", model.ToolResultData{Result: "x"}, false)
		wantCode(t, err, model.ErrActionNotPending)
		timeout := must[model.Message](t)(s.SubmitActionResult(ctx, "", "r1", "call_2", model.ToolResultData{Error: "not run in time"}, true))
		if timeout.Sender != "chef" || timeout.ReceiverID != "alice" {
			t.Fatalf("timeout result from %q to %q, want from the agent", timeout.Sender, timeout.ReceiverID)
		}
		if got := must[model.AgentRun](t)(s.GetAgentRun(ctx, conv)); len(got.Pending) != 0 {
			t.Fatalf("pending after both answers = %+v", got.Pending)
		}

		// Finishing stores the answer and frees the conversation in one step.
		answer := model.Message{Sender: "chef", ReceiverID: "alice", ReceiverType: model.ReceiverUser, Category: model.CategoryAgentic,
			Type: model.TypeAssistant, Text: "Enjoy!", Data: model.MustJSON(model.AssistantData{RunID: "r1", AgentID: "chef"})}
		out := must[[]model.Message](t)(s.FinishAgentRun(ctx, conv, "r1", "", []model.Message{answer}))
		if len(out) != 1 || out[0].ID == 0 {
			t.Fatalf("finished messages = %+v", out)
		}
		_, err = s.GetAgentRun(ctx, conv)
		wantCode(t, err, model.ErrNotFound)
		wantCode(t, s.BeginAgentRun(ctx, run("r2", time.Now().Add(time.Minute))), "")
		// Ending another run's claim leaves it alone.
		wantCode(t, s.EndAgentRun(ctx, conv, "r1"), "")
		if got := must[model.AgentRun](t)(s.GetAgentRun(ctx, conv)); got.RunID != "r2" {
			t.Fatalf("EndAgentRun of an old run released %q", got.RunID)
		}
		// A failed finish (a message the store refuses) releases nothing.
		bad := answer
		bad.ReceiverID = "nobody"
		_, err = s.FinishAgentRun(ctx, conv, "r2", "", []model.Message{bad})
		wantCode(t, err, model.ErrUIDNotFound)
		if got := must[model.AgentRun](t)(s.GetAgentRun(ctx, conv)); got.RunID != "r2" {
			t.Fatal("a failed finish released the conversation")
		}
		checkSettings(t, s)
	})
}

// checkSettings: a setting put is read back; put empty, it is gone.
func checkSettings(t *testing.T, s Store) {
	t.Helper()
	wantCode(t, s.PutSetting(ctx, "ai.assistant", "chef"), "")
	if v := must[string](t)(s.Setting(ctx, "ai.assistant")); v != "chef" {
		t.Fatalf("setting = %q", v)
	}
	wantCode(t, s.PutSetting(ctx, "ai.assistant", ""), "")
	if v := must[string](t)(s.Setting(ctx, "ai.assistant")); v != "" {
		t.Fatalf("deleted setting = %q", v)
	}
}

// TestMemberEventsCarryTheCount: every member event says the group's member count after the
// change, so a client tells a member's ban (count drops) from a stranger's (count stays).
func TestMemberEventsCarryTheCount(t *testing.T) {
	eachKeyed(t, func(t *testing.T, s Store) {
		users(t, s, "owner", "bob", "carol")
		must[model.Group](t)(s.CreateGroup(ctx, "owner", model.Group{GUID: "g", Name: "G", Type: model.GroupPublic}, nil))
		_, from := must2(t)(s.Horizon(ctx))
		must[model.Group](t)(s.JoinGroup(ctx, "bob", "g", nil))
		wantCode(t, s.BanMember(ctx, "owner", "g", "bob"), "")
		wantCode(t, s.BanMember(ctx, "owner", "g", "carol"), "")
		evs := must[[]model.Event](t)(s.EventsAfter(ctx, from, 100))
		var got []string
		for _, ev := range evs {
			if strings.HasPrefix(ev.Type, "member.") {
				var d struct {
					On           string `json:"on"`
					MembersCount int    `json:"membersCount"`
				}
				_ = json.Unmarshal(ev.Data, &d)
				got = append(got, fmt.Sprintf("%s %s %d", ev.Type, d.On, d.MembersCount))
			}
		}
		want := []string{"member.joined bob 2", "member.banned bob 1", "member.banned carol 1"}
		if strings.Join(got, ", ") != strings.Join(want, ", ") {
			t.Fatalf("member events = %q, want %q", got, want)
		}
	})
}

// TestConversationIDCollision: two pairs whose uids join to the same id cannot share it.
func TestConversationIDCollision(t *testing.T) {
	eachKeyed(t, func(t *testing.T, s Store) {
		users(t, s, "x", "y_user_z", "x_user_y", "z")
		text := func(from, to string) model.Message {
			return model.Message{Sender: from, ReceiverID: to, ReceiverType: model.ReceiverUser, Category: model.CategoryMessage, Type: model.TypeText, Text: "secret"}
		}
		must[model.Message](t)(s.SendMessage(ctx, text("x", "y_user_z")))
		_, err := s.SendMessage(ctx, text("z", "x_user_y"))
		wantCode(t, err, model.ErrPermissionDenied)
		if got := must[[]model.Message](t)(s.ListMessages(ctx, "z", MessageQuery{UID: "x_user_y"})); len(got) != 0 {
			t.Fatalf("z reads %d messages of another pair", len(got))
		}
	})
}

// TestBannedGroupsAreNotListed: a user banned from a public group no longer finds it in the
// directory (it would come back on every reload of a list that dropped it), until unbanned.
func TestBannedGroupsAreNotListed(t *testing.T) {
	eachKeyed(t, func(t *testing.T, s Store) {
		users(t, s, "owner", "bob")
		for _, g := range []string{"a", "b"} {
			must[model.Group](t)(s.CreateGroup(ctx, "owner", model.Group{GUID: g, Name: g, Type: model.GroupPublic}, nil))
		}
		listed := func() string {
			p := must[Page[model.Group]](t)(s.ListGroups(ctx, "bob", GroupQuery{}))
			var out []string
			for _, g := range p.Items {
				out = append(out, g.GUID)
			}
			return strings.Join(out, ",")
		}
		wantCode(t, s.BanMember(ctx, "owner", "a", "bob"), "")
		if got := listed(); got != "b" {
			t.Fatalf("groups listed to a banned user = %q, want b", got)
		}
		wantCode(t, s.UnbanMember(ctx, "owner", "a", "bob"), "")
		if got := listed(); got != "a,b" {
			t.Fatalf("after unban = %q, want a,b", got)
		}
	})
}

// TestAgentRunTakeover: a run records its owner and the agent call in flight; a replica's
// heartbeats keep it; a run gone quiet while calling its agent is claimed by exactly one other
// replica, after which its old owner can no longer record calls; a release makes a replica's
// runs claimable at once. On SQLite and PostgreSQL.
func TestAgentRunTakeover(t *testing.T) {
	eachKeyed(t, func(t *testing.T, s Store) {
		users(t, s, "alice")
		cfg := chef()
		cfg.Enabled = true
		must[model.AgentConfig](t)(func() (model.AgentConfig, error) { a, _, err := s.PutAgent(ctx, cfg, nil); return a, err }())
		conv := model.ConversationID(model.ReceiverUser, "alice", "chef")
		wantCode(t, s.BeginAgentRun(ctx, model.AgentRun{ConversationID: conv, RunID: "r1", AgentID: "chef", StartedBy: "alice", ExpiresAt: time.Now().Add(time.Minute), Owner: "replica-a"}), "")
		// Before its first call a quiet run is not taken over: there is nothing to go on with.
		if _, ok, err := s.ClaimStaleAgentRun(ctx, "replica-b", time.Now().Add(time.Second)); err != nil || ok {
			t.Fatalf("claimed a run with no call in flight: %v %v", ok, err)
		}
		wantCode(t, s.SetAgentRunCall(ctx, "r1", "replica-a", "call-1"), "")
		got := must[model.AgentRun](t)(s.GetAgentRun(ctx, conv))
		if got.Owner != "replica-a" || got.CallID != "call-1" {
			t.Fatalf("run = %+v", got)
		}
		wantCode(t, s.HeartbeatAgentRuns(ctx, "replica-a"), "")
		if _, ok, _ := s.ClaimStaleAgentRun(ctx, "replica-b", time.Now().Add(-time.Minute)); ok {
			t.Fatal("a live run was claimed")
		}
		// Gone quiet (no heartbeat since cutoff): of three racing replicas exactly one claims it;
		// the claim is a heartbeat, so the others no longer see it quiet.
		time.Sleep(2 * time.Microsecond) // the store's clock is in microseconds
		cutoff := time.Now()
		won := make(chan string, 3)
		for _, r := range []string{"replica-b", "replica-c", "replica-d"} {
			go func() {
				run, ok, err := s.ClaimStaleAgentRun(ctx, r, cutoff)
				if err != nil {
					t.Error(err)
				}
				if ok && run.RunID == "r1" && run.CallID == "call-1" && run.StartedBy == "alice" {
					won <- r
				} else {
					won <- ""
				}
			}()
		}
		var winners []string
		for range 3 {
			if w := <-won; w != "" {
				winners = append(winners, w)
			}
		}
		if len(winners) != 1 {
			t.Fatalf("winners: %v", winners)
		}
		wantCode(t, s.SetAgentRunCall(ctx, "r1", "replica-a", "call-2"), model.ErrNotFound)
		wantCode(t, s.SetAgentRunCall(ctx, "r1", winners[0], "call-2"), "")
		// A release hands the runs over at once.
		wantCode(t, s.ReleaseAgentRuns(ctx, winners[0]), "")
		if run, ok, err := s.ClaimStaleAgentRun(ctx, "replica-e", time.Now().Add(-time.Minute)); err != nil || !ok || run.CallID != "call-2" {
			t.Fatalf("after a release: %+v %v %v", run, ok, err)
		}
		// Between calls, waiting for frontend actions, a quiet run is claimed too: its new owner
		// waits for the results and makes the next call.
		wantCode(t, s.SetAgentRunCall(ctx, "r1", "replica-e", ""), "")
		wantCode(t, s.UpdateAgentRun(ctx, model.AgentRun{RunID: "r1", Pending: []model.PendingAction{{ID: "tc1", Name: "show-recipe-card"}}, ExpiresAt: time.Now().Add(time.Minute)}), "")
		wantCode(t, s.ReleaseAgentRuns(ctx, "replica-e"), "")
		if run, ok, err := s.ClaimStaleAgentRun(ctx, "replica-f", time.Now().Add(-time.Minute)); err != nil || !ok || run.CallID != "" || len(run.Pending) != 1 {
			t.Fatalf("a run waiting for actions, released: %+v %v %v", run, ok, err)
		}
	})
}
