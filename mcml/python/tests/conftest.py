"""Shared inputs of the tests: the MCML manual's two validation media (ch. 6)."""

import pytest

#: MCML manual table 6.1: van de Hulst's slab, matched boundaries (n 1 in n 1).
#: Published: Rd 0.09739, Tt 0.66096.
VAN_DE_HULST = dict(
    layers=[dict(n=1.0, mua=10.0, mus=90.0, g=0.75, d=0.02)],
    n_above=1.0,
    n_below=1.0,
    grid=dict(dz=0.001, dr=0.01, nz=20, nr=50, na=10),
)

#: MCML manual table 6.2: Giovanelli's semi-infinite medium, n 1.5 in air, g 0.
#: Published total reflectance (specular 0.04 included): 0.2600.
GIOVANELLI = dict(
    layers=[(1.5, 10.0, 90.0, 0.0, 1e8)],
    grid=dict(dz=0.01, dr=0.01, nz=20, nr=50, na=10),
)


@pytest.fixture
def van_de_hulst():
    return {k: (v.copy() if isinstance(v, (dict, list)) else v) for k, v in VAN_DE_HULST.items()}
