package api

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/agentry-dev/agentry/chat/bridge"
	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/chat/store"
	"github.com/agentry-dev/agentry/internal/platform/ids"
)

// formOverhead is what a media upload may carry besides the file: fields and part headers.
const formOverhead = 64 << 10

var mediaID = regexp.MustCompile(`^[0-9a-f]{32}$`)

// mediaStore keeps uploads on disk: <dir>/<id> holds the bytes, <dir>/<id>.json what they are
// and which message they belong to (GET checks the viewer may see that message).
type mediaStore struct {
	dir string
}

type mediaMeta struct {
	MessageID int64  `json:"messageId"`
	MimeType  string `json:"mimeType"`
	Name      string `json:"name"`
	Size      int64  `json:"size"`
}

func newMediaStore(dir string) *mediaStore {
	dir = cmp.Or(dir, filepath.Join(os.TempDir(), "agentry-chat-media"))
	return &mediaStore{dir: dir}
}

func (s *mediaStore) path(id string) string { return filepath.Join(s.dir, id) }

func (s *mediaStore) writeMeta(id string, m mediaMeta) error {
	b, _ := json.Marshal(m)
	tmp := s.path(id) + ".json.tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return fmt.Errorf("failed to write media metadata %q: %w", id, err)
	}
	if err := os.Rename(tmp, s.path(id)+".json"); err != nil {
		return fmt.Errorf("failed to write media metadata %q: %w", id, err)
	}
	return nil
}

func (s *mediaStore) readMeta(id string) (mediaMeta, error) {
	var m mediaMeta
	b, err := os.ReadFile(s.path(id) + ".json")
	if err != nil {
		return m, err
	}
	return m, json.Unmarshal(b, &m)
}

// upload is a parsed media request; file is a temporary file in the media directory.
type upload struct {
	fields   map[string]string
	file     *os.File
	declared string
	name     string
	size     int64
}

func (u *upload) discard() {
	if u.file != nil {
		_ = u.file.Close()
		_ = os.Remove(u.file.Name())
	}
}

// readUpload streams the multipart body, the file straight to disk, never more than the limit.
func (a *API) readUpload(c echo.Context) (*upload, error) {
	r := c.Request()
	limit := a.opts.MaxMediaBytes
	if r.ContentLength > limit+formOverhead {
		return nil, model.Errorf(model.ErrTooLarge, "media may be at most %d bytes", limit)
	}
	r.Body = http.MaxBytesReader(c.Response(), r.Body, limit+formOverhead)
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, errValidation("the body must be multipart/form-data with a file part")
	}
	u := &upload{fields: map[string]string{}}
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			u.discard()
			return nil, tooLargeOr(err, limit, errValidation("the multipart body is malformed"))
		}
		if part.FormName() != "file" {
			b, err := io.ReadAll(io.LimitReader(part, formOverhead))
			if err != nil {
				u.discard()
				return nil, tooLargeOr(err, limit, errValidation("the multipart body is malformed"))
			}
			if bytes.IndexByte(b, 0) >= 0 || strings.IndexByte(part.FormName(), 0) >= 0 {
				u.discard()
				return nil, errNUL(strings.ReplaceAll(part.FormName(), "\x00", ""))
			}
			u.fields[part.FormName()] = string(b)
			continue
		}
		if u.file != nil {
			u.discard()
			return nil, errValidation("send one file per message")
		}
		if err := os.MkdirAll(a.media.dir, 0o700); err != nil {
			return nil, fmt.Errorf("failed to create media directory %q: %w", a.media.dir, err)
		}
		if u.file, err = os.CreateTemp(a.media.dir, "upload-*"); err != nil {
			return nil, fmt.Errorf("failed to create media file in %q: %w", a.media.dir, err)
		}
		u.declared, u.name = part.Header.Get(echo.HeaderContentType), part.FileName()
		n, err := io.Copy(u.file, io.LimitReader(part, limit+1))
		if err != nil {
			u.discard()
			return nil, tooLargeOr(err, limit, errValidation("the upload was interrupted"))
		}
		if n > limit {
			u.discard()
			return nil, model.Errorf(model.ErrTooLarge, "media may be at most %d bytes", limit)
		}
		u.size = n
	}
	if u.file == nil {
		return nil, errValidation("the file part is missing")
	}
	return u, nil
}

func tooLargeOr(err error, limit int64, other error) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return model.Errorf(model.ErrTooLarge, "media may be at most %d bytes", limit)
	}
	return other
}

