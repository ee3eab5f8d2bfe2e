"""Bad arguments raise Python exceptions that say what was wrong, never a crash."""

import os

import pytest

import reconverge_mcml as mcml

SLAB = [(1.4, 1.0, 10.0, 0.9, 0.5)]


@pytest.mark.parametrize(
    "kwargs, exception, message",
    [
        (dict(layers=[(1.4, 1.0, 10.0, 1.5, 0.5)]), mcml.McmlError, "g of layer 1 = 1.5"),
        (dict(layers=[(1.4, 1.0, 10.0, 0.9, -0.5)]), mcml.McmlError, "d of layer 1 = -0.5"),
        (dict(layers=[(1.4, -1.0, 10.0, 0.9, 0.5)]), mcml.McmlError, "mua of layer 1 = -1"),
        (dict(layers=[(0.0, 1.0, 10.0, 0.9, 0.5)]), mcml.McmlError, "n of layer 1 = 0"),
        (dict(layers=[(1.4, float("nan"), 10.0, 0.9, 0.5)]), ValueError, r'layers\[0\]\["mua"\]'),
        (dict(layers=[(1.4, 1.0, float("inf"), 0.9, 0.5)]), ValueError, "finite"),
        (dict(layers=SLAB, n_above=float("nan")), ValueError, "n_above"),
        (dict(layers=SLAB, n_below=-1.0), mcml.McmlError, "medium below"),
        (dict(layers=[]), mcml.McmlError, "at least one layer"),
        (dict(layers=[(1.4, 1.0, 10.0)]), ValueError, "five numbers"),
        (dict(layers="slab"), ValueError, "list of layers"),
        (dict(layers=[dict(n=1.4, mua=1.0, mus=10.0, g=0.9)]), ValueError, 'missing key "d"'),
        (dict(layers=[dict(n=1, mua=1, mus=1, g=0, d=1, D=2)]), ValueError, 'unknown key "D"'),
        (dict(layers=SLAB, photons=0), mcml.McmlError, "photons = 0"),
        (dict(layers=SLAB, photons=-5), mcml.McmlError, "photons = -5"),
        (dict(layers=SLAB, photons=2**70), mcml.McmlError, "whole number"),
        (dict(layers=SLAB, grid=dict(nz=32767, nr=32767)), mcml.McmlError, "tally bins"),
        (dict(layers=SLAB, grid=dict(nz=0)), mcml.McmlError, "nz = 0"),
        (dict(layers=SLAB, grid=dict(nr=-3)), mcml.McmlError, "nr = -3"),
        (dict(layers=SLAB, grid=dict(dz=-0.1)), mcml.McmlError, "dz = -0.1"),
        (dict(layers=SLAB, grid=dict(dr=1e-300)), mcml.McmlError, "dr = 1e-300"),
        (dict(layers=SLAB, grid=dict(dz=float("nan"))), ValueError, "finite"),
        (dict(layers=SLAB, grid=dict(nx=3)), ValueError, 'unknown key "nx"'),
        (dict(layers=SLAB, grid=dict(nz=2.5)), ValueError, "whole number of bins"),
        (dict(layers=[(1.4, 0.0, 1e300, 0.9, 0.5)]), mcml.McmlError, "layer 1"),
        (dict(layers=SLAB, strategy="fastest"), ValueError, "not one of scalar, baseline"),
        (dict(layers=SLAB, backend="tpu"), ValueError, 'backend "tpu"'),
        (dict(layers=SLAB, precision="f16"), ValueError, 'precision "f16"'),
        (dict(layers=SLAB, backend="cuda", precision="f64"), ValueError, "f32 only"),
        (dict(layers=SLAB, backend="cuda", strategy="scalar"), ValueError, "CPU only"),
        (dict(), ValueError, "give layers"),
        (dict(layers=SLAB, mci="x.mci"), ValueError, "not both"),
    ],
)
def test_bad_run_arguments(kwargs, exception, message):
    with pytest.raises(exception, match=message):
        mcml.run(**kwargs)


@pytest.mark.parametrize("photons", ["many", 1.5, None.__class__, True])
def test_photons_of_the_wrong_type_is_a_type_error(photons):
    with pytest.raises(TypeError, match="photons must be an int"):
        mcml.run(SLAB, photons=photons)


