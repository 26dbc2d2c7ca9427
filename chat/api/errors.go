package api

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/agentry-dev/agentry/chat/model"
)

// errorBody is the shape of every error answer: {"error":{"code":…,"message":…}}.
type errorBody struct {
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func errValidation(format string, args ...any) error {
	return model.Errorf(model.ErrValidation, format, args...)
}

func errUnavailable(msg string) error {
	return &model.Error{Code: model.ErrUnavailable, Message: msg, Status: http.StatusServiceUnavailable}
}

// errors answers a handler's error inside the group, so the API keeps its error shape even
// when mounted on an echo whose error handler answers differently.
func (a *API) errors(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if err := next(c); err != nil {
			a.writeError(c, err)
		}
		return nil
	}
}

// writeError maps err to the catalogue. Causes that are not *model.Error are logged and
// answered as ERR_INTERNAL: they may hold SQL, paths or hosts.
func (a *API) writeError(c echo.Context, err error) {
	if c.Response().Committed {
		a.log(c).Error(err, "request failed after the answer started", "route", c.Path())
		return
	}
	status, detail := a.classify(c, err)
	if c.Request().Method == http.MethodHead {
		_ = c.NoContent(status)
		return
	}
	_ = c.JSON(status, errorBody{Error: detail})
}

func (a *API) classify(c echo.Context, err error) (int, errorDetail) {
	var me *model.Error
	if errors.As(err, &me) {
		status := me.Status
		status = cmp.Or(status, model.Errorf(me.Code, "").Status)
		if me.Code == model.ErrInternal || me.Code == model.ErrUnavailable {
			a.log(c).Error(err, "chat request failed", "route", c.Path(), "code", me.Code)
		}
		msg := me.Message
		msg = cmp.Or(msg, http.StatusText(status))
		return status, errorDetail{Code: me.Code, Message: msg}
	}
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return http.StatusRequestEntityTooLarge, errorDetail{Code: model.ErrTooLarge, Message: fmt.Sprintf("the request body is larger than %d bytes", mbe.Limit)}
	}
	var he *echo.HTTPError
	if errors.As(err, &he) {
		switch he.Code {
		case http.StatusNotFound:
			return he.Code, errorDetail{Code: model.ErrNotFound, Message: "no such route"}
		case http.StatusMethodNotAllowed:
			return he.Code, errorDetail{Code: model.ErrNotFound, Message: "method not allowed on this route"}
		case http.StatusRequestEntityTooLarge:
			return he.Code, errorDetail{Code: model.ErrTooLarge, Message: "the request body is too large"}
		case http.StatusTooManyRequests:
			return he.Code, errorDetail{Code: model.ErrRateLimited, Message: "too many requests"}
		case http.StatusUnauthorized:
			return he.Code, errorDetail{Code: model.ErrUnauthenticated, Message: "authentication required"}
		}
		if he.Code < 500 {
			return he.Code, errorDetail{Code: model.ErrValidation, Message: http.StatusText(he.Code)}
		}
	}
	a.log(c).Error(err, "chat request failed", "route", c.Path())
	return http.StatusInternalServerError, errorDetail{Code: model.ErrInternal, Message: "internal error"}
}

func errBadCursor(name string) error {
	return model.Errorf(model.ErrBadCursor, "%s is not a cursor this server issued", name)
}
