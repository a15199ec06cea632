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
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/types"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
)

// AnswerHold is how long the answer to an accepted call may stay unwritten
// while nothing else is decided: it goes out with the next status write
// that carries a decision (evidence seen, a step done, the end), or at the
// first reconcile past it. A running operation is reconciled at least every
// PollIntervals.Watched (5 s). See docs/operations-engine.md, "The answer,
// written with the next decision".
const AnswerHold = 5 * time.Second

// maxAnswers bounds how many unwritten answers an engine keeps. An answer
// is written or forgotten within a reconcile or two; one left behind by an
// operation deleted meanwhile is dropped after staleAnswer. Past the bound
// all are forgotten: a forgotten answer is resolved by evidence, as after a
// crash.
const (
	maxAnswers  = 4096
	staleAnswer = time.Minute
)

// answers keeps, per operation, the answer to its last accepted call until
// a status write persists it.
type answers struct {
	mu    sync.Mutex
	byUID map[types.UID]answer
}

// An answer is what an accepted call changed in an operation's status.
type answer struct {
	guard   v1alpha1.OperationGuard
	calls   []v1alpha1.BackendCall
	reason  string
	message string
	at      time.Time
	// eventDue: its Triggered event (message) is not recorded yet; it
	// goes out with the answer, or inside the next event recorded for the
	// operation (Engine.record).
	eventDue bool
}

// keep remembers the answer st records for uid, with its Triggered event
// not recorded yet.
func (a *answers) keep(uid types.UID, st *v1alpha1.OperationStatus, at time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.byUID) >= maxAnswers {
		for k, ans := range a.byUID {
			if at.Sub(ans.at) > staleAnswer {
				delete(a.byUID, k)
			}
		}
	}
	if a.byUID == nil || len(a.byUID) >= maxAnswers {
		a.byUID = map[types.UID]answer{}
	}
	a.byUID[uid] = answer{guard: *st.Guard.DeepCopy(), calls: append([]v1alpha1.BackendCall(nil), st.Calls...),
		reason: st.Reason, message: st.Message, at: at, eventDue: true}
}

// evidenceSeen records in the kept answer for uid that the backend showed
// evidence of the call: it is kept with the answer, not written alone.
func (a *answers) evidenceSeen(uid types.UID) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if ans, ok := a.byUID[uid]; ok {
		ans.guard.EvidenceSeen = true
		a.byUID[uid] = ans
	}
}

// takeEvent returns the message of uid's Triggered event when it is not
// recorded yet, and marks it recorded.
func (a *answers) takeEvent(uid types.UID) (string, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	ans, ok := a.byUID[uid]
	if !ok || !ans.eventDue {
		return "", false
	}
	ans.eventDue = false
	a.byUID[uid] = ans
	return ans.message, true
}

// restore puts the kept answer for uid back into st, the status as stored,
// when st still shows the intent it answers. It returns the answer, or nil
// when there is none to restore (none kept, already written, or the
// operation moved on); a kept answer that is no longer needed is forgotten.
func (a *answers) restore(uid types.UID, st *v1alpha1.OperationStatus) *answer {
	a.mu.Lock()
	defer a.mu.Unlock()
	ans, ok := a.byUID[uid]
	if !ok {
		return nil
	}
	g := st.Guard
	if g == nil || g.Outcome != v1alpha1.GuardIntended || g.Step != ans.guard.Step || g.Attempt != ans.guard.Attempt ||
		!g.IntendedAt.Equal(&ans.guard.IntendedAt) {
		delete(a.byUID, uid)
		return nil
	}
	ans.apply(st)
	return &ans
}

func (ans answer) apply(st *v1alpha1.OperationStatus) {
	st.Guard = ans.guard.DeepCopy()
	st.Triggered = true
	st.Calls = append([]v1alpha1.BackendCall(nil), ans.calls...)
	st.Reason, st.Message = ans.reason, ans.message
}

// unwritten reports whether st, the status after a reconcile that restored
// ans onto stored, decides nothing beyond ans (what is only shown aside:
// message and progress) and evidence that the call took effect (kept with
// the answer: answers.evidenceSeen), while ans is younger than AnswerHold.
// Then st can be put back to stored's guard, so that the answer is not
// written alone.
func (ans answer) unwritten(stored, st *v1alpha1.OperationStatus, now time.Time) bool {
	if now.Sub(ans.at) >= AnswerHold {
		return false
	}
	want := stored.DeepCopy()
	ans.apply(want)
	got := st.DeepCopy()
	for _, s := range []*v1alpha1.OperationStatus{want, got} {
		s.Reason, s.Message, s.Progress, s.QueuePosition = "", "", nil, nil
		if s.Guard != nil {
			s.Guard.EvidenceSeen = false
		}
	}
	return equality.Semantic.DeepEqual(want, got)
}

// withhold puts st back to what stored shows of the call, keeping what is
// only shown.
func withhold(stored, st *v1alpha1.OperationStatus) {
	st.Guard = stored.Guard.DeepCopy()
	st.Triggered = stored.Triggered
	st.Calls = append([]v1alpha1.BackendCall(nil), stored.Calls...)
	st.Reason = stored.Reason
}
