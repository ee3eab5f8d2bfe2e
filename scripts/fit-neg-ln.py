#!/usr/bin/env python3
"""Fits the polynomial of reconverge's f32 step length `neg_ln_draw_f32`
(workloads/src/mcml/float.rs): ln(1 + f) = f - f^2/2 + f^3 P(f) on [sqrt(1/2) - 1, sqrt(2) - 1].

P of degree 7 by weighted least squares (weight f^3 / ln(1 + f), so the fit is for relative
error of ln(1 + f)) on 20,000 Chebyshev points in f64, rounded to f32. Prints the f32 bit
patterns and, emulating the Rust code's f32 operations with numpy, the largest error in ulp over
all 2^24 draws. The Rust test `neg_ln_draw_is_faithful_everywhere` measures the same bound on
the real code. Needs numpy.
"""
import numpy as np

f32 = np.float32
DEG = 7
lo, hi = np.sqrt(0.5) - 1, np.sqrt(2) - 1


def target(f):
    """(ln(1 + f) - f + f^2 / 2) / f^3, by its series near 0."""
    out = np.empty_like(f)
    small = np.abs(f) < 1e-3
    fs = f[small]
    out[small] = 1 / 3 - fs / 4 + fs**2 / 5 - fs**3 / 6
    fb = f[~small]
    out[~small] = (np.log1p(fb) - fb + fb * fb / 2) / fb**3
    return out


x = np.cos(np.linspace(0, np.pi, 20000)) * (hi - lo) / 2 + (hi + lo) / 2
w = np.abs(x**3 / np.log1p(x))
A = np.vstack([x**i for i in range(DEG + 1)]).T
coef, *_ = np.linalg.lstsq(A * w[:, None], target(x) * w, rcond=None)
c = [f32(v) for v in coef]
print("P coefficients (f32 bits):", [hex(np.array([v], dtype=f32).view(np.uint32)[0]) for v in c])

LN2_HI = np.array([0x3F317200], dtype=np.uint32).view(f32)[0]
LN2_LO = f32(np.log(2) - float(LN2_HI))
k = np.arange(1, 2**24 + 1, dtype=np.uint32)
ix = k.astype(f32).view(np.uint32) + np.uint32(0x3F800000 - 0x3F3504F3)
e = (ix >> 23).astype(np.int64) - 0x7F
m = ((ix & np.uint32(0x007FFFFF)) + np.uint32(0x3F3504F3)).view(f32)
f = (m - f32(1)).astype(f32)
p = np.full_like(f, c[-1])
for cc in c[-2::-1]:
    p = (p * f + cc).astype(f32)
f2 = (f * f).astype(f32)
r = ((f2 * f).astype(f32) * p - (f32(0.5) * f2).astype(f32)).astype(f32)
n = (24 - e).astype(f32)
res = (((n * LN2_HI).astype(f32) - f).astype(f32) + ((n * LN2_LO).astype(f32) - r).astype(f32)).astype(f32)
exact = -np.log(k.astype(np.float64) / 2.0**24)
ulp = np.where(exact == 0, float(np.spacing(f32(0))), np.spacing(exact.astype(f32)).astype(np.float64))
err = np.abs(res.astype(np.float64) - exact) / ulp
print(f"max error {err.max():.3f} ulp at k = {k[np.argmax(err)]}")
