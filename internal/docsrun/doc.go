// Package docsrun keeps the newcomer docs honest. Its tests
//
//   - regenerate the field tables of docs/API.md from the errsvc.v1
//     descriptors and the .proto comments, and fail on drift
//     (go test ./internal/docsrun -run TestAPIFieldsDoc -update rewrites them);
//   - run every curl snippet of docs/RECIPES.md, docs/TUTORIAL.md and
//     docs/API.md against a live errsvc started in process, and check the
//     status and the expected-output subset written after each snippet;
//   - compile and run every Go SDK snippet of those files against the same
//     server;
//   - run every TypeScript, Python and Java snippet of those files, all of
//     one language in one process (TestSDKSnippets), when clients/test.sh
//     names the SDK it has built (ERRSVC_DOCS_TYPESCRIPT, ERRSVC_DOCS_PYTHON,
//     ERRSVC_DOCS_JAVA_CLASSPATH); and check that every section of
//     RECIPES.md and TUTORIAL.md with a curl command has a snippet in every
//     SDK (TestSDKSnippetCoverage).
//
// It has no code of its own outside the tests.
package docsrun