def test_an_index_below_one_runs_with_a_warning_naming_the_layer():
    with pytest.warns(UserWarning, match=r"layer 2 has refractive index n = 0\.4"):
        r = mcml.run([SLAB[0], (0.4, 1.0, 10.0, 0.9, 0.1)], photons=50)
    assert r.photons == 50


def test_mcml_error_is_a_value_error():
    assert issubclass(mcml.McmlError, ValueError)


@pytest.mark.skipif(mcml.CUDA, reason="built with CUDA")
def test_cuda_without_the_feature_says_how_to_get_it():
    with pytest.raises(RuntimeError, match="built without CUDA support"):
        mcml.run(SLAB, photons=10, backend="cuda")


def test_files_that_are_missing_or_not_files(tmp_path):
    with pytest.raises(FileNotFoundError, match="missing.mci"):
        mcml.run(mci=tmp_path / "missing.mci")
    with pytest.raises(FileNotFoundError, match="missing.mco"):
        mcml.read_mco(tmp_path / "missing.mco")
    with pytest.raises(FileNotFoundError):
        mcml.read_mci(str(tmp_path / "missing.mci"))
    with pytest.raises(OSError):
        mcml.read_mco(tmp_path)
    with pytest.raises(OSError):
        mcml.read_mci(tmp_path)
    with pytest.raises(OSError):
        mcml.write_mci(tmp_path / "no-such-dir" / "x.mci", dict(layers=SLAB))
    with pytest.raises(mcml.McmlError, match="output"):
        mcml.run(SLAB, photons=10, output=str(tmp_path / "no-such-dir" / "x.mco"))


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every file")
def test_unreadable_file(tmp_path):
    p = tmp_path / "locked.mco"
    p.write_text("A1\n")
    p.chmod(0)
    with pytest.raises(PermissionError):
        mcml.read_mco(p)


def test_malformed_files_name_their_line(tmp_path):
    mci = tmp_path / "bad.mci"
    mci.write_text("1.0\n1\nout.mco A\n1000\n0.01 0.01\n10 10 10\n1\n1.0\n1.4 1 10 2.0 0.5\n1.0\n")
    with pytest.raises(mcml.McmlError, match=r"bad.mci:9: g of layer 1 = 2.0"):
        mcml.run(mci=mci)
    with pytest.raises(mcml.McmlError, match=r"bad.mci:9"):
        mcml.read_mci(mci)
    mco = tmp_path / "bad.mco"
    mco.write_text("A1\nInParm\nout.mco A\nmany\n")
    with pytest.raises(mcml.McmlError, match=r"bad.mco:4: expected the number of photons"):
        mcml.read_mco(mco)
    mco.write_bytes(b"A1\nInParm\n\xff\n")
    with pytest.raises(mcml.McmlError, match=r"bad.mco:3"):
        mcml.read_mco(mco)
    good = tmp_path / "good.mci"
    mcml.write_mci(good, dict(layers=SLAB, photons=10))
    with pytest.raises(ValueError, match="mci_run = 1"):
        mcml.run(mci=good, mci_run=1)
    with pytest.raises(ValueError, match="grid= is for a layer list"):
        mcml.run(mci=good, grid=dict(nz=3))


@pytest.mark.parametrize(
    "runs, exception, message",
    [
        ([], ValueError, "at least one run"),
        ([dict(photons=10)], ValueError, 'missing key "layers"'),
        ([dict(layers=SLAB, colour="red")], ValueError, 'unknown key "colour"'),
        ([dict(layers=SLAB, output="a.mco"), dict(layers=SLAB, output="a.mco")], mcml.McmlError, "also written"),
        ([dict(layers=SLAB, output="two words.mco")], ValueError, "without blanks"),
        ([dict(layers=[(1.4, 1.0, 10.0, 0.9, -1.0)])], mcml.McmlError, r"runs\[0\]: d of layer 1"),
        ([dict(layers=SLAB, grid=[1, 2])], ValueError, "must be a dict"),
        (["not a dict"], ValueError, r"runs\[0\] must be a dict"),
    ],
)
def test_bad_write_mci_arguments(tmp_path, runs, exception, message):
    path = tmp_path / "out.mci"
    with pytest.raises(exception, match=message):
        mcml.write_mci(path, runs)
    assert not path.exists(), "nothing is written for a refused input"
