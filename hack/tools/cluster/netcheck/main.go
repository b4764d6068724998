// netcheck [-timeout 3s] [-delay 0s] name=host:port...
//
// netcheck opens one TCP connection to each target given as name=host:port (all at once, each
// within -timeout) and prints one line per target, in the order given:
//
//	<name> <host:port> connected|timeout|refused|error <reason>
//
// "timeout" is what a NetworkPolicy enforcer that drops the packets leaves; "refused" is a reset
// (nothing listens, or a reject). It exits 0 once every target has its line; the test reads the
// pod's log. Nothing is sent on a connection: it is closed at once.
package main

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"strings"
	"syscall"
	"time"
)

func main() {
	timeout := flag.Duration("timeout", 3*time.Second, "how long one connection may take")
	delay := flag.Duration("delay", 0, "wait this long first (until the pod's address is published, so a policy can name it)")
	flag.Parse()
	time.Sleep(*delay)
	targets := flag.Args()
	results := make([]chan string, len(targets))
	for i, target := range targets {
		results[i] = make(chan string, 1)
		name, address, ok := strings.Cut(target, "=")
		if !ok {
			fmt.Fprintf(os.Stderr, "netcheck: %q is not name=host:port\n", target)
			os.Exit(2)
		}
		go func(out chan<- string) { out <- name + " " + address + " " + dial(address, *timeout) }(results[i])
	}
	for _, result := range results {
		fmt.Println(<-result)
	}
}

func dial(address string, timeout time.Duration) string {
	conn, err := net.DialTimeout("tcp", address, timeout)
	if err == nil {
		conn.Close()
		return "connected"
	}
	var netErr net.Error
	switch {
	case errors.As(err, &netErr) && netErr.Timeout():
		return "timeout"
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET):
		return "refused"
	default:
		return "error " + strings.ReplaceAll(err.Error(), "\n", " ")
	}
}
