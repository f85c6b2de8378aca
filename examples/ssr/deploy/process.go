package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// proc is a child process and the result of its Wait.
type proc struct {
	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

func start(dir, name string, args ...string) (*proc, error) {
	logf, err := os.OpenFile(filepath.Join(dir, name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr = logf, logf
	// If the deployment dies, its children die with it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &proc{cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		logf.Close()
		close(p.done)
	}()
	return p, nil
}

// stop sends sig and waits up to timeout for the exit, then kills.
func (p *proc) stop(sig os.Signal, timeout time.Duration) error {
	if p == nil {
		return nil
	}
	p.cmd.Process.Signal(sig)
	select {
	case <-p.done:
		return nil
	case <-time.After(timeout):
		p.cmd.Process.Kill()
		<-p.done
		return fmt.Errorf("%s did not exit within %v after %v; killed", p.cmd.Path, timeout, sig)
	}
}

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// waitOK polls url until it answers 200, p exits, or ctx is done.
func waitOK(ctx context.Context, url string, p *proc) error {
	client := &http.Client{Timeout: time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	for {
		res, err := client.Get(url)
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-p.done:
			return fmt.Errorf("%s exited: %v (see its log)", p.cmd.Path, p.err)
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w (last error %v)", url, ctx.Err(), err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}
