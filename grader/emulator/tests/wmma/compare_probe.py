"""Compares the wmma probe's output on the emulator with a GPU's (wmma_probe.gpu.txt).

Every line must be the same, except the device's name and the random product's error,
which must be small on both (a tensor core may round its partial sums differently from
the emulator's one rounding). Usage: compare_probe.py <emulator output> <gpu output>"""
import sys

BOUND = 1e-5  # the random product's error, relative to its largest element


def lines(path):
    with open(path, encoding='utf-8') as f:
        return [l.rstrip('\n') for l in f if l.strip()]


def main():
    emu, gpu = lines(sys.argv[1]), lines(sys.argv[2])
    problems = []
    if len(emu) != len(gpu):
        problems.append(f'{len(emu)} lines on the emulator, {len(gpu)} on the GPU')
    for i, (e, g) in enumerate(zip(emu, gpu), 1):
        if e.startswith('device ') and g.startswith('device '):
            continue
        if e.startswith('mma random:') and g.startswith('mma random:'):
            for side, line in (('emulator', e), ('GPU', g)):
                err = float(line.rsplit('=', 1)[1])
                if not err <= BOUND:
                    problems.append(f'line {i}: the {side} product is off by {err:.3g} (bound {BOUND})')
            continue
        if e != g:
            problems.append(f'line {i}:\n  emulator: {e}\n  GPU:      {g}')
    for p in problems:
        print(p)
    print(f'{len(problems)} difference(s) between the emulator and {gpu[0][7:] if gpu else "the GPU"}')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
