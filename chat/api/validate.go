package api

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"
)

// idPattern is what uids and guids may look like: safe in paths, logs and conversation ids.
var idPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,100}$`)

func checkID(field, v string) error {
	if !idPattern.MatchString(v) {
		return errValidation("%s must be 1 to 100 letters, digits, '_' or '-'", field)
	}
	return nil
}

func pathID(c echo.Context, name string) (string, error) {
	return c.Param(name), checkID(name, c.Param(name))
}

func pathMessageID(c echo.Context) (int64, error) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, errValidation("the message id must be a positive integer")
	}
	return id, nil
}

// pathParam returns a path parameter unescaped (echo routes on the raw path when it holds
// escapes, e.g. an emoji reaction).
func pathParam(c echo.Context, name string) (string, error) {
	v := c.Param(name)
	if c.Request().URL.RawPath == "" {
		return v, nil
	}
	u, err := url.PathUnescape(v)
	if err != nil {
		return "", errValidation("%s is not properly escaped", name)
	}
	return u, nil
}

// bind decodes a JSON body (required) into v, bounded and with clear errors.
func bind(c echo.Context, v any) error {
	return decode(c, v, false)
}

// bindOptional is bind for routes whose body may be absent.
func bindOptional(c echo.Context, v any) error {
	return decode(c, v, true)
}

func decode(c echo.Context, v any, optional bool) error {
	r := c.Request()
	body, err := io.ReadAll(http.MaxBytesReader(c.Response(), r.Body, maxJSONBytes))
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(body)) == 0 {
		if optional {
			return nil
		}
		return errValidation("a JSON body is required")
	}
	if ct := r.Header.Get(echo.HeaderContentType); ct != "" && !strings.HasPrefix(ct, echo.MIMEApplicationJSON) {
		return errValidation("the body must be application/json")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return errValidation("field %s has the wrong type", te.Field)
		}
		return errValidation("the body is not valid JSON")
	}
	// More would miss a stray '}' or ']' after the value (it only peeks for another value).
	if len(bytes.TrimSpace(body[dec.InputOffset():])) > 0 {
		return errValidation("the body must hold one JSON value")
	}
	if field := nulField(body); field != "" {
		return errNUL(field)
	}
	return nil
}

func errNUL(field string) error {
	return errValidation("%s must not contain NUL characters", field)
}

// nulField returns the path (a.b[2].c) of the first string — key or value — of a valid JSON
// document that holds a NUL character, or "" when none does. PostgreSQL refuses NUL in text
// and SQLite would store it, so it is refused up front, the same on both, naming the field.
func nulField(body []byte) string {
	if !bytes.Contains(body, []byte(`\u0000`)) {
		return "" // a NUL can only be escaped in valid JSON: the common case costs one scan
	}
	type frame struct {
		array bool
		index int
		key   string
	}
	var stack []frame
	path := func(frames []frame) string {
		var b strings.Builder
		for _, f := range frames {
			if f.array {
				b.WriteString("[" + strconv.Itoa(f.index) + "]")
				continue
			}
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(f.key)
		}
		if b.Len() == 0 {
			return "the body"
		}
		return b.String()
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	expectKey := false
	for {
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		top := len(stack) - 1
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{', '[':
				if top >= 0 && stack[top].array {
					stack[top].index++
				}
				stack = append(stack, frame{array: v == '['})
				expectKey = v == '{'
				if v == '[' {
					stack[len(stack)-1].index = -1
				}
			default:
				stack = stack[:top]
				expectKey = len(stack) > 0 && !stack[len(stack)-1].array
			}
			continue
		case string:
			if expectKey {
				if strings.IndexByte(v, 0) >= 0 {
					return path(stack[:top]) // the object's path: the key itself cannot go into the message
				}
				stack[top].key = v
				expectKey = false
				continue
			}
			if top >= 0 && stack[top].array {
				stack[top].index++
			}
			if strings.IndexByte(v, 0) >= 0 {
				return path(stack)
			}
		default:
			if top >= 0 && stack[top].array {
				stack[top].index++
			}
		}
		if top >= 0 && !stack[top].array {
			expectKey = true
		}
	}
}

// checkObject accepts an absent value or a JSON object (metadata, custom data).
func checkObject(field string, raw json.RawMessage) error {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return nil
	}
	if t[0] != '{' {
		return errValidation("%s must be a JSON object", field)
	}
	return nil
}

// query reads query parameters with validation.
type query struct {
	c   echo.Context
	err error
}

func (q *query) fail(err error) {
	q.err = cmp.Or(q.err, err)
}

func (q *query) str(name string, max int) string {
	v := q.c.QueryParam(name)
	if len(v) > max {
		q.fail(errValidation("%s is longer than %d characters", name, max))
	}
	return v
}

// limit is 1..100, default 30; larger values are capped (clients ask for "as many as allowed").
func (q *query) limit() int {
	v := q.c.QueryParam("limit")
	if v == "" {
		return 30
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		q.fail(errValidation("limit must be a positive integer"))
		return 0
	}
	return min(n, 100)
}

func (q *query) boolean(name string) bool {
	v := q.c.QueryParam(name)
	if v == "" {
		return false
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		q.fail(errValidation("%s must be true or false", name))
	}
	return b
}

// list accepts repeated parameters and comma-separated values alike.
func (q *query) list(name string) []string {
	var out []string
	for _, v := range q.c.QueryParams()[name] {
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	}
	if len(out) > 50 {
		q.fail(errValidation("%s has more than 50 values", name))
	}
	return out
}

// id reads a message id parameter; malformed ids are bad cursors.
func (q *query) id(name string) int64 {
	v := q.c.QueryParam(name)
	if v == "" {
		return 0
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 {
		q.fail(errBadCursor(name))
		return 0
	}
	return n
}

// cursor reads an opaque paging cursor; the store rejects the ones it did not issue.
func (q *query) cursor() string {
	v := q.c.QueryParam("cursor")
	if len(v) > 512 {
		q.fail(errBadCursor("cursor"))
	}
	return v
}

// rejectNUL refuses a query parameter or path holding a NUL character before any handler
// runs (the store would refuse it on PostgreSQL and keep it on SQLite). Bodies are checked
// by decode, multipart fields by the media route.
func rejectNUL(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if strings.IndexByte(c.Request().URL.Path, 0) >= 0 {
			return errNUL("the path")
		}
		for name, vs := range c.QueryParams() {
			for _, v := range vs {
				if strings.IndexByte(v, 0) >= 0 || strings.IndexByte(name, 0) >= 0 {
					return errNUL("query parameter " + strings.ReplaceAll(name, "\x00", ""))
				}
			}
		}
		return next(c)
	}
}
