package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// ServerStat is HAProxy's view of one server, from "show stat".
type ServerStat struct {
	Status      string // UP, DOWN, DRAIN, MAINT, ...
	Weight      int    // effective weight, after the agent's percentage
	AgentStatus string // e.g. L7OK
	AgentDesc   string // the agent's reply as HAProxy read it
	CheckDesc   string // the result of the last health check
}

// Command sends one command to HAProxy's stats socket and returns the answer.
func (c *Cluster) Command(cmd string) (string, error) {
	conn, err := net.DialTimeout("unix", filepath.Join(c.cfg.Dir, "haproxy.sock"), time.Second)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(conn, cmd+"\n"); err != nil {
		return "", err
	}
	b, err := io.ReadAll(conn)
	return string(b), err
}

// Stat returns "show stat" as one map of column to value per proxy/server
// line, keyed by "proxy/server" (server is FRONTEND or BACKEND for those).
func (c *Cluster) Stat() (map[string]map[string]string, error) {
	out, err := c.Command("show stat")
	if err != nil {
		return nil, err
	}
	out = strings.TrimPrefix(out, "# ")
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("parsing show stat: %w", err)
	}
	if len(rows) < 2 {
		return nil, fmt.Errorf("show stat: no rows in %q", out)
	}
	m := make(map[string]map[string]string)
	for _, row := range rows[1:] {
		r := make(map[string]string, len(row))
		for i, v := range row {
			if i < len(rows[0]) {
				r[rows[0][i]] = v
			}
		}
		m[r["pxname"]+"/"+r["svname"]] = r
	}
	return m, nil
}

// Servers returns HAProxy's view of the servers of backend ssr by name.
func (c *Cluster) Servers() (map[string]ServerStat, error) {
	st, err := c.Stat()
	if err != nil {
		return nil, err
	}
	m := make(map[string]ServerStat)
	for i := range c.cfg.Instances {
		r, ok := st["ssr/"+c.Name(i)]
		if !ok {
			return nil, fmt.Errorf("show stat: no server %s", c.Name(i))
		}
		w, _ := strconv.Atoi(r["weight"])
		m[c.Name(i)] = ServerStat{Status: r["status"], Weight: w, AgentStatus: r["agent_status"], AgentDesc: r["agent_desc"], CheckDesc: r["check_desc"]}
	}
	return m, nil
}
