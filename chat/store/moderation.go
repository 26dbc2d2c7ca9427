package store

import (
	"context"
	"regexp"
	"strings"

	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/internal/platform/ids"
)

// Rules implements Moderation, in the order they were put.
func (s *sqlStore) Rules(ctx context.Context) ([]Rule, error) {
	var out []Rule
	err := s.read(ctx, "read moderation rules", func(t *txn) (err error) {
		out, err = loadRules(t)
		return err
	})
	return out, err
}

func loadRules(t *txn) ([]Rule, error) {
	return queryAll(t, func(sc scanner) (r Rule, err error) {
		var action string
		err = sc.Scan(&r.ID, &r.Kind, &r.Pattern, &action)
		r.Action = model.ModerationStatus(action)
		return r, err
	}, `SELECT id, kind, pattern, action FROM chat_rules ORDER BY position`)
}

// compileRule turns a rule into a matcher: a word matches as a whole word, case-insensitively.
func compileRule(r Rule) (*regexp.Regexp, error) {
	switch r.Kind {
	case "word":
		if strings.TrimSpace(r.Pattern) == "" {
			return nil, model.Errorf(model.ErrValidation, "a word rule needs a word")
		}
		return regexp.MustCompile(`(?i)\b` + regexp.QuoteMeta(r.Pattern) + `\b`), nil
	case "regex":
		re, err := regexp.Compile(r.Pattern)
		if err != nil {
			return nil, model.Errorf(model.ErrValidation, "rule pattern %q is not a valid regular expression", r.Pattern)
		}
		return re, nil
	}
	return nil, model.Errorf(model.ErrValidation, "rule kind must be word or regex")
}

// PutRules implements Moderation: the rules replace the stored ones; a rule without an id
// gets one.
func (s *sqlStore) PutRules(ctx context.Context, rules []Rule) error {
	seen := map[string]bool{}
	for i, r := range rules {
		if _, err := compileRule(r); err != nil {
			return err
		}
		if r.Action != model.ModerationPending && r.Action != model.ModerationDisapproved {
			return model.Errorf(model.ErrValidation, "rule action must be pending or disapproved")
		}
		if r.ID == "" {
			rules[i].ID = ids.Hex(8)
		}
		if seen[rules[i].ID] {
			return model.Errorf(model.ErrValidation, "rule id %q appears twice", r.ID)
		}
		seen[rules[i].ID] = true
	}
	return s.write(ctx, "store moderation rules", func(t *txn) error {
		if _, err := t.exec(`DELETE FROM chat_rules`); err != nil {
			return err
		}
		for i, r := range rules {
			if _, err := t.exec(`INSERT INTO chat_rules (id, position, kind, pattern, action) VALUES ($1, $2, $3, $4, $5)`, r.ID, i, r.Kind, r.Pattern, string(r.Action)); err != nil {
				return err
			}
		}
		return nil
	})
}

// moderate is the status the stored rules give text: disapproved beats pending beats approved.
func moderate(t *txn, text string) (model.ModerationStatus, error) {
	status := model.ModerationApproved
	if text == "" {
		return status, nil
	}
	rules, err := loadRules(t)
	if err != nil {
		return status, err
	}
	for _, r := range rules {
		re, err := compileRule(r)
		if err != nil || !re.MatchString(text) {
			continue // a rule stored before a stricter check never blocks sending
		}
		if r.Action == model.ModerationDisapproved {
			return r.Action, nil
		}
		status = model.ModerationPending
	}
	return status, nil
}

// Moderate implements Moderation. Approving publishes the message to its conversation (a
// message.moderated event carrying it); withdrawing an approved one tells the
// conversation too; any other decision reaches only its sender.
func (s *sqlStore) Moderate(ctx context.Context, id int64, status model.ModerationStatus) (model.Message, error) {
	switch status {
	case model.ModerationApproved, model.ModerationPending, model.ModerationDisapproved:
	default:
		return model.Message{}, model.Errorf(model.ErrValidation, "status must be approved, pending or disapproved")
	}
	var m model.Message
	err := s.write(ctx, "moderate message", func(t *txn) error {
		var err error
		if m, err = loadMessage(t, id, true); err != nil {
			return err
		}
		if m.Moderation == status {
			return nil
		}
		wasPublic := m.Moderation == model.ModerationApproved
		m.Moderation = status
		if _, err := t.exec(`UPDATE chat_messages SET moderation = $2 WHERE id = $1`, id, string(status)); err != nil {
			return err
		}
		if status == model.ModerationApproved {
			if _, err := t.exec(`UPDATE chat_conversations SET updated_us = $2 WHERE id = $1`, m.ConversationID, us(t.now)); err != nil {
				return err
			}
		}
		if wasPublic {
			// Everyone saw it: everyone learns it is withdrawn.
			return t.emit(m.ConversationID, model.EventMessageModerated, "", m)
		}
		return messageEvent(t, model.EventMessageModerated, m)
	})
	return m, err
}
