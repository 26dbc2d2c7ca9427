//go:build !agentry_runtime

package cmd

import (
	"net"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
)

// loopbackListen says whether addr (host:port) listens on loopback only.
func loopbackListen(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// loopbackHost says whether a request's Host names this machine's loopback.
func loopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// loopbackHostsOnly refuses requests whose Host is not a loopback name. agentry dev on loopback
// lets the fixed development Auth Key sign anyone in, admins included: a web page whose own
// name a DNS-rebinding attack points at 127.0.0.1 would otherwise reach it from the browser.
func loopbackHostsOnly(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if !loopbackHost(c.Request().Host) {
			return c.String(http.StatusMisdirectedRequest, "agentry dev answers requests for localhost or 127.0.0.1 only (listen with --addr :4111 to serve other names)\n")
		}
		return next(c)
	}
}

// withLoopbackHosts adds loopbackHostsOnly in front of every route mount adds, and of the
// server's own.
func withLoopbackHosts(mount func(*echo.Echo)) func(*echo.Echo) {
	return func(e *echo.Echo) {
		e.Pre(loopbackHostsOnly)
		if mount != nil {
			mount(e)
		}
	}
}
