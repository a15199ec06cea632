// Package storagenode reconciles StorageNode managed resources.
//
// The backend answers a node add with a node_add task id, not a node id; the
// node record appears later with its own UUID. Create records the task id in
// an annotation; Observe shows the task's progress and adopts the node record
// (matched by management address) as the external name once it appears.
// Removal is asynchronous and leaves a record in state removed.
package storagenode
