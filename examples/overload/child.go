package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// child is a running child server.
type child struct {
	cmd   *exec.Cmd
	stdin interface{ Close() error }
	out   *bufio.Reader
	addr  string // host:port
	url   string
	procs int
}

// start re-executes this binary as a server for cfg with GOMAXPROCS
// cfg.procs.
func start(cfg serverConfig) *child {
	exe, err := os.Executable()
	if err != nil {
		fatal(err)
	}
	cmd := exec.Command(exe, "-serve", "-scenario", cfg.scenario, "-variant", cfg.variant,
		"-limit", strconv.Itoa(cfg.limit), "-iters", strconv.Itoa(cfg.iters),
		"-sigma", strconv.FormatFloat(cfg.sigma, 'g', -1, 64),
		"-backlog", strconv.Itoa(cfg.backlog), "-sleep", cfg.sleep.String(),
		"-queue-timeout", cfg.queueTimeout.String(), "-cpuprofile", cfg.profile)
	cmd.Env = append(os.Environ(), "GOMAXPROCS="+strconv.Itoa(cfg.procs))
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		fatal(err)
	}
	if err := cmd.Start(); err != nil {
		fatal(err)
	}
	r := bufio.NewReader(out)
	line, err := r.ReadString('\n')
	if err != nil {
		fatal(fmt.Errorf("child server: %v", err))
	}
	var addr string
	var p int
	fmt.Sscan(line, &addr, &p)
	return &child{cmd: cmd, stdin: in, out: r, addr: addr, url: "http://" + addr + "/", procs: p}
}

// stop closes the child's stdin, which ends it, waits for it and returns
// the CPU time (user + system) it used and the counters it reported.
func (c *child) stop() (time.Duration, serverStats) {
	c.stdin.Close()
	var st serverStats
	done := make(chan struct{})
	go func() {
		// The report is the first line that is a JSON object; a peer's
		// library may have written other lines before it.
		for {
			line, err := c.out.ReadString('\n')
			if err != nil || json.Unmarshal([]byte(line), &st) == nil {
				break
			}
		}
		c.cmd.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		c.cmd.Process.Kill()
		<-done
	}
	if ps := c.cmd.ProcessState; ps != nil {
		if os.Getenv("OVERLOAD_DEBUG") != "" {
			fmt.Fprintf(os.Stderr, "server CPU: user %v, system %v\n", ps.UserTime(), ps.SystemTime())
		}
		return ps.UserTime() + ps.SystemTime(), st
	}
	return 0, st
}

// startBurner re-executes this binary to spin threads goroutines (with
// GOMAXPROCS threads) for d, another process taking CPU from the server.
// It returns the burner's command, already started; Wait ends it.
func startBurner(d time.Duration, threads int) *exec.Cmd {
	exe, err := os.Executable()
	if err != nil {
		fatal(err)
	}
	cmd := exec.Command(exe, "-burn", d.String(), "-burn-threads", strconv.Itoa(threads))
	cmd.Env = append(os.Environ(), "GOMAXPROCS="+strconv.Itoa(threads))
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		fatal(err)
	}
	return cmd
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "overload:", err)
	os.Exit(1)
}

// selfCPU returns the CPU time (user + system) this process has used.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// busyCPU returns the CPU time all processes of the machine have used
// (from /proc/stat), or -1 where that is not available.
func busyCPU() time.Duration {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return -1
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line) // cpu user nice system idle iowait irq softirq steal
	if len(f) < 9 {
		return -1
	}
	var ticks int64
	for i, v := range f[1:9] {
		if i == 3 || i == 4 { // idle, iowait
			continue
		}
		n, _ := strconv.ParseInt(v, 10, 64)
		ticks += n
	}
	return time.Duration(ticks) * 10 * time.Millisecond // USER_HZ = 100
}
