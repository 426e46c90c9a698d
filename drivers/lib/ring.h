/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Index arithmetic of the rdma_rxe-ABI rings (struct sroce_ring_hdr):
 * indices are slot numbers masked to the ring size, one slot is always
 * kept free. Callers pass the mask from their own private copy, never the
 * one in the shared header, and mask every index read from shared memory.
 */
#ifndef SROCE_RING_H
#define SROCE_RING_H

#include "lib/sroce_lib.h"

/**
 * sroce_ring_count() - entries between consumer and producer
 * @prod: producer index
 * @cons: consumer index (any value: it is masked)
 * @mask: number of slots minus one
 *
 * Return: the number of filled slots.
 */
static inline u32 sroce_ring_count(u32 prod, u32 cons, u32 mask)
{
	return (prod - cons) & mask;
}

/**
 * sroce_ring_full() - whether the producer must wait
 * @prod: producer index
 * @cons: consumer index
 * @mask: number of slots minus one
 *
 * Return: true when one free slot is left (it is never used).
 */
static inline bool sroce_ring_full(u32 prod, u32 cons, u32 mask)
{
	return ((prod + 1 - cons) & mask) == 0;
}

/**
 * sroce_ring_next() - the index after @index
 * @index: a slot index
 * @mask: number of slots minus one
 *
 * Return: (@index + 1) wrapped to the ring.
 */
static inline u32 sroce_ring_next(u32 index, u32 mask)
{
	return (index + 1) & mask;
}

/**
 * sroce_ring_slot() - address of a slot
 * @hdr: the ring
 * @index: slot index (masked here)
 * @mask: number of slots minus one
 * @log2_elem: log2 of the slot size
 *
 * Return: pointer to the slot's first byte.
 */
static inline void *sroce_ring_slot(struct sroce_ring_hdr *hdr, u32 index,
				    u32 mask, unsigned int log2_elem)
{
	return (u8 *)(hdr + 1) + ((size_t)(index & mask) << log2_elem);
}

/**
 * sroce_ring_bytes() - size of a ring with its header
 * @log2_slots: log2 of the number of slots
 * @log2_elem: log2 of the slot size
 *
 * Return: bytes to allocate.
 */
static inline size_t sroce_ring_bytes(unsigned int log2_slots,
				      unsigned int log2_elem)
{
	return sizeof(struct sroce_ring_hdr) +
	       ((size_t)1 << (log2_slots + log2_elem));
}

#endif /* SROCE_RING_H */
