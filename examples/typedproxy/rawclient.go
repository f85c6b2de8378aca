package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"time"
)

// rawClient is a minimal HTTP/1.1 keep-alive client for the load
// generator, in the spirit of ab or wrk: one connection, a preformatted
// request, a response read by Content-Length. It costs the load process
// a fraction of net/http's client, leaving the shared cores to the
// processes under test. It reads only what the proxies here send: a
// status line, headers with Content-Length, a body.
type rawClient struct {
	addr string
	req  []byte
	c    net.Conn
	br   *bufio.Reader
}

func newRawClient(target string) (*rawClient, error) {
	u, err := url.Parse(target)
	if err != nil {
		return nil, err
	}
	req := fmt.Appendf(nil, "GET %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: typedproxy-load\r\n\r\n", u.RequestURI(), u.Host)
	return &rawClient{addr: u.Host, req: req}, nil
}

var errNotOK = errors.New("status not 200")

// get sends one request and reads the whole response. On any error the
// connection is closed and the next get dials a new one.
func (rc *rawClient) get() error {
	if rc.c == nil {
		c, err := net.DialTimeout("tcp", rc.addr, 5*time.Second)
		if err != nil {
			return err
		}
		rc.c, rc.br = c, bufio.NewReaderSize(c, 4096)
	}
	err := rc.roundTrip()
	if err != nil {
		rc.close()
	}
	return err
}

func (rc *rawClient) roundTrip() error {
	rc.c.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := rc.c.Write(rc.req); err != nil {
		return err
	}
	line, err := rc.br.ReadSlice('\n')
	if err != nil {
		return err
	}
	ok := bytes.HasPrefix(line, []byte("HTTP/1.1 200 "))
	length, closing := -1, false
	for {
		line, err = rc.br.ReadSlice('\n')
		if err != nil {
			return err
		}
		if len(line) <= 2 { // the empty line ending the headers
			break
		}
		name, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimSpace(value)
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			if length, err = strconv.Atoi(string(value)); err != nil {
				return err
			}
		case bytes.EqualFold(name, []byte("Connection")) && bytes.EqualFold(value, []byte("close")):
			closing = true
		}
	}
	if length < 0 {
		return errors.New("response without Content-Length")
	}
	if _, err := rc.br.Discard(length); err != nil {
		return err
	}
	if closing {
		rc.close()
	}
	if !ok {
		return errNotOK
	}
	return nil
}

func (rc *rawClient) close() {
	if rc.c != nil {
		rc.c.Close()
		rc.c = nil
	}
}
