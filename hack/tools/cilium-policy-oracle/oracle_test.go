// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"log/slog"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/cilium/cilium/pkg/option"
)

type example struct {
	Name   string          `json:"name"`
	Expect string          `json:"expect"`
	Query  json.RawMessage `json:"query"`
	Output json.RawMessage `json:"output"`
}

func setup(t *testing.T) *slog.Logger {
	t.Helper()
	logger := slog.New(slog.DiscardHandler)
	if err := initCilium(logger, false, option.AllowLocalhostAlways); err != nil {
		t.Fatal(err)
	}
	return logger
}

func loadExamples(t *testing.T) []example {
	t.Helper()
	f, err := os.Open("examples.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var exs []example
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var ex example
		if err := json.Unmarshal(sc.Bytes(), &ex); err != nil {
			t.Fatalf("examples.jsonl: %v", err)
		}
		exs = append(exs, ex)
	}
	if len(exs) < 30 {
		t.Fatalf("only %d examples", len(exs))
	}
	return exs
}

// TestExamples replays examples.jsonl: every answer must equal the recorded
// output, and the recorded decision must be the one expected from Cilium's
// documented semantics.
func TestExamples(t *testing.T) {
	logger := setup(t)
	for _, ex := range loadExamples(t) {
		t.Run(ex.Name, func(t *testing.T) {
			got, err := json.Marshal(handleLine(logger, ex.Query))
			if err != nil {
				t.Fatal(err)
			}
			var want bytes.Buffer
			if err := json.Compact(&want, ex.Output); err != nil {
				t.Fatal(err)
			}
			if string(got) != want.String() {
				t.Errorf("output changed\n got: %s\nwant: %s", got, want.String())
			}
			var ans answer
			_ = json.Unmarshal(got, &ans)
			decision := ans.Decision
			if ans.Error != "" {
				decision = "error"
			}
			if decision != ex.Expect {
				t.Errorf("expected %s, got %s", ex.Expect, got)
			}
		})
	}
}

// TestServe drives the JSON Lines loop like the Java side does, and checks
// that the process neither leaks goroutines nor stops on bad input.
func TestServe(t *testing.T) {
	logger := setup(t)
	exs := loadExamples(t)
	var in bytes.Buffer
	n := 0
	for i := 0; i < 20; i++ {
		for _, ex := range exs {
			var c bytes.Buffer
			_ = json.Compact(&c, ex.Query)
			in.Write(c.Bytes())
			in.WriteByte('\n')
			n++
		}
		in.WriteString("not json\n\n")
		n += 2
	}
	before := runtime.NumGoroutine()
	var out bytes.Buffer
	if err := serve(logger, &in, &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != n {
		t.Fatalf("%d answers for %d input lines", len(lines), n)
	}
	time.Sleep(100 * time.Millisecond)
	if after := runtime.NumGoroutine(); after > before+5 {
		t.Errorf("goroutines grew from %d to %d", before, after)
	}
}
