//go:build !js

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"

	"github.com/joinlab/joinlab/web/bundle"
)

// net/http answers a request it cannot parse — a malformed percent escape in the path, a header line without a
// colon, headers over the size limit — itself, before any handler runs: it writes one bare response straight
// to the connection, in a single Write, as "HTTP/1.1 " + status + bareErrorHeaders + a text body, and closes
// it. bareErrorHeaders is net/http's own constant (errorHeaders in server.go, unchanged since Go 1.6); the
// native tests fail if it changes.
const bareErrorHeaders = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"

// headedListener hands out connections that give net/http's bare error answers the Worker's security headers
// and a JSON error body, so that every answer natively carries them, as in workerd.
type headedListener struct{ net.Listener }

func (l headedListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return headedConn{c}, nil
}

type headedConn struct{ net.Conn }

// Write passes everything through but a bare error answer, which it replaces. The handler's own answers never
// look like one: they carry Content-Security-Policy, which sorts before Content-Type, right after the status.
func (c headedConn) Write(p []byte) (int, error) {
	status, ok := bareError(p)
	if !ok {
		return c.Conn.Write(p)
	}
	if _, err := c.Conn.Write(headedError(status)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// CloseWrite half-closes the connection as net/http does after an answer to oversized headers (431), so that
// the client reads the answer before the connection ends; the embedded net.Conn alone would hide it.
func (c headedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// bareError returns the status code of a bare error answer of net/http ("400", "431", …), and whether p is one.
func bareError(p []byte) (string, bool) {
	rest, ok := bytes.CutPrefix(p, []byte("HTTP/1.1 "))
	if !ok {
		return "", false
	}
	statusLine, _, ok := bytes.Cut(rest, []byte("\r\n"))
	if !ok || len(statusLine) < 3 || !bytes.HasPrefix(rest[len(statusLine):], []byte(bareErrorHeaders)) {
		return "", false
	}
	code := string(statusLine[:3])
	if n, err := strconv.Atoi(code); err != nil || n < 400 || n > 599 {
		return "", false
	}
	return code, true
}

// headedError is the answer that replaces a bare error with status code: the same status, the security
// headers, and {"error": …} with the status text, and for a 400 what can cause one.
func headedError(code string) []byte {
	n, _ := strconv.Atoi(code) // bareError checked it
	msg := http.StatusText(n)
	if n == http.StatusBadRequest {
		msg = "malformed request line or header (such as a bad percent escape in the URL)"
	}
	body, _ := json.Marshal(struct {
		Error string `json:"error"`
	}{msg})
	body = append(body, '\n')
	h := http.Header{}
	bundle.SetSecurityHeaders(h)
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("Connection", "close")
	var b bytes.Buffer
	fmt.Fprintf(&b, "HTTP/1.1 %03d %s\r\n", n, http.StatusText(n))
	h.Write(&b)
	b.WriteString("\r\n")
	b.Write(body)
	return b.Bytes()
}
