// Host entry points of probes.cu (see there).
#pragma once

enum class probe { copy, strided, bank_conflict, race, out_of_bounds };

// d_in needs 1024*256*32 floats for `strided`; d_out 1024*256 floats; for
// out_of_bounds, d_out holds exactly n floats.
void run_probe(probe which, float* d_out, const float* d_in, int n);
