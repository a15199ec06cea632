// Package storagepool reconciles StoragePool managed resources: create,
// observe, update (name, size and QoS limits) and delete of simplyblock
// storage pools.
package storagepool
