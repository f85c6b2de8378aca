// Command deploy starts N ssr instances behind HAProxy and nginx on
// loopback, the deployment of the Hypernova article: nginx buffers request
// bodies and answers /ping, HAProxy queues requests for instances that take
// one at a time and follows each instance's agent-check.
//
//	go run ./examples/ssr/deploy -n 3     # or deploy/run.sh start 3
//
// Then curl -d @job.json 127.0.0.1:9000/render, watch
// http://127.0.0.1:8999/, send SIGHUP for a rolling restart, and SIGINT or
// SIGTERM to stop everything.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"
)

func main() {
	var (
		n    = flag.Int("n", 3, "number of ssr instances")
		dir  = flag.String("dir", filepath.Join(os.TempDir(), "frontdoor-ssr"), "run directory (configs, logs, sockets)")
		port = flag.Int("port", 9000, "nginx port; HAProxy listens on port+1, the stats page on port-1, instances on port+2.., their agents on port+102..")
		bin  = flag.String("bin", "", "ssr binary (default: go build it into -dir)")
	)
	flag.Parse()
	log.SetPrefix("deploy: ")
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		log.Fatal(err)
	}
	if *bin == "" {
		*bin = filepath.Join(*dir, "ssr")
		if err := buildSSR(*bin); err != nil {
			log.Fatal(err)
		}
	}
	cfg := Config{Dir: *dir, Bin: *bin, Instances: *n, Port: *port, HAProxyPort: *port + 1, StatsPort: *port - 1}
	for i := range *n {
		cfg.Ports = append(cfg.Ports, *port+2+i)
		cfg.AgentPorts = append(cfg.AgentPorts, *port+102+i)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	c, err := Start(ctx, cfg)
	cancel()
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("ready: %s/render (nginx), stats http://127.0.0.1:%d/, run dir %s", c.URL(), cfg.StatsPort, *dir)

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	for s := range sig {
		if s == syscall.SIGHUP {
			log.Print("rolling restart")
			if err := c.RollingRestart(context.Background()); err != nil {
				log.Print(err)
				continue
			}
			log.Print("rolling restart done")
			continue
		}
		break
	}
	log.Print("stopping")
	if err := c.Stop(); err != nil {
		log.Fatal(err)
	}
	log.Print("stopped")
}

// buildSSR builds the ssr example into out.
func buildSSR(out string) error {
	cmd := exec.Command("go", "build", "-o", out, "github.com/frontdoor-go/frontdoor/examples/ssr")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build ssr: %w", err)
	}
	return nil
}
