// SPDX-License-Identifier: Apache-2.0

// cilium-policy-oracle answers, with Cilium's own policy engine
// (github.com/cilium/cilium v1.20.2), whether a CiliumNetworkPolicy allows a
// connection at L3/L4.
//
// Protocol: JSON Lines. One query object per stdin line, one answer object per
// stdout line (flushed after each line). See README.md.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/debug"
	"strings"

	"github.com/cilium/cilium/pkg/labelsfilter"
	"github.com/cilium/cilium/pkg/option"
	"github.com/cilium/cilium/pkg/policy"
	"github.com/cilium/cilium/pkg/policy/api"
)

// version of this oracle; build.sh checks it via -version.
const oracleVersion = "1.0.0"

// sourceStamp is set by build.sh (-ldflags -X main.sourceStamp=...) to a hash
// of the sources, so build.sh can tell whether an installed binary is current.
var sourceStamp = "dev"

// ciliumVersion is the github.com/cilium/cilium module version the oracle is
// built against (keep in sync with go.mod; build.sh checks it).
const ciliumVersion = "v1.20.2"

func main() {
	var (
		showVersion = flag.Bool("version", false, "print version and exit")
		dualStack   = flag.Bool("dual-stack", false, "emulate a dual-stack (IPv4+IPv6) cluster instead of the default IPv4-only one")
		debugLog    = flag.Bool("debug", false, "write Cilium's debug logs to stderr")
		allowLocal  = flag.String("allow-localhost", option.AllowLocalhostAlways,
			"agent --allow-localhost: \"always\" (what allow-localhost=auto becomes in Kubernetes mode: the host may always reach local pods) or \"policy\" (host traffic is subject to policy)")
	)
	flag.Parse()

	if *showVersion {
		fmt.Printf("cilium-policy-oracle %s (github.com/cilium/cilium %s) source %s\n", oracleVersion, ciliumVersion, sourceStamp)
		return
	}

	var logger *slog.Logger
	if *debugLog {
		logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	} else {
		logger = slog.New(slog.DiscardHandler)
	}

	switch *allowLocal {
	case option.AllowLocalhostAlways, option.AllowLocalhostPolicy:
	default:
		fmt.Fprintf(os.Stderr, "cilium-policy-oracle: -allow-localhost must be %q or %q\n", option.AllowLocalhostAlways, option.AllowLocalhostPolicy)
		os.Exit(2)
	}
	if err := initCilium(logger, *dualStack, *allowLocal); err != nil {
		fmt.Fprintf(os.Stderr, "cilium-policy-oracle: init: %v\n", err)
		os.Exit(2)
	}

	if err := serve(logger, os.Stdin, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "cilium-policy-oracle: %v\n", err)
		os.Exit(1)
	}
}

// initCilium sets the global agent configuration the policy engine reads to
// the values a default Kubernetes install of the Cilium agent runs with.
func initCilium(logger *slog.Logger, dualStack bool, allowLocalhost string) error {
	cfg := option.Config
	cfg.ClusterName = clusterName // --cluster-name default
	cfg.ClusterID = 0             // --cluster-id default
	// Helm default: IPv4 only. Decides world vs world-ipv4/world-ipv6 labels.
	cfg.EnableIPv4 = true
	cfg.EnableIPv6 = dualStack
	// daemon/cmd/daemon.go: in k8s mode allow-localhost=auto becomes "always",
	// i.e. the host may always reach local endpoints (kubelet probes).
	cfg.UnsafeDaemonConfigOption.AllowLocalhost = allowLocalhost
	cfg.EnableL7Proxy = true       // default
	cfg.EnableICMPRules = true     // default
	cfg.EnableHostFirewall = false // default
	cfg.EnableNodeSelectorLabels = false
	cfg.PolicyCIDRMatchMode = nil // default: CIDR selectors match only world (outside-cluster) identities

	// --enable-policy=default
	policy.SetPolicyEnabled(option.DefaultEnforcement)

	// pkg/policy/cell.newPolicyRepo: entities "cluster" depends on the cluster name
	api.InitEntities(clusterName)

	// Agent default identity-relevant label filter (--label-prefix-file unset)
	return labelsfilter.ParseLabelPrefixCfg(logger, nil, nil, "")
}

type answer struct {
	ID       json.RawMessage `json:"id,omitempty"`
	Decision string          `json:"decision,omitempty"`
	Error    string          `json:"error,omitempty"`
	Explain  *explanation    `json:"explain,omitempty"`
}

func serve(logger *slog.Logger, in io.Reader, out io.Writer) error {
	r := bufio.NewReaderSize(in, 1<<20)
	w := bufio.NewWriterSize(out, 1<<16)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for {
		line, readErr := r.ReadBytes('\n')
		if len(line) == 0 && readErr != nil {
			if readErr == io.EOF {
				return nil
			}
			return readErr
		}
		ans := handleLine(logger, line)
		if err := enc.Encode(ans); err != nil { // Encode appends '\n'
			return err
		}
		if err := w.Flush(); err != nil {
			return err
		}
		if readErr != nil {
			if readErr == io.EOF {
				return nil
			}
			return readErr
		}
	}
}

// handleLine never panics: a panic inside Cilium's code is turned into an error answer.
func handleLine(logger *slog.Logger, line []byte) (ans answer) {
	defer func() {
		if p := recover(); p != nil {
			msg := fmt.Sprintf("internal error (panic in policy engine): %v", p)
			if os.Getenv("ORACLE_PANIC_STACK") != "" {
				msg += "\n" + string(debug.Stack())
			}
			ans = answer{ID: ans.ID, Error: msg}
		}
	}()

	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return answer{Error: "empty input line"}
	}
	var q query
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&q); err != nil {
		// try to salvage the id for correlation
		var idOnly struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal(line, &idOnly)
		return answer{ID: idOnly.ID, Error: "invalid query: " + err.Error()}
	}
	ans.ID = q.ID
	res, err := evaluate(logger, &q)
	if err != nil {
		ans.Error = err.Error()
		if q.Explain && res != nil {
			ans.Explain = res.explain
		}
		return ans
	}
	if res.allow {
		ans.Decision = "allow"
	} else {
		ans.Decision = "deny"
	}
	if q.Explain {
		ans.Explain = res.explain
	}
	return ans
}

func errorf(format string, args ...any) error {
	return fmt.Errorf(format, args...)
}

func lower(s string) string { return strings.ToLower(strings.TrimSpace(s)) }
