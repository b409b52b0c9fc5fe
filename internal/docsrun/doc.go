// Package docsrun keeps the newcomer docs honest. Its tests
//
//   - regenerate the field tables of docs/API.md from the errsvc.v1
//     descriptors and the .proto comments, and fail on drift
//     (go test ./internal/docsrun -run TestAPIFieldsDoc -update rewrites them);
//   - run every curl snippet of docs/RECIPES.md, docs/TUTORIAL.md and
//     docs/API.md against a live errsvc started in process, and check the
//     status and the expected-output subset written after each snippet;
//   - compile and run every Go SDK snippet of those files against the same
//     server.
//
// It has no code of its own outside the tests.
package docsrun
