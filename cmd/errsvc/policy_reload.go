package main

import (
	"context"
	"crypto/sha256"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/errsvc/errsvc/policy"
	"github.com/errsvc/errsvc/server"
)

// reloadSettle is how long a change of the policy's files must be quiet
// before it is read: an editor or a ConfigMap update writes in several
// steps, and the first of them is not the file the operator meant.
const reloadSettle = 250 * time.Millisecond

// loadPolicyHolder loads the --policy file or folder; "" holds none.
func loadPolicyHolder(path string) (*server.PolicyHolder, error) {
	if path == "" {
		return nil, nil
	}
	p, err := policy.Load(path)
	if err != nil {
		return nil, err
	}
	return server.NewPolicyHolder(p), nil
}

// policyWatch reloads the policy on SIGHUP and when its files change,
// until run's ctx ends. A file that does not load leaves the policy before
// it in place, logged at ERROR, counted (errsvc_policy_reload_errors_total)
// and said by /readyz; one that loads is swapped in atomically. The
// signal and file watches are set up by startPolicyWatch, before run, so
// nothing sent in between is missed.
type policyWatch struct {
	path   string
	holder *server.PolicyHolder
	logger *slog.Logger
	hup    chan os.Signal
	files  *fsnotify.Watcher
	// last is the digest of the files the policy held was read from.
	last string
}

func startPolicyWatch(path string, holder *server.PolicyHolder, logger *slog.Logger, watchFiles bool) *policyWatch {
	w := &policyWatch{path: path, holder: holder, logger: logger, hup: make(chan os.Signal, 1), last: policyFilesDigest(path)}
	signal.Notify(w.hup, syscall.SIGHUP)
	if !watchFiles {
		return w
	}
	// The directory is watched, not the file: a Kubernetes ConfigMap
	// swaps a symlink beside it, and editors replace files by renaming.
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		logger.Warn("policy: cannot watch for changes; SIGHUP still reloads", "error", err)
		return w
	}
	dir := path
	if st, err := os.Stat(path); err == nil && !st.IsDir() {
		dir = filepath.Dir(path)
	}
	if err := fw.Add(dir); err != nil {
		logger.Warn("policy: cannot watch for changes; SIGHUP still reloads", "dir", dir, "error", err)
		_ = fw.Close()
		return w
	}
	w.files = fw
	return w
}

func (w *policyWatch) run(ctx context.Context) {
	defer signal.Stop(w.hup)
	path, holder, logger, hup := w.path, w.holder, w.logger, w.hup
	var events <-chan fsnotify.Event
	var errs <-chan error
	if w.files != nil {
		defer w.files.Close()
		events, errs = w.files.Events, w.files.Errors
	}
	last := w.last
	var settle <-chan time.Time
	reload := func(why string) {
		digest := policyFilesDigest(path)
		if why == "change" && digest == last {
			return // touched, not changed
		}
		p, err := policy.Load(path)
		if err != nil {
			holder.Refused(err)
			logger.Error("policy: reload refused; the policy before it stays", "trigger", why, "path", path,
				"version", holder.Load().Version(), "hash", holder.Load().Hash(), "error", err)
			return
		}
		last = digest
		holder.Swap(p)
		logger.Info("policy: reloaded", "trigger", why, "path", path, "version", p.Version(), "hash", p.Hash(), "rules", len(p.Rules()))
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
			reload("SIGHUP")
		case _, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			settle = time.After(reloadSettle)
		case err, ok := <-errs:
			if !ok {
				errs = nil
				continue
			}
			logger.Warn("policy: watching for changes", "error", err)
		case <-settle:
			settle = nil
			reload("change")
		}
	}
}

// policyFilesDigest is a digest of the policy's files (the ones Load
// reads, policy.Files: bounded in count), so a change event that changed
// nothing (a touch, an unrelated file in the folder) reloads nothing. ""
// when they cannot be read, or are over the size a policy may have (Load
// then says so).
func policyFilesDigest(path string) string {
	files, err := policy.Files(path)
	if err != nil {
		return ""
	}
	h := sha256.New()
	var total int64
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil {
			return ""
		}
		if total += st.Size(); total > policy.MaxBytes {
			return ""
		}
		b, err := os.ReadFile(f)
		if err != nil {
			return ""
		}
		h.Write([]byte(f))
		h.Write(b)
	}
	return string(h.Sum(nil))
}
