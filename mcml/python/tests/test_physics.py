"""MCML's numbers from Python against published references (the MCML manual's tables 6.1 and
6.2, Fresnel's law) within the Monte Carlo noise of the photon count, and the arrays against
the totals they must integrate to."""

import math

import numpy as np
import pytest

import reconverge_mcml as mcml
from conftest import GIOVANELLI, VAN_DE_HULST


def mean_and_standard_error(values):
    values = np.asarray(values)
    return values.mean(), values.std(ddof=1) / math.sqrt(len(values))


def within_three_standard_errors(name, values, published):
    mean, se = mean_and_standard_error(values)
    assert se > 0, f"{name}: no spread over seeds"
    assert abs(mean - published) <= 3 * se, f"{name}: {mean} +- {se}, published {published}"


def test_van_de_hulst_slab_matches_mcml_manual_table_6_1():
    # Ten independent runs, as the manual estimates its errors.
    runs = [mcml.run(photons=20_000, seed=s, **VAN_DE_HULST) for s in range(1, 11)]
    assert all(r.Rsp == 0.0 for r in runs), "matched boundaries reflect nothing specularly"
    within_three_standard_errors("Rd", [r.Rd for r in runs], 0.09739)
    within_three_standard_errors("Tt", [r.Tt for r in runs], 0.66096)


def test_giovanelli_semi_infinite_medium_matches_mcml_manual_table_6_2():
    runs = [mcml.run(photons=5_000, seed=s, **GIOVANELLI) for s in range(1, 11)]
    within_three_standard_errors("Rsp + Rd", [r.Rsp + r.Rd for r in runs], 0.2600)
    # Fresnel at normal incidence, air to n 1.5: ((1.5 - 1) / (1.5 + 1))^2 = 0.04.
    assert runs[0].Rsp == pytest.approx(0.04, abs=1e-7)  # computed in f32
    assert runs[0].Tt == 0.0, "nothing crosses 1e8 cm"


def test_one_run_lies_within_the_noise_its_photon_count_predicts():
    # Rd of N photons has a standard error of at most sqrt(Rd (1 - Rd) / N) for packets that
    # leave with all their weight; weighted packets spread less. Five of them cover the
    # published value with room to spare.
    photons = 40_000
    r = mcml.run(photons=photons, seed=7, **VAN_DE_HULST)
    for value, published in [(r.Rd, 0.09739), (r.Tt, 0.66096)]:
        bound = 5 * math.sqrt(published * (1 - published) / photons)
        assert abs(value - published) <= bound


def test_weight_is_conserved_up_to_roulette():
    r = mcml.run(photons=20_000, **GIOVANELLI)
    # Roulette adds or removes weight at random, about 1e-4 of a packet per photon at most.
    assert r.Rsp + r.Rd + r.A + r.Tt == pytest.approx(1.0, abs=2e-3)


def test_arrays_integrate_to_the_totals():
    r = mcml.run(photons=20_000, precision="f64", **VAN_DE_HULST)
    g = r.grid
    dr, dz, da = g["dr"], g["dz"], math.pi / 2 / g["na"]
    # MCML's normalisations (manual, ch. 4): Rd_r per ring area 2 pi r dr, Rd_a per solid
    # angle 2 pi sin(a) da, A_z per dz, A_rz per ring volume.
    ring = 2 * math.pi * r.r * dr
    assert np.sum(r.Rd_r * ring) == pytest.approx(r.Rd, rel=1e-9)
    assert np.sum(r.Tt_r * ring) == pytest.approx(r.Tt, rel=1e-9)
    assert np.sum(r.Rd_a * 2 * math.pi * np.sin(r.alpha) * da) == pytest.approx(r.Rd, rel=1e-9)
    assert np.sum(r.A_z * dz) == pytest.approx(r.A, rel=1e-9)
    assert np.sum(r.A_l) == pytest.approx(r.A, rel=1e-9)
    assert np.sum(r.A_rz * ring[:, None] * dz) == pytest.approx(r.A, rel=1e-9)
    # One absorbing layer (mua 10 /cm): fluence is A_rz / 10 everywhere.
    np.testing.assert_allclose(r.fluence, r.A_rz / 10.0, rtol=1e-15)


def test_every_strategy_gives_the_same_numbers_bit_for_bit():
    scalar = mcml.run(photons=3_000, strategy="scalar", **VAN_DE_HULST)
    for strategy in ["baseline", "dynamic", "cost-balanced", "branch-distribution-cost-balanced"]:
        other = mcml.run(photons=3_000, strategy=strategy, **VAN_DE_HULST)
        assert other.strategy == strategy
        assert (other.Rd, other.A, other.Tt) == (scalar.Rd, scalar.A, scalar.Tt)
        np.testing.assert_array_equal(other.A_rz, scalar.A_rz)
        np.testing.assert_array_equal(other.Rd_ra, scalar.Rd_ra)
        assert 0 < other.simd_efficiency <= 1
    assert scalar.simd_efficiency is None


def test_seeds_and_precisions():
    a = mcml.run(photons=2_000, seed=3, **VAN_DE_HULST)
    assert mcml.run(photons=2_000, seed=3, **VAN_DE_HULST).Rd == a.Rd
    assert mcml.run(photons=2_000, seed=4, **VAN_DE_HULST).Rd != a.Rd
    f64 = mcml.run(photons=2_000, seed=3, precision="f64", **VAN_DE_HULST)
    assert (a.precision, f64.precision) == ("f32", "f64")
    # Other rounding soon sends the photons on other paths: both are estimates of the
    # published value, within five standard errors of 2,000 photons.
    bound = 5 * math.sqrt(0.09739 * (1 - 0.09739) / 2_000)
    for r in (a, f64):
        assert abs(r.Rd - 0.09739) <= bound
