// A stand-in for fluent-bit in the test cluster, started by the chart's DaemonSet exactly as the
// real one (/fluent-bit/bin/fluent-bit -c <the chart's fluent-bit.conf>): no registry serves
// fluent-bit's image or its C sources as a module here. It reads the settings the chart writes and
// does what that configuration asks of fluent-bit, with the real wire protocol:
//   - [INPUT] tail: the files of Path (a glob), CRI lines "<time> <stream> <P|F> <log>" with partial
//     lines rejoined (multiline.parser cri), read offsets kept in the DB file so a restart does not
//     resend (fluent-bit keeps them in SQLite, this in a text file at the same path);
//   - [FILTER] parser: the log is ztunnel's JSON, its keys lifted to the record, "time" (RFC 3339)
//     becoming the event time (Time_Keep Off); [FILTER] grep: every Regex must match (Logical_Op and);
//   - [OUTPUT] opentelemetry with grpc on: one OTLP/gRPC Export per flush, an empty Resource and
//     Scope, each record's keys as the body's kvlist (fluent-bit's mapping for tail records),
//     mutual TLS with tls.ca_file, tls.crt_file, tls.key_file and tls.vhost as the server name;
//     a failed export is retried with the same records (Retry_Limit no_limits);
//   - [SERVICE] HTTP_Server: "/" and "/api/v1/health" on HTTP_Port for the chart's probes.
package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
)

type section struct {
	name   string
	values map[string][]string
}

// on reads a fluent-bit boolean: on/true/yes.
func on(value string) bool {
	v := strings.ToLower(value)
	return v == "on" || v == "true" || v == "yes"
}

func (s section) get(key, fallback string) string {
	if v := s.values[strings.ToLower(key)]; len(v) > 0 {
		return v[len(v)-1]
	}
	return fallback
}

// readConfig reads fluent-bit's classic format: [SECTION] headers, "Key value" lines, # comments.
func readConfig(path string) ([]section, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var sections []section
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		line := strings.TrimSpace(scanner.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			sections = append(sections, section{name: strings.ToUpper(line[1 : len(line)-1]), values: map[string][]string{}})
		case len(sections) > 0:
			fields := strings.Fields(line)
			key := strings.ToLower(fields[0])
			sections[len(sections)-1].values[key] = append(sections[len(sections)-1].values[key],
				strings.TrimSpace(strings.TrimPrefix(line, fields[0])))
		}
	}
	return sections, scanner.Err()
}

func find(sections []section, kind, name string) []section {
	var out []section
	for _, s := range sections {
		if s.name == kind && strings.EqualFold(s.get("name", ""), name) {
			out = append(out, s)
		}
	}
	return out
}

type grepRule struct {
	key string
	re  *regexp.Regexp
}

func main() {
	config := flag.String("c", "/fluent-bit/etc/fluent-bit.conf", "configuration file")
	flag.Parse()
	sections, err := readConfig(*config)
	if err != nil {
		log.Fatalf("[error] configuration: %v", err)
	}
	service := section{values: map[string][]string{}}
	for _, s := range sections {
		if s.name == "SERVICE" {
			service = s
		}
	}
	inputs, outputs := find(sections, "INPUT", "tail"), find(sections, "OUTPUT", "opentelemetry")
	if len(inputs) != 1 || len(outputs) != 1 {
		log.Fatalf("[error] the stand-in runs one tail input and one opentelemetry output, got %d and %d", len(inputs), len(outputs))
	}
	var rules []grepRule
	for _, g := range find(sections, "FILTER", "grep") {
		for _, r := range g.values["regex"] {
			fields := strings.SplitN(r, " ", 2)
			rules = append(rules, grepRule{key: fields[0], re: regexp.MustCompile(strings.TrimSpace(fields[1]))})
		}
	}
	flush, _ := strconv.Atoi(service.get("Flush", "1"))
	go serveHTTP(service.get("HTTP_Listen", "0.0.0.0") + ":" + service.get("HTTP_Port", "2020"))

	out := outputs[0]
	conn, err := dial(out)
	if err != nil {
		log.Fatalf("[error] [output:opentelemetry] %v", err)
	}
	client := plogotlp.NewGRPCClient(conn)
	tail := newTail(inputs[0].get("Path", ""), inputs[0].get("DB", ""),
		on(inputs[0].get("DB.compare_filename", "false")))
	log.Printf("[info] [stand-in] tail %s -> %s:%s (grpc, tls %s)", tail.pattern, out.get("Host", ""), out.get("Port", ""), out.get("tls", "off"))
	var pending []record
	var pendingOffsets map[string]position
	for {
		if len(pending) == 0 {
			pending, pendingOffsets = tail.read()
			pending = filter(pending, rules)
		}
		if len(pending) > 0 {
			if err := export(client, pending); err != nil {
				log.Printf("[warn] [output:opentelemetry] %d records not sent, retrying: %v", len(pending), err)
			} else {
				log.Printf("[info] [output:opentelemetry] sent %d records", len(pending))
				pending = nil
			}
		}
		if len(pending) == 0 && pendingOffsets != nil {
			tail.commit(pendingOffsets)
			pendingOffsets = nil
		}
		time.Sleep(time.Duration(max(flush, 1)) * time.Second)
	}
}

