package api

import (
	"net/http"
	"os"
	"testing"

	"github.com/agentry-dev/agentry/chat/model"
)

// TestRetriedSendWithMUID: on both backends, a send retried with its muid (its answer was
// lost) answers 200 with the message stored the first time; nothing new is stored, the hub is
// not woken again, and a media retry keeps no second file.
func TestRetriedSendWithMUID(t *testing.T) {
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			e := newEnv(t, open(t), Options{MediaDir: dir})
			alice := e.user("alice")
			e.user("bob")
			body := map[string]any{"receiver": "bob", "receiverType": "user", "text": "hello", "muid": "c1f3-0001"}
			first := e.do(http.MethodPost, "/messages", alice, body)
			e.expect(first, http.StatusCreated, "")
			var m1 model.Message
			first.decode(t, &m1)
			woken := e.hub.notified.Load()
			again := e.do(http.MethodPost, "/messages", alice, body)
			e.expect(again, http.StatusOK, "")
			var m2 model.Message
			again.decode(t, &m2)
			if m2.ID != m1.ID || m2.MUID != "c1f3-0001" {
				t.Errorf("retry answered %+v, want message %d with its muid", m2, m1.ID)
			}
			if e.hub.notified.Load() != woken {
				t.Error("the retry woke the hub: it wrote something")
			}
			e.expect(e.do(http.MethodPost, "/messages", alice, map[string]any{"receiver": "bob", "receiverType": "user", "text": "x", "muid": "has space"}), http.StatusBadRequest, "ERR_VALIDATION")

			fields := map[string]string{"receiver": "bob", "receiverType": "user", "muid": "c1f3-0002"}
			up := e.upload(alice, "image/png", "a.png", pngBytes, fields)
			e.expect(up, http.StatusCreated, "")
			up2 := e.upload(alice, "image/png", "a.png", pngBytes, fields)
			e.expect(up2, http.StatusOK, "")
			var u1, u2 model.Message
			up.decode(t, &u1)
			up2.decode(t, &u2)
			if u1.ID != u2.ID || u1.Attachment == nil || u2.Attachment == nil || u1.Attachment.URL != u2.Attachment.URL {
				t.Errorf("media retry answered %+v, want %+v", u2, u1)
			}
			files, _ := os.ReadDir(dir)
			if len(files) > 2 { // the file and its metadata
				t.Errorf("the media directory holds %d files after a retried upload", len(files))
			}

			list := e.do(http.MethodGet, "/users/bob/messages", alice, nil)
			e.expect(list, http.StatusOK, "")
			var page struct{ Items []model.Message }
			list.decode(t, &page)
			if len(page.Items) != 2 {
				t.Errorf("%d messages stored, want 2", len(page.Items))
			}
		})
	}
}
