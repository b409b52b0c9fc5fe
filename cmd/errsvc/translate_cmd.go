package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/errsvc/errsvc/codec"
	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/server"
	"github.com/errsvc/errsvc/translate"
	"github.com/errsvc/errsvc/translate/sanitize"
	"google.golang.org/protobuf/encoding/protojson"
)

// Exit codes of `errsvc translate`.
const (
	exitFailure   = 1 // could not read input or translate
	exitMalformed = 2 // usage error or malformed request
)

// runTranslate reads one TranslateRequest as JSON from FILE or stdin and
// prints its translation, calling the core in process so no server is
// needed. The output uses proto (snake_case) names, like the REST API.
func runTranslate(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 1 {
		fmt.Fprintln(stderr, "usage: errsvc translate [FILE|-]")
		return exitMalformed
	}
	data, err := readInput(args, stdin)
	if err != nil {
		fmt.Fprintf(stderr, "errsvc translate: %v\n", err)
		return exitFailure
	}

	// Nesting and broken text are refused before protojson runs (bounded
	// work, and an error naming the field rather than "unexpected EOF");
	// the path quotes the input's keys, so it is sanitised like the server's.
	var fe *codec.FieldError
	if errors.As(codec.CheckJSON(data, codec.MaxJSONDepth), &fe) {
		fmt.Fprintf(stderr, "errsvc translate: malformed request: %s: %s\n",
			sanitize.Text(fe.Field, 256), sanitize.Text(fe.Description, 1024))
		return exitMalformed
	}

	// protojson accepts both proto (snake_case) and JSON (lowerCamel) names.
	var req errsvcv1.TranslateRequest
	if err := protojson.Unmarshal(data, &req); err != nil {
		fmt.Fprintf(stderr, "errsvc translate: malformed request: %s: %v\n", server.JSONErrorField(err), err)
		return exitMalformed
	}
	resp, err := translate.Translate(&req)
	var reqErr *translate.RequestError
	if errors.As(err, &reqErr) {
		fmt.Fprintf(stderr, "errsvc translate: malformed request: %s: %s\n", reqErr.Field, reqErr.Description)
		return exitMalformed
	}
	if err != nil {
		fmt.Fprintf(stderr, "errsvc translate: %v\n", err)
		return exitFailure
	}

	out, err := protojson.MarshalOptions{Multiline: true, Indent: "  ", UseProtoNames: true}.Marshal(resp)
	if err != nil {
		fmt.Fprintf(stderr, "errsvc translate: encode response: %v\n", err)
		return exitFailure
	}
	if _, err := fmt.Fprintf(stdout, "%s\n", out); err != nil {
		return exitFailure
	}
	return 0
}

func readInput(args []string, stdin io.Reader) ([]byte, error) {
	if len(args) == 0 || args[0] == "-" {
		return io.ReadAll(stdin)
	}
	return os.ReadFile(args[0])
}
