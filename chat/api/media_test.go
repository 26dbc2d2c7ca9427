package api

import (
	"bytes"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"os"
	"strings"
	"testing"

	"github.com/agentry-dev/agentry/chat/model"
)

// A 1x1 PNG.
var pngBytes = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00\x00\x00\x00IEND\xaeB`\x82")

// upload sends a media message; fields are receiver, receiverType, type…
func (e *env) upload(tok, contentType, name string, content []byte, fields map[string]string) resp {
	e.t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for k, v := range fields {
		_ = w.WriteField(k, v)
	}
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="file"; filename="`+name+`"`)
	if contentType != "" {
		h.Set("Content-Type", contentType)
	}
	p, _ := w.CreatePart(h)
	_, _ = p.Write(content)
	_ = w.Close()
	return e.do(http.MethodPost, "/messages/media", tok, buf.Bytes(), "Content-Type", w.FormDataContentType())
}

func TestMedia(t *testing.T) {
	dir := t.TempDir()
	e := newEnv(t, stores(t)["sqlite"](t), Options{MaxMediaBytes: 4096, MediaDir: dir})
	alice, bob, carol := e.user("alice"), e.user("bob"), e.user("carol")
	e.expect(e.do(http.MethodPost, "/groups", alice, map[string]any{"guid": "g", "name": "G", "type": "public"}), 201, "")
	e.expect(e.do(http.MethodPost, "/groups/g/join", bob, nil), 200, "")
	toGroup := map[string]string{"receiver": "g", "receiverType": "group"}

	m, path := e.checkImageServed(alice, bob, carol)
	// A non-image file is a download, never rendered.
	r := e.upload(bob, "application/pdf", "doc.pdf", []byte("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n"), toGroup)
	e.expect(r, http.StatusCreated, "")
	var f model.Message
	r.decode(t, &f)
	got := e.do(http.MethodGet, strings.TrimPrefix(f.Attachment.URL, Prefix), alice, nil)
	if f.Type != "file" || !strings.HasPrefix(got.header.Get("Content-Disposition"), "attachment; filename=doc.pdf") || got.header.Get("X-Content-Type-Options") != "nosniff" {
		t.Fatalf("file served with %v", got.header)
	}
	e.checkUploadsRefused(t, alice, carol, toGroup)

	// A quote reply with a file: the quoted message comes with it, as for text.
	r = e.upload(bob, "application/pdf", "reply.pdf", []byte("%PDF-1.4\n"), map[string]string{"receiver": "g", "receiverType": "group", "quotedMessageId": jsonID(m.ID)})
	e.expect(r, http.StatusCreated, "")
	var q model.Message
	r.decode(t, &q)
	if q.QuotedMessageID != m.ID || q.QuotedMessage == nil || q.QuotedMessage.ID != m.ID {
		t.Fatalf("media quote reply: %s", r.body)
	}
	e.expect(e.upload(bob, "application/pdf", "reply.pdf", []byte("%PDF-1.4\n"), map[string]string{"receiver": "g", "receiverType": "group", "quotedMessageId": "x"}), 400, "ERR_VALIDATION")
	e.expect(e.upload(bob, "application/pdf", "reply.pdf", []byte("%PDF-1.4\n"), map[string]string{"receiver": "g", "receiverType": "group", "quotedMessageId": "999999"}), 404, "ERR_MESSAGE_NOT_FOUND")

	// Deleting the message takes its media with it.
	e.expect(e.do(http.MethodDelete, "/messages/"+jsonID(m.ID), alice, nil), 200, "")
	e.expect(e.do(http.MethodGet, path, bob, nil), http.StatusNotFound, "ERR_NOT_FOUND")

	// Refused uploads leave nothing behind: three files (the pdf and the quote reply; the
	// image went with its message), three metadata files.
	entries, _ := os.ReadDir(dir)
	if len(entries) != 6 {
		var names []string
		for _, d := range entries {
			names = append(names, d.Name())
		}
		t.Fatalf("media directory holds %v", names)
	}
}

