package storage

import (
	"time"

	"github.com/hashicorp/golang-lru/v2/expirable"
)

// CacheStore is an LRU with TTL (golang-lru/v2/expirable) for token counts,
// tool results and file contents. Create it once per process: it owns a
// goroutine that expires entries and never stops. Safe for concurrent use.
// Nothing in it is durable; a miss must always be recomputable.
type CacheStore struct {
	lru *expirable.LRU[string, any]
}

// NewCacheStore makes a cache of at most size entries (0 = unbounded),
// each dropped ttl after it was added (0 = never).
func NewCacheStore(size int, ttl time.Duration) *CacheStore {
	return &CacheStore{lru: expirable.NewLRU[string, any](size, nil, ttl)}
}

// Get returns the value of key and marks it recently used.
func (c *CacheStore) Get(key string) (any, bool) { return c.lru.Get(key) }

// Add stores v under key, evicting the least recently used entry when full.
func (c *CacheStore) Add(key string, v any) { c.lru.Add(key, v) }

// Remove drops key; it reports whether it was present.
func (c *CacheStore) Remove(key string) bool { return c.lru.Remove(key) }

// Len is the number of entries, expired ones not yet swept included.
func (c *CacheStore) Len() int { return c.lru.Len() }
