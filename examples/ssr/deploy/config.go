package main

import (
	"fmt"
	"net"
	"time"
)

// Config describes a deployment on loopback. A zero port is picked free.
type Config struct {
	Dir         string // run directory: configs, sockets, logs, temp files
	Bin         string // the ssr binary
	Instances   int
	Port        int   // nginx
	HAProxyPort int   // HAProxy frontend
	StatsPort   int   // HAProxy stats page
	Ports       []int // one per instance (HTTP)
	AgentPorts  []int // one per instance (agent-check)
	MaxConn     int   // per instance, in HAProxy
	Inter       time.Duration
	AgentInter  time.Duration
	Fall, Rise  int
	Work        int // ssr -work
	// Renders is each instance's -renders: MaxConn by default, the
	// requests HAProxy sends it at once.
	Renders int
	// Limit is each instance's -limit, the requests in flight at which
	// its shed refuses and its agent reports 0% free. Default 4. The
	// instance's render queue gets the rest (-queue Limit-Renders): nginx
	// buffers every body, so no place is needed for slow uploads.
	Limit int
	// MaxBody is nginx's client_max_body_size and each instance's
	// -max-body, in bytes. Default 1 MiB.
	MaxBody    int64
	HAProxyBin string // default "haproxy"
	NginxBin   string // default "nginx"
}

// defaults fills the zero fields: three instances, maxconn 1, checks every
// 500ms, and free ports.
func (c *Config) defaults() error {
	if c.Instances == 0 {
		c.Instances = 3
	}
	if c.MaxConn == 0 {
		c.MaxConn = 1
	}
	if c.Inter == 0 {
		c.Inter = 500 * time.Millisecond
	}
	if c.AgentInter == 0 {
		c.AgentInter = 500 * time.Millisecond
	}
	if c.Fall == 0 {
		c.Fall = 2
	}
	if c.Rise == 0 {
		c.Rise = 2
	}
	if c.HAProxyBin == "" {
		c.HAProxyBin = "haproxy"
	}
	if c.NginxBin == "" {
		c.NginxBin = "nginx"
	}
	if c.Work == 0 {
		c.Work = 1000
	}
	if c.Renders == 0 {
		c.Renders = c.MaxConn
	}
	if c.Limit == 0 {
		c.Limit = 4
	}
	if c.Limit <= c.Renders {
		return fmt.Errorf("Limit %d must be above Renders %d, to leave a queue", c.Limit, c.Renders)
	}
	if c.MaxBody == 0 {
		c.MaxBody = 1 << 20
	}
	for len(c.Ports) < c.Instances {
		c.Ports = append(c.Ports, 0)
	}
	for len(c.AgentPorts) < c.Instances {
		c.AgentPorts = append(c.AgentPorts, 0)
	}
	ports := []*int{&c.Port, &c.HAProxyPort, &c.StatsPort}
	for i := range c.Instances {
		ports = append(ports, &c.Ports[i], &c.AgentPorts[i])
	}
	for _, p := range ports {
		if *p != 0 {
			continue
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		*p = ln.Addr().(*net.TCPAddr).Port
		ln.Close()
	}
	return nil
}

// DrainDelay is what each instance waits between drain and Shutdown: long
// enough for HAProxy to see the drain through the agent (AgentInter) or the
// failing health check (Inter × Fall), plus a margin.
func (c *Config) DrainDelay() time.Duration {
	return max(c.AgentInter, c.Inter*time.Duration(c.Fall)) + c.Inter
}
