package storagenode

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

func TestPollInterval(t *testing.T) {
	const configured = time.Minute

	type args struct {
		mg         *v1alpha1.StorageNode
		configured time.Duration
	}
	type want struct {
		d time.Duration
	}

	cases := map[string]struct {
		reason string
		args   args
		want   want
	}{
		"NeverAdded": {
			reason: "A node that was never added is not in transition.",
			args:   args{mg: storageNode(), configured: configured},
			want:   want{d: configured},
		},
		"AddQueued": {
			reason: "A node whose add was queued but not yet observed is in transition.",
			args:   args{mg: storageNode(withAddTaskAnnotation(testTaskID)), configured: configured},
			want:   want{d: transitionPollInterval},
		},
		"CreateOutcomeUnknown": {
			reason: "A node whose add may have been sent without its task id recorded is in transition: its record is looked for often.",
			args:   args{mg: storageNode(withCreateInterrupted()), configured: configured},
			want:   want{d: transitionPollInterval},
		},
		"CreateAnswerLost": {
			reason: "A node whose add's answer was lost is in transition.",
			args:   args{mg: storageNode(withCreateAnswerLost()), configured: configured},
			want:   want{d: transitionPollInterval},
		},
		"AddTaskOpen": {
			reason: "A node whose node_add task runs is in transition.",
			args: args{mg: storageNode(withAddTaskAnnotation(testTaskID), withAddTask(simplyblock.TaskRunning, 0, ""),
				withAtProviderStatus(simplyblock.NodeOnline)), configured: configured},
			want: want{d: transitionPollInterval},
		},
		"InCreation": {
			reason: "A node record in_creation is in transition.",
			args: args{mg: storageNode(withAddTaskAnnotation(testTaskID), withAddTask(simplyblock.TaskDone, 0, nodeAddSuccess),
				withAtProviderStatus(simplyblock.NodeInCreation)), configured: configured},
			want: want{d: transitionPollInterval},
		},
		"Restarting": {
			reason: "A restarting node is in transition.",
			args:   args{mg: storageNode(withAtProviderStatus(simplyblock.NodeInRestart)), configured: configured},
			want:   want{d: transitionPollInterval},
		},
		"Online": {
			reason: "A settled online node is polled at the configured interval.",
			args: args{mg: storageNode(withAddTaskAnnotation(testTaskID), withAddTask(simplyblock.TaskDone, 0, nodeAddSuccess),
				withAtProviderStatus(simplyblock.NodeOnline)), configured: configured},
			want: want{d: configured},
		},
		"OnlineBeingDeleted": {
			reason: "An online node being deleted is about to be removed, so it is in transition.",
			args:   args{mg: storageNode(withAtProviderStatus(simplyblock.NodeOnline), withDeleted()), configured: configured},
			want:   want{d: transitionPollInterval},
		},
		"Removed": {
			reason: "A removed node is settled.",
			args:   args{mg: storageNode(withAtProviderStatus(simplyblock.NodeRemoved)), configured: configured},
			want:   want{d: configured},
		},
		"RemovedBeingDeleted": {
			reason: "A removed node being deleted is settled.",
			args:   args{mg: storageNode(withAtProviderStatus(simplyblock.NodeRemoved), withDeleted()), configured: configured},
			want:   want{d: configured},
		},
		"ConfiguredShorter": {
			reason: "A configured interval shorter than the transition interval is kept.",
			args:   args{mg: storageNode(withAtProviderStatus(simplyblock.NodeInRestart)), configured: time.Second},
			want:   want{d: time.Second},
		},
	}

	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := pollInterval(tc.args.mg, tc.args.configured)
			if diff := cmp.Diff(tc.want.d, got); diff != "" {
				t.Errorf("\n%s\npollInterval(...): -want, +got:\n%s\n", tc.reason, diff)
			}
		})
	}
}

func TestPollIntervalOtherKind(t *testing.T) {
	// A managed resource of another kind keeps the configured interval.
	if got := pollInterval(&v1alpha1.StoragePool{}, time.Minute); got != time.Minute {
		t.Errorf("pollInterval(StoragePool, 1m): got %s, want 1m", got)
	}
}
