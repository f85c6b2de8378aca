package main

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"text/template"
	"time"
)

var (
	//go:embed nginx.conf
	nginxConf string
	//go:embed haproxy.cfg
	haproxyCfg string
)

// Cluster is a running deployment: N ssr instances, HAProxy and nginx.
type Cluster struct {
	cfg       Config
	instances []*proc
	haproxy   *proc
	nginx     *proc
}

// Start writes the configs into cfg.Dir and starts the instances, HAProxy
// and nginx, returning once nginx answers and HAProxy sees every instance UP.
func Start(ctx context.Context, cfg Config) (*Cluster, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	c := &Cluster{cfg: cfg, instances: make([]*proc, cfg.Instances)}
	if err := c.writeConfigs(); err != nil {
		return nil, err
	}
	for i := range cfg.Instances {
		if err := c.StartInstance(ctx, i); err != nil {
			c.Stop()
			return nil, err
		}
	}
	var err error
	c.haproxy, err = start(cfg.Dir, "haproxy", cfg.HAProxyBin, "-db", "-f", filepath.Join(cfg.Dir, "haproxy.cfg"))
	if err == nil {
		err = c.waitStatus(ctx, func(s map[string]ServerStat) bool {
			for i := range cfg.Instances {
				if s[c.Name(i)].Status != "UP" {
					return false
				}
			}
			return true
		})
	}
	if err == nil {
		c.nginx, err = start(cfg.Dir, "nginx", cfg.NginxBin, "-p", cfg.Dir, "-e", filepath.Join(cfg.Dir, "nginx-error.log"), "-c", filepath.Join(cfg.Dir, "nginx.conf"))
	}
	if err == nil {
		err = waitOK(ctx, c.URL()+"/ping", c.nginx)
	}
	if err != nil {
		c.Stop()
		return nil, err
	}
	return c, nil
}

func (c *Cluster) writeConfigs() error {
	type server struct {
		Name            string
		Port, AgentPort int
	}
	data := struct {
		Config
		Dir        string
		User       string
		Inter      string
		AgentInter string
		Servers    []server
	}{Config: c.cfg, Dir: c.cfg.Dir}
	data.Inter = strconv.FormatInt(c.cfg.Inter.Milliseconds(), 10) + "ms"
	data.AgentInter = strconv.FormatInt(c.cfg.AgentInter.Milliseconds(), 10) + "ms"
	if os.Geteuid() == 0 {
		// nginx workers would otherwise run as nobody, who cannot write
		// the body temp files in a private run directory.
		data.User = "root"
	}
	for i := range c.cfg.Instances {
		data.Servers = append(data.Servers, server{c.Name(i), c.cfg.Ports[i], c.cfg.AgentPorts[i]})
	}
	if err := os.MkdirAll(filepath.Join(c.cfg.Dir, "nginx-tmp"), 0o755); err != nil {
		return err
	}
	for name, text := range map[string]string{"nginx.conf": nginxConf, "haproxy.cfg": haproxyCfg} {
		t, err := template.New(name).Option("missingkey=error").Parse(text)
		if err != nil {
			return err
		}
		f, err := os.Create(filepath.Join(c.cfg.Dir, name))
		if err != nil {
			return err
		}
		err = t.Execute(f, data)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}

// Name returns the HAProxy server name of instance i.
func (c *Cluster) Name(i int) string { return "ssr" + strconv.Itoa(i+1) }

// URL returns nginx's base URL, the entry point for clients.
func (c *Cluster) URL() string { return "http://127.0.0.1:" + strconv.Itoa(c.cfg.Port) }

// InstanceURL returns the base URL of instance i, bypassing nginx and HAProxy.
func (c *Cluster) InstanceURL(i int) string {
	return "http://127.0.0.1:" + strconv.Itoa(c.cfg.Ports[i])
}

// StartInstance starts instance i and waits until it answers /ping.
func (c *Cluster) StartInstance(ctx context.Context, i int) error {
	p, err := start(c.cfg.Dir, c.Name(i), c.cfg.Bin,
		"-name", c.Name(i),
		"-addr", "127.0.0.1:"+strconv.Itoa(c.cfg.Ports[i]),
		"-agent-addr", "127.0.0.1:"+strconv.Itoa(c.cfg.AgentPorts[i]),
		"-drain-delay", c.cfg.DrainDelay().String(),
		"-work", strconv.Itoa(c.cfg.Work),
		"-renders", strconv.Itoa(c.cfg.Renders),
		"-queue", strconv.Itoa(c.cfg.Limit-c.cfg.Renders),
		"-limit", strconv.Itoa(c.cfg.Limit),
		"-max-body", strconv.FormatInt(c.cfg.MaxBody, 10))
	if err != nil {
		return err
	}
	c.instances[i] = p
	return waitOK(ctx, c.InstanceURL(i)+"/ping", p)
}

// StopInstance sends SIGTERM to instance i and waits for it to drain and exit.
func (c *Cluster) StopInstance(i int) error {
	p := c.instances[i]
	if err := p.stop(syscall.SIGTERM, c.cfg.DrainDelay()+30*time.Second); err != nil {
		return err
	}
	if p.err != nil {
		return fmt.Errorf("%s: %w", c.Name(i), p.err)
	}
	return nil
}

// Exited reports whether the current process of instance i has exited.
func (c *Cluster) Exited(i int) bool { return c.instances[i].exited() }

// RollingRestart restarts the instances one at a time: SIGTERM (the
// instance drains and exits), start it again, wait until HAProxy sees it
// UP, then the next.
func (c *Cluster) RollingRestart(ctx context.Context) error {
	for i := range c.instances {
		if err := c.StopInstance(i); err != nil {
			return err
		}
		if err := c.StartInstance(ctx, i); err != nil {
			return err
		}
		name := c.Name(i)
		if err := c.waitStatus(ctx, func(s map[string]ServerStat) bool { return s[name].Status == "UP" }); err != nil {
			return fmt.Errorf("%s after restart: %w", name, err)
		}
	}
	return nil
}

// Stop stops nginx, then HAProxy, then the instances, and waits for all.
func (c *Cluster) Stop() error {
	var errs []error
	errs = append(errs, c.nginx.stop(syscall.SIGQUIT, 10*time.Second))
	errs = append(errs, c.haproxy.stop(syscall.SIGUSR1, 10*time.Second))
	// The instances drain in parallel.
	ch := make(chan error, len(c.instances))
	for _, p := range c.instances {
		go func() { ch <- p.stop(syscall.SIGTERM, c.cfg.DrainDelay()+10*time.Second) }()
	}
	for range c.instances {
		errs = append(errs, <-ch)
	}
	return errors.Join(errs...)
}

// waitStatus polls HAProxy's stats until ok returns true.
func (c *Cluster) waitStatus(ctx context.Context, ok func(map[string]ServerStat) bool) error {
	var last map[string]ServerStat
	for {
		s, err := c.Servers()
		if err == nil {
			if ok(s) {
				return nil
			}
			last = s
		}
		select {
		case <-c.haproxy.done:
			return fmt.Errorf("haproxy exited: %v (see haproxy.log)", c.haproxy.err)
		case <-ctx.Done():
			return fmt.Errorf("waiting for HAProxy: %w (last stats %v, error %v)", ctx.Err(), last, err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}