// mediaType checks that what the bytes are (sniffed) agrees with what the client says they are
// (the part's Content-Type) and with the message type, and returns the type to serve them as.
// A mismatch is how HTML or scripts get uploaded as "images".
func mediaType(msgType, declared string, head []byte) (string, error) {
	unsupported := model.Errorf(model.ErrUnsupportedMedia, "the file's content does not match its declared type")
	declared = cmp.Or(declared, "application/octet-stream")
	decl, _, err := mime.ParseMediaType(declared)
	if err != nil {
		return "", model.Errorf(model.ErrUnsupportedMedia, "the file's Content-Type is malformed")
	}
	sniffed, _, _ := mime.ParseMediaType(http.DetectContentType(head))
	family := func(t string) string { f, _, _ := strings.Cut(t, "/"); return f }
	switch msgType {
	case model.TypeImage, model.TypeVideo, model.TypeAudio:
		if family(decl) != msgType {
			return "", model.Errorf(model.ErrUnsupportedMedia, "a %s message needs a %s/* file", msgType, msgType)
		}
		ok := family(sniffed) == msgType
		switch msgType {
		case model.TypeVideo:
			ok = ok || sniffed == "application/ogg"
		case model.TypeAudio:
			// m4a and webm audio sniff as their video containers.
			ok = ok || sniffed == "application/ogg" || sniffed == "video/mp4" || sniffed == "video/webm"
		}
		if !ok {
			return "", unsupported
		}
		if msgType == model.TypeImage {
			return sniffed, nil // served inline: the sniffed type, never the client's word
		}
		return decl, nil
	case model.TypeFile:
		switch {
		case sniffed == "application/octet-stream", family(sniffed) == family(decl):
		case family(decl) == "application" && family(sniffed) == "application":
		default:
			return "", unsupported
		}
		return decl, nil
	}
	return "", errValidation("type must be image, video, audio or file")
}