// checkImageServed uploads an image to group g and checks it is served inline to a member
// only; it returns the message and the media's path.
func (e *env) checkImageServed(alice, bob, carol string) (model.Message, string) {
	t := e.t
	t.Helper()
	r := e.upload(alice, "image/png", "dot.png", pngBytes, map[string]string{"receiver": "g", "receiverType": "group", "text": "look"})
	e.expect(r, http.StatusCreated, "")
	var m model.Message
	r.decode(t, &m)
	if m.Type != "image" || m.Attachment == nil || m.Attachment.MimeType != "image/png" || m.Attachment.Size != int64(len(pngBytes)) {
		t.Fatalf("media message: %s", r.body)
	}
	path := strings.TrimPrefix(m.Attachment.URL, Prefix)
	got := e.do(http.MethodGet, path, bob, nil)
	e.expect(got, http.StatusOK, "")
	if !bytes.Equal(got.body, pngBytes) || got.header.Get("X-Content-Type-Options") != "nosniff" || got.header.Get("Content-Type") != "image/png" || !strings.HasPrefix(got.header.Get("Content-Disposition"), "inline") {
		t.Fatalf("served media: %v", got.header)
	}
	e.expect(e.do(http.MethodGet, path, "", nil), http.StatusUnauthorized, "ERR_AUTH_TOKEN_INVALID")
	e.expect(e.do(http.MethodGet, path, carol, nil), http.StatusNotFound, "ERR_MESSAGE_NOT_FOUND")
	return m, path
}

// checkUploadsRefused: content that does not match its type, too large, empty, from a
// non-member or to a bad receiver.
func (e *env) checkUploadsRefused(t *testing.T, alice, carol string, toGroup map[string]string) {
	for name, c := range map[string]struct {
		ct, typ string
		content []byte
		status  int
		code    string
	}{
		"html as an image":       {"image/png", "image", []byte("<html><script>alert(1)</script></html>"), 415, "ERR_UNSUPPORTED_MEDIA_TYPE"},
		"image type, video file": {"video/mp4", "image", pngBytes, 415, "ERR_UNSUPPORTED_MEDIA_TYPE"},
		"png declared as audio":  {"audio/mpeg", "audio", pngBytes, 415, "ERR_UNSUPPORTED_MEDIA_TYPE"},
		"html as a pdf file":     {"application/pdf", "file", []byte("<!DOCTYPE html><html></html>"), 415, "ERR_UNSUPPORTED_MEDIA_TYPE"},
		"svg as an image":        {"image/svg+xml", "image", []byte(`<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>`), 415, "ERR_UNSUPPORTED_MEDIA_TYPE"},
		"too large":              {"application/octet-stream", "file", bytes.Repeat([]byte{0}, 4097), 413, "ERR_TOO_LARGE"},
		"empty":                  {"text/plain", "file", nil, 400, "ERR_VALIDATION"},
		"unknown type":           {"image/png", "sticker", pngBytes, 400, "ERR_VALIDATION"},
	} {
		t.Run(name, func(t *testing.T) {
			e.t = t
			e.expect(e.upload(alice, c.ct, "x", c.content, map[string]string{"receiver": "g", "receiverType": "group", "type": c.typ}), c.status, c.code)
		})
	}
	e.t = t
	// A body far over the limit is refused from its Content-Length, before it is read.
	e.expect(e.upload(alice, "image/png", "big.png", bytes.Repeat(pngBytes, 2000), toGroup), 413, "ERR_TOO_LARGE")
	e.expect(e.upload(carol, "image/png", "dot.png", pngBytes, toGroup), 403, "ERR_NOT_A_MEMBER")
	e.expect(e.upload(alice, "image/png", "dot.png", pngBytes, map[string]string{"receiver": "g", "receiverType": "room"}), 400, "ERR_VALIDATION")
}

func jsonID(id int64) string { b, _ := json.Marshal(id); return string(b) }
