// Command footprint translates one source's benchmark request n times, for
// bench/footprint.sh to count under callgrind the code and data one
// translation touches. With -evict it writes 8 MiB (four times this
// machine's L2) before each translation, as a lone call's core finds its
// caches after the transport, the scheduler and other processes ran: each
// translation then fetches its data, and whatever code the L1i lost, anew.
// The script counts only inside the translation (callgrind's
// --toggle-collect) and reads one translation's dump past the first, so
// neither the start-up nor the writes count.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/errsvc/errsvc/bench/internal/floors"
	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/translate"
	"google.golang.org/protobuf/encoding/protojson"
)

// sourceKeys name the sources by the request's top-level key.
var sourceKeys = map[string]string{
	"labby": "labby_error", "agent": "agent_error", "classified": "classified_error",
	"mcp": "mcp_tool_result", "provider": "provider_response",
}

// EvictBytes is what -evict writes before each translation, a byte per
// 64-byte cache line.
const EvictBytes = 8 << 20

func main() {
	source := flag.String("source", "provider", "labby, agent, classified, mcp or provider")
	n := flag.Int("n", 100, "translations")
	evict := flag.Bool("evict", false, "write 8 MiB before each translation")
	flag.Parse()
	if err := run(*source, *n, *evict); err != nil {
		fmt.Fprintln(os.Stderr, "footprint:", err)
		os.Exit(1)
	}
}

func run(source string, n int, evict bool) error {
	key, ok := sourceKeys[source]
	if !ok {
		return fmt.Errorf("-source %q: want labby, agent, classified, mcp or provider", source)
	}
	var body string
	for _, s := range floors.AllSources() {
		if strings.HasPrefix(s, `{"`+key+`"`) {
			body = s
		}
	}
	if body == "" {
		return fmt.Errorf("-source %s: no benchmark request has the key %q", source, key)
	}
	req := &errsvcv1.TranslateRequest{}
	if err := protojson.Unmarshal([]byte(body), req); err != nil {
		return fmt.Errorf("source %s: %w", source, err)
	}
	scratch := make([]byte, EvictBytes)
	for range n {
		if evict {
			for i := 0; i < len(scratch); i += 64 {
				scratch[i]++
			}
		}
		_, _, lease, err := translate.TranslateLeased(req)
		if err != nil {
			return err
		}
		lease.Release()
	}
	return nil
}
