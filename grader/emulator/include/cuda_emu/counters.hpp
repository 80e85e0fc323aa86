// A launch's memory counters, as the CPU emulator counts them (Nsight Compute's
// definitions; see docs/emulator.md). Shared by the emulator's test API and its GPU
// edition (include_gpu/), where every counter stays 0.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <utility>

namespace cuda_emu {

// Summed over the launch. Requests are warp-level instructions: the k-th
// execution of one access by each lane of a warp is one request.
struct launch_counters {
  uint64_t global_load_requests = 0, global_load_sectors = 0, global_load_ideal_sectors = 0;
  uint64_t global_store_requests = 0, global_store_sectors = 0, global_store_ideal_sectors = 0;
  uint64_t shared_load_requests = 0, shared_load_wavefronts = 0, shared_load_bank_conflicts = 0;
  uint64_t shared_store_requests = 0, shared_store_wavefronts = 0, shared_store_bank_conflicts = 0;
  uint64_t global_load_bytes = 0, global_store_bytes = 0;  // bytes the threads asked for
  // Per request, the sectors a full coalesced warp needs at its width (4 x bytes per lane / 4).
  uint64_t global_load_coalesced_sectors = 0, global_store_coalesced_sectors = 0;
  uint64_t global_atomic_requests = 0;  // atomics on global memory (ncu: ..._op_atom, _op_red)
  // Their sectors, and the coalesced figure at their width, as for loads and stores: a
  // warp's atomicAdd to 32 consecutive floats is 4 sectors, like a coalesced store.
  uint64_t global_atomic_sectors = 0, global_atomic_coalesced_sectors = 0;
  // Device memory (and __device__ variables) written for the first time since
  // cuda_emu::reset(), in 4-byte words: summed over launches, the footprint of what
  // the kernels wrote, however often they re-wrote it. Needs settings().check_races.
  uint64_t global_written_bytes = 0;
  // Warp-wide nvcuda::wmma::mma_sync calls (16 x 16 x 16: 8,192 FLOPs each), the work done
  // on tensor cores. On an sm_90 GPU each is two HMMA.16816 instructions.
  uint64_t wmma_mma_syncs = 0;
  // GPU-Puzzles style: the most any single thread did.
  uint64_t max_thread_global_reads = 0, max_thread_global_writes = 0;
  uint64_t max_thread_shared_reads = 0, max_thread_shared_writes = 0;
  uint64_t max_thread_local_bytes = 0;  // deepest stack at an access: local arrays, +~1 KiB

  double global_load_sectors_per_request() const {
    return global_load_requests ? double(global_load_sectors) / double(global_load_requests) : 0.0;
  }
  double global_store_sectors_per_request() const {
    return global_store_requests ? double(global_store_sectors) / double(global_store_requests)
                                 : 0.0;
  }
  // The coalesced ideal for the access widths used: 4 for float, 16 for float4.
  double global_load_coalesced_sectors_per_request() const {
    return global_load_requests
               ? double(global_load_coalesced_sectors) / double(global_load_requests)
               : 0.0;
  }
  double global_store_coalesced_sectors_per_request() const {
    return global_store_requests
               ? double(global_store_coalesced_sectors) / double(global_store_requests)
               : 0.0;
  }
  // Writes for the coalescing figure: plain stores and atomics (read-modify-write in
  // place, as split-k's atomicAdd into C), per request.
  double global_write_sectors_per_request() const {
    const uint64_t requests = global_store_requests + global_atomic_requests;
    return requests ? double(global_store_sectors + global_atomic_sectors) / double(requests) : 0.0;
  }
  double global_write_coalesced_sectors_per_request() const {
    const uint64_t requests = global_store_requests + global_atomic_requests;
    return requests ? double(global_store_coalesced_sectors + global_atomic_coalesced_sectors) /
                          double(requests)
                    : 0.0;
  }
  // Adds another launch's counts: sums, and the larger of the per-thread maxima.
  launch_counters& operator+=(const launch_counters& o) {
    for (auto [mine, theirs] :
         {std::pair{&global_load_requests, o.global_load_requests},
          {&global_load_sectors, o.global_load_sectors},
          {&global_load_ideal_sectors, o.global_load_ideal_sectors},
          {&global_store_requests, o.global_store_requests},
          {&global_store_sectors, o.global_store_sectors},
          {&global_store_ideal_sectors, o.global_store_ideal_sectors},
          {&shared_load_requests, o.shared_load_requests},
          {&shared_load_wavefronts, o.shared_load_wavefronts},
          {&shared_load_bank_conflicts, o.shared_load_bank_conflicts},
          {&shared_store_requests, o.shared_store_requests},
          {&shared_store_wavefronts, o.shared_store_wavefronts},
          {&shared_store_bank_conflicts, o.shared_store_bank_conflicts},
          {&global_load_bytes, o.global_load_bytes},
          {&global_store_bytes, o.global_store_bytes},
          {&global_load_coalesced_sectors, o.global_load_coalesced_sectors},
          {&global_store_coalesced_sectors, o.global_store_coalesced_sectors},
          {&global_atomic_requests, o.global_atomic_requests},
          {&global_atomic_sectors, o.global_atomic_sectors},
          {&global_atomic_coalesced_sectors, o.global_atomic_coalesced_sectors},
          {&global_written_bytes, o.global_written_bytes},
          {&wmma_mma_syncs, o.wmma_mma_syncs}})
      *mine += theirs;
    for (auto [mine, theirs] : {std::pair{&max_thread_global_reads, o.max_thread_global_reads},
                                {&max_thread_global_writes, o.max_thread_global_writes},
                                {&max_thread_shared_reads, o.max_thread_shared_reads},
                                {&max_thread_shared_writes, o.max_thread_shared_writes},
                                {&max_thread_local_bytes, o.max_thread_local_bytes}})
      if (theirs > *mine) *mine = theirs;
    return *this;
  }
  // Sectors beyond what the requested bytes need if they were contiguous (ncu's
  // "excessive sectors").
  uint64_t global_excessive_sectors() const {
    return (global_load_sectors - global_load_ideal_sectors) +
           (global_store_sectors - global_store_ideal_sectors);
  }
};

}  // namespace cuda_emu