// cleanName keeps a file name displayable and harmless in a header.
func cleanName(n string) string {
	n = filepath.Base(strings.ReplaceAll(n, `\`, "/"))
	n = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == '"' {
			return -1
		}
		return r
	}, n)
	if n == "." || n == "/" || n == "" {
		return "file"
	}
	if len(n) > 200 {
		n = n[:200]
	}
	return n
}

// IsUpload says whether r is a media upload: its body streams to disk under the server's
// longer upload timeout instead of being read up front (internal/platform/httpserve).
func IsUpload(r *http.Request) bool {
	return r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, Prefix+"/messages/media")
}

// RequestTimeout answers a request whose body did not arrive in time (internal/platform/httpserve) in
// the API's error shape: 408 ERR_REQUEST_TIMEOUT.
func RequestTimeout(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusRequestTimeout)
	_ = json.NewEncoder(w).Encode(errorBody{Error: errorDetail{Code: model.ErrRequestTimeout, Message: "the request body did not arrive in time"}})
}

// sendMedia stores an uploaded file and sends the media message that points at it. The file is
// in place before the message commits, and removed again if the message is refused.
func (a *API) sendMedia(c echo.Context) error {
	u, err := a.readUpload(c)
	if err != nil {
		return err
	}
	defer u.discard()
	f := u.fields
	mf, err := readMediaFields(u)
	if err != nil {
		return err
	}
	if done, err := a.sentBefore(c, f["muid"]); done || err != nil {
		return err
	}
	var metadata json.RawMessage
	if v := f["metadata"]; v != "" {
		if !json.Valid([]byte(v)) {
			return errValidation("metadata must be a JSON object")
		}
		metadata = json.RawMessage(v)
		if err := checkObject("metadata", metadata); err != nil {
			return err
		}
	}
	if u.size == 0 {
		return errValidation("the file is empty")
	}
	if a.opts.Bridge != nil {
		// Refuses media to a disabled agent; media never start a run.
		if _, err := a.opts.Bridge.Prepare(c.Request().Context(), bridge.Message{Sender: uidOf(c), ReceiverType: mf.rtype, Receiver: mf.receiver,
			Category: model.CategoryMessage, Type: mf.msgType}); err != nil {
			return err
		}
	}
	id, served, err := a.keepUpload(u, mf.msgType)
	if err != nil {
		return err
	}
	att := &model.Attachment{URL: Prefix + "/media/" + id, Name: cleanName(u.name), MimeType: served, Size: u.size}
	m, err := a.opts.Store.SendMessage(c.Request().Context(), model.Message{
		Sender: uidOf(c), ReceiverID: mf.receiver, ReceiverType: mf.rtype, Category: model.CategoryMessage, Type: mf.msgType,
		Text: f["text"], Attachment: att, Metadata: metadata, ParentID: mf.parentID, QuotedMessageID: mf.quotedID, MUID: f["muid"],
	})
	if err != nil {
		_ = os.Remove(a.media.path(id))
		if errors.Is(err, store.ErrAlreadySent) { // a concurrent retry stored it first
			return c.JSON(http.StatusOK, m)
		}
		return err
	}
	a.opts.Metrics.MessagesStored("user", 1)
	if err := a.media.writeMeta(id, mediaMeta{MessageID: m.ID, MimeType: served, Name: att.Name, Size: u.size}); err != nil {
		// The message is committed; its attachment will answer 404 until an operator looks.
		a.log(c).Error(err, "media message stored without its metadata", "messageId", m.ID)
	}
	a.notify()
	return c.JSON(http.StatusCreated, m)
}

// mediaFields are a media upload's checked form fields.
type mediaFields struct {
	receiver           string
	rtype              model.ReceiverType
	msgType            string
	parentID, quotedID int64
}

// readMediaFields checks the receiver, the message type (from the declared content type when
// none is given), the parent and quoted ids, the text and the muid.
func readMediaFields(u *upload) (mediaFields, error) {
	f := u.fields
	mf := mediaFields{receiver: f["receiver"], rtype: model.ReceiverType(f["receiverType"]), msgType: f["type"]}
	if err := checkReceiver(mf.receiver, mf.rtype); err != nil {
		return mf, err
	}
	if mf.msgType == "" {
		mf.msgType = model.TypeFile
		switch t, _, _ := strings.Cut(u.declared, "/"); t {
		case model.TypeImage, model.TypeVideo, model.TypeAudio:
			mf.msgType = t
		}
	}
	var err error
	if mf.parentID, err = formID(f, "parentId"); err != nil {
		return mf, err
	}
	if mf.quotedID, err = formID(f, "quotedMessageId"); err != nil {
		return mf, err
	}
	if err := checkText("text", f["text"], maxTextRunes, false); err != nil {
		return mf, err
	}
	return mf, checkMUID(f["muid"])
}

// formID is the message id in form field name (0 when absent).
func formID(f map[string]string, name string) (int64, error) {
	v := f[name]
	if v == "" {
		return 0, nil
	}
	id, err := strconv.ParseInt(v, 10, 64)
	if err != nil || id < 0 {
		return 0, errValidation("%s must be a message id", name)
	}
	return id, nil
}

// keepUpload checks the file's content against its message type and moves it into the media
// directory under a new id; it returns the id and the content type it will be served with.
func (a *API) keepUpload(u *upload, msgType string) (id, served string, err error) {
	head := make([]byte, 512)
	n, err := u.file.ReadAt(head, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return "", "", fmt.Errorf("failed to read uploaded media %q: %w", u.file.Name(), err)
	}
	if served, err = mediaType(msgType, u.declared, head[:n]); err != nil {
		return "", "", err
	}
	id = ids.Hex(16)
	if err := u.file.Close(); err != nil {
		return "", "", fmt.Errorf("failed to write uploaded media %q: %w", u.file.Name(), err)
	}
	final := a.media.path(id)
	if err := os.Rename(u.file.Name(), final); err != nil {
		return "", "", fmt.Errorf("failed to store uploaded media %q: %w", final, err)
	}
	u.file = nil
	return id, served, nil
}

// getMedia serves an upload to whoever may see its message, in a way browsers will not run:
// nosniff, a sandboxing CSP, and downloads rather than inline display for non-images.
func (a *API) getMedia(c echo.Context) error {
	id := c.Param("id")
	notFound := model.Errorf(model.ErrNotFound, "no such media")
	if !mediaID.MatchString(id) {
		return notFound
	}
	meta, err := a.media.readMeta(id)
	if err != nil {
		return notFound
	}
	m, err := a.opts.Store.GetMessage(c.Request().Context(), uidOf(c), meta.MessageID)
	if err != nil {
		return err
	}
	if m.DeletedAt != nil || m.Attachment == nil {
		return notFound
	}
	f, err := os.Open(a.media.path(id))
	if err != nil {
		return notFound
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("failed to stat media %q: %w", id, err)
	}
	h := c.Response().Header()
	h.Set(echo.HeaderContentType, meta.MimeType)
	h.Set(echo.HeaderXContentTypeOptions, "nosniff")
	h.Set(echo.HeaderContentSecurityPolicy, "default-src 'none'; sandbox")
	h.Set("Cache-Control", "private, max-age=3600")
	disposition := "attachment"
	if strings.HasPrefix(meta.MimeType, "image/") {
		disposition = "inline"
	}
	if v := mime.FormatMediaType(disposition, map[string]string{"filename": meta.Name}); v != "" {
		disposition = v
	}
	h.Set(echo.HeaderContentDisposition, disposition)
	http.ServeContent(c.Response(), c.Request(), "", st.ModTime(), f)
	return nil
}
