/*
Copyright 2026 The provider-simplyblock Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

	http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package ops

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strings"
	"sync"

	"github.com/pkg/errors"
	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
)

// The ledger keeps a record of every operation that ran on a target, in a
// ConfigMap that outlives the target's status (docs/operations-engine.md,
// "The ledger").
const (
	// LedgerLabel marks the ledger ConfigMaps; the provider caches only
	// ConfigMaps with it.
	LedgerLabel = "ops.simplyblock.crossplane.io/ledger"
	// LedgerTargetAnnotation names the target (kind, name, backend id) a
	// ledger belongs to, for people reading it.
	LedgerTargetAnnotation = "ops.simplyblock.crossplane.io/target"

	// LedgerRecent is how many records a ledger keeps whole; older ones are
	// compacted to their run-once key.
	LedgerRecent = 200
	// LedgerCompacted is how many compacted records a ledger keeps; older
	// ones are dropped. A ledger so remembers the last
	// LedgerRecent+LedgerCompacted operations of its target, in under
	// 300 KB.
	LedgerCompacted = 12000

	// ledgerMessage is how much of a record's message the ledger keeps.
	ledgerMessage = 200

	ledgerRecentKey    = "recent"
	ledgerCompactedKey = "compacted"
	ledgerPrefix       = "simplyblock-ops-ledger-"

	errGetLedger    = "cannot get the operation ledger"
	errWriteLedger  = "cannot write the operation ledger"
	errParseLedger  = "cannot parse the operation ledger"
	errNoLedgerName = "the target has no backend id to name its ledger"
)

// LedgerName is the name of the ledger of the target with backendID.
func LedgerName(backendID string) string { return ledgerPrefix + strings.ToLower(backendID) }

// LedgerCache is the cache setting for ledgers: only ConfigMaps labelled
// LedgerLabel are watched.
func LedgerCache() map[client.Object]cache.ByObject {
	return map[client.Object]cache.ByObject{
		&corev1.ConfigMap{}: {Label: labels.SelectorFromSet(labels.Set{LedgerLabel: "true"})},
	}
}

// A Ledger reads and appends the ledgers of targets.
type Ledger struct {
	// Kube reads ledgers (through a cache that holds the labelled
	// ConfigMaps) and writes them.
	Kube client.Client
	// Reader reads a ledger from the API server after a write conflict.
	Reader client.Reader

	mu     sync.Mutex
	parsed map[types.NamespacedName]parsedLedger
}

// parsedLedger is a ledger's content as of one resource version.
type parsedLedger struct {
	resourceVersion string
	book            *ledgerBook
}

// A ledgerBook is a ledger's content: whole recent records, oldest first,
// and the compacted older ones.
type ledgerBook struct {
	recent    []v1alpha1.OperationRecord
	compacted []compactRecord
	keys      map[string]v1alpha1.OperationPhase
}

// A compactRecord is what run-once needs of an old record: the hash of its
// namespace, name, type and spec hash, and the phase it ended in.
type compactRecord struct {
	key   string
	phase v1alpha1.OperationPhase
}

// RunOnceKey is the compacted key of an operation: 96 bits of the SHA-256
// of its namespace, name, type and spec hash.
func RunOnceKey(namespace, name, typ, specHash string) string {
	sum := sha256.Sum256([]byte(namespace + "\x00" + name + "\x00" + typ + "\x00" + specHash))
	return base64.RawURLEncoding.EncodeToString(sum[:12])
}

// Twin returns the ledger's record of an earlier operation that o is a
// re-creation of (TwinOf), or nil. A compacted record has no UID, times or
// reason.
func (l *Ledger) Twin(ctx context.Context, namespace, backendID string, o Object, specHash string) (*v1alpha1.OperationRecord, error) {
	b, err := l.read(ctx, namespace, backendID)
	if err != nil || b == nil {
		return nil, err
	}
	return b.twin(o, specHash), nil
}

// Record returns the ledger's whole record of the operation with uid, if
// any.
func (l *Ledger) Record(ctx context.Context, namespace, backendID string, uid types.UID) (*v1alpha1.OperationRecord, error) {
	b, err := l.read(ctx, namespace, backendID)
	if err != nil || b == nil {
		return nil, err
	}
	return b.record(uid), nil
}

// Append adds rec, o's record, to the ledger of the target with backendID
// in namespace, creating the ledger if needed, together with any record of
// seed (the target's status history) the ledger lacks. It writes nothing
// when the ledger already has a record of o, and returns that record: an
// earlier finish wrote it and crashed before releasing the lock.
func (l *Ledger) Append(ctx context.Context, namespace, backendID, target string, o Object, rec v1alpha1.OperationRecord, seed []v1alpha1.OperationRecord) (*v1alpha1.OperationRecord, error) {
	if backendID == "" {
		return nil, errors.New(errNoLedgerName)
	}
	key := types.NamespacedName{Namespace: namespace, Name: LedgerName(backendID)}
	rec.Message = truncate(rec.Message, ledgerMessage)
	var prior *v1alpha1.OperationRecord
	fresh := false
	// A conflict, or a create that lost to another writer's, is tried
	// again on the ledger read from the API server.
	retriable := func(err error) bool { return kerrors.IsConflict(err) || kerrors.IsAlreadyExists(err) }
	err := retry.OnError(retry.DefaultRetry, retriable, func() error {
		prior = nil
		read := client.Reader(l.Kube)
		if fresh && l.Reader != nil {
			read = l.Reader
		}
		fresh = true
		cm := &corev1.ConfigMap{}
		err := read.Get(ctx, key, cm)
		create := kerrors.IsNotFound(err)
		if err != nil && !create {
			return errors.Wrap(err, errGetLedger)
		}
		b := &ledgerBook{}
		if !create {
			if b, err = parseLedgerBook(cm); err != nil {
				return err
			}
		}
		if prior = b.record(o.GetUID()); prior != nil {
			return nil
		}
		for _, s := range seed {
			if _, compacted := b.keys[RunOnceKey(namespace, s.Name, s.Type, s.SpecHash)]; compacted {
				continue
			}
			if s.UID != "" && b.record(s.UID) == nil && s.UID != o.GetUID() {
				s.Message = truncate(s.Message, ledgerMessage)
				b.add(namespace, s)
			}
		}
		b.add(namespace, rec)
		cm.SetName(key.Name)
		cm.SetNamespace(key.Namespace)
		lbl := cm.GetLabels()
		if lbl == nil {
			lbl = map[string]string{}
		}
		lbl[LedgerLabel] = "true"
		cm.SetLabels(lbl)
		ann := cm.GetAnnotations()
		if ann == nil {
			ann = map[string]string{}
		}
		ann[LedgerTargetAnnotation] = target + " (" + backendID + ")"
		cm.SetAnnotations(ann)
		b.render(cm)
		if create {
			return errors.Wrap(l.Kube.Create(ctx, cm), errWriteLedger)
		}
		return errors.Wrap(l.Kube.Update(ctx, cm), errWriteLedger)
	})
	return prior, err
}

// read returns the parsed ledger of the target with backendID, nil when it
// has none. Parsed ledgers are kept by resource version.
func (l *Ledger) read(ctx context.Context, namespace, backendID string) (*ledgerBook, error) {
	if l == nil || backendID == "" {
		return nil, nil
	}
	key := types.NamespacedName{Namespace: namespace, Name: LedgerName(backendID)}
	cm := &corev1.ConfigMap{}
	if err := l.Kube.Get(ctx, key, cm); err != nil {
		if kerrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, errors.Wrap(err, errGetLedger)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if p, ok := l.parsed[key]; ok && p.resourceVersion == cm.GetResourceVersion() {
		return p.book, nil
	}
	b, err := parseLedgerBook(cm)
	if err != nil {
		return nil, err
	}
	if l.parsed == nil {
		l.parsed = map[types.NamespacedName]parsedLedger{}
	}
	l.parsed[key] = parsedLedger{resourceVersion: cm.GetResourceVersion(), book: b}
	return b, nil
}

// parseLedgerBook reads a ledger ConfigMap: "recent" holds one JSON record
// per line, "compacted" one "<key> <S|F>" (Succeeded or Failed) per line,
// oldest first.
func parseLedgerBook(cm *corev1.ConfigMap) (*ledgerBook, error) {
	b := &ledgerBook{keys: map[string]v1alpha1.OperationPhase{}}
	sc := bufio.NewScanner(strings.NewReader(cm.Data[ledgerRecentKey]))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var r v1alpha1.OperationRecord
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			return nil, errors.Wrapf(err, "%s %s/%s", errParseLedger, cm.GetNamespace(), cm.GetName())
		}
		b.recent = append(b.recent, r)
	}
	for _, line := range strings.Split(cm.Data[ledgerCompactedKey], "\n") {
		k, phase, ok := strings.Cut(strings.TrimSpace(line), " ")
		if !ok {
			continue
		}
		p := v1alpha1.OperationSucceeded
		if phase == "F" {
			p = v1alpha1.OperationFailed
		}
		b.compacted = append(b.compacted, compactRecord{key: k, phase: p})
		b.keys[k] = p
	}
	return b, nil
}

// render writes b into cm's data.
func (b *ledgerBook) render(cm *corev1.ConfigMap) {
	var recent, compacted strings.Builder
	for _, r := range b.recent {
		line, _ := json.Marshal(r) //nolint:errchkjson // a record always marshals.
		recent.Write(line)
		recent.WriteByte('\n')
	}
	for _, c := range b.compacted {
		phase := "S"
		if c.phase == v1alpha1.OperationFailed {
			phase = "F"
		}
		compacted.WriteString(c.key + " " + phase + "\n")
	}
	cm.Data = map[string]string{ledgerRecentKey: recent.String(), ledgerCompactedKey: compacted.String()}
}

// record returns b's whole record of the operation with uid, if any.
func (b *ledgerBook) record(uid types.UID) *v1alpha1.OperationRecord {
	for i := len(b.recent) - 1; i >= 0; i-- {
		if b.recent[i].UID == uid {
			r := b.recent[i]
			return &r
		}
	}
	return nil
}

// twin is TwinOf over the ledger: a whole record first, then a compacted
// one.
func (b *ledgerBook) twin(o Object, specHash string) *v1alpha1.OperationRecord {
	for i := len(b.recent) - 1; i >= 0; i-- {
		r := b.recent[i]
		if r.Name == o.GetName() && r.UID != o.GetUID() && r.Type == o.GetOperationType() && r.SpecHash == specHash && r.Reason != ReasonDeleted {
			return &r
		}
	}
	if phase, ok := b.keys[RunOnceKey(o.GetNamespace(), o.GetName(), o.GetOperationType(), specHash)]; ok {
		return &v1alpha1.OperationRecord{Name: o.GetName(), Type: o.GetOperationType(), Phase: phase, SpecHash: specHash}
	}
	return nil
}

// add appends r and compacts: records beyond LedgerRecent shrink to their
// run-once key (a record of an operation deleted while it ran blocks no
// re-creation and is dropped), keys beyond LedgerCompacted are dropped,
// oldest first.
func (b *ledgerBook) add(namespace string, r v1alpha1.OperationRecord) {
	if b.keys == nil {
		b.keys = map[string]v1alpha1.OperationPhase{}
	}
	b.recent = append(b.recent, r)
	if over := len(b.recent) - LedgerRecent; over > 0 {
		for _, old := range b.recent[:over] {
			if old.Reason == ReasonDeleted {
				continue
			}
			k := RunOnceKey(namespace, old.Name, old.Type, old.SpecHash)
			if _, ok := b.keys[k]; ok {
				continue
			}
			b.compacted = append(b.compacted, compactRecord{key: k, phase: old.Phase})
			b.keys[k] = old.Phase
		}
		b.recent = append([]v1alpha1.OperationRecord(nil), b.recent[over:]...)
	}
	if over := len(b.compacted) - LedgerCompacted; over > 0 {
		for _, c := range b.compacted[:over] {
			delete(b.keys, c.key)
		}
		b.compacted = append([]compactRecord(nil), b.compacted[over:]...)
	}
}

// twin returns the record of an earlier operation that r's is a re-creation
// of: from the target's status history (hist, nil when it does not exist),
// else from the ledger.
func (e *Engine) twin(ctx context.Context, r Run, hist Target) (*v1alpha1.OperationRecord, error) {
	if hist != nil {
		if t := TwinOf(hist, r.Object, r.SpecHash); t != nil {
			return t, nil
		}
	}
	if e.Ledger == nil {
		return nil, nil
	}
	return e.Ledger.Twin(ctx, r.Object.GetNamespace(), r.HistoryID, r.Object, r.SpecHash)
}

// ownLedgerRecord returns the ledger's record of r's operation: its finish
// wrote it and crashed before releasing the lock on t. Each process looks
// once per operation that holds the lock or started.
func (e *Engine) ownLedgerRecord(ctx context.Context, r Run, t Target) (*v1alpha1.OperationRecord, error) {
	if e.Ledger == nil || r.HistoryID == "" {
		return nil, nil
	}
	uid := r.Object.GetUID()
	if _, checked := e.ledgerChecked.Load(uid); checked || !(Holds(t, r.Object) || r.Object.GetOperationStatus().StartedAt != nil) {
		return nil, nil
	}
	rec, err := e.Ledger.Record(ctx, r.Object.GetNamespace(), r.HistoryID, uid)
	if err == nil && rec == nil {
		e.ledgerChecked.Store(uid, true)
	}
	return rec, err
}

// toLedger appends the finishing operation's record to the ledger, with
// the records of the target's status history it lacks (those written
// before the ledger existed), and returns the record. When the ledger has
// it already (an earlier finish crashed before releasing the lock), that
// outcome stands and is put back in the operation's status.
func (e *Engine) toLedger(ctx context.Context, r Run) (v1alpha1.OperationRecord, error) {
	o := r.Object
	rec := recordFor(o)
	if e.Ledger == nil || r.HistoryID == "" {
		return rec, nil
	}
	var seed []v1alpha1.OperationRecord
	if h := e.Lock.newHistory(); r.historyKey().Name != "" && e.Kube.Get(ctx, r.historyKey(), h) == nil {
		seed = h.GetOperationHistory()
	}
	prior, err := e.Ledger.Append(ctx, o.GetNamespace(), r.HistoryID, r.TargetDescription, o, rec, seed)
	if err != nil || prior == nil {
		return rec, err
	}
	st := o.GetOperationStatus()
	st.Phase, st.Reason, st.Message, st.CompletedAt = prior.Phase, prior.Reason, prior.Message, prior.CompletedAt
	return recordFor(o), nil
}
