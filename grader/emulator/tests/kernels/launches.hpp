// Host entry points of launches.cu (launch syntax, grid shapes, configurations).
//   build/bin/emulator_tests -# "[#test_launches]"
#pragma once

// Launch syntax the rewrite must accept; each fills p[0..n) with a value.
void adv_launch_four_config_args(int* p, int n, int v);  // <<<g, b, 0, 0>>>
void adv_launch_nested_template(int* p, int n, int v);   // k<adv_pair<int>, 2><<<>>>
void adv_launch_in_lambda(int* p, int n, int v);         // [&] { k<<<>>>(); }
void adv_launch_in_macro(int* p, int n, int v);          // #define L(k) k<<<>>>()
void adv_launch_with_shifts(int* p, int n, int v);       // a >> b in config and args

// Grids and blocks.
void adv_index_3d(int* out);  // grid (2,3,2), block (4,2,3): 4 ints per thread
void adv_one_thread_blocks(int* out, int blocks_x, int blocks_y);
void adv_launch_config(int* p, unsigned gx, unsigned gy, unsigned bx, unsigned by, unsigned bz);
