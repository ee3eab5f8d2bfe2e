"""Finite beams from Python: CONV's convolution of a pencil-beam result and the beam sampled in
the simulation, which must agree within Monte Carlo noise, and their bad arguments."""

import math

import numpy as np
import pytest

import reconverge_mcml as mcml
from conftest import VAN_DE_HULST

PHOTONS = 20_000


def ring_areas(r, dr):
    return 2 * math.pi * r * dr


@pytest.mark.parametrize("beam, radius", [("gaussian", 0.1), ("flat", 0.15)])
def test_convolution_and_sampled_beam_agree(beam, radius):
    pencil = mcml.run(photons=PHOTONS, seed=1, **VAN_DE_HULST)
    # "bins" keeps each bin's weight; CONV's interpolation gives the unscattered light, a delta
    # at r = 0 inside the first bin, up to 12.5 % more (finite_beam's docs).
    conv = mcml.convolve(pencil, beam, radius, interpolation="bins")
    sampled = mcml.run(photons=PHOTONS, seed=2, beam=beam, beam_radius=radius, **VAN_DE_HULST)
    assert conv.beam == sampled.beam == f"{beam}:{radius}"
    assert conv.power == 1.0 and conv.radius == radius
    assert conv.Rd_r.shape == (50,) and conv.A_rz.shape == (50, 20) and conv.fluence.shape == (50, 20)
    np.testing.assert_allclose(conv.r, pencil.r)
    # The reflected and transmitted energy within the beam's radius: both ways estimate it
    # from PHOTONS photons each; five standard errors of a fraction p of N photons bound the
    # difference of two such estimates.
    dr = pencil.grid["dr"]
    inside = conv.r < radius
    for name in ["Rd_r", "Tt_r"]:
        a = np.sum((getattr(conv, name) * ring_areas(conv.r, dr))[inside])
        b = np.sum((getattr(sampled, name) * ring_areas(sampled.r, dr))[inside])
        bound = 5 * math.sqrt(2 * max(a, b) * (1 - min(a, b)) / PHOTONS)
        assert abs(a - b) <= bound, f"{name}: convolved {a}, sampled {b}"
    # Energy: a beam of 1 J reflects Rd of it, whichever way it is computed (up to the light
    # the grid's edge cuts off).
    total = np.sum(conv.Rd_r * ring_areas(conv.r, dr))
    assert total == pytest.approx(pencil.Rd, rel=0.02)


def test_a_result_read_from_an_mco_convolves_as_the_run(tmp_path):
    out = tmp_path / "vdh.mco"
    run = mcml.run(photons=5_000, output=str(out), **VAN_DE_HULST)
    from_run = mcml.convolve(run, "gaussian", 0.1, power=2.0, dr=0.005, nr=80)
    from_file = mcml.convolve(mcml.read_mco(out), "gaussian:0.1", power=2.0, dr=0.005, nr=80)
    assert from_run.r.shape == (80,)
    np.testing.assert_allclose(from_file.Rd_r, from_run.Rd_r, rtol=1e-4)
    np.testing.assert_allclose(from_file.fluence, from_run.fluence, rtol=1e-4)
    # One absorbing layer: fluence is A / mua.
    np.testing.assert_allclose(from_run.fluence, from_run.A_rz / 10.0, rtol=1e-12)


@pytest.mark.parametrize(
    "kwargs, exception, message",
    [
        (dict(beam="pencil"), ValueError, "pencil beam is the result"),
        (dict(beam="gaussian"), ValueError, "needs a radius"),
        (dict(beam="gaussian", radius=-1.0), mcml.McmlError, "> 0"),
        (dict(beam="gaussian", radius=float("nan")), mcml.McmlError, "> 0"),
        (dict(beam="gaussian:0.1", radius=0.1), ValueError, "names its radius"),
        (dict(beam="laser", radius=0.1), ValueError, 'beam "laser"'),
        (dict(beam="flat:x"), ValueError, "not a number"),
        (dict(beam="flat", radius=0.1, nr=10**9), mcml.McmlError, "nr = 1000000000"),
        (dict(beam="flat", radius=0.1, dr=-1.0), mcml.McmlError, "dr"),
        (dict(beam="flat", radius=0.1, power=0.0), mcml.McmlError, "power"),
        (dict(beam="flat", radius=0.1, interpolation="cubic"), ValueError, "interpolation"),
    ],
)
def test_bad_convolution_arguments(kwargs, exception, message):
    pencil = mcml.run(photons=200, **VAN_DE_HULST)
    with pytest.raises(exception, match=message):
        mcml.convolve(pencil, **kwargs)


def test_a_sampled_beam_is_not_convolved_again(tmp_path):
    out = tmp_path / "flat.mco"
    sampled = mcml.run(photons=200, beam="flat", beam_radius=0.1, output=str(out), **VAN_DE_HULST)
    read = mcml.read_mco(out)
    assert read.beam == "flat:0.1"
    for result in (sampled, read):
        with pytest.raises(mcml.McmlError, match="already sampled"):
            mcml.convolve(result, "flat", 0.1)


@pytest.mark.parametrize(
    "kwargs, exception, message",
    [
        (dict(beam="gaussian"), ValueError, "needs a radius"),
        (dict(beam_radius=0.1), ValueError, "needs beam="),
        (dict(beam="flat", beam_radius=5.0), mcml.McmlError, "radial extent"),
        (dict(beam="flat", beam_radius=0.0), mcml.McmlError, "> 0"),
    ],
)
def test_bad_beam_arguments_of_run(kwargs, exception, message):
    with pytest.raises(exception, match=message):
        mcml.run(photons=100, **VAN_DE_HULST, **kwargs)