func serveHTTP(address string) {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"fluent-bit":{"version":"stand-in","edition":"network-enforcer test stand-in"}}`)
	})
	mux.HandleFunc("/api/v1/health", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "ok\n") })
	log.Fatal(http.ListenAndServe(address, mux))
}

func dial(out section) (*grpc.ClientConn, error) {
	target := net.JoinHostPort(out.get("Host", "127.0.0.1"), out.get("Port", "4317"))
	if !strings.EqualFold(out.get("tls", "off"), "on") {
		return nil, fmt.Errorf("the stand-in speaks TLS only (tls off asked)")
	}
	ca, err := os.ReadFile(out.get("tls.ca_file", ""))
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca) {
		return nil, fmt.Errorf("no certificate in %s", out.get("tls.ca_file", ""))
	}
	certFile, keyFile := out.get("tls.crt_file", ""), out.get("tls.key_file", "")
	config := &tls.Config{
		RootCAs:    pool,
		ServerName: out.get("tls.vhost", out.get("Host", "")),
		MinVersion: tls.VersionTLS12,
		// Read per handshake, as fluent-bit does on reconnect: a renewed certificate is picked up.
		GetClientCertificate: func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
			c, err := tls.LoadX509KeyPair(certFile, keyFile)
			return &c, err
		},
	}
	if !strings.EqualFold(out.get("tls.verify", "on"), "on") {
		config.InsecureSkipVerify = true
	}
	return grpc.NewClient(target, grpc.WithTransportCredentials(credentials.NewTLS(config)), grpc.WithUserAgent("Fluent-Bit"))
}

type record struct {
	time   time.Time
	fields map[string]any
}

func filter(records []record, rules []grepRule) []record {
	var out []record
	for _, r := range records {
		keep := true
		for _, rule := range rules {
			v, ok := r.fields[rule.key].(string)
			if !ok || !rule.re.MatchString(v) {
				keep = false
				break
			}
		}
		if keep {
			out = append(out, r)
		}
	}
	return out
}

func export(client plogotlp.GRPCClient, records []record) error {
	logs := plog.NewLogs()
	scope := logs.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty()
	for _, r := range records {
		lr := scope.LogRecords().AppendEmpty()
		lr.SetTimestamp(pcommon.NewTimestampFromTime(r.time))
		body := lr.Body().SetEmptyMap()
		keys := make([]string, 0, len(r.fields))
		for k := range r.fields {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			put(body.PutEmpty(k), r.fields[k])
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := client.Export(ctx, plogotlp.NewExportRequestFromLogs(logs))
	return err
}

// put maps a JSON value as fluent-bit maps msgpack: integers, doubles, strings, bools, maps, arrays.
func put(v pcommon.Value, value any) {
	switch x := value.(type) {
	case string:
		v.SetStr(x)
	case bool:
		v.SetBool(x)
	case json.Number:
		if i, err := x.Int64(); err == nil {
			v.SetInt(i)
		} else if f, err := x.Float64(); err == nil {
			v.SetDouble(f)
		} else {
			v.SetStr(x.String())
		}
	case map[string]any:
		m := v.SetEmptyMap()
		for k, e := range x {
			put(m.PutEmpty(k), e)
		}
	case []any:
		s := v.SetEmptySlice()
		for _, e := range x {
			put(s.AppendEmpty(), e)
		}
	case nil:
	}
}

// tail follows the files of a glob from the offsets of its DB file, one "inode offset path" line a
// file. With DB.compare_filename a stored offset applies only to a file of the same inode and name,
// as in fluent-bit: the runtime reuses the inode of a removed log for a new one. Entries of files
// gone from the glob are dropped, as fluent-bit does when it sees a file removed.
type tail struct {
	pattern, db     string
	compareFilename bool
	files           map[string]position
}

// position is how far one file was read.
type position struct {
	inode, path string
	offset      int64
}

func newTail(pattern, db string, compareFilename bool) *tail {
	t := &tail{pattern: pattern, db: db, compareFilename: compareFilename, files: map[string]position{}}
	if data, err := os.ReadFile(db); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			fields := strings.SplitN(line, " ", 3)
			if len(fields) < 2 {
				continue
			}
			offset, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil {
				continue
			}
			p := position{inode: fields[0], offset: offset}
			if len(fields) == 3 {
				p.path = fields[2]
			}
			t.files[t.key(p)] = p
		}
	}
	return t
}

func (t *tail) key(p position) string {
	if t.compareFilename {
		return p.inode + " " + p.path
	}
	return p.inode
}

func inode(path string) (string, bool) {
	info, err := os.Stat(path)
	if err != nil {
		return "", false
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return "", false
	}
	return strconv.FormatUint(st.Ino, 10), true
}

// read returns the complete records after each file's offset, and the positions after them.
func (t *tail) read() ([]record, map[string]position) {
	files, _ := filepath.Glob(t.pattern)
	next := map[string]position{}
	var records []record
	present := map[string]bool{}
	for _, path := range files {
		ino, ok := inode(path)
		if !ok {
			continue
		}
		p := position{inode: ino, path: path}
		id := t.key(p)
		present[id] = true
		f, err := os.Open(path)
		if err != nil {
			continue
		}
		p.offset = t.files[id].offset
		if _, err := f.Seek(p.offset, io.SeekStart); err == nil {
			data, _ := io.ReadAll(f)
			consumed, recs := parseCri(data)
			records = append(records, recs...)
			p.offset += int64(consumed)
			next[id] = p
		}
		f.Close()
	}
	for id := range t.files {
		if !present[id] {
			delete(t.files, id)
		}
	}
	return records, next
}

func (t *tail) commit(positions map[string]position) {
	for id, p := range positions {
		t.files[id] = p
	}
	if t.db == "" {
		return
	}
	var b strings.Builder
	for _, p := range t.files {
		fmt.Fprintf(&b, "%s %d %s\n", p.inode, p.offset, p.path)
	}
	_ = os.MkdirAll(filepath.Dir(t.db), 0o755)
	if err := os.WriteFile(t.db+".tmp", []byte(b.String()), 0o644); err == nil {
		_ = os.Rename(t.db+".tmp", t.db)
	}
}

// parseCri reads whole CRI lines and rejoins P(artial) ones up to their F(ull) line; it returns how
// many bytes it consumed (up to the last complete record) and the records of JSON logs.
func parseCri(data []byte) (int, []record) {
	var records []record
	consumed, start := 0, 0
	var partial strings.Builder
	for i, b := range data {
		if b != '\n' {
			continue
		}
		line := string(data[start:i])
		start = i + 1
		parts := strings.SplitN(line, " ", 4)
		if len(parts) < 4 {
			consumed = start
			continue
		}
		partial.WriteString(parts[3])
		if parts[2] == "P" {
			continue
		}
		text := partial.String()
		partial.Reset()
		consumed = start
		if r, ok := parseJSON(text, parts[0]); ok {
			records = append(records, r)
		}
	}
	return consumed, records
}

func parseJSON(text, criTime string) (record, bool) {
	decoder := json.NewDecoder(strings.NewReader(text))
	decoder.UseNumber()
	fields := map[string]any{}
	if err := decoder.Decode(&fields); err != nil {
		return record{}, false
	}
	when, err := time.Parse(time.RFC3339Nano, criTime)
	if s, ok := fields["time"].(string); ok {
		if t, e := time.Parse(time.RFC3339Nano, s); e == nil {
			when, err = t, nil
			delete(fields, "time")
		}
	}
	if err != nil {
		when = time.Now()
	}
	return record{time: when, fields: fields}, true
}
