"""The result object: shapes, dtypes, coordinates, input echo, and the .mco/.mci files."""

import math

import numpy as np
import pytest

import reconverge_mcml as mcml
from conftest import VAN_DE_HULST

TWO_LAYERS = dict(
    layers=[dict(n=1.37, mua=1.0, mus=100.0, g=0.9, d=0.1), (1.37, 1.0, 10.0, 0.0, 0.2)],
    n_above=1.0,
    n_below=1.0,
    grid=dict(dz=0.01, dr=0.02, nz=30, nr=40, na=5),
)


def test_shapes_dtypes_and_coordinates():
    r = mcml.run(photons=2_000, **TWO_LAYERS)
    nz, nr, na = 30, 40, 5
    shapes = dict(
        A_l=(2,), A_z=(nz,), Rd_r=(nr,), Rd_a=(na,), Tt_r=(nr,), Tt_a=(na,),
        A_rz=(nr, nz), Rd_ra=(nr, na), Tt_ra=(nr, na), fluence=(nr, nz),
        r=(nr,), z=(nz,), alpha=(na,),
    )
    for name, shape in shapes.items():
        a = getattr(r, name)
        assert isinstance(a, np.ndarray), name
        assert a.shape == shape, name
        assert a.dtype == np.float64, name
    for name in ["Rsp", "Rd", "A", "Tt"]:
        assert isinstance(getattr(r, name), float)
    np.testing.assert_allclose(r.r, (np.arange(nr) + 0.5) * 0.02)
    np.testing.assert_allclose(r.z, (np.arange(nz) + 0.5) * 0.01)
    np.testing.assert_allclose(r.alpha, (np.arange(na) + 0.5) * math.pi / 2 / na)
    # Each access is a fresh array: changing one leaves the result as it was.
    a = r.A_rz
    a[:] = -1
    assert (r.A_rz >= 0).all()


def test_the_input_is_echoed():
    r = mcml.run(photons=1_000, seed=9, **TWO_LAYERS)
    assert r.layers == [
        dict(n=1.37, mua=1.0, mus=100.0, g=0.9, d=0.1),
        dict(n=1.37, mua=1.0, mus=10.0, g=0.0, d=0.2),
    ]
    assert r.grid == TWO_LAYERS["grid"]
    assert (r.n_above, r.n_below, r.photons, r.seed) == (1.0, 1.0, 1_000, 9)
    assert (r.backend, r.strategy, r.precision) == ("cpu", "scalar", "f32")
    assert r.elapsed >= 0
    assert "photons=1000" in repr(r)


def test_a_missing_grid_key_keeps_the_default():
    r = mcml.run([(1.4, 1.0, 10.0, 0.9, 0.5)], photons=500, grid=dict(nz=7))
    assert r.grid == dict(dz=0.01, dr=0.01, nz=7, nr=100, na=30)
    assert mcml.run([(1.4, 1.0, 10.0, 0.9, 0.5)], photons=500).photons == 500


def close_to_file_precision(read, direct):
    # %12.4E keeps five significant digits; %-14.6G six; A_l's %12.4G four.
    for name in ["A_z", "Rd_r", "Rd_a", "Tt_r", "Tt_a", "A_rz", "Rd_ra", "Tt_ra", "fluence"]:
        np.testing.assert_allclose(getattr(read, name), getattr(direct, name), rtol=5e-5, err_msg=name)
    np.testing.assert_allclose(read.A_l, direct.A_l, rtol=5e-4)
    for name in ["Rsp", "Rd", "A", "Tt"]:
        assert getattr(read, name) == pytest.approx(getattr(direct, name), rel=5e-6)


def test_read_mco_gives_back_what_run_wrote(tmp_path):
    out = tmp_path / "two.mco"
    r = mcml.run(photons=3_000, output=str(out), **TWO_LAYERS)
    read = mcml.read_mco(out)
    close_to_file_precision(read, r)
    assert read.layers == r.layers and read.grid == r.grid and read.photons == 3_000
    assert (read.seed, read.backend, read.strategy) == (None, None, None)
    # The same file from the result's own writer.
    again = tmp_path / "again.mco"
    r.write_mco(str(again))
    close_to_file_precision(mcml.read_mco(again), r)
    with pytest.raises(mcml.McmlError, match="read from an .mco"):
        read.write_mco(str(tmp_path / "third.mco"))


def test_mci_files_round_trip_and_run_as_the_layer_list(tmp_path):
    path = tmp_path / "in.mci"
    spec = dict(VAN_DE_HULST, photons=2_000, output="vdh.mco")
    mcml.write_mci(path, [spec, dict(spec, output="vdh2.mco")])
    runs = mcml.read_mci(path)
    assert len(runs) == 2
    assert runs[0] == dict(spec, grid=dict(VAN_DE_HULST["grid"]))
    from_file = mcml.run(mci=path)
    from_list = mcml.run(photons=2_000, **VAN_DE_HULST)
    np.testing.assert_array_equal(from_file.A_rz, from_list.A_rz)
    # Run 2 continues the streams of run 1, as MCML continues its random stream: the same
    # input gives an independent estimate, not a copy.
    second = mcml.run(mci=path, mci_run=1)
    assert second.layers == from_file.layers and second.Rd != from_file.Rd
    # run(**spec) writes the .mco under its output name, as MCML does.
    runs[0]["output"] = str(tmp_path / "vdh.mco")
    mcml.run(**runs[0])
    assert mcml.read_mco(tmp_path / "vdh.mco").photons == 2_000
    # A single dict is one run.
    mcml.write_mci(tmp_path / "one.mci", spec)
    assert len(mcml.read_mci(tmp_path / "one.mci")) == 1
