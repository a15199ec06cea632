// Package storagecluster reconciles StorageCluster managed resources: it
// creates, observes, renames, imports and deletes simplyblock clusters.
//
// It never runs imperative cluster operations (activate, expand, start, ...):
// those are ClusterOps resources with their own lifecycle.
package storagecluster
