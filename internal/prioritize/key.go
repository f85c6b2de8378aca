package prioritize

import "hash/maphash"

var seed = maphash.MakeSeed()

// Key returns the key of tenant for a Fair Gate or Queue: a hash, random
// per process, so that no client can choose names that share a group on
// purpose. It allocates nothing.
func Key(tenant string) uint64 { return maphash.String(seed, tenant) }
