// Package deploy holds the deployment artefacts of errsvc: the container
// image (Dockerfile) and the Kubernetes manifests (kubernetes/). It has no
// code; its test checks that the manifests hang together.
package deploy
