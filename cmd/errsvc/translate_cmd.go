package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/errsvc/errsvc/codec"
	"github.com/errsvc/errsvc/codec/errjson"
	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/policy"
	"github.com/errsvc/errsvc/translate"
	"github.com/errsvc/errsvc/translate/sanitize"
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
	// A FlagSet, so -h and --help print the usage instead of naming a
	// file (a file called "--help" is read with `errsvc translate --
	// --help`), and --policy translates under an operator policy.
	fs := flag.NewFlagSet("errsvc translate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	usage := func(w io.Writer) {
		fmt.Fprintln(w, "usage: errsvc translate [--policy FILE] [FILE|-]\n\n"+
			"Translates one TranslateRequest, as JSON (proto or JSON field names) from FILE or stdin,\n"+
			"in process, and prints the TranslateResponse with proto (snake_case) names, like the REST API.\n"+
			"Exit status: 0 translated, 1 input unreadable, 2 usage error or malformed request.")
	}
	fs.Usage = func() {} // printed below, once, to the right stream
	policyPath := fs.String("policy", "", "operator policy file or folder to translate under (docs/POLICY.md)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			usage(stdout)
			return 0
		}
		usage(stderr)
		return exitMalformed
	}
	args = fs.Args()
	if len(args) > 1 {
		usage(stderr)
		return exitMalformed
	}
	var pol *translate.Policy
	if *policyPath != "" {
		p, err := policy.Load(*policyPath)
		if err != nil {
			// As `errsvc policy check`: a policy that does not load is 1.
			fmt.Fprintf(stderr, "errsvc translate: %v\n", err)
			return exitFailure
		}
		pol = p
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

	// protojson's names (snake_case and lowerCamel), open on read: members
	// the contract does not model are carried and noted, not refused. A
	// refusal names the field with its path (codec/errjson).
	var req errsvcv1.TranslateRequest
	if err := errjson.Unmarshal(data, &req); err != nil {
		field, desc := "body", err.Error()
		if errors.As(err, &fe) {
			field, desc = fe.Field, fe.Description
		}
		fmt.Fprintf(stderr, "errsvc translate: malformed request: %s: %s\n",
			sanitize.Text(field, 256), sanitize.Text(desc, 1024))
		return exitMalformed
	}
	_, out, code := translateEncoded("errsvc translate", pol, &req, stderr)
	if code != 0 {
		return code
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

// translateEncoded translates req under p (nil: none) and encodes the
// answer as the REST API does (proto names, indented); on a failure it
// says why on stderr, prefixed by cmd, and returns the exit status.
func translateEncoded(cmd string, p *translate.Policy, req *errsvcv1.TranslateRequest, stderr io.Writer) (*errsvcv1.TranslateResponse, []byte, int) {
	resp, err := p.Translate(req)
	var reqErr *translate.RequestError
	if errors.As(err, &reqErr) {
		fmt.Fprintf(stderr, "%s: malformed request: %s: %s\n", cmd, reqErr.Field, reqErr.Description)
		return nil, nil, exitMalformed
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", cmd, err)
		return nil, nil, exitFailure
	}
	out, err := errjson.Marshal(errjson.Options{ProtoNames: true, Indent: "  "}, resp)
	if err != nil {
		fmt.Fprintf(stderr, "%s: encode response: %v\n", cmd, err)
		return nil, nil, exitFailure
	}
	return resp, out, 0
}
