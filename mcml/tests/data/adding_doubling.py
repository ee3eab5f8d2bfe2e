"""Reference total reflectance and transmittance for mcml/tests/adding_doubling.rs.

Independent of the Monte Carlo code: iadpython's adding-doubling solution of the radiative
transport equation (Prahl), a slab of index n between two media of index 1 (air), collimated
light at normal incidence. `Sample.rt()` returns (UR1, UT1, URU, UTU); UR1 and UT1 are the
total reflectance (specular included) and total transmittance (unscattered included) for a
collimated normal beam, which is what MCML reports as Rsp + Rd and Tt.

    pip install iadpython==0.5.3 scipy
    python3 mcml/tests/data/adding_doubling.py

Cases: (albedo a, optical thickness b = (mua + mus) d, anisotropy g, slab index n).
"""
import iadpython as iad

QUAD_PTS = 48

CASES = [
    # The top layer of MCML's sample.mci: n 1.37, mua 1, mus 100 /cm, g 0.9, d 0.2 cm.
    (100.0 / 101.0, 101.0 * 0.2, 0.9, 1.37),
    (0.5, 1.0, 0.0, 1.5),
    (0.9, 2.0, 0.75, 1.4),
    (0.95, 5.0, 0.5, 1.33),
    (0.8, 0.5, 0.9, 1.6),
    (0.99, 4.0, 0.0, 1.2),
    (0.3, 10.0, 0.8, 1.5),
]

print(f"# iadpython {iad.__version__}, {QUAD_PTS} quadrature points")
for a, b, g, n in CASES:
    s = iad.Sample(a=a, b=b, g=g, n=n, n_above=1.0, n_below=1.0, quad_pts=QUAD_PTS)
    ur1, ut1, _, _ = s.rt()
    print(f"a={a!r} b={b!r} g={g!r} n={n!r}: R={float(ur1):.6f} T={float(ut1):.6f}")
