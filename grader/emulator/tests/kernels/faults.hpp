// Host entry points of faults.cu (kernels that fail, hang or crash).
//   build/bin/emulator_tests -# "[#test_faults]"
#pragma once

void adv_warp_returns_before_barrier(float* out);
void adv_big_local_array(float* out);    // a 160 KiB local array
void adv_blank(float* out, int blocks);  // thread 5 of block 1 hits BLANK_STMT
void adv_spin(const int* flag, int* out);
void adv_atomic_spin(int* flag);
void adv_static_spin();
void adv_device_assert(int* p);
