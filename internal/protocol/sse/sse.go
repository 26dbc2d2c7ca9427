// Package sse is Server-Sent Events as Agentry's streams use them: each event one `data:`
// line of JSON and a blank line (LF only), comment frames as keep-alives. The Writer sends the
// events that are ready in one write and one flush; the Reader reads any conforming stream.
package sse

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// KeepAliveFrame is an SSE comment: clients ignore it, proxies see traffic.
const KeepAliveFrame = ": keep-alive\n\n"

// AppendData appends a frame of data (one line: JSON holds no raw newline) to dst.
func AppendData(dst, data []byte) []byte {
	dst = append(dst, "data: "...)
	dst = append(dst, data...)
	return append(dst, '\n', '\n')
}

// ErrTooLong is the Reader's error for a line over its limit.
var ErrTooLong = bufio.ErrTooLong

// Reader reads the events of a stream: each event's data lines joined by "\n"; comments and
// the event, id and retry fields are skipped, as the specification has clients do for an
// event they do not name.
type Reader struct {
	sc   *bufio.Scanner
	data bytes.Buffer
}

// NewReader reads r, refusing a line longer than maxLine bytes.
func NewReader(r io.Reader, maxLine int) *Reader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, min(64<<10, maxLine)), maxLine)
	return &Reader{sc: sc}
}

// Next returns the next event's data (a copy the caller may keep): io.EOF when the stream
// ended after a whole event, io.ErrUnexpectedEOF when it ended inside one, ErrTooLong for a
// line over the limit, or the transport's error.
func (r *Reader) Next() ([]byte, error) {
	for r.sc.Scan() {
		line := r.sc.Bytes()
		if len(line) == 0 {
			if r.data.Len() == 0 {
				continue
			}
			out := bytes.Clone(r.data.Bytes())
			r.data.Reset()
			return out, nil
		}
		if v, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			if r.data.Len() > 0 {
				r.data.WriteByte('\n')
			}
			r.data.Write(bytes.TrimPrefix(v, []byte(" ")))
		}
	}
	if err := r.sc.Err(); err != nil {
		return nil, err
	}
	if r.data.Len() > 0 {
		return nil, io.ErrUnexpectedEOF
	}
	return nil, io.EOF
}

// IsEOF says whether err is the end of the stream (whole or not).
func IsEOF(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}
